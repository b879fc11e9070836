"""Compare's pickers in dialogs: a host, base, config or dop (``h`` ``b`` ``c`` ``o``), the columns
(``a``: every (build, config) pair at the dop, with presets), and what to say when there is nothing
to pick. The screen itself (the comparison and its tabs) is compare.py."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.widgets import Select

from benchdeck.engine.config_names import config_label
from benchdeck.store.analysis.column_choices import ColumnChoice, series_columns
from benchdeck.tui.app.screens.base import BenchdeckScreen
from benchdeck.tui.app.screens.dialogs import PickDialog
from benchdeck.tui.app.screens.multi_pick import MultiPickDialog
from benchdeck.tui.app.state.choices import column_value
from benchdeck.tui.app.state.selection import Selection

PICKERS = {"host": "#compare-host", "base": "#compare-base", "add": "#compare-add"}
PICKERS |= {"config": "#compare-config", "dop": "#compare-dop"}


class ComparePickers(BenchdeckScreen):
    """The dialogs that change what Compare shows; the screen provides its choices and
    :meth:`select`."""

    columns: tuple[ColumnChoice, ...]
    configs: tuple[str, ...]
    choices: dict[str, list[str]]
    loading_choices: bool

    def select(self, sel: Selection) -> None:
        raise NotImplementedError

    def action_pick(self, which: str) -> None:
        """Pick a host, base, column, config or dop in a dialog; the result sets the picker."""
        select: Select[Any] = self.query_one(PICKERS[which], Select)
        sel = self.bd.selection
        prompts = {"host": "Host", "base": "Base build (the denominator)", "add": "Add a column (build)"}
        prompts |= {"config": "Config", "dop": "Concurrency (dop)"}
        shown = {"dop": lambda v: f"dop {v}", "config": config_label}.get(which, str)
        choices = [(shown(v), v) for v in self.choices.get(which, [])]
        if which == "dop":
            choices.insert(0, ("all dops", ""))
        if not choices:
            self.notify(self._nothing_to_pick(which), severity="warning")
            return
        only = self._only_one(which)
        if only:
            self.notify(only, severity="warning")
            return
        current = {"host": sel.host, "base": sel.base, "config": sel.config}.get(which)
        current = str(sel.dop) if which == "dop" and sel.dop is not None else current

        def done(value: str | None) -> None:
            if value is None:
                return
            if which == "dop":
                select.value = int(value) if value else Select.NULL
            else:
                select.value = value

        self.app.push_screen(PickDialog(prompts[which], choices, current), done)

    def action_pick_columns(self) -> None:
        """Tick the columns in one dialog: every (build, config) pair with finished runs on the
        host at the dop, but the base, oldest version first (ctrl+b: every build of the config,
        ctrl+v: every version of the base's series); the result replaces the columns."""
        sel = self.bd.selection
        if self.loading_choices:
            self.notify(self._nothing_to_pick("add"), severity="warning")
            return
        config = (
            sel.config if sel.config is not None else (self.configs[0] if len(self.configs) == 1 else None)
        )
        many = len({c.config for c in self.columns}) > 1
        offered = [
            c for c in self.columns if not (c.build == sel.base and c.config == config and c.cluster is None)
        ]
        offered.sort(key=lambda c: (c.cluster is not None, c.cluster or ""))  # alone, then per cluster
        if not offered:
            self.notify(self._nothing_to_pick("base"), severity="warning")
            return
        value = {c: column_value(c, sel.config, len(self.configs)) for c in offered}
        choices = [
            (
                _shown(c) + (f"  config {config_label(c.config)}" if many else "") + f"  ({c.runs} runs)",
                value[c],
            )
            for c in offered
        ]
        presets: list[tuple[str, list[str]]] = []
        if config is not None:
            label = f"every build of config {config_label(config)}"
            presets.append((label, [value[c] for c in offered if c.config == config and c.cluster is None]))
            presets += _cluster_presets(offered, value, config)
        alone = [c for c in self.columns if c.cluster is None]
        base = next((c for c in alone if c.build == sel.base and c.config == config), None)
        if base is not None:
            series = {str(col) for col in series_columns(self.columns, base)}
            presets.append(
                (
                    f"every version of {base.dbms} {base.variant}".rstrip()
                    + f", config {config_label(base.config)}",
                    [value[c] for c in offered if str(c.column) in series],
                )
            )
        where = f" on {sel.host}" + (f" at dop {sel.dop}" if sel.dop is not None else "")

        def done(ticked: list[str] | None) -> None:
            if ticked is not None and tuple(ticked) != sel.with_builds:
                self.select(replace(self.bd.selection, with_builds=tuple(ticked)))

        prompt = f"Columns: builds and configs with finished runs{where} (base {sel.base})"
        self.app.push_screen(MultiPickDialog(prompt, choices, list(sel.with_builds), presets), done)

    def addable(self, builds: list[str], sel: Selection) -> list[str]:
        """What the ``+ add`` picker offers: the builds (alone) and the columns on a cluster
        (``build@cluster``) not shown yet."""
        configs = len(self.configs)
        on = [column_value(c, sel.config, configs) for c in self.columns if c.cluster is not None]
        names = [*builds, *dict.fromkeys(on)]
        return [n for n in names if n != sel.base and n not in sel.with_builds]

    def _only_one(self, which: str) -> str | None:
        """Why ``o``, ``c`` or ``h`` changes nothing (one dop, config or host to pick), if so."""
        offered = self.choices.get(which, [])
        if which not in ("host", "config", "dop") or len(offered) != 1 or self.loading_choices:
            return None
        what = {"host": "host", "config": "config", "dop": "dop"}[which]
        where = "in the store" if which == "host" else f"on {self.bd.selection.host}"
        return f"Only one {what} ({offered[0]}) has finished runs {where}: nothing to switch to."

    def _nothing_to_pick(self, which: str) -> str:
        if self.loading_choices:
            return "Still reading the store: try again in a moment."
        sel = self.bd.selection
        where = f" on {sel.host}" + (
            f" with config {config_label(sel.config)}" if sel.config is not None else ""
        )
        if which == "add":
            return f"Every build with finished runs{where} is shown already: nothing to add."
        if which == "base":
            return f"No other build has finished runs{where}: nothing to compare the base with."
        names = {"host": "hosts", "base": "builds", "config": "configs", "dop": "dops"}
        return f"No {names.get(which, which)} with finished runs{where}."

    def action_remove_column(self) -> None:
        sel = self.bd.selection
        if sel.with_builds:
            self.select(replace(sel, with_builds=sel.with_builds[:-1]))


def _shown(c: ColumnChoice) -> str:
    """A column as the dialog lists it: its build, ``@cluster`` for runs on a cluster."""
    return c.build if c.cluster is None else f"{c.build}@{c.cluster}"


def _cluster_presets(
    offered: list[ColumnChoice], value: dict[ColumnChoice, str], config: str
) -> list[tuple[str, list[str]]]:
    """Per cluster: every build of ``config`` alone and on it (PGO's gain alone and on the
    cluster in one table: issue 41)."""
    out = []
    for cluster in dict.fromkeys(c.cluster for c in offered if c.cluster is not None):
        mine = [c for c in offered if c.config == config and c.cluster in (None, cluster)]
        label = f"every build of config {config_label(config)}, alone and on {cluster}"
        out.append((label, [value[c] for c in mine]))
    return out
