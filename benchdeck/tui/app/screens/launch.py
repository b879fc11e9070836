"""Launch: pick hosts, builds, a suite or workloads, and options; see the matrix; queue it."""

from __future__ import annotations

import asyncio
import importlib
import json
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Select, SelectionList, Static
from textual.worker import Worker

from benchdeck.engine.config_names import config_label
from benchdeck.engine.families.builtin.catalogue import BUILTIN_BUILDS
from benchdeck.tui.app.context import services
from benchdeck.tui.app.screens.base import (
    VALID_INPUT,
    StyledOnce,
    preset_breakpoints,
    report_worker_error,
    tcss,
    whole_first_frame,
)
from benchdeck.tui.app.screens.launch_choices import (
    BUILTIN_SUITE,
    CAPTURE_CHOICES,
    NO_CLUSTER,
    QUICK,
    cluster_label,
    highlight_first,
    impossible,
    learned_setups,
    offered,
    refill,
    suite_names,
    where_runs_go,
)
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.widgets.app_header import AppHeader
from benchdeck.tui.app.widgets.choice import Choice
from benchdeck.tui.app.widgets.keybar import KeyBar
from benchdeck.tui.startup.launch_lists import first_lists

# Launch is the first screen on a store with no runs: what its first frame does not use (the
# inventory, plans, ETAs, DuckDB: imports it would wait for) loads after it (load_choices)
if TYPE_CHECKING:
    from benchdeck.engine.cluster.spec import ClusterSpec
    from benchdeck.engine.hosts.facts import HostFacts
    from benchdeck.engine.hosts.inventory import Inventory
    from benchdeck.engine.planning.plan import RunOptions
    from benchdeck.store.storage.db import Store
    from benchdeck.tui.app.state.live_hub import LiveHub


class OptionsColumn(VerticalScroll, can_focus=False):
    """Options, facts, matrix and Start: scrolls on short terminals (80x24), no tab stop of its own."""


