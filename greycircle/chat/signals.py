"""What chat tells the apps above it (reports) without importing them.

`message_flagged` is sent on commit, with `message=` (the saved message: a chat.GameMessage, or
another app's message model, as conversations sends it for messages between friends) and
`reason=` (the screening's reason, e.g. "profanity: ..."), whenever `screening.message_screen`
flagged a message that was then kept, shadow-hidden. The reports app files an automatic report.
"""

from django.dispatch import Signal

message_flagged = Signal()
