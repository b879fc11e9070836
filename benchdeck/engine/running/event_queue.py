"""A producer task feeding a queue, read as an async generator: how a runner yields its events.

The runner puts events with :meth:`EventQueue.put` from its own task (and from callbacks it
hands out); :meth:`EventQueue.stream` starts that task and yields what it puts until it ends.
Closing the generator early cancels the task; an exception the task did not handle ends the
stream and is raised to the reader.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable, Coroutine
from typing import Any, Generic, TypeVar

E = TypeVar("E")


class EventQueue(Generic[E]):
    """Events of one producer, in the order it put them."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[E | None] = asyncio.Queue()

    def put(self, ev: E) -> None:
        self._queue.put_nowait(ev)

    async def stream(self, produce: Callable[[], Coroutine[Any, Any, None]]) -> AsyncGenerator[E, None]:
        """Run ``produce()`` as a task and yield each event it puts until it returns."""
        task = asyncio.create_task(self._run(produce))
        try:
            while (ev := await self._queue.get()) is not None:
                yield ev
        finally:
            if not task.done():
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self, produce: Callable[[], Coroutine[Any, Any, None]]) -> None:
        try:
            await produce()
        finally:
            self._queue.put_nowait(None)
