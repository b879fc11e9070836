"""When each capture kind's first window opens in a run, and how long the windows are: a pure
function of the kinds, the window, the period and the run's length (engine/profiling/capture.py
passes the result to the host's loop, :mod:`.host_perf`).

The kinds take turns: counters' window, a gap, then cpu's, then tail_s() for perf to exit and
fold before the run ends. A long (or open-ended) run settles SETTLE_S first, with GAP_S between
the kinds. A shorter one settles less (what is spare, at most SETTLE_S, at least a quarter of
what the settle and the windows share), SHORT_GAP_S apart, and its windows shrink to what is
left, down to MIN_WINDOW_S; a run too short even for that gets no window, and each kind a reason
instead (stored as a capture gap). On the host a lock keeps the two kinds' windows apart
whatever the cadence (later windows, an explicit period).
"""

from __future__ import annotations

from dataclasses import dataclass

SETTLE_S = 10.0  # before the first window: connections open, caches warm (the author's sleep)
GAP_S = 2.0  # from counters' first window to cpu's (the author's "sleep 2")
SHORT_GAP_S = 0.5  # the same in a short run (the host's lock keeps them apart in any case)
# After the last window, before the run ends: perf record starts late (0.5 s here under load)
# and exits (0.9 s: it writes build ids), then perf script is folded at nice 19 (2.0 s for a
# 10 s window at 99 Hz of the built-in workload with both cores busy). A window still folding
# when the run ends is finished then (the runner waits for it): the tail keeps the end on time.
TAIL_S = 1.5
TAIL_PER_WINDOW_S = 0.2  # s of tail per s of window
MIN_WINDOW_S = 1.0
ORDER = ("counters", "cpu")  # the turn each kind takes


@dataclass(frozen=True, slots=True)
class Slot:
    """A kind's first window: ``first_s`` after the loop starts, ``window_s`` long."""

    first_s: float
    window_s: float


@dataclass(frozen=True, slots=True)
class Schedule:
    """The first window of each kind that fits (``slots``), and why the others have none."""

    slots: dict[str, Slot]
    missing: dict[str, str]

    @property
    def window_s(self) -> float | None:
        """The windows' length this run (shorter than asked in a short run), None if none fit."""
        return next(iter(self.slots.values())).window_s if self.slots else None


def schedule(kinds: tuple[str, ...], window_s: float, run_s: float | None, explicit_period: bool) -> Schedule:
    """Each kind's first window in a run of ``run_s`` seconds (None: open-ended, a load).

    ``explicit_period`` (the user gave ``--profile-period``): no settle, the windows from the
    start, as that option always did, but still one kind after the other (SHORT_GAP_S apart)."""
    turns = [k for k in ORDER if k in kinds]
    k = len(turns)
    settle = 0.0 if explicit_period else SETTLE_S
    gap = SHORT_GAP_S if explicit_period else GAP_S
    if run_s is None or run_s >= settle + k * window_s + (k - 1) * gap + tail_s(window_s):
        return _turns(turns, settle, window_s, gap)
    room = run_s - (k - 1) * SHORT_GAP_S - TAIL_S  # for the settle and the windows with their tail
    weight = k + TAIL_PER_WINDOW_S  # a second more of each window costs this much of the run
    settle = min(settle, max(room - weight * window_s, room / 4))
    window = window_s if settle <= room - weight * window_s else (room - settle) / weight
    if window >= MIN_WINDOW_S:
        return _turns(turns, settle, window, SHORT_GAP_S)
    share = 1.0 if explicit_period else 4 / 3  # the settle takes a quarter of the room
    need = weight * MIN_WINDOW_S * share + (k - 1) * SHORT_GAP_S + TAIL_S
    parts = (
        f"{'a settle, ' if not explicit_period else ''}{'a ' if k == 1 else ''}{' and '.join(turns)} window"
    )
    parts += "s" if k > 1 else ""
    why = (
        f"the run ({run_s:g} s) is too short for {parts} of {MIN_WINDOW_S:g} s or more and the time for "
        f"perf to exit and fold: it needs {need:.1f} s"
    )
    return Schedule({}, {kind: why for kind in turns})


def tail_s(window_s: float) -> float:
    """The time left after a window for perf to exit and fold it."""
    return TAIL_S + TAIL_PER_WINDOW_S * window_s


def _turns(turns: list[str], settle: float, window: float, gap: float) -> Schedule:
    return Schedule({kind: Slot(settle + i * (window + gap), window) for i, kind in enumerate(turns)}, {})
