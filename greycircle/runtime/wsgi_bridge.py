"""Django's WSGI handler on a pool of threads inside the ASGI server (a2wsgi), with request threads
that never wait for an event loop that has stopped serving them.

Library seam (UPGRADING.md, "a2wsgi"): a2wsgi==1.10.10. It subclasses `a2wsgi.wsgi.WSGIMiddleware`
(`app`, `executor`, `send_queue_size`), `WSGIResponder` (a copy of its `__call__`, and `send`, using
`loop`, `executor`, `sender`, `send_queue`, `start_response`, `wsgi`, `exc_info`) and `Body`
(`_receive_more_data`, `_has_more`, `receive`), and calls `build_environ`. Why: 8 of 8 Daphne
processes stopped under load never exited; with the bridge they exit in 0.84 to 0.85 s, for no
measurable cost (891 against 888 µs of CPU per request; bench/README.md, "Server shutdown").

a2wsgi's request thread hands each part of the response to the event loop (and asks it for each
part of the body) and waits for the loop without a limit. A server that cancels its requests and
stops its loop while one is in flight leaves that thread waiting forever, and Python waits for the
thread at exit: the process never ends. Daphne does exactly this on SIGTERM (measured: 8 of 8
Daphne processes stopped under load never exited). Here a request thread waits in short slices
and gives up once its request is over on the loop's side (answered, failed or cancelled), its
response can no longer be sent (the client went away), or the loop has stopped: Django sees a
broken connection, closes the request as usual, and the thread is free.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
from typing import Any, TypeVar

from a2wsgi.wsgi import Body, WSGIMiddleware, WSGIResponder, build_environ

T = TypeVar("T")

# How often a waiting request thread checks whether its request is still being served.
LOOP_CHECK_SECONDS = 0.25


class RequestAbandoned(ConnectionAbortedError):
    """The server stopped serving this request: nobody will read what its thread sends."""


class _Responder(WSGIResponder):
    """One request: a2wsgi's, but `abandoned` once the loop's side of it is over."""

    abandoned = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body = _Body(self, receive)
        environ = build_environ(scope, body)
        sender = self._sending = self.loop.create_task(self.sender(send))
        try:
            run = functools.partial(contextvars.copy_context().run, self.wsgi)
            await self.loop.run_in_executor(self.executor, run, environ, self.start_response)
            await self.send_queue.put(None)
            await sender  # it raises what sending raised
            if self.exc_info is not None:
                raise self.exc_info[0].with_traceback(self.exc_info[1], self.exc_info[2])
        finally:
            self.abandoned = True
            sender.cancel()

    def send(self, message: Any) -> None:
        self.wait_for_loop(self.send_queue.put(message))

    def wait_for_loop(self, work: Any) -> Any:
        """Run the coroutine `work` on the loop and wait for its result, from the request thread,
        for as long as the loop still serves this request."""
        future = asyncio.run_coroutine_threadsafe(work, loop=self.loop)
        while True:
            try:
                return future.result(timeout=LOOP_CHECK_SECONDS)
            except concurrent.futures.TimeoutError:
                # Still served: the loop runs, the request is not over, and its response is still
                # being sent (sending stops when the client goes away: nothing empties the queue).
                if self.loop.is_running() and not (self.abandoned or self._sending.done()):
                    continue
                future.cancel()
                if not self.loop.is_running():
                    work.close()  # the loop will never run it: no "never awaited" at exit
                raise RequestAbandoned("the server stopped serving this request") from None


class _Body(Body):
    """The request's body, read from the loop only while the loop serves the request."""

    def __init__(self, responder: _Responder, receive: Any) -> None:
        super().__init__(responder.loop, receive)
        self._responder = responder

    def _receive_more_data(self) -> bytes:
        if not self._has_more:
            return b""
        message = self._responder.wait_for_loop(self.receive())
        self._has_more = message.get("more_body", False)
        return message.get("body", b"")


class WSGIBridge(WSGIMiddleware):
    """a2wsgi's `WSGIMiddleware` whose request threads end when their request is abandoned."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            responder = _Responder(self.app, self.executor, self.send_queue_size)
            return await responder(scope, receive, send)
        return await super().__call__(scope, receive, send)
