"""What the local HTTP/1.1 push stand-ins share (push_service.py, fcm_service.py): a threaded
server on a free port of 127.0.0.1, its origin, and its start and stop as a context manager."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LocalHttpService:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler class, bound to this service (each stand-in defines its own)."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
