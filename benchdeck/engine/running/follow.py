"""Follow a remote file as complete lines with exact byte offsets, across dropped connections."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing

from benchdeck.engine.transport import Transport, TransportError


class LineFollower:
    """Yields batches of complete lines of ``path`` starting at byte ``offset``.

    ``offset`` always points just past the last line handed out, so a new follower started at
    it (after a reconnect, or by another process) neither repeats nor skips a line.
    """

    def __init__(
        self,
        transport: Transport,
        path: str,
        offset: int = 0,
        *,
        retry_delay: float = 0.5,
        max_retry_delay: float = 10.0,
        on_retry: Callable[[str], None] | None = None,
    ):
        self.transport = transport
        self.path = path
        self.offset = offset
        self.retry_delay = retry_delay
        self.max_retry_delay = max_retry_delay
        self.on_retry = on_retry
        self.retries = 0

    async def batches(self) -> AsyncIterator[list[str]]:
        delay = self.retry_delay
        while True:
            buf = b""
            try:
                async with aclosing(self.transport.follow(self.path, self.offset)) as chunks:
                    async for chunk in chunks:
                        buf += chunk
                        cut = buf.rfind(b"\n")
                        if cut < 0:
                            continue
                        complete, buf = buf[: cut + 1], buf[cut + 1 :]
                        self.offset += len(complete)
                        delay = self.retry_delay
                        lines = complete.split(b"\n")[:-1]
                        yield [ln.decode("utf-8", "replace").rstrip("\r") for ln in lines]
            except TransportError as exc:
                self.retries += 1
                if self.on_retry:
                    self.on_retry(f"{self.path}: {exc}; retrying in {delay:g} s")
            # The stream ended (connection dropped, or tail was killed): start again at the offset.
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.max_retry_delay)
