"""The Bisect screen's model: a session replayed from its memory and the runs in a real store,
done (the same culprit the search named) and cut short (a bisect still running)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchdeck.engine.bisect.decide import Ratio
from benchdeck.engine.bisect.driver import Bisection, Options, Result, Step
from benchdeck.engine.builds import Build
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
from benchdeck.tui.app.state.bisect_view import session_view
from benchdeck.tui.services.bisect import ratio
from benchdeck.tui.services.bisect_state import SessionState

N, PLANTED = 6, 4
ARGS = {
    "host": "box",
    "recipe": "r",
    "variant": "o0",
    "workload": "point-query_range=100",
    "config": None,
    "threshold": 0.05,
    "repeats": 2,
    "max_repeats": 4,
}
QPS = [100.0, 102.0, 98.0, 101.0]  # per nth run: steady enough for two runs to decide


class StoreLab:
    """Answers the search with runs written to the store and the session, as the service does."""

    def __init__(self, store: Store, state: SessionState):
        self.store, self.state = store, state

    async def build(self, position: int) -> bool:
        return True

    async def measure(self, position: int, nth: int) -> float | None:
        qps = QPS[nth % len(QPS)] * (0.5 if position >= PLANTED else 1.0)
        with self.store.transaction() as cur:
            build = Build(self.state.commits[position]["build"], "sqlite", "3.53.2")
            rid = create_run(cur, NewRun("box", build, ARGS["workload"], "run"), ncpu=2)
            save_summary(cur, rid, RunSummary(qps=qps))
            set_status(cur, rid, "finished")
        self.state.set_run(position, nth, rid)
        return qps

    def ratio(self, other: Sequence[float], base: Sequence[float]) -> Ratio | None:
        return ratio(other, base)

    def progress(self, step: Step) -> None:
        pass


async def bisected(tmp_path: Path) -> tuple[Store, SessionState, Result]:
    store = Store.open(tmp_path / "bd.duckdb")
    state = SessionState.load(tmp_path / "bd-bisect", ARGS)
    state.commits = [
        {
            "sha": f"{k:x}" * 40,
            "subject": f"change {k}",
            "author": "Ada",
            "date": "2026-01-01",
            "build": f"b{k}",
        }
        for k in range(N + 1)
    ]
    result = await Bisection(StoreLab(store, state), N, Options(0.05, 2, 4)).run()
    return store, state, result


async def test_a_finished_session_shows_the_culprit_and_every_run(tmp_path: Path) -> None:
    store, state, result = await bisected(tmp_path)
    assert result.culprit == (PLANTED, PLANTED)
    with store.reading() as cur:
        view = session_view(cur, state)
    store.close()
    assert view.result == result
    assert view.headline.startswith(f'culprit: {"4" * 8} "change 4" by Ada')
    marks = {r.position: r.mark for r in view.rows}
    assert (marks[0], marks[N], marks[PLANTED]) == ("good", "bad", "bad")
    assert {marks[t.position] for t in result.tested} <= {"good", "bad"}
    bad_row = view.rows[PLANTED]
    assert len(bad_row.ratios) == 2
    assert all(0.45 < r < 0.55 for r in bad_row.ratios)
    assert view.steps == len(result.tested) + 1


async def test_a_session_cut_short_shows_the_commit_it_waits_for(tmp_path: Path) -> None:
    store, state, result = await bisected(tmp_path)
    last = result.tested[-1].position
    del state.runs[f"{last}:1"]  # its second run not taken yet
    with store.reading() as cur:
        view = session_view(cur, state)
    store.close()
    assert view.result is None
    assert view.headline == "running"
    assert view.rows[last].mark == "testing"
    assert len(view.rows[last].ratios) == 1


async def test_a_running_session_shows_its_last_eta_less_the_time_since(tmp_path: Path) -> None:
    """The bisect's own estimate (the CLI's ETA, saved with each step) counted down by the app,
    read back from the session file as another process wrote it."""
    store, state, result = await bisected(tmp_path)
    last = result.tested[-1].position
    del state.runs[f"{last}:1"]
    state.set_eta(300.0)
    state.eta = (300.0, state.eta[1] - 60.0) if state.eta else None  # estimated a minute ago
    state.save()
    again = SessionState.load(tmp_path / "bd-bisect", ARGS)
    assert again.eta == state.eta
    with store.reading() as cur:
        view = session_view(cur, again)
        assert view.eta_s is not None
        assert 235.0 <= view.eta_s <= 240.5
        again.eta = None
        assert session_view(cur, again).eta_s is None
    store.close()
