"""Fixtures for the platform tests: a throwaway redis-server, real server processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.db import connections

from tests.greycircle.runtime.test_server import (
    BASE_DIR,
    HOST,
    START_TIMEOUT,
    Server,
    _answers,
    _database_url,
    _free_port,
)
from tests.redis_server import RedisServer


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """Start `manage.py serve` with the given arguments on a free port; stop it afterwards."""
    started: list[Server] = []

    def start(*arguments: str, ready: Callable[[Server], bool] = lambda server: True) -> Server:
        port = _free_port()
        log_path = tmp_path / f"serve-{port}.log"
        env = dict(os.environ, DATABASE_URL=_database_url(), PYTHONUNBUFFERED="1")
        # The server must not connect while the test process holds the database open for
        # writing (SQLite), and it must not inherit this process's connections.
        connections.close_all()
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "manage.py",
                    "serve",
                    "--host",
                    HOST,
                    "--port",
                    str(port),
                    *arguments,
                ],
                cwd=BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        server = Server(process, port, log_path)
        started.append(server)
        deadline = time.monotonic() + START_TIMEOUT
        while not (_answers(port) and ready(server)):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the server did not start.\n{server.log()}")
            time.sleep(0.1)
        return server

    yield start

    for server in started:
        if server.process.poll() is None:
            os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait()
