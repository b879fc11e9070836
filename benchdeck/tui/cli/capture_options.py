"""``--profile`` and its settings, shared by ``run`` and ``queue``: what perf captures on the
host while a run measures (engine/profiling), off by default."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from benchdeck.engine.profiling.capture import CaptureError, CaptureOptions, parse_kinds

F = TypeVar("F", bound=Callable[..., Any])

OPTIONS = [
    click.option(
        "--profile",
        metavar="KINDS",
        help="Capture with perf on the host while measuring: counters (perf stat), cpu "
        "(perf record -g, folded stacks), or counters,cpu. Default: off (or the inventory's).",
    ),
    click.option(
        "--profile-window",
        type=click.FloatRange(min=0.1),
        default=10.0,
        show_default=True,
        help="Seconds per perf window.",
    ),
    click.option(
        "--profile-period",
        type=click.FloatRange(min=0.1),
        help="Seconds from one window's start to the next (default: counters 150, cpu 60).",
    ),
    click.option(
        "--profile-hz",
        type=click.IntRange(1, 10000),
        default=99,
        show_default=True,
        help="perf record sampling frequency.",
    ),
    click.option(
        "--profile-event",
        type=click.Choice(["cpu-clock", "cycles"]),
        default="cpu-clock",
        show_default=True,
        help="perf record sampling event.",
    ),
    click.option(
        "--profile-optional",
        is_flag=True,
        help="Run without the capture when perf cannot run on the host (else the run stops).",
    ),
]


def capture_options(f: F) -> F:
    for opt in reversed(OPTIONS):
        f = opt(f)
    return f


def capture(
    profile: str | None = None,
    profile_window: float = 10.0,
    profile_period: float | None = None,
    profile_hz: int = 99,
    profile_event: str = "cpu-clock",
    profile_optional: bool = False,
) -> CaptureOptions | None:
    """The run's capture from the options (None: the inventory's, else nothing); a bad value is
    a usage error of one line."""
    if not profile:
        return None
    try:
        return CaptureOptions(
            parse_kinds(profile),
            window_s=profile_window,
            period_s=profile_period,
            frequency_hz=profile_hz,
            event=profile_event,
            optional=profile_optional,
        )
    except CaptureError as exc:
        raise click.UsageError(str(exc)) from None