class LaunchScreen(StyledOnce):
    """Build a run matrix and queue it; the default runs the built-in workload on this machine."""

    CSS_PATH = tcss("launch.tcss")
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 - typed by Screen
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "start", "Start", id="launch.start", tooltip="Queue the matrix and watch it live"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.inv: Inventory | None = None
        self.setups: dict[str, float | None] = {}
        """Each host's set-up per run, learned from its stored runs (None: none to learn from)."""
        self._choices_asked = False
        self.quick = first_lists()
        """The lists known before the inventory is read (no inventory file), or None."""
        preset_breakpoints(self)

    @property
    def hub(self) -> LiveHub:
        return services(self).hub

    def _runs_workdir(self, host: str) -> str:
        """The host's run directories as runs from this app make them (a local host without a
        workdir of its own: beside the store)."""
        from benchdeck.engine.running.session import runs_workdir
        from benchdeck.tui.services.runs import local_runs_dir
        from benchdeck.tui.startup.first_page import store_file

        store = store_file(services(self).store.db)
        return (
            runs_workdir(self.inv.hosts[host], local_runs_dir(store) if store else None) if self.inv else ""
        )

    def compose(self) -> ComposeResult:
        quick = self.quick
        hosts = [(h, h, True) for h in quick.hosts] if quick else []
        builds = [(b, b, True) for b in quick.builds] if quick else []
        workloads = [(w, w, w in QUICK) for w in quick.workloads] if quick else []
        yield AppHeader()
        with Horizontal(id="launch-columns"):
            with Vertical(classes="launch-col"):
                yield Label("Hosts")
                yield SelectionList[str](*hosts, id="launch-hosts")
                yield Label("Builds")
                yield SelectionList[str](*builds, id="launch-builds")
                yield Label("Configs", id="launch-configs-label", classes="-hidden")
                yield SelectionList[str](id="launch-configs", classes="-hidden")
            with Vertical(classes="launch-col", id="launch-col-workloads"):
                yield Label("Suite")
                yield Choice[str](
                    [(BUILTIN_SUITE, BUILTIN_SUITE)],
                    value=BUILTIN_SUITE,
                    id="launch-suite",
                    allow_blank=False,
                )
                yield Label("Workloads")
                yield SelectionList[str](*workloads, id="launch-workloads")
            with OptionsColumn(classes="launch-col"):
                yield Label("Threads (1,2,4 …)")
                yield Input("1", id="launch-threads", restrict=r"[0-9, ]*", classes=VALID_INPUT)
                yield Label("Repeats")
                yield Input("1", id="launch-repeat", type="integer", classes=VALID_INPUT)
                yield Label("Seconds per workload")
                yield Input("5", id="launch-time", type="integer", classes=VALID_INPUT)
                yield Label("Warm-up seconds")
                yield Input("0", id="launch-warmup", type="integer", classes=VALID_INPUT)
                yield Label("perf capture")
                yield Choice[str](CAPTURE_CHOICES, value="", id="launch-profile", allow_blank=False)
                yield Static("", id="launch-facts")
                yield Static("", id="launch-where")
        with Horizontal(id="launch-bottom"):  # always in view, even at 80x24
            yield Static("", id="launch-matrix")
            yield Button("Start", id="launch-start", variant="primary", compact=True)
        yield KeyBar()

    def on_mount(self) -> None:
        """The store's place in the header (Runs puts it there too; on a store with no runs
        Launch is the first screen): known before it opens, said again once it has (a
        read-only snapshot says so)."""
        app = services(self)
        self.app.sub_title = app.store.label
        app.store_opened_signal.subscribe(self, self._store_opened)
        for options in self.query(SelectionList):
            highlight_first(options)

    def _store_opened(self, _: None) -> None:
        self.app.sub_title = services(self).store.label

    def _compositor_refresh(self) -> None:
        """Launch is the first screen on a store with no runs: its first frame is whole (as
        the app's screens draw theirs, screens/base.py), and out before the choices load
        (the hub brings the engine's run side and DuckDB)."""
        if not whole_first_frame(self):
            return
        super()._compositor_refresh()
        if not self._choices_asked:
            self._choices_asked = True
            self.call_later(self.load_choices)

    @work(exclusive=True, group="launch.inventory", exit_on_error=False)
    async def load_choices(self) -> None:
        """Hosts, builds and suites from the inventory (read on a thread), and each host's
        set-up time learned from the store (for the matrix's ETA)."""
        # the hub's module (the engine's run side, DuckDB: a long import) is imported off the
        # UI thread
        await asyncio.to_thread(importlib.import_module, "benchdeck.tui.app.state.live_hub")
        from benchdeck.engine.hosts.inventory import ConfigError

        try:
            inv = await self.hub.inventory()  # with the builds benchdeck compiled
        except ConfigError as exc:
            self.notify(str(exc), severity="error", timeout=15)
            return
        try:
            self.setups = await self.hub.query(lambda store: learned_setups(store, inv.hosts))
        except Exception:  # an unreadable store: the guesses stand
            self.setups = {}
        self.inv = inv
        self._offer_clusters()
        hosts = self.query_one("#launch-hosts", SelectionList)
        picked = set(self._selected("#launch-hosts")) if self.quick else set()
        refill(hosts, [(n, n, n in picked or n == "local" or len(inv.hosts) == 1) for n in inv.hosts])
        suites = suite_names(self.inv)
        self.query_one("#launch-suite", Select).set_options((n, n) for n in suites)
        self._refresh_builds()
        if self.quick is None:  # the first frame's workloads (built-in ones) stay as the user left them
            self._fill_workloads(BUILTIN_SUITE)
        else:
            self._update_matrix()

    def _offer_clusters(self) -> None:
        """A Cluster picker above the options when the inventory names clusters (none: no
        picker). Mounted with the inventory: the first frame has none to draw."""
        assert self.inv is not None
        if not self.inv.clusters or self.query("#launch-cluster"):
            return
        options = [(NO_CLUSTER, ""), *((name, name) for name in self.inv.clusters)]
        picker = Choice[str](options, value="", id="launch-cluster", allow_blank=False)
        self.query_one(OptionsColumn).mount(Label("Cluster", id="launch-cluster-label"), picker, before=0)

    def cluster(self) -> ClusterSpec | None:
        """The cluster picked (its primary's host is the one host the matrix runs on), or None."""
        picker = next(self.query("#launch-cluster").results(Select), None)
        value = picker.value if picker is not None else ""
        return self.inv.clusters.get(value) if self.inv is not None and isinstance(value, str) else None

    @on(Select.Changed, "#launch-cluster")
    def _cluster_changed(self) -> None:
        """A cluster runs on its primary: that host alone is picked (the list is off meanwhile)."""
        spec, hosts = self.cluster(), self.query_one("#launch-hosts", SelectionList)
        if spec is not None and spec.primary.host not in offered(hosts):
            why = f"cluster {spec.name}: its primary's host {spec.primary.host} is not in the inventory"
            self.notify(why, severity="error")
            self.query_one("#launch-cluster", Select).value = ""  # (its change comes back here)
            return
        hosts.disabled = spec is not None
        if spec is not None:
            hosts.deselect_all()
            hosts.select(spec.primary.host)
        self._update_matrix()

    def _selected(self, sel_id: str) -> list[str]:
        return [str(v) for v in self.query_one(sel_id, SelectionList).selected]

    def _refresh_builds(self) -> None:
        assert self.inv is not None
        chosen = self._selected("#launch-hosts")
        names: list[str] = []
        for h in chosen:
            cfg = self.inv.hosts[h]
            names += [b for b in cfg.builds if b not in names]
            if cfg.transport == "local":
                names += [b for b in BUILTIN_BUILDS if b not in names]
        builds = self.query_one("#launch-builds", SelectionList)
        keep = set(self._selected("#launch-builds")) or set(BUILTIN_BUILDS)
        refill(builds, [(n, n, n in keep) for n in names])
        if chosen:
            self.load_facts(chosen[0])
            self.query_one("#launch-where", Static).update(
                where_runs_go(chosen[0], self._runs_workdir(chosen[0]))
            )
        self._refresh_configs()

    def _refresh_configs(self) -> None:
        """The server configurations of the chosen builds; shown only when there is a choice."""
        assert self.inv is not None
        hosts, builds = self._selected("#launch-hosts"), self._selected("#launch-builds")
        names = self.inv.config_names(hosts, builds)
        configs = self.query_one("#launch-configs", SelectionList)
        keep = set(self._selected("#launch-configs"))
        before = set(offered(configs))
        if set(names) != before:
            defaults = self.inv.default_configs(hosts, builds)
            with self.prevent(SelectionList.SelectedChanged):
                configs.clear_options()
                configs.add_options(  # what was picked stays; a build new to the list brings its own
                    [(config_label(n), n, n in keep or (n in defaults and n not in before)) for n in names]
                )
            highlight_first(configs)
        for node in (configs, self.query_one("#launch-configs-label")):
            node.set_class(len(names) < 2, "-hidden")
        self._update_matrix()

    def chosen_configs(self) -> list[str]:
        """The configurations picked (none when the builds offer no choice: their defaults)."""
        configs = self.query_one("#launch-configs", SelectionList)
        return [] if configs.has_class("-hidden") else self._selected("#launch-configs")

    def _fill_workloads(self, suite: str) -> None:
        assert self.inv is not None
        wl = self.query_one("#launch-workloads", SelectionList)
        wl.clear_options()
        names = suite_names(self.inv).get(suite, ())
        quick = set(QUICK) if suite == BUILTIN_SUITE else set(names)
        wl.add_options([(n, n, n in quick) for n in names])
        highlight_first(wl)
        self._update_matrix()

    @on(SelectionList.SelectedChanged, "#launch-hosts")
    def _hosts_changed(self) -> None:
        if self.inv is not None:
            self._refresh_builds()

    @on(SelectionList.SelectedChanged, "#launch-builds")
    def _builds_changed(self) -> None:
        if self.inv is not None:
            self._refresh_configs()

    @on(SelectionList.SelectedChanged)
    @on(Input.Changed)
    def _inputs_changed(self) -> None:
        self._update_matrix()

    @on(Select.Changed, "#launch-suite")
    def _suite_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and self.inv is not None:  # None: still reading it
            self._fill_workloads(event.value)

    def _int(self, sel: str, default: int) -> int:
        try:
            return max(0, int(self.query_one(sel, Input).value))
        except ValueError:
            return default

    def _update_matrix(self) -> None:
        if self.inv is None:  # the inventory is still being read: no "0 runs" meanwhile
            self.query_one("#launch-matrix", Static).update("reading the inventory …")
            return
        hosts, builds = self._selected("#launch-hosts"), self._selected("#launch-builds")
        workloads = self._selected("#launch-workloads")
        h, b, w = len(hosts), len(builds), len(workloads)
        from benchdeck.engine.planning.plan import RunOptions
        from benchdeck.tui.services.eta import format_s, matrix_s, measured_s, or_guess

        configs = self.chosen_configs()
        cells = self.inv.config_matrix(hosts, builds, configs) if self.inv is not None else {}
        options = RunOptions(
            duration_s=self._int("#launch-time", 10) or 1, warmup_s=self._int("#launch-warmup", 0)
        )
        sweep = len(self._dops()) * self._repeats()  # runs per (host, build, config, workload)
        measured = [measured_s(w_, options) for w_ in workloads] * sweep
        setups = {h_: or_guess(self.setups.get(h_), builds) for h_ in hosts}
        secs = matrix_s({h_: measured * sum(len(cells[h_, b_]) for b_ in builds) for h_ in hosts}, setups)
        runs = sum(map(len, cells.values())) * w * sweep
        spec = self.cluster()
        size = f"{cluster_label(spec)} on {hosts[0]}" if spec is not None and hosts else f"{h} host(s)"
        size += f" x {b} build(s)" + (f" x {len(configs)} config(s)" if configs else "")
        size += f" x {len(self._dops())} dops" if len(self._dops()) > 1 else ""
        size += f" x {self._repeats()} repeats" if self._repeats() > 1 else ""
        why_not = impossible(builds, workloads)
        line = f"{runs} runs = {size} x {w} workload(s); about {format_s(secs)}"
        self.query_one("#launch-matrix", Static).update(
            line + (f"\ncannot run: {why_not}" if why_not else "")
        )
        self.query_one("#launch-matrix").set_class(why_not is not None, "-impossible")
        self.query_one("#launch-start", Button).disabled = why_not is not None or not runs

    @work(exclusive=True, group="facts", exit_on_error=False)
    async def load_facts(self, host: str) -> None:
        """Facts recorded by `benchdeck hosts check`, else gathered now from the host."""
        from benchdeck.engine.hosts.facts import describe, gather_facts
        from benchdeck.engine.transport import TransportError, make_transport

        facts = await self._stored_facts(host)
        if facts is None and self.inv is not None:
            try:
                facts = await gather_facts(make_transport(self.inv.hosts[host].spec))
            except TransportError as exc:
                self.query_one("#launch-facts", Static).update(f"{host}: {exc}")
                return
        text = describe(facts) if facts else "facts unknown: run `benchdeck hosts check`"
        self.query_one("#launch-facts", Static).update(f"{host}: {text}")

    async def _stored_facts(self, host: str) -> HostFacts | None:
        from benchdeck.engine.hosts.facts import HostFacts
        from benchdeck.store.storage.lookups import host_facts_json

        def read(store: Store) -> str | None:
            with store.reading() as cur:
                return host_facts_json(cur, host)

        raw = await self.hub.query(read)
        return HostFacts.from_dict(json.loads(raw)) if raw else None

    @on(Button.Pressed, "#launch-start")
    def _pressed(self) -> None:
        self.action_start()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A failed worker of this screen (Start's) is one error line: not a BenchdeckScreen,
        and a worker's StateChanged does not bubble to the app."""
        report_worker_error(self, event)

    def action_start(self) -> None:
        store = services(self).store
        if store.read_only:  # a snapshot's copy would take the queue, then lose it: say why first
            self.notify(f"cannot run: {store.why_not_writable()}", severity="error", timeout=15)
            return
        hosts, builds = self._selected("#launch-hosts"), self._selected("#launch-builds")
        workloads = self._selected("#launch-workloads")
        if not (hosts and builds and workloads):
            self.notify("pick at least one host, build and workload", severity="warning")
            return
        why_not = impossible(builds, workloads)
        if why_not:
            self.notify(f"cannot run: {why_not}", severity="error")
            return
        from benchdeck.engine.planning.plan import RunOptions
        from benchdeck.engine.profiling.capture import CaptureOptions, parse_kinds

        dops = self._dops()
        profile = self.query_one("#launch-profile", Select).value
        opts = RunOptions(
            threads=dops[0] if len(dops) == 1 else None,
            duration_s=self._int("#launch-time", 10) or None,
            warmup_s=self._int("#launch-warmup", 0),
            # "": the hosts' own (inventory), else off; as --profile on the command line
            capture=CaptureOptions(parse_kinds(profile)) if isinstance(profile, str) and profile else None,
            cluster=spec.name if (spec := self.cluster()) is not None else None,
        )
        configs = self.chosen_configs()
        if not configs and not self.query_one("#launch-configs").has_class("-hidden"):
            self.notify("pick at least one config", severity="warning")
            return
        self.run_worker(
            self._start(
                hosts, builds, workloads, opts, configs, dops if len(dops) > 1 else (), self._repeats()
            ),
            group="launch",
            exit_on_error=False,
        )

    def _dops(self) -> tuple[int, ...]:
        """The Threads field's dops (``1,2,4``; none or nonsense: the host's default, one run)."""
        text = self.query_one("#launch-threads", Input).value
        return tuple(
            dict.fromkeys(int(p) for p in text.replace(" ", ",").split(",") if p.isdigit() and int(p))
        )

    def _repeats(self) -> int:
        return max(1, self._int("#launch-repeat", 1))

    async def _start(
        self,
        hosts: list[str],
        builds: list[str],
        workloads: list[str],
        opts: RunOptions,
        configs: list[str],
        dops: tuple[int, ...] = (),
        repeats: int = 1,
    ) -> None:
        sel = self.app.selection  # type: ignore[attr-defined]
        if sel.base is None or sel.host != hosts[0]:
            # nothing compared on this host yet: the first build is the base (Live draws its QPS
            # and rQPS for the others; Compare opens on them when the runs are in)
            self.app.selection = Selection(hosts[0], builds[0], tuple(builds[1:]))  # type: ignore[attr-defined]
        qid = await self.hub.start_queue(hosts, builds, workloads, opts, configs, dops, repeats)
        n = sum(map(len, (await self.hub.inventory()).config_matrix(hosts, builds, configs).values()))
        self.notify(f"queue {qid}: {n * len(workloads) * max(1, len(dops)) * repeats} runs started")
        self.app.switch_mode("live")
