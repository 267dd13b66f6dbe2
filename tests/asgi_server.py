"""`greycircle.asgi:application` served by a real ASGI server (uvicorn or Daphne) in a child
process, for tests that need one; stopping it is part of what they check."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.redis_server import free_port, wait_for

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"


def status_of(url: str) -> int | None:
    """The HTTP status `url` answers with; None if it does not answer."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


@contextmanager
def asgi_server(
    server: str, *, environment: dict[str, str], log: Path, stop_within: float
) -> Iterator[str]:
    """Run the site under `server` ("uvicorn" or "daphne") with `environment` added to this
    process's; its base URL once it answers. On leaving: SIGTERM, and a test failure if it is
    still running `stop_within` s later, with every thread's stack (faulthandler) and its log."""
    port = free_port()
    command = {
        "uvicorn": ["uvicorn", "--host", HOST, "--port", str(port), "--log-level", "warning"],
        "daphne": ["daphne", "-b", HOST, "-p", str(port), "-v", "1"],
    }[server]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "greycircle.settings",
        "PYTHONFAULTHANDLER": "1",  # SIGABRT writes every thread's stack to the log
        **environment,
    }
    # Plain HTTP on loopback: without SECRET_KEY the settings do not redirect to HTTPS.
    env.pop("SECRET_KEY", None)
    process = subprocess.Popen(
        [sys.executable, "-m", *command, "greycircle.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )
    base = f"http://{HOST}:{port}"
    try:
        wait_for(lambda: status_of(f"{base}/api/v1/me/") in {401, 403}, timeout=60, what=server)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=stop_within)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            pytest.fail(
                f"{server} was still running {stop_within} s after SIGTERM; its log:\n"
                + log.read_text()[-20000:]
            )
