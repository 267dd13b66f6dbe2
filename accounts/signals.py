"""What accounts tell the apps above them, which accounts never import.

`user_blocked` is sent inside the transaction that records a block (both users' rows locked),
with `blocker` and `blocked`: receivers part the two wherever they would otherwise end up
together (greycircle.games: the seats of games that have not started).

`friend_news` is sent inside the transaction that records a friend request
(`event="friend_request"`) or the friendship it made (`"friend_accepted"`), with `user_id` (who is
to be told) and `data` (the event's fields, JSON): the receiver queues that user's notification
in the same transaction, so it commits or rolls back with the change
(greycircle.notifications.receivers: their inbox and their `ws/me/` stream, from the task worker).
"""

from django.dispatch import Signal

user_blocked = Signal()
friend_news = Signal()
