"""CPU per request through the WSGI bridge (`greycircle.runtime.wsgi_bridge`) against a2wsgi.

    .venv/bin/python -m bench.wsgi_bridge --requests 1000 --rounds 4

Both run Django's WSGI handler for `GET /api/v1/me/` (answered 401: no session, no database)
in this process, on an event loop and two request threads as the server does, with no HTTP
parsing or network. Rounds alternate between the two, so a change in the machine's speed shows
in both. CPU time is the whole process's (`time.process_time`, every thread).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import time

SCOPE = {
    "type": "http",
    "asgi": {"version": "3.0"},
    "http_version": "1.1",
    "method": "GET",
    "scheme": "http",
    "path": "/api/v1/me/",
    "raw_path": b"/api/v1/me/",
    "query_string": b"",
    "root_path": "",
    "headers": [(b"host", b"127.0.0.1")],
    "client": ("127.0.0.1", 50000),
    "server": ("127.0.0.1", 80),
}


async def cpu_per_request(application, requests: int) -> float:
    """Microseconds of CPU per request, `requests` in a row."""

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        pass

    started = time.process_time()
    for _ in range(requests):
        await application(SCOPE, receive, send)
    return (time.process_time() - started) / requests * 1e6


async def compare(requests: int, rounds: int) -> None:
    from a2wsgi import WSGIMiddleware

    from greycircle.asgi import django_wsgi_app
    from greycircle.runtime.wsgi_bridge import WSGIBridge

    plain = WSGIMiddleware(django_wsgi_app, workers=2)
    bridge = WSGIBridge(django_wsgi_app, workers=2)
    for application in (plain, bridge):  # warm up
        await cpu_per_request(application, requests // 5)
    for round_number in range(1, rounds + 1):
        before = await cpu_per_request(plain, requests)
        after = await cpu_per_request(bridge, requests)
        print(f"round {round_number}: a2wsgi {before:.0f} µs, bridge {after:.0f} µs per request")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=4)
    arguments = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "greycircle.settings")
    import django

    django.setup()
    logging.disable(logging.WARNING)  # each 401 is logged; the log is not what is measured
    asyncio.run(compare(arguments.requests, arguments.rounds))


if __name__ == "__main__":
    main()
