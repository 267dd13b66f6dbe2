"""`manage.py serve`: the whole embedded site in one process — Daphne plus the task worker.

Production runs Daphne and `games_worker` as separate processes that share PostgreSQL and Redis;
without Redis, live updates cannot cross processes, so `make run` uses this command instead.
"""

from __future__ import annotations

from daphne.cli import CommandLineInterface
from django.core.management.base import BaseCommand

from greycircle.games.worker import background_worker_start


class Command(BaseCommand):
    help = "Serve the site (HTTP and WebSockets) with the task worker in the same process."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args, host: str, port: int, **options) -> None:
        background_worker_start()
        CommandLineInterface().run(["-b", host, "-p", str(port), "greycircle.asgi:application"])
