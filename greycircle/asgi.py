"""ASGI entry point: HTTP through Django's WSGI handler on a pool of threads, WebSockets through
Channels.

Every view of ours is sync. Under Django's ASGI handler each request hops between the event loop
and the one thread that runs a process's sync code several times (the handler, around each
middleware that cannot run async, the view), and every request of the process queues for that one
thread, waits on the database included. a2wsgi runs the whole WSGI handler in one hop, on
`HTTP_THREADS` threads (each with its own database connection), so one request's waits on the
database or Redis overlap another's work, and the event loop keeps serving sockets meanwhile.
(greycircle.runtime.wsgi_bridge: a2wsgi, with request threads that end when the server stops
serving them.)
"""

import os
from concurrent.futures import ThreadPoolExecutor

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "greycircle.settings")
django_wsgi_app = get_wsgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from accounts.websocket_auth import WebSocketAuthMiddlewareStack  # noqa: E402
from greycircle.chat.routing import websocket_urlpatterns as chat_websockets  # noqa: E402
from greycircle.conversations.routing import (  # noqa: E402
    websocket_urlpatterns as conversations_websockets,
)
from greycircle.games.routing import websocket_urlpatterns  # noqa: E402
from greycircle.lobby.routing import websocket_urlpatterns as lobby_websockets  # noqa: E402
from greycircle.runtime.wsgi_bridge import WSGIBridge  # noqa: E402


class BodyLength:
    """Give WSGI the `Content-Length` of a request sent without one (chunked): WSGI reads only
    that many bytes of a body, where Django's ASGI handler read all of it. Such a body is read
    first, up to Django's cap on bodies; a longer one is refused with 413."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if any(name == b"content-length" for name, _ in scope["headers"]):
            return await self.application(scope, receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
                await send({"type": "http.response.start", "status": 413, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
        scope = {**scope, "headers": [*scope["headers"], (b"content-length", b"%d" % len(body))]}
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.application(scope, replay, send)


http_threads = WSGIBridge(django_wsgi_app, workers=settings.HTTP_THREADS)


def _http_threads_afresh() -> None:
    # A forked child (a test's server process) has none of its parent's threads: a pool that
    # believes it has some would queue requests that no thread runs.
    http_threads.executor = ThreadPoolExecutor(
        thread_name_prefix="WSGI", max_workers=settings.HTTP_THREADS
    )


os.register_at_fork(after_in_child=_http_threads_afresh)

application = ProtocolTypeRouter(
    {
        "http": BodyLength(http_threads),
        "websocket": WebSocketAuthMiddlewareStack(
            # A game's socket with its chat (greycircle.chat), and the user's with their
            # messages (greycircle.conversations), first: the games' own routes know nothing of
            # either.
            URLRouter(
                chat_websockets
                + conversations_websockets
                + websocket_urlpatterns
                + lobby_websockets
            )
        ),
    }
)
