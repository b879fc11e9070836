"""Run a stored run again (the app's Re-run): the same host, build, workload and config, with the
same concurrency, duration and queue options (tables, warm-up ...), checked against the inventory
as it is now. No Textual: the app shows the message."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import TYPE_CHECKING

from benchdeck.engine.planning.plan import RunOptions
from benchdeck.store.storage.rerun import RunAgain, run_again

if TYPE_CHECKING:
    from benchdeck.store.storage.db import Store
    from benchdeck.tui.app.state.live_hub import LiveHub


async def queue_again(hub: LiveHub, run_id: int) -> tuple[int | None, str]:
    """Queue run ``run_id`` again: (the queue's id, what to tell the user), or (None, why not)."""

    def lookup(store: Store) -> RunAgain | None:
        with store.reading() as cur:
            return run_again(cur, run_id)

    found = await hub.query(lookup)
    if found is None:
        return None, f"run {run_id} is gone"
    host, build, workload, config = found.host, found.build, found.workload, found.config
    names = {f.name for f in fields(RunOptions)}
    kept = {k: v for k, v in found.options.items() if k in names}
    options = replace(RunOptions(**kept), threads=found.threads, duration_s=found.duration_s)
    inv = await hub.inventory()
    if host not in inv.hosts:
        return None, f"host {host} is not in the inventory (benchdeck.toml): cannot re-run run {run_id}"
    configs = [config] if config else []
    if not any(inv.config_matrix([host], [build], configs).values()):
        return None, f"build {build} on {host} has no config {config!r}: cannot re-run"
    qid = await hub.start_queue([host], [build], [workload], options, configs)
    return qid, f"run {run_id} queued again (queue {qid})"
