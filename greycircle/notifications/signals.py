"""What the inbox tells the channels that carry a notification beyond it (Web Push, app push).

`notification_kept` is sent by `services.notification_deliver` each time a notification is kept
in a user's inbox, new or refreshed (a refreshed one is news again), inside the transaction that
keeps it: a receiver that queues its own delivery (a task row) queues it in that transaction, so
it is queued exactly when the notification is kept. Arguments: `notification` (the Notification,
its `recipient` loaded). E-mail is queued the same way, by `mail_tasks.notification_mail_enqueue`.
"""

from __future__ import annotations

from django.dispatch import Signal

notification_kept = Signal()
