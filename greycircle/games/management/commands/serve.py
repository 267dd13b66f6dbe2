"""`manage.py serve`: the ASGI server (uvicorn, see greycircle/runtime/server.py), by default with
the task worker in the same process — the whole embedded site in one process.

Production runs `serve --workers N --no-tasks` and `games_worker` as separate processes that share
PostgreSQL and Redis; without Redis, live updates cannot cross processes, so `make run` keeps the
task worker in the one server process.

Without SITE_URL in the environment (the embedded default), the links in e-mail lead to the host
and port it serves on: `make run PORT=8100` mails links to port 8100.

SIGTERM (or Ctrl-C) stops it gracefully: no new connections, in-flight requests finish, WebSockets
close with 1001, and every process is gone within 10 s.
"""

from __future__ import annotations

import contextlib
import os

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = (
        "Serve the site (HTTP and WebSockets) with uvicorn, with the task worker in the same "
        "process unless --no-tasks."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="server processes sharing the port (more than one needs REDIS_URL)",
        )
        parser.add_argument(
            "--no-tasks",
            action="store_false",
            dest="tasks",
            help="do not run the task worker in the server processes (run games_worker instead)",
        )
        parser.add_argument(
            "--proxy-headers",
            action="store_true",
            help="take the client address and scheme from the X-Forwarded-For and "
            "X-Forwarded-Proto headers of trusted proxies",
        )
        parser.add_argument(
            "--forwarded-allow-ips",
            default=None,
            help="comma-separated proxy addresses trusted with --proxy-headers "
            "(default: $FORWARDED_ALLOW_IPS or 127.0.0.1)",
        )
        parser.add_argument(
            "--graceful-timeout",
            type=int,
            default=None,
            help="seconds in-flight requests may run after SIGTERM (default 7; keep it under 9)",
        )
        parser.add_argument("--no-access-log", action="store_false", dest="access_log")
        parser.add_argument(
            "--log-static",
            action="store_true",
            help="log the requests for static files too (left out of the access log by default)",
        )

    def handle(
        self,
        *args,
        host: str,
        port: int,
        workers: int,
        tasks: bool,
        proxy_headers: bool,
        forwarded_allow_ips: str | None,
        graceful_timeout: int | None,
        access_log: bool,
        log_static: bool,
        **options,
    ) -> None:
        from greycircle.runtime import server

        if workers < 1:
            raise CommandError("--workers must be at least 1.")
        if workers > 1 and tasks and not settings.REDIS_URL:
            self.stderr.write(
                "Warning: without REDIS_URL the channel layer is in memory, so a computer move "
                "played in one worker process reaches only the sockets of that process. Set "
                "REDIS_URL, or serve with one worker."
            )
        if not os.environ.get("SITE_URL"):
            # This process's task worker reads the setting; the processes of --workers start
            # afresh and read the environment.
            os.environ["SITE_URL"] = settings.SITE_URL = server.site_url_for(host=host, port=port)
        if graceful_timeout is None:
            graceful_timeout = server.GRACEFUL_TIMEOUT
        config = server.config(
            host=host,
            port=port,
            workers=workers,
            tasks=tasks,
            proxy_headers=proxy_headers,
            forwarded_allow_ips=forwarded_allow_ips,
            access_log=access_log,
            log_static=log_static,
            graceful_timeout=graceful_timeout,
        )
        # uvicorn raises Ctrl-C again once it has stopped gracefully.
        with contextlib.suppress(KeyboardInterrupt):
            server.run(config)
