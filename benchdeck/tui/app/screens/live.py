"""Live: one tab per host with a run: QPS (base overlaid), p95, vmstat, iostat, log, progress;
a run on a cluster adds a tab per node (its vmstat, iostat), its replicas' lag and its faults."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical, VerticalScroll
from textual.widgets import Log, Static, Tab, Tabs
from textual.worker import Worker

from benchdeck.tui.app.context import services
from benchdeck.tui.app.screens.base import StyledOnce, report_worker_error, tcss
from benchdeck.tui.app.screens.dialogs import ConfirmDialog
from benchdeck.tui.app.state.live_cluster import ClusterView, Series
from benchdeck.tui.app.state.live_model import RunView, perf_line
from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.charts import Line, LineChart
from benchdeck.tui.app.widgets.keybar import KeyBar
from benchdeck.tui.services.eta import format_s

if TYPE_CHECKING:
    from benchdeck.tui.app.state.live_hub import LiveHub

REDRAW_S = 1.0


def progress(v: RunView) -> str:
    """``measuring 37/300 s``; ``loading 37 s`` for a step that runs until its work is done."""
    phase = "loading" if v.open_ended and v.phase == "measuring" else v.phase
    if not v.t:
        return phase
    if v.open_ended or not v.duration_s:
        return f"{phase} {v.t[-1]:.0f} s"
    return f"{phase} {v.t[-1]:.0f}/{v.duration_s} s"


def headline(v: RunView, eta_s: float | None, k: int, n: int) -> str:
    """Two lines that fit 80 columns: what runs, how it goes (``queue k/n``: the item of its
    queue, as the log's ``queue:`` line counts it, with the seconds left on this host).

    ``run 12  my8040_rel  point-query_range=100``
    ``measuring 37/300 s  QPS 12,345.0  rQPS 0.97  queue 3/42 ETA 5m00s``

    A run on a cluster has a third: ``cluster loop3 (async, 3 nodes)  lag r1 0.4 s  limit 10 s``.
    """
    qps = v.final_qps if v.final_qps is not None else v.last_qps
    what = [f"run {v.run_id}", v.build or "?", v.workload or "?"]
    how = [progress(v), f"QPS {qps:,.1f}" if qps is not None else "QPS -"]
    if v.rqps is not None:
        how.append(f"rQPS {v.rqps:.2f}")
    if n:
        how.append(f"queue {k}/{n} ETA {format_s(eta_s) if eta_s is not None else '-'}")
    text = "  ".join(what) + "\n" + "  ".join(how)
    return text + "\n" + v.cluster.headline() if v.cluster is not None else text


NODE_CHARTS = {
    "cpu": "CPU % (vmstat)",
    "cs": "context switches (k/s), run queue",
    "iops": "iostat r/s, w/s",
    "kbs": "iostat rKB/s, wKB/s",
}
"""The charts of one server's vmstat and iostat: on a cluster, of the node whose tab is active."""


class HostPane(Vertical):
    """The headline, charts and log of one host's current run: the host of the active tab.

    A run on a cluster adds a tab per node (the charts of vmstat and iostat show the active
    node's) and the replicas' lag beside QPS."""

    def __init__(self) -> None:
        super().__init__(id="live-pane")
        self.host: str | None = None
        self.node: str | None = None
        """The cluster node whose vmstat and iostat show (None: the run's one server)."""
        self._logged = 0
        self._run_id: int | None = None
        self._line = ""
        self._perf = ""
        self._node_tabs: tuple[int, tuple[str, ...]] | None = None  # (run, its nodes) the node tabs show
        self._made = 0  # node tabs made so far: each a new id (a cleared tab leaves later)

    def _chart(self, name: str) -> LineChart:
        return self.query_one(f"#live-{name}", LineChart)

    def compose(self) -> ComposeResult:
        yield Static("", classes="live-headline")
        yield Static("", classes="live-perf")  # hidden unless the run captures (--profile)
        yield HostTabs(id="live-nodes")  # hidden unless the run is on a cluster
        with VerticalScroll(classes="live-charts"), Grid(classes="live-grid"):
            yield LineChart("QPS", id="live-qps")
            yield LineChart("replica lag (s)", id="live-lag")  # hidden unless on a cluster
            yield LineChart("p95 latency (ms)", id="live-lat")
            yield LineChart(NODE_CHARTS["cpu"], ymax=100.0, id="live-cpu")
            for name in ("cs", "iops", "kbs"):
                yield LineChart(NODE_CHARTS[name], id=f"live-{name}")
        yield Log(classes="live-log", max_lines=200)

    def show(self, v: RunView, line: str) -> None:
        """Show run ``v`` (of host ``v.host``); charts redraw only if their data changed."""
        self.host = v.host
        self._show_nodes(v)
        if line != self._line:  # its height is fixed (per run kind): no layout
            self._line = line
            self.query_one(".live-headline", Static).update(line, layout=False)
        self._show_perf(perf_line(v))
        xs = v.t  # the run's own lists, passed as they are: the charts take in what was appended
        base = [Line("base", (xs[0], xs[-1]), (v.base_qps, v.base_qps))] if v.base_qps and xs else []
        self._chart("qps").set_lines([Line("QPS", xs, v.qps), *base])
        self._chart("lat").set_lines([Line("p95 ms", xs, v.p95)])
        if v.cluster is not None:
            self._show_lag(v.cluster, xs[-1] if xs else 0.0)
        self._show_server(self.node_series(v))
        self._show_log(v)

    def _show_server(self, s: Series) -> None:
        """vmstat and iostat of the run's server, or of the cluster node whose tab is active."""
        for name, title in NODE_CHARTS.items():
            chart = self._chart(name)
            want = f"{self.node}: {title}" if self.node else title
            if chart.chart_title != want:
                chart.chart_title = want
                chart.redraw()
        n = range(1, len(s.vm["us"]) + 1)
        self._chart("cpu").set_lines([Line(k, n, s.vm[k]) for k in ("us", "sy", "id", "wa")])
        self._chart("cs").set_lines([Line("kcs/s", n, s.vm["cs"], scale=0.001), Line("r", n, s.vm["r"])])
        m = range(1, len(s.io["r_s"]) + 1)
        self._chart("iops").set_lines([Line("r/s", m, s.io["r_s"]), Line("w/s", m, s.io["w_s"])])
        self._chart("kbs").set_lines([Line("rKB/s", m, s.io["rkb_s"]), Line("wKB/s", m, s.io["wkb_s"])])

    def node_series(self, v: RunView) -> Series:
        """The active node's series; the primary's are the run's own until the cluster's
        sampling sends some of its own."""
        own = Series(v.vm, v.io)
        if v.cluster is None or self.node is None:
            return own
        got = v.cluster.nodes.get(self.node, Series())
        if self.node != v.cluster.spec.primary.name:
            return got
        return Series(got.vm if got.vm["us"] else own.vm, got.io if got.io["r_s"] else own.io)

    def _show_lag(self, c: ClusterView, now: float) -> None:
        """Each replica's seconds behind over the run's t (and the seconds flow control paused
        it, where the server says), and the cluster's limit as a line."""
        lines = [Line(r.name, c.lag_t[r.name], c.lag_s[r.name]) for r in c.spec.replicas]
        lines += [Line(f"{n} paused", c.lag_t[n], c.paused_s[n]) for n in c.pausing]  # flow control
        end = max([now, *(ts[-1] for ts in c.lag_t.values() if ts)])
        limit = c.spec.lag_limit_s
        if end > 0:
            lines.append(Line(f"limit {limit:g} s", (0.0, end), (limit, limit)))
        self._chart("lag").set_lines(lines)

    def _show_nodes(self, v: RunView) -> None:
        """A tab per node of the run's cluster (none for one server), the primary's first."""
        c = v.cluster
        self.set_class(c is not None, "-cluster")
        nodes = (v.run_id, tuple(n.name for n in c.spec.nodes) if c is not None else ())
        if nodes == self._node_tabs:
            return
        self._node_tabs = nodes
        tabs = self.query_one("#live-nodes", Tabs)
        tabs.clear()
        self.node = c.spec.primary.name if c is not None else None
        for n in c.spec.nodes if c is not None else ():
            self._made += 1
            label = f"{n.name} ({n.role})" if n.role == "primary" else n.name
            tabs.add_tab(NodeTab(n.name, label, id=f"live-node-{self._made}"))

    def _show_perf(self, text: str) -> None:
        """The run's perf windows so far, one line; no line (no layout) for a run without."""
        if text != self._perf:
            self._perf = text
            bar = self.query_one(".live-perf", Static)
            bar.display = bool(text)
            bar.update(text)

    def _show_log(self, v: RunView) -> None:
        """Append the run's new log lines; all it kept when it is another run (another tab)."""
        log = self.query_one(".live-log", Log)
        if self._run_id != v.run_id:
            log.clear()
            # its newest line (a node's fault) in view as the log's size settles, and after, until
            # the user scrolls up (anchored): wherever the last run's log was scrolled
            log.anchor()
            self._run_id, self._logged = v.run_id, 0
        fresh = min(v.log_total - self._logged, len(v.log))
        if fresh > 0:
            log.write_lines(list(v.log)[-fresh:])
        self._logged = v.log_total


class HostTab(Tab):
    """The tab of one host."""

    def __init__(self, host: str, id: str) -> None:
        super().__init__(host, id=id)
        self.host = host


class NodeTab(Tab):
    """The tab of one node of a run's cluster."""

    def __init__(self, node: str, label: str, id: str) -> None:
        super().__init__(label, id=id)
        self.node = node


class HostTabs(Tabs):
    """Tabs whose underline moves to the active tab at once: no 0.3 s animation (~20 frames)."""

    def _highlight_active(self, animate: bool = True) -> None:
        super()._highlight_active(animate=False)


class LiveScreen(StyledOnce):
    """Live monitoring of running benchmarks, a tab per host; redraws at most once a second.

    The tabs share one :class:`HostPane`: switching tabs shows another host's run in the same
    charts (a redraw), not another pane (a layout and a repaint of the whole screen).
    """

    CSS_PATH = tcss("live.tcss")
    # Short or narrow terminals: charts keep a readable height and the chart area scrolls.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 - typed by Screen
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012 - typed by Screen
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "x",
            "cancel_run",
            "Cancel run",
            id="live.cancel",
            tooltip="Stop this host's run, keep its samples",
        ),
        Binding(
            "X",
            "cancel_queue",
            "Cancel queue",
            id="live.cancel_queue",
            tooltip="Stop this run's whole queue: its running and waiting runs",
            show=False,  # the key bar keeps its width; the command palette lists it
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._seen = -1
        self._tabs: dict[str, str] = {}  # host -> tab id
        self._can_cancel = False

    @property
    def hub(self) -> LiveHub:
        return services(self).hub

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield Static("No run is active: start one from Launch (key 4).", id="live-empty")
        yield HostTabs(id="live-tabs")
        yield HostPane()
        yield KeyBar()

    def on_mount(self) -> None:
        self._redraw_timer = self.set_interval(REDRAW_S, self.refresh_live)
        self.refresh_live()

    def active_host(self) -> str | None:
        tab = self.query_one("#live-tabs", Tabs).active_tab
        return tab.host if isinstance(tab, HostTab) else None

    def refresh_live(self) -> None:
        """Redraw the active host's run if anything changed since the last redraw."""
        model = self.hub.model
        if model.version == self._seen:
            return
        self._seen = model.version
        hosts = model.hosts()
        self._add_tabs(hosts)
        for widget in (self.query_one("#live-tabs", Tabs), self.query_one(HostPane)):
            widget.display = bool(hosts)
        self.query_one("#live-empty", Static).display = not hosts
        host = self.active_host()
        v = model.current(host) if host is not None else None
        can_cancel = v is not None and not v.done
        if can_cancel != self._can_cancel:  # the footer shows x only while a run runs
            self._can_cancel = can_cancel
            self.refresh_bindings()
        if v is not None:
            queue = model.queue_eta(v.host)
            eta, left = queue if queue is not None else (None, None)
            self.query_one(HostPane).show(v, headline(v, left, eta.k if eta else 0, eta.n if eta else 0))

    def _add_tabs(self, hosts: list[str]) -> None:
        tabs = self.query_one("#live-tabs", Tabs)
        for host in hosts:
            if host not in self._tabs:  # a dict, not a DOM query per host each second
                self._tabs[host] = f"live-{_safe(host)}-{len(self._tabs)}"
                tabs.add_tab(HostTab(host, self._tabs[host]))

    @on(Tabs.TabActivated, "#live-tabs")
    def _tab_changed(self) -> None:
        """Show the new tab's host at once; its next redraw comes a full interval later."""
        self._seen = -1
        self.refresh_live()
        self._redraw_timer.reset()

    @on(Tabs.TabActivated, "#live-nodes")
    def _node_changed(self, event: Tabs.TabActivated) -> None:
        """Another node's vmstat and iostat, at once."""
        if isinstance(event.tab, NodeTab):
            self.query_one(HostPane).node = event.tab.node
            self._tab_changed()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A failed cancel is one error line (see LaunchScreen.on_worker_state_changed)."""
        report_worker_error(self, event)

    def running(self) -> RunView | None:
        """The active host's run while it runs (what ``x`` would cancel)."""
        host = self.active_host()
        v = self.hub.model.current(host) if host is not None else None
        return v if v is not None and not v.done else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_run":  # off, and out of the footer, when nothing runs (on_key says so)
            return self.running() is not None
        return True

    def on_key(self, event: events.Key) -> None:
        if event.key == "x" and self.running() is None:
            event.stop()
            self.notify("Nothing runs on this host: nothing to cancel.")

    def action_cancel_run(self) -> None:
        v = self.running()
        if v is None:
            self.notify("Nothing runs on this host: nothing to cancel.")
            return
        run_id = v.run_id

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(self.hub.cancel(run_id), exclusive=True, group="cancel", exit_on_error=False)
                self.notify(f"cancelling run {run_id}")

        question = f"Cancel run {run_id} ({v.build} {v.workload}) on {v.host}? The samples so far are kept."
        self.app.push_screen(ConfirmDialog(question, yes="Cancel run"), answered)

    def action_cancel_queue(self) -> None:
        host = self.active_host()
        v = self.hub.model.current(host) if host is not None else None
        if v is None:
            self.notify("no queue on this host")
            return
        run_id = v.run_id

        async def cancel() -> None:
            qid = await self.hub.cancel_queue(run_id)
            self.notify(f"queue {qid} cancelled" if qid is not None else f"run {run_id} is in no queue")

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(cancel(), exclusive=True, group="cancel", exit_on_error=False)

        question = f"Cancel the queue of run {run_id} on {v.host}: its running and waiting runs?"
        self.app.push_screen(ConfirmDialog(question, yes="Cancel queue"), answered)


def _safe(host: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in host)
