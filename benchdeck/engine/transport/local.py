"""LocalTransport: the Transport interface for this machine, via asyncio subprocesses (no shell)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Sequence

from benchdeck.engine.transport.base import HostSpec, ShellTransport
from benchdeck.engine.transport.errors import CommandTimeout, TransportError


class LocalTransport(ShellTransport):
    """Runs argv lists with ``create_subprocess_exec``; connect/close are no-ops."""

    def __init__(self, spec: HostSpec | None = None) -> None:
        self.spec = spec or HostSpec(name="local", hostname="localhost", transport="local")

    async def connect(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def _spawn(
        self, argv: Sequence[str], *, stdin: bool, stderr: int = asyncio.subprocess.PIPE
    ) -> asyncio.subprocess.Process:
        try:
            return await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
            )
        except OSError as exc:
            raise TransportError(f"{self.spec.name}: cannot run {argv[0]}: {exc}") from None

    async def _exec(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
        idempotent: bool = False,
    ) -> tuple[int, bytes, bytes]:
        proc = await self._spawn(argv, stdin=stdin is not None)
        try:
            out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            raise CommandTimeout(
                f"{self.spec.name}: {argv[0]} did not finish within {timeout:g} s (killed)"
            ) from None
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            raise
        assert proc.returncode is not None
        return proc.returncode, out, err

    async def stream_bytes(self, argv: Sequence[str]) -> AsyncGenerator[bytes, None]:
        """Yield raw stdout chunks as they arrive; the process is killed if we stop early."""
        proc = await self._spawn(list(argv), stdin=False, stderr=asyncio.subprocess.DEVNULL)
        assert proc.stdout is not None
        try:
            while chunk := await proc.stdout.read(1 << 16):
                yield chunk
            await proc.wait()
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
