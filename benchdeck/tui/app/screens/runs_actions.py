"""The Runs screen's actions on the selected run: mark two and diff them, its time series, set it
as Compare's base, tag, delete, run it again. The listing itself (filters, pages) is runs.py."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.message import Message
from textual.widgets import DataTable, Input
from textual.widgets.data_table import ColumnDoesNotExist, RowDoesNotExist

from benchdeck.store.storage.run_lists import HistoryRow, delete_run, set_tags
from benchdeck.tui.app.screens.base import BenchdeckScreen
from benchdeck.tui.app.state.selection import Selection


@dataclass
class RerunRequested(Message):
    """The user asked to run this run again (the app queues it with the engine)."""

    run_id: int


class RunActions(BenchdeckScreen):
    """What the Runs screen does to a run; the screen provides the rows and the marks."""

    class Changed(Message):
        """A run was tagged or deleted (``deleted`` says which)."""

        def __init__(self, run_id: int, deleted: bool, tags: list[str] | None = None) -> None:
            super().__init__()
            self.run_id = run_id
            self.deleted = deleted
            self.tags = tags

    marked: list[int]  # at most two, oldest first

    @property
    def rows(self) -> dict[int, HistoryRow]:
        raise NotImplementedError

    def _reload(self) -> None:
        raise NotImplementedError

    def _show_status(self) -> None:
        raise NotImplementedError

    @property
    def selected(self) -> HistoryRow | None:
        table = self.query_one("#runs-table", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.rows.get(int(key)) if key is not None else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in {"tag", "delete", "rerun"} and self.store.read_only:
            return False  # a read-only snapshot: not offered at all
        if action in {"series", "set_base", "tag", "delete", "rerun"} and not self.rows:
            return None  # shown, but disabled
        if action == "unfocus_filter":
            return isinstance(self.focused, Input)
        return True

    def action_mark(self) -> None:
        """Mark or unmark the run (a third mark drops the oldest); the run column shows ``*``."""
        run = self.selected
        if run is None:
            return
        before = list(self.marked)
        if run.run_id in self.marked:
            self.marked.remove(run.run_id)
        else:
            self.marked = [*self.marked, run.run_id][-2:]
        table = self.query_one("#runs-table", DataTable)
        for rid in set(before) ^ set(self.marked):  # (not every row: there may be 10,000)
            with contextlib.suppress(RowDoesNotExist, ColumnDoesNotExist):
                label = f"*{rid}" if rid in self.marked else str(rid)
                table.update_cell(str(rid), "run", Text(label))
        self.notify(f"marked: {', '.join(map(str, self.marked)) or 'none'}", timeout=2)

    def action_diff(self) -> None:
        if len(self.marked) != 2:
            self.notify("mark two runs with m first", severity="warning")
            return
        from benchdeck.tui.app.screens.run_diff import RunDiffScreen

        self.app.push_screen(RunDiffScreen(*self.marked))

    @on(DataTable.RowSelected)
    def action_series(self) -> None:
        run = self.selected
        if run is not None:
            from benchdeck.tui.app.screens.series import SeriesScreen

            self.app.push_screen(SeriesScreen([run.run_id]))

    def action_set_base(self) -> None:
        run = self.selected
        if run is None:
            return
        sel = self.bd.selection
        same_host = sel.host == run.host
        self.bd.selection = Selection(
            host=run.host,
            base=run.build,
            with_builds=tuple(b for b in sel.with_builds if b != run.build) if same_host else (),
            config=run.config,
            dop=run.threads,
        )
        self._show_status()
        self.notify(f"base for Compare: {run.build} on {run.host} (config {run.config or '-'})")

    def action_tag(self) -> None:
        run = self.selected
        if run is None:
            return

        def done(text: str | None) -> None:
            if text is not None:
                self.save_tags(run.run_id, text.split(","))

        prompt = f"Tags of run {run.run_id} ({run.workload}, {run.build}), separated by commas"
        from benchdeck.tui.app.screens.dialogs import TextDialog

        self.app.push_screen(TextDialog(prompt, ", ".join(run.tags), "e.g. baseline, noisy"), done)

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs.write")
    def save_tags(self, run_id: int, tags: list[str]) -> None:
        cur = self.store.writable_cursor()
        try:
            stored = set_tags(cur, run_id, tags)
        finally:
            cur.close()
        self.post_message(self.Changed(run_id, deleted=False, tags=stored))

    def action_delete(self) -> None:
        run = self.selected
        if run is None:
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.remove_run(run.run_id)

        question = (
            f"Delete run {run.run_id} ({run.workload}, {run.build} on {run.host})\n"
            "with its samples, summary and raw files? This cannot be undone."
        )
        from benchdeck.tui.app.screens.dialogs import ConfirmDialog

        self.app.push_screen(ConfirmDialog(question, yes="Delete"), done)

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs.write")
    def remove_run(self, run_id: int) -> None:
        cur = self.store.writable_cursor()
        try:
            if not delete_run(cur, run_id):
                raise KeyError(f"run {run_id} no longer exists")
        finally:
            cur.close()
        self.post_message(self.Changed(run_id, deleted=True))

    def on_run_actions_changed(self, msg: Changed) -> None:
        if msg.deleted:
            self.notify(f"deleted run {msg.run_id}")
        else:
            self.notify(f"run {msg.run_id} tags: {', '.join(msg.tags or []) or '(none)'}")
        self._reload()

    def action_rerun(self) -> None:
        run = self.selected
        if run is not None:
            self.app.post_message(RerunRequested(run.run_id))
