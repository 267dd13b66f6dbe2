"""The ASGI server: uvicorn, set up to stop gracefully.

Library seam (UPGRADING.md, "uvicorn", "websockets"): uvicorn==0.54.0, websockets==17.4.
`GoingAwayWebSocketProtocol` subclasses `uvicorn.protocols.websockets.websockets_sansio_impl.
WebSocketsSansIOProtocol` (overrides `run_asgi`, `connection_lost`, `shutdown`; uses `close_sent`,
`handshake_complete`, `transport`, `stop_keepalive`, `queue`, `read_paused`, `close_timer` and
websockets' sans-I/O `conn.send_close` / `data_to_send`); `GracefulMultiprocess` subclasses
`uvicorn.supervisors.multiprocess.Multiprocess` (`sockets`, `should_exit`, `handle_term`,
`handle_int`, `join_all`, `processes`); `log_config` edits `uvicorn.config.LOGGING_CONFIG` and reads
the access record's `args`. Why: uvicorn closes sockets with 1012 and drops them; this server
closes all 200 with 1001, answers 20 of 20 requests in flight and exits 1.03 to 1.24 s after SIGTERM
(bench/README.md, "Server shutdown").

On SIGTERM (or Ctrl-C) a server process

1. stops accepting connections (it closes its listening socket);
2. lets every HTTP request it has begun to receive run to its response, then closes that
   connection (idle keep-alive connections are closed at once);
3. closes every WebSocket with 1001 "going away" (uvicorn itself would send 1012), so that
   clients reconnect, through the load balancer, to a server that is still up;
4. waits up to `GRACEFUL_TIMEOUT` seconds for requests and consumers to finish, then cancels what
   is left;
5. closes its Redis pools, cache and database connections and exits; if the exit itself hangs (a
   sync view stuck in a thread keeps the interpreter from exiting), a watchdog ends the process
   `EXIT_FUSE` seconds later. A process is gone within 10 s of the signal.

With `--workers N`, uvicorn's supervisor runs N such processes on one shared socket; SIGTERM to
the supervisor closes its copy of the socket, passes SIGTERM to every worker and waits for them,
killing any still alive at `SUPERVISOR_DEADLINE`.

`manage.py serve` runs all this; the same server without the management command is

    uvicorn greycircle.runtime.server:application \\
        --ws greycircle.runtime.server:GoingAwayWebSocketProtocol \\
        --lifespan on --timeout-graceful-shutdown 7 --workers 2

(`greycircle.runtime.server:application_with_tasks` also runs the task worker in every server
process.)

The access log leaves out requests for static files (`log_static=False`, the default): a page
loads a dozen of them, and they buried what a newcomer looks for on the console of `make run`
(the sign-up confirmation link, printed by the console e-mail backend).
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os
import socket
import threading
import time
from typing import Any

import uvicorn
from asgiref.sync import sync_to_async
from uvicorn.config import LOGGING_CONFIG
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.supervisors.multiprocess import Multiprocess

from greycircle.asgi import application as django_application

logger = logging.getLogger("greycircle.runtime.server")

# How long in-flight requests and consumers may run after the signal before they are cancelled.
GRACEFUL_TIMEOUT = 7
# How long the closing handshake of a WebSocket may take (within GRACEFUL_TIMEOUT).
WEBSOCKET_CLOSE_TIMEOUT = 2.0
# How long a consumer may take to finish once its socket is closed, before it is cancelled.
CONSUMER_EXIT_GRACE = 1.0
# How long after the application's own shutdown the process may take to exit before it is ended.
EXIT_FUSE = 1.0
# After SIGTERM, the supervisor of several workers kills any worker still alive at this point.
SUPERVISOR_DEADLINE = 9.5
# With several workers, uvicorn's supervisor restarts a worker that does not answer its health
# check (a ping on a pipe, answered by a thread of the worker) within this many seconds (uvicorn:
# 5). On a machine whose cores the computers' workers keep busy (load average 12 on 2 cores),
# workers still starting Django, or merely starved, missed 5 s and were killed with their sockets,
# over and over (bench/README.md, "Notifications under the soak"). A hung worker is still
# replaced, half a minute later.
WORKER_HEALTHCHECK_TIMEOUT = 30
# Frames and messages larger than this close a socket with 1009 (uvicorn's default is 16 MiB).
WS_MAX_SIZE = 1024 * 1024

GOING_AWAY = 1001


class GoingAwayWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, but a server shutting down says 1001 "going away".

    uvicorn sends 1012 "service restart" and drops the TCP connection at once; this one also tells
    the application (`websocket.disconnect` with 1001), then waits for the client's close frame (up
    to WEBSOCKET_CLOSE_TIMEOUT), as a closing handshake should, so the close frame is not lost to a
    reset when the client had data in flight.

    A consumer whose socket is closed has nothing left to do but clean up; one that takes longer
    than CONSUMER_EXIT_GRACE (cancelling a channels_redis `receive` can take seconds) is cancelled
    rather than holding the whole shutdown for GRACEFUL_TIMEOUT.
    """

    going_away = False
    asgi_task: asyncio.Task | None = None

    async def run_asgi(self) -> None:
        self.asgi_task = asyncio.current_task()
        await super().run_asgi()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.going_away and self.asgi_task is not None:
            self.loop.call_later(CONSUMER_EXIT_GRACE, self.asgi_task.cancel)

    def shutdown(self) -> None:
        self.going_away = True
        if self.close_sent or not self.handshake_complete or self.transport.is_closing():
            # Already closing, or still in the handshake: uvicorn's handling (a 500 refusal).
            super().shutdown()
            return
        self.stop_keepalive()
        self.queue.put_nowait({"type": "websocket.disconnect", "code": GOING_AWAY})
        self.conn.send_close(GOING_AWAY, "server shutting down")
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()
        self.close_timer = self.loop.call_later(WEBSOCKET_CLOSE_TIMEOUT, self.transport.close)


