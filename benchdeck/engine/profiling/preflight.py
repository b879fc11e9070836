"""The capture's preflight on the host, one clear line per finding (engine/profiling/host_perf.py
``check`` finds them where perf will run: perf on PATH, perf allowed to watch the target as the
SSH user, the server binary's symbols and frame pointers).

perf missing or not allowed stops the run, unless the user asked to go on without the capture
(``optional``: then the run goes on without it and says so). A stripped binary or one without
frame pointers is a warning: the capture runs, its stacks lack what the line says.
"""

from __future__ import annotations

from collections.abc import Callable

from benchdeck.engine.events import LogLine, Phase, RunEvent
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.running.checks import StepFailed
from benchdeck.engine.transport import Transport, TransportError


async def capture_preflight(t: Transport, p: RunPlan, emit: Callable[[RunEvent], None]) -> tuple[str, ...]:
    """The capture kinds that will run (none when the plan captures nothing)."""
    c = p.capture
    if c is None or not c.kinds:
        return ()
    emit(Phase(p.run_id, "preflight", f"perf: {', '.join(c.kinds)}"))
    try:
        res = await t.run(c.argv("check"), timeout=120, env=c.env())
        out = res.stdout if res.ok else ""
        if not res.ok:
            why = (res.stderr or res.stdout).strip().splitlines()
            last = why[-1] if why else res.exit_status
            out = f"problem python cannot run the capture loop with {c.python}: {last}"
    except TransportError as exc:
        out = f"problem transport {exc}"
    problems: list[str] = []
    warnings: list[str] = []
    for line in out.splitlines():
        level, _, rest = line.partition(" ")
        text = rest.partition(" ")[2]
        if level == "problem":
            problems.append(text)
        elif level == "warn":
            warnings.append(text)
    for text in warnings:
        emit(LogLine(p.run_id, "benchdeck", f"warning: {p.host}: {text}"))
    if not problems:
        return c.kinds
    line = f"{p.host}: {problems[0]}"
    if not c.options.optional:
        raise StepFailed(f"{line} (or run with --profile-optional to go on without the capture)")
    emit(LogLine(p.run_id, "benchdeck", f"warning: {line}: running without --profile {','.join(c.kinds)}"))
    return ()
