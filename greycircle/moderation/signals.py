"""What moderation tells players, for whoever follows it (the inbox:
greycircle.notifications.receivers, connected in its app's `ready()`), so that moderation never
imports the notifications app.

Sent synchronously inside the sanction's transaction (greycircle.moderation.sanctions): a
receiver that queues rows queues them with it. The arguments are plain JSON values.
"""

from __future__ import annotations

from django.dispatch import Signal

moderation_notice = Signal()
"""A player is told of a sanction imposed on them, or lifted. Arguments: `user_id`, `event`
("moderation_notice", as `ws/me/` sends it) and `data`: `sanction` (its id), `sanction_kind`
(warn, mute, rated_bar, rename, deactivate), `lifted` (bool), `notice` (what the player is
told) and `until` (when a mute or bar ends, ISO; None when lifted or for the other kinds)."""
