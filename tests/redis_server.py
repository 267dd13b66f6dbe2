"""A throwaway redis-server for tests, on a free port (never the shared one)."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time

REDIS_SERVER = shutil.which("redis-server")
NO_PERSISTENCE = ("--save", "", "--appendonly", "no")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(check, *, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = check()
        except Exception:
            result = None
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def redis_answers(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
        conn.sendall(b"PING\r\n")
        return conn.recv(16).startswith(b"+PONG")


class RedisServer:
    """A throwaway redis-server that a test can stop and start again on the same port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS_SERVER, *("--port", str(self.port), "--bind", "127.0.0.1"), *NO_PERSISTENCE],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(lambda: redis_answers(self.port), timeout=30, what="redis-server")

    def pause(self) -> None:
        """Hang it (SIGSTOP): connections stay open and nothing is answered until `resume`."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)  # a paused process is killed all the same
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None
