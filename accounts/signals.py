"""What accounts tell the apps above them, which accounts never import.

`user_blocked` is sent inside the transaction that records a block (both users' rows locked),
with `blocker` and `blocked`: receivers part the two wherever they would otherwise end up
together (greycircle.games: the seats of games that have not started).

`friend_news` is sent after the commit of a friend request (`event="friend_request"`) or of the
friendship it made (`"friend_accepted"`), with `user_id` (who is to be told) and `data` (the
event's fields): the receiver tells that user (greycircle.notifications.receivers: their inbox
and their `ws/me/` stream).
"""

from django.dispatch import Signal

user_blocked = Signal()
friend_news = Signal()
