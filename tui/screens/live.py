"""Live: one tab per host with a run: QPS (base overlaid), p95, vmstat, iostat, log, progress."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Log, Static, TabbedContent, TabPane

from tui.live_model import RunView
from tui.screens.base import tcss
from tui.widgets.charts import Line, LineChart

if TYPE_CHECKING:
    from tui.live_hub import LiveHub

REDRAW_S = 1.0


def _fmt_s(s: float | None) -> str:
    if s is None:
        return "-"
    m, sec = divmod(int(s), 60)
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{sec:02d}s"


def headline(v: RunView, eta_s: float | None, done: int, total: int) -> str:
    """``run 12  my8040_rel  point-query_range=100  measuring 37/300 s  QPS 12,345  rQPS 0.97``."""
    qps = v.final_qps if v.final_qps is not None else v.last_qps
    parts = [f"run {v.run_id}", v.build or "?", v.workload or "?", v.phase]
    if v.t and v.duration_s:
        parts[-1] += f" {v.t[-1]:.0f}/{v.duration_s} s"
    parts.append(f"QPS {qps:,.1f}" if qps is not None else "QPS -")
    if v.rqps is not None:
        parts.append(f"rQPS {v.rqps:.2f}")
    if total:
        parts.append(f"suite {done}/{total} ETA {_fmt_s(eta_s)}")
    return "  ".join(parts)


class HostPane(TabPane):
    """Charts and log of one host's current run."""

    def __init__(self, host: str) -> None:
        super().__init__(host, id=f"live-{_safe(host)}")
        self.host = host
        self._logged = 0
        self._run_id: int | None = None

    def _chart(self, name: str) -> LineChart:
        return self.query_one(f"#{self.id}-{name}", LineChart)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("", classes="live-headline")
            with Grid(classes="live-grid"):
                yield LineChart("QPS", id=f"{self.id}-qps")
                yield LineChart("p95 latency (ms)", id=f"{self.id}-lat")
                yield LineChart("CPU % (vmstat)", ymax=100.0, id=f"{self.id}-cpu")
                yield LineChart("context switches (k/s), run queue", id=f"{self.id}-cs")
                yield LineChart("iostat r/s, w/s", id=f"{self.id}-iops")
                yield LineChart("iostat rKB/s, wKB/s", id=f"{self.id}-kbs")
            yield Log(classes="live-log", max_lines=200)

    def show(self, v: RunView, line: str) -> None:
        self.query_one(".live-headline", Static).update(line)
        xs = v.t
        base = [Line("base", xs, [v.base_qps] * len(xs))] if v.base_qps and xs else []
        self._chart("qps").set_lines([Line("QPS", xs, v.qps), *base])
        self._chart("lat").set_lines([Line("p95 ms", xs, v.p95)])
        n = range(1, len(v.vm["us"]) + 1)
        self._chart("cpu").set_lines(
            [Line(k, list(n), list(map(float, v.vm[k]))) for k in ("us", "sy", "id", "wa")]
        )
        kcs = [c / 1000 for c in v.vm["cs"]]
        self._chart("cs").set_lines([Line("kcs/s", list(n), kcs), Line("r", list(n), v.vm["r"])])
        m = list(range(1, len(v.io["r_s"]) + 1))
        self._chart("iops").set_lines([Line("r/s", m, v.io["r_s"]), Line("w/s", m, v.io["w_s"])])
        self._chart("kbs").set_lines([Line("rKB/s", m, v.io["rkb_s"]), Line("wKB/s", m, v.io["wkb_s"])])
        log = self.query_one(".live-log", Log)
        if self._run_id != v.run_id:
            log.clear()
            self._run_id, self._logged = v.run_id, 0
        fresh = min(v.log_total - self._logged, len(v.log))
        if fresh > 0:
            log.write_lines(list(v.log)[-fresh:])
        self._logged = v.log_total


def _safe(host: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in host)


class LiveScreen(Screen[None]):
    """Live monitoring of running benchmarks, one tab per host; redraws at most once a second."""

    CSS_PATH = tcss("live.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "x",
            "cancel_run",
            "Cancel run",
            id="live.cancel",
            tooltip="Stop this host's run, keep its samples",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._seen = -1
        self._tabs: set[str] = set()

    @property
    def hub(self) -> LiveHub:
        return self.app.hub  # type: ignore[attr-defined,no-any-return]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("No run is active: start one from Launch (key 4).", id="live-empty")
        yield TabbedContent(id="live-tabs")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(REDRAW_S, self.refresh_live)
        self.refresh_live()

    def refresh_live(self) -> None:
        """Redraw the visible host's tab if anything changed since the last redraw."""
        model = self.hub.model
        if model.version == self._seen:
            return
        self._seen = model.version
        tabs = self.query_one("#live-tabs", TabbedContent)
        for host in model.hosts():
            if host not in self._tabs:  # a set, not a DOM query per host each second
                self._tabs.add(host)
                tabs.add_pane(HostPane(host))
        self.query_one("#live-empty", Static).display = not model.hosts()
        active = tabs.active_pane
        if isinstance(active, HostPane):
            v = model.current(active.host)
            if v is not None:
                p = model.progress
                active.show(v, headline(v, p.eta_s(), p.done, p.total))

    @on(TabbedContent.TabActivated)
    def _tab_changed(self) -> None:
        self._seen = -1
        self.refresh_live()

    def action_cancel_run(self) -> None:
        active = self.query_one("#live-tabs", TabbedContent).active_pane
        if not isinstance(active, HostPane):
            return
        v = self.hub.model.current(active.host)
        if v is None or v.done:
            self.notify("nothing to cancel on this host")
            return
        self.run_worker(self.hub.cancel(v.run_id), exclusive=True, group="cancel", exit_on_error=False)
        self.notify(f"cancelling run {v.run_id}")
