"""The WSGI bridge: a request thread never outlives the server's interest in its request.

A server that cancels a request (Daphne, on SIGTERM) and stops its event loop must not leave the
request's thread waiting for that loop: Python waits for the thread at exit, and the process
would never end.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from django.db import connections

from greycircle.runtime.wsgi_bridge import WSGIBridge
from tests.asgi_server import asgi_server, status_of
from tests.greycircle.runtime.test_server import _database_url
from tests.redis_server import wait_for

# Any wait for a thread or the loop: each ends when what it waits for happens; the bound is for a
# machine whose cores are busy.
WITHIN = 30.0
# A thread gives up within LOOP_CHECK_SECONDS of its request being abandoned; one that does not
# stays stuck for good.
THREAD_FREED_WITHIN = WITHIN
# Daphne stopped under load exits (in ≈0.6 s on an idle 2-core machine); before the bridge it never
# did. The bound is for a busy machine; how fast it exits is bench/shutdown.py's.
EXIT_WITHIN = 30.0

SCOPE = {
    "type": "http",
    "asgi": {"version": "3.0"},
    "http_version": "1.1",
    "method": "GET",
    "scheme": "http",
    "path": "/",
    "raw_path": b"/",
    "query_string": b"",
    "root_path": "",
    "headers": [(b"host", b"testserver")],
    "client": ("127.0.0.1", 50000),
    "server": ("testserver", 80),
}


class Response:
    """A WSGI app's response whose body is produced once the test lets it (`proceed`)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.proceed = threading.Event()
        self.closed = threading.Event()

    def app(self, environ, start_response):
        start_response("200 OK", [("content-type", "text/plain")])
        self.started.set()
        return self

    def __iter__(self) -> Iterator[bytes]:
        self.proceed.wait(timeout=10)
        for _ in range(5):
            yield b"late"

    def close(self) -> None:
        self.closed.set()


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop running in a thread of its own, as a server's."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    if loop.is_running():
        loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=WITHIN)
    # What a test left pending on the loop (as a stopped server does) ends here, not at exit.
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.wait(pending))
    loop.close()


def serve(loop, bridge: WSGIBridge, receive=None, send=None) -> asyncio.Future:
    """Start one GET through `bridge` on `loop`; the task serving it."""

    async def request_received():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def sent(message):
        pass

    async def start():
        return asyncio.ensure_future(bridge(SCOPE, receive or request_received, send or sent))

    return asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=WITHIN)


def cancel(loop, task: asyncio.Future) -> None:
    loop.call_soon_threadsafe(task.cancel)


def thread_is_free(bridge: WSGIBridge) -> bool:
    """The bridge's only thread takes new work within THREAD_FREED_WITHIN."""
    return bridge.executor.submit(lambda: True).result(timeout=THREAD_FREED_WITHIN)


def test_a_request_thread_ends_when_the_server_cancels_the_request_and_stops_its_loop(loop):
    response = Response()
    bridge = WSGIBridge(response.app, workers=1)
    task = serve(loop, bridge)
    assert response.started.wait(timeout=WITHIN)

    cancel(loop, task)
    loop.call_soon_threadsafe(loop.stop)
    response.proceed.set()

    assert response.closed.wait(timeout=THREAD_FREED_WITHIN), "Django's response was not closed"
    assert thread_is_free(bridge)


def test_a_request_thread_ends_when_its_request_is_cancelled_while_the_loop_runs_on(loop):
    # More to send than the send queue holds, and nobody left to take it from the queue.
    response = Response()
    bridge = WSGIBridge(response.app, workers=1, send_queue_size=1)
    task = serve(loop, bridge)
    assert response.started.wait(timeout=WITHIN)

    cancel(loop, task)
    response.proceed.set()

    assert response.closed.wait(timeout=THREAD_FREED_WITHIN)
    assert thread_is_free(bridge)
    assert loop.is_running()


def test_a_request_thread_ends_when_its_client_goes_away(loop):
    response = Response()
    bridge = WSGIBridge(response.app, workers=1, send_queue_size=1)

    async def client_gone(message):
        if message["type"] == "http.response.body":
            raise ConnectionResetError("the client went away")

    serve(loop, bridge, send=client_gone)
    assert response.started.wait(timeout=WITHIN)

    response.proceed.set()

    assert response.closed.wait(timeout=THREAD_FREED_WITHIN)
    assert thread_is_free(bridge)


def test_a_request_thread_reading_a_body_that_never_comes_ends_when_the_request_is_cancelled(loop):
    reading = threading.Event()
    outcome: list[BaseException] = []

    def app(environ, start_response):
        reading.set()
        try:
            environ["wsgi.input"].read()
        except BaseException as error:
            outcome.append(error)
            raise
        start_response("200 OK", [])
        return [b""]

    async def body_never_sent():
        await asyncio.Event().wait()

    bridge = WSGIBridge(app, workers=1)
    task = serve(loop, bridge, receive=body_never_sent)
    assert reading.wait(timeout=WITHIN)

    cancel(loop, task)

    assert thread_is_free(bridge)
    assert [type(error).__name__ for error in outcome] == ["RequestAbandoned"]


@pytest.mark.django_db(transaction=True)
def test_daphne_stopped_under_load_exits(tmp_path):
    # Before the bridge, 8 of 8 such runs never exited: request threads waited on Daphne's
    # stopped loop, and Python waited on them.
    connections.close_all()  # the server must not wait on this process's hold of the database
    answers: list[int | None] = []
    stop = threading.Event()
    try:
        with asgi_server(
            "daphne",
            environment={"DATABASE_URL": _database_url()},
            log=tmp_path / "daphne.log",
            stop_within=EXIT_WITHIN,
        ) as base:

            def load() -> None:
                while not stop.is_set():
                    answers.append(status_of(f"{base}/api/v1/me/"))

            for _ in range(16):
                threading.Thread(target=load, daemon=True).start()
            wait_for(lambda: len(answers) >= 100, timeout=30, what="the load")
    finally:
        stop.set()  # only now: requests were in flight through SIGTERM and the exit
    assert {401, 403} & set(answers)
