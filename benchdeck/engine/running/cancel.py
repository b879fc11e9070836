"""Cancelling a run from any benchdeck: a mark in its run directory, then its groups killed.

The runner following the run (in this process or another) sees the mark and ends the run as
cancelled rather than failed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence

from benchdeck.engine.events import NodeProc, RemoteProc
from benchdeck.engine.running.run_dirs import write_file
from benchdeck.engine.transport import Transport, TransportError

CANCEL_MARK = "cancelled"


async def cancel_remote(
    transport: Transport,
    remote_dir: str,
    procs: Sequence[RemoteProc],
    nodes: Sequence[NodeProc] = (),
    connect: Callable[[str], Awaitable[Transport]] | None = None,
) -> int:
    """Cancel a run from any benchdeck: mark it, then kill its process groups, and a cluster
    run's node sources on their hosts (reached through ``connect``; one that cannot be is left
    to end by itself, a little after the run's length).

    Returns how many groups still had processes to kill.
    """
    await write_file(transport, f"{remote_dir}/{CANCEL_MARK}", "cancelled\n")
    killed = 0
    for proc in procs:
        if await transport.kill_group(proc.pgid):
            killed += 1
    for node in nodes if connect is not None else ():
        assert connect is not None
        with contextlib.suppress(TransportError, OSError):
            if await (await connect(node.host)).kill_group(node.pgid):
                killed += 1
    return killed


async def cancel_marked(transport: Transport, remote_dir: str) -> bool:
    """True when another benchdeck cancelled the run in ``remote_dir`` (``benchdeck cancel``)."""
    with contextlib.suppress(TransportError):
        return await transport.file_size(f"{remote_dir}/{CANCEL_MARK}") is not None
    return False
