"""Which of a player's channels (inbox, push, e-mail) each kind of notification goes to.

A player chooses per kind and channel, on the settings page's grid (one row per kind, a box on
each channel the kind is really sent on: every kind is kept in the inbox and pushed, only some
are mailed) and in `/api/v1/me/`. Defaults: the inbox on for every kind; push on for what asks
something of the player or ends their game (friend requests, invitations, your turn, reminders,
time running out, game over), off for the mere answers; e-mail as it always was (your turn off).
"Not while I am on the site" is one preference for push and one for e-mail (both on): the open
page already says it. The daily digest (greycircle.notifications.digest) is a preference of its
own, apart from the per-game your-turn e-mail.

Why fields of accounts.User and not a model here: the settings page and `/api/v1/me/` are
accounts', which may not import the platform (tests/greycircle/test_layers.py), and every
delivery reads the recipient's row already (the e-mail check locks it), so the preferences cost
no query. The grid itself (kind -> channel -> field) is `User.NOTIFICATION_CHANNELS`, naming the
kinds by value; NotificationKind must match it (checked by the tests).

What each channel does with a "no":
- inbox: the notification is kept hidden (`in_inbox` False): not listed, not counted as unread,
  not in the `ws/me/` frame's `inbox` (which is null). It is still kept because push and e-mail
  send a kept notification, and because the version order of a game's notifications compares
  with it (a late "your turn" must not follow "game over"). The live `ws/me/` frame of the event
  still goes: open pages update their lists and boards by it, and that is the site showing
  itself, not a notification (the page shows no toast for it and the badge does not change).
- push: none is queued (greycircle.push.tasks.push_enqueue), and none is sent if the player
  changed their mind before it went (greycircle.push.webpush.notification_pushable).
- e-mail: none is queued nor sent (greycircle.notifications.mail.mail_refusal).
"""

from __future__ import annotations

from enum import StrEnum

from accounts.models import User
from greycircle import presence


class Channel(StrEnum):
    INBOX = "inbox"
    PUSH = "push"
    EMAIL = "email"


def preference_of(*, kind: str, channel: Channel) -> str | None:
    """The field of accounts.User that asks for `kind` on `channel`; None: never sent there."""
    return User.NOTIFICATION_CHANNELS.get(kind, {}).get(channel)


def channel_wanted(*, user: User, kind: str, channel: Channel) -> bool:
    """Whether `user` wants notifications of `kind` on `channel` (False where it is never sent)."""
    preference = preference_of(kind=kind, channel=channel)
    return preference is not None and bool(getattr(user, preference))


def away_refusal(*, user: User, channel: Channel) -> str | None:
    """ "recipient online" if `user` is on the site and wants no `channel` (push or e-mail) while
    they are (one cache lookup); None otherwise."""
    only_away = user.push_only_away if channel == Channel.PUSH else user.email_only_away
    if only_away and presence.user_is_online(user.pk):
        return "recipient online"
    return None


def push_refusal(*, user: User, kind: str) -> str | None:
    """Why a notification of `kind` is not to be pushed to `user` (a few words), or None."""
    if not channel_wanted(user=user, kind=kind, channel=Channel.PUSH):
        return "recipient opted out"
    return away_refusal(user=user, channel=Channel.PUSH)
