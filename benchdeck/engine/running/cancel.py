"""Cancelling a run from any benchdeck: a mark in its run directory, then its groups killed.

The runner following the run (in this process or another) sees the mark and ends the run as
cancelled rather than failed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from benchdeck.engine.events import RemoteProc
from benchdeck.engine.running.run_dirs import write_file
from benchdeck.engine.transport import Transport, TransportError

CANCEL_MARK = "cancelled"


async def cancel_remote(transport: Transport, remote_dir: str, procs: Sequence[RemoteProc]) -> int:
    """Cancel a run from any benchdeck: mark it, then kill its process groups.

    Returns how many groups still had processes to kill.
    """
    await write_file(transport, f"{remote_dir}/{CANCEL_MARK}", "cancelled\n")
    killed = 0
    for proc in procs:
        if await transport.kill_group(proc.pgid):
            killed += 1
    return killed


async def cancel_marked(transport: Transport, remote_dir: str) -> bool:
    """True when another benchdeck cancelled the run in ``remote_dir`` (``benchdeck cancel``)."""
    with contextlib.suppress(TransportError):
        return await transport.file_size(f"{remote_dir}/{CANCEL_MARK}") is not None
    return False
