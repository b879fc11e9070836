"""benchdeck's Insert Benchmark client (after Mark Callaghan's iibench): steps l.i0 ... qp1000.

Run a step with ``python3 -m benchdeck.engine.families.insertbench.client``;
the step list and defaults are in :mod:`benchdeck.engine.families.insertbench.steps`; its output is read by
:class:`engine.parsers.insertbench.InsertBenchParser`. The DB drivers (PyMySQL, psycopg 3)
are imported only when a connection is made.
"""

from benchdeck.engine.families.insertbench.steps import (
    CLASSIC,
    STEP_NAMES,
    STEPS,
    Config,
    Step,
    get_step,
    step_argv,
    step_kind,
)

__all__ = ["CLASSIC", "STEPS", "STEP_NAMES", "Config", "Step", "get_step", "step_argv", "step_kind"]
