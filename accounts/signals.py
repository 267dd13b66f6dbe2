"""What accounts tell the apps above them, which accounts never import.

`user_blocked` is sent inside the transaction that records a block (both users' rows locked),
with `blocker` and `blocked`: receivers part the two wherever they would otherwise end up
together (greycircle.games: the seats of games that have not started).
"""

from django.dispatch import Signal

user_blocked = Signal()
