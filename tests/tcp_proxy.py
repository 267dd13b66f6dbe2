"""A TCP proxy for tests: a process pointed at it reaches the target (a redis-server) until the
test cuts it, while processes connected to the target directly are not affected (a network blip
between one process and Redis)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any

HOST = "127.0.0.1"


class TcpProxy:
    """Forwards connections on `port` to `target_port`, on an event loop of its own thread."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._cut = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._server = self._call(asyncio.start_server(self._forward, HOST, 0))
        self.port = self._server.sockets[0].getsockname()[1]

    def _call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._cut:
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(HOST, self.target_port)
        except OSError:
            writer.close()
            return
        pair = {writer, up_writer}
        self._writers |= pair
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            self._writers -= pair

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    async def _set_cut(self, cut: bool) -> None:
        self._cut = cut
        if cut:
            for writer in list(self._writers):
                writer.close()

    def cut(self) -> None:
        """Close every forwarded connection, and each new one at once, until `restore`."""
        self._call(self._set_cut(True))

    def restore(self) -> None:
        self._call(self._set_cut(False))

    async def _shutdown(self) -> None:
        self._server.close()
        await self._set_cut(True)
        # Their connections closed, the forwarding tasks end by themselves.
        tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        if tasks:
            await asyncio.wait(tasks, timeout=10)

    def close(self) -> None:
        self._call(self._shutdown())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        with contextlib.suppress(RuntimeError):
            self._loop.close()


@contextlib.contextmanager
def tcp_proxy(target_port: int) -> Iterator[TcpProxy]:
    proxy = TcpProxy(target_port)
    try:
        yield proxy
    finally:
        proxy.close()
