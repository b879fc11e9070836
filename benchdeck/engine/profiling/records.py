"""Typed records of counters and CPU profiles (pure data, no behaviour).

The store keeps them in ``counter_windows`` / ``counter_values`` and ``profile_windows`` /
``profile_stacks`` (store/storage/schema.py, migration 12), one row per record field below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CounterStatus = Literal["counted", "not supported", "not counted"]


@dataclass(frozen=True, slots=True)
class CounterReading:
    """One event's count in one ``perf stat`` window.

    ``value`` is what perf reports, scaled as perf scales a multiplexed counter; it is None when
    the event was not counted (``status`` says why: ``<not supported>`` or ``<not counted>``),
    never 0. ``running_pct`` is the share of the window the counter ran (perf's ``(50.00%)``),
    None when perf printed none (it ran all the time). ``unit`` is perf's unit (``msec`` for
    task-clock), empty for plain counts.
    """

    event: str
    value: float | None
    unit: str = ""
    running_pct: float | None = None
    status: CounterStatus = "counted"


@dataclass(frozen=True, slots=True)
class CounterWindow:
    """One ``perf stat`` window: its readings, when it started (seconds after the measured
    phase began, None when unknown) and how long it counted. ``target`` says what was counted
    (``pid 1234``, ``pids 1,2,3``, ``all``)."""

    window: int
    seconds: float
    readings: tuple[CounterReading, ...]
    start_s: float | None = None
    target: str = ""


@dataclass(frozen=True, slots=True)
class ProfileWindow:
    """One ``perf record -g`` window folded into stacks: ``stacks`` are (frames root first joined
    by ``;``, samples) as FlameGraph's stackcollapse writes them. ``event`` is the sampling event
    (``cpu-clock`` or ``cycles``) at ``frequency_hz`` (None when unknown, e.g. imported SVGs).
    ``seconds`` is how long perf recorded; 0 when unknown (an imported profile nobody said the
    length of: it gives ratios only, engine/profiling/cpu.py)."""

    window: int
    seconds: float
    event: str
    frequency_hz: float | None
    stacks: tuple[tuple[str, int], ...]
    start_s: float | None = None
    target: str = ""
