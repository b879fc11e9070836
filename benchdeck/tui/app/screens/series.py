"""A run's time series (or two runs', overlaid): QPS, vmstat CPU and context switches, iostat."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from benchdeck.store.storage.run_lists import RunSeries, run_series
from benchdeck.tui.app.screens.base import BenchdeckScreen, tcss
from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.charts import Line, LineChart
from benchdeck.tui.app.widgets.keybar import KeyBar

# chart id, title, x label, (series key, label) pairs; "qps" is the benchmark's own series.
# Every chart's x is seconds into the run (vmstat and iostat sample once a second: sample n is
# second n + 1), on one shared axis. CPU leaves out idle (100 less the rest).
CHARTS: tuple[tuple[str, str, str, tuple[tuple[str, str], ...]], ...] = (
    ("qps", "QPS", "s", (("qps", "qps"),)),
    ("cpu", "CPU % (vmstat)", "s", (("us", "us"), ("sy", "sy"), ("wa", "wa"))),
    ("cs", "context switches/s (vmstat)", "s", (("cs", "cs"),)),
    ("iops", "IO requests/s (iostat)", "s", (("r_s", "r/s"), ("w_s", "w/s"))),
    ("iokb", "IO KB/s (iostat)", "s", (("rkb_s", "rKB/s"), ("wkb_s", "wKB/s"))),
)


def chart_lines(chart: str, series: Sequence[RunSeries]) -> list[Line]:
    """The lines of one chart; with two runs each label says which run (``#id``)."""
    spec = next(c for c in CHARTS if c[0] == chart)
    lines: list[Line] = []
    for s in series:
        suffix = f"#{s.run.run_id}" if len(series) > 1 else ""
        for key, label in spec[3]:
            if key == "qps":
                lines.append(Line(label + suffix, s.t, s.qps))
            elif key in s.vm:
                lines.append(Line(label + suffix, [float(x) + 1 for x in s.vm_seq], s.vm[key]))
            else:
                lines.append(Line(label + suffix, [float(x) + 1 for x in s.io_seq], s.io[key]))
    return lines


def last_second(series: Sequence[RunSeries]) -> float | None:
    """Where every chart's x axis ends: the last second any of the runs has a sample for."""
    ends = [s.t[-1] for s in series if s.t] + [float(s.vm_seq[-1] + 1) for s in series if s.vm_seq]
    ends += [float(s.io_seq[-1] + 1) for s in series if s.io_seq]
    return max(ends, default=None)


def has_samples(chart: str, series: Sequence[RunSeries]) -> bool:
    return any(line.xs for line in chart_lines(chart, series))


def missing(series: Sequence[RunSeries]) -> str | None:
    """What has no per-second samples (its chart is not shown), and why that happens."""
    empty = [title for chart_id, title, *_ in CHARTS if not has_samples(chart_id, series)]
    if not empty:
        return None
    if len(empty) == len(CHARTS):
        return (
            "No per-second samples stored for this run: an import of its result only (no "
            "intervals, vmstat or iostat in its files), or a run that ended before its first second."
        )
    return f"No samples for {', '.join(empty)}: the run's files held none (e.g. an import without them)."


def describe(series: Sequence[RunSeries]) -> str:
    parts = []
    for s in series:
        r = s.run
        qps = f"{r.qps:,.1f}" if r.qps is not None else "-"
        dev = f", device {s.device}" if s.device else ""
        parts.append(
            f"#{r.run_id} {r.workload} {r.build} on {r.host} (dop {r.threads or '-'}, QPS {qps}{dev})"
        )
        if r.status != "finished":
            parts.append(f"    {r.status}" + (f": {r.error.strip()}" if r.error and r.error.strip() else ""))
    return "\n".join(parts)


class SeriesScreen(BenchdeckScreen):
    """Charts of one or two runs' samples over time."""

    CSS_PATH = tcss("series.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back", id="series.close", tooltip="Back to the previous screen"),
    ]

    class Loaded(Message, bubble=False):
        def __init__(self, series: list[RunSeries]) -> None:
            super().__init__()
            self.series = series

    def __init__(self, run_ids: Sequence[int]) -> None:
        super().__init__()
        self.run_ids = list(run_ids)
        self.series: list[RunSeries] = []

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield Static("loading ...", id="series-title")
        with VerticalScroll(id="series-scroll"), Grid(id="series-grid"):
            for chart_id, title, xlabel, _ in CHARTS:
                yield LineChart(
                    title, xlabel, ymax=100.0 if chart_id == "cpu" else None, id=f"series-{chart_id}"
                )
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="series.load")
    def load(self) -> None:
        cur = self.store.cursor()
        try:
            series = [run_series(cur, run_id) for run_id in self.run_ids]
        finally:
            cur.close()
        self.post_if_current(self.Loaded(series))

    def on_series_screen_loaded(self, msg: Loaded) -> None:
        self.series = msg.series
        note = missing(msg.series)
        self.query_one("#series-title", Static).update(describe(msg.series) + (f"\n{note}" if note else ""))
        end = last_second(msg.series)
        for chart_id, *_ in CHARTS:
            chart = self.query_one(f"#series-{chart_id}", LineChart)
            chart.display = has_samples(chart_id, msg.series)  # never an empty frame
            chart.set_lines(chart_lines(chart_id, msg.series), end)

    def action_close(self) -> None:
        self.dismiss()