def _exit_after(seconds: float) -> None:
    """End the process `seconds` from now, whatever it is doing then (a daemon thread)."""

    def fuse() -> None:
        time.sleep(seconds)
        logger.error("server process %d did not exit in time; ending it", os.getpid())
        logging.shutdown()
        os._exit(1)

    threading.Thread(target=fuse, name="exit-fuse", daemon=True).start()


def _close_data_store_connections() -> None:
    from django.core.cache import caches
    from django.db import connections

    connections.close_all()
    caches.close_all()


async def _close_channel_layer() -> None:
    from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers

    layer = channel_layers.backends.get(DEFAULT_CHANNEL_LAYER)
    close_pools = getattr(layer, "close_pools", None)
    if close_pools is not None:
        await close_pools()


class Application:
    """The site's ASGI application, with the lifespan protocol that Channels' router lacks.

    Startup runs the task worker in this process when `tasks` is set (the embedded site, where
    the in-memory channel layer cannot carry updates from another process). Shutdown arms the exit
    fuse and releases the Redis and database connections this process holds.
    """

    def __init__(self, *, tasks: bool) -> None:
        self.tasks = tasks

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
        else:
            await django_application(scope, receive, send)

    async def lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                if self.tasks:
                    from greycircle.runtime.worker import background_worker_start

                    background_worker_start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                _exit_after(EXIT_FUSE)
                await self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def shutdown(self) -> None:
        try:
            await asyncio.wait_for(_close_channel_layer(), timeout=EXIT_FUSE / 2)
        except Exception:
            logger.warning("could not close the channel layer's connections", exc_info=True)
        try:
            await asyncio.wait_for(
                sync_to_async(_close_data_store_connections, thread_sensitive=False)(),
                timeout=EXIT_FUSE / 4,
            )
        except Exception:
            logger.warning("could not close database or cache connections", exc_info=True)


application = Application(tasks=False)
application_with_tasks = Application(tasks=True)


class GracefulMultiprocess(Multiprocess):
    """uvicorn's supervisor of several workers, bounded in time on SIGTERM and SIGINT.

    It closes its own copy of the listening socket first, so the port refuses connections once
    the workers have closed theirs, and kills any worker still alive at SUPERVISOR_DEADLINE.
    """

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket]) -> None:
        super().__init__(config, sockets)
        self.deadline: float | None = None

    def _stop(self) -> None:
        self.deadline = time.monotonic() + SUPERVISOR_DEADLINE - 0.5  # the supervisor polls
        for sock in self.sockets:
            sock.close()
        self.should_exit.set()

    def handle_term(self) -> None:
        logger.info("Received SIGTERM, stopping the workers.")
        self._stop()

    def handle_int(self) -> None:
        logger.info("Received SIGINT, stopping the workers.")
        self._stop()

    def join_all(self) -> None:
        deadline = self.deadline or time.monotonic() + SUPERVISOR_DEADLINE
        for process in self.processes:
            process.process.join(timeout=max(0.0, deadline - time.monotonic()))
            if process.process.is_alive():
                logger.error("worker process %s did not stop in time; killing it", process.pid)
                process.kill()
                process.process.join()


def site_url_for(*, host: str, port: int) -> str:
    """The address of a server listening on `host`:`port`, as a browser on this machine reaches
    it: the embedded site's SITE_URL when none is set (a server listening on every address is
    reached at 127.0.0.1)."""
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


class SkipPaths(logging.Filter):
    """Drops the access log's lines of requests whose path starts with `prefix`."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def filter(self, record: logging.LogRecord) -> bool:
        # uvicorn's access record: (client, method, path with query, HTTP version, status).
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            return not args[2].startswith(self.prefix)
        return True


def log_config(*, log_static: bool) -> dict[str, Any]:
    """uvicorn's logging set-up, without the static files' requests unless `log_static`."""
    from django.conf import settings

    logging_config = copy.deepcopy(LOGGING_CONFIG)
    if not log_static:
        prefix = "/" + settings.STATIC_URL.lstrip("/")
        logging_config["filters"] = {"static": {"()": SkipPaths, "prefix": prefix}}
        logging_config["handlers"]["access"]["filters"] = ["static"]
    return logging_config


def config(
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    tasks: bool = False,
    proxy_headers: bool = False,
    forwarded_allow_ips: str | None = None,
    access_log: bool = True,
    log_static: bool = False,
    graceful_timeout: int = GRACEFUL_TIMEOUT,
) -> uvicorn.Config:
    return uvicorn.Config(
        "greycircle.runtime.server:application_with_tasks"
        if tasks
        else "greycircle.runtime.server:application",
        host=host,
        port=port,
        workers=workers,
        ws="greycircle.runtime.server:GoingAwayWebSocketProtocol",
        ws_max_size=WS_MAX_SIZE,
        lifespan="on",
        timeout_graceful_shutdown=graceful_timeout,
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_TIMEOUT,
        proxy_headers=proxy_headers,
        forwarded_allow_ips=forwarded_allow_ips,
        access_log=access_log,
        log_config=log_config(log_static=log_static),
    )


def run(server_config: uvicorn.Config) -> None:
    """Serve until SIGTERM or SIGINT: one process, or a supervisor of `workers` processes."""
    if server_config.workers > 1:
        sock = server_config.bind_socket()
        GracefulMultiprocess(server_config, sockets=[sock]).run()
    else:
        uvicorn.Server(server_config).run()
