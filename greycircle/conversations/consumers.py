"""`ws/me/` with the messages between friends: the platform's user stream
(greycircle.games.consumers.MeConsumer), which knows nothing of conversations, and on top of it
the unread messages' count in its `hello` (`messages_unread_count`, as the conversations API
names it), so that a client that reconnects corrects its messages badge as it corrects its
notifications badge: frames sent while it was away are not sent again. The same `hello` answers
a `live.resync` (greycircle.games.events.missed), so a lost `messages_unread` is made good too.

Served instead of the platform's by greycircle.conversations.routing, put first in
greycircle.asgi, as greycircle.chat does for a game's socket.
"""

from __future__ import annotations

import asyncio
from typing import Any

from greycircle.conversations.selectors import messages_unread_count
from greycircle.games.consumers import MeConsumer
from greycircle.socket_threads import run_shared


class MessagesMeConsumer(MeConsumer):
    async def hello(self, user: Any) -> dict[str, Any]:
        # Both counts read at once, each on a socket thread (one query each).
        hello, messages_unread = await asyncio.gather(
            super().hello(user),
            run_shared(("socket-messages-unread", user.pk), messages_unread_count, user=user.pk),
        )
        return {**hello, "messages_unread_count": messages_unread}
