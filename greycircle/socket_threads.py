"""The threads on which WebSockets do their synchronous work: authentication, the reads a consumer
makes when it connects, presence.

asgiref runs every `sync_to_async(thread_sensitive=True)` call of a process (channels'
`database_sync_to_async` included) on one thread, the same one that runs all the process's sync
Django views. A socket's handshake waited there behind every request and every other handshake, and
each call opened a database connection of its own (CONN_MAX_AGE=0): when a server restarted and its
clients reconnected at once, half the handshakes timed out.

`run_for_socket(func, ...)` runs `func` on a small pool of threads of their own instead, THREADS
per process, first come first served. What runs there must be thread-safe as any code of a
threaded WSGI server is (Django's ORM and cache are), and must not need the sync-view thread
(nothing of ours does: no thread-sensitive state is shared with views).
`run_shared(key, func, ...)` also lets sockets that ask for the same read at the same moment (a
page's two sockets authenticating with one session, a game's spectators reconnecting together)
share one call, as long as it has not started: what it reads is then as fresh as a call of their
own would have read.

Database connections. Django's connections are per thread, so a process holds at most THREADS of
them for its sockets. A thread keeps its connection from one call to the next while work is
waiting, so a burst of handshakes reuses a few connections instead of opening one per call (about
17 ms of CPU each with PostgreSQL's SCRAM authentication on loopback). When a thread runs out of
work (none comes within `PAUSE`) it applies Django's rule (`close_old_connections`, as at the end
of a request: with CONN_MAX_AGE=0 the connection is closed, otherwise kept until it is that old,
and checked before reuse when CONN_HEALTH_CHECKS is on); between calls that come sooner it is
not checked again. After every call a connection that the call left unusable (a database error,
autocommit not restored) is dropped whatever its age.

Each thread runs its calls in a context of its own rather than in a copy of the caller's (as
`sync_to_async` does), so what Django keeps per context lives per thread, as under WSGI: one cache
object, with its Redis connection pool, per thread instead of one per socket.

Library seam (UPGRADING.md, "Django"): the connection's `close_at`, `health_check_done` and
`errors_occurred` are Django's internals, read and set to keep its rules but for the health check
of a connection just used.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import queue
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future
from typing import Any, ParamSpec, TypeVar

from django.db import close_old_connections, connections

P = ParamSpec("P")
R = TypeVar("R")

# Threads per process. The work is short (a few queries, a few cache round trips) and the GIL
# lets one of them run Python at a time: more threads than this only open more connections.
THREADS = 4


# A thread that waits no longer than this for its next call keeps its connection as it is (no
# CONN_MAX_AGE rule, no health check armed): under load a connection is checked once, not
# before every move (a `SELECT 1`, a transaction of its own: 0.9 more a move, bench/README.md,
# "Moves over the socket").
PAUSE = 0.5


def _drop_unusable_connections() -> None:
    """Close this thread's connections that are broken or outside autocommit, whatever their age
    (Django's `close_if_unusable_or_obsolete` without its CONN_MAX_AGE clock). One that a call
    just used without an error is not checked again before the next call (Django's would be):
    only a wait for work arms the health check (`SocketExecutor._work`)."""
    for connection in connections.all(initialized_only=True):
        close_at, connection.close_at = connection.close_at, None
        checked = connection.health_check_done and not connection.errors_occurred
        try:
            connection.close_if_unusable_or_obsolete()
        finally:
            connection.close_at = close_at
        if connection.connection is not None and checked:
            connection.health_check_done = True


class SocketExecutor(Executor):
    """A fixed pool of daemon threads that releases database connections when it runs out of work.

    (A `ThreadPoolExecutor` cannot tell its threads that the queue is empty before they block.)
    """

    def __init__(self, threads: int, name: str = "socket-sync", *, pause: float = PAUSE) -> None:
        self._threads_wanted = threads
        self.pause = pause
        self._name = name
        self._queue: queue.SimpleQueue[tuple[Future, Callable[[], Any]] | None] = (
            queue.SimpleQueue()
        )
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._shutdown = False
        # A forked child (a test's server process) has none of its parent's threads.
        os.register_at_fork(after_in_child=self._start_afresh)

    def _start_afresh(self) -> None:
        self._queue = queue.SimpleQueue()
        self._threads = []
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
        future: Future[R] = Future()
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot schedule new work after shutdown")
            self._queue.put((future, functools.partial(fn, *args, **kwargs)))
            if len(self._threads) < self._threads_wanted:
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shutdown = True
            threads = list(self._threads)
        for _ in threads:
            self._queue.put(None)
        if wait:
            for thread in threads:
                thread.join()

    def close_connections(self, timeout: float = 5.0) -> None:
        """Close the database connections that the threads keep (CONN_MAX_AGE > 0), each on its
        own thread, once the work queued before has run. (Tests: before the test database goes.)"""
        with self._lock:
            count = len(self._threads)
        if not count:
            return
        # Each thread takes one of these and waits at the barrier for the others: one per thread.
        barrier = threading.Barrier(count, timeout=timeout)

        def close() -> None:
            connections.close_all()
            barrier.wait()

        for future in [self.submit(close) for _ in range(count)]:
            future.result(timeout=timeout * 2)

    def _work(self) -> None:
        context = contextvars.Context()
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                try:
                    item = self._queue.get(timeout=self.pause)
                except queue.Empty:
                    # Out of work: release connections as at the end of a request, then wait.
                    context.run(close_old_connections)
                    item = self._queue.get()
                    # Connections kept (CONN_MAX_AGE > 0) may have grown too old while waiting.
                    context.run(close_old_connections)
            if item is None:
                context.run(connections.close_all)
                return
            future, call = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = context.run(call)
            except BaseException as error:
                future.set_exception(error)
            else:
                future.set_result(result)
            finally:
                context.run(_drop_unusable_connections)
            del future, call, item


executor = SocketExecutor(THREADS)


async def run_for_socket(func: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """`func(*args, **kwargs)` on the sockets' threads; its result."""
    return await asyncio.wrap_future(executor.submit(func, *args, **kwargs))


# Shared calls queued and not yet started, by key (see `run_shared`).
_queued: dict[Hashable, Future[Any]] = {}
_queued_lock = threading.Lock()


def _forget_queued() -> None:
    global _queued_lock
    _queued.clear()
    _queued_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_queued)


async def run_shared(key: Hashable, func: Callable[..., R], /, *args: Any, **kwargs: Any) -> R:
    """`func(*args, **kwargs)` on the sockets' threads, or the result of an identical call (same
    `key`) that is queued and has not started yet.

    The shared call starts after this one was asked for, so what it reads is as fresh as what a
    call of its own would read: after a restart, the sockets of one page authenticate with one
    session lookup, and the spectators of a game who reconnect together get their first frame from
    one read of it. The result is shared: callers must not change it.
    """
    with _queued_lock:
        future = _queued.get(key)
        if future is None:
            future = _queued[key] = executor.submit(_start_shared, key, func, *args, **kwargs)
    # Shielded: a caller that gives up must not cancel the call for the others.
    return await asyncio.shield(asyncio.wrap_future(future))


def _start_shared(key: Hashable, func: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    with _queued_lock:
        _queued.pop(key, None)
    return func(*args, **kwargs)
