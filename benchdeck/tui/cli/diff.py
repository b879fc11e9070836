"""``benchdeck diff RUN_A RUN_B``: what differs between two runs' DBMS, variables, config files,
host facts and command lines (from what each run recorded when it ran)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from benchdeck.store.analysis.run_diff import Difference
    from benchdeck.tui.cli.context import Ctx


def _show(value: str | None) -> str:
    return "(none)" if value is None else value


def format_differences(run_a: int, run_b: int, diffs: list[Difference]) -> list[str]:
    """Plain lines: per section a header, then ``key: A -> B`` (multi-line values indented)."""
    if not diffs:
        return [f"run {run_a} and run {run_b}: same DBMS, variables, config files, host facts and commands"]
    lines = [f"run {run_a} -> run {run_b}: {len(diffs)} difference(s)"]
    section = None
    for d in diffs:
        if d.section != section:
            section = d.section
            lines.append(f"[{section}]")
        a, b = _show(d.a), _show(d.b)
        if "\n" in a or "\n" in b:
            lines.append(f"  {d.key}:")
            lines += [f"    - {ln}" for ln in a.splitlines()] + [f"    + {ln}" for ln in b.splitlines()]
        else:
            lines.append(f"  {d.key}: {a} -> {b}")
    return lines


@click.command("diff")
@click.argument("run_a", type=int)
@click.argument("run_b", type=int)
@click.option(
    "--section",
    "sections",
    multiple=True,
    type=click.Choice(["dbms", "variables", "config", "host", "command"]),
    help="Only these sections (repeat).",
)
@click.option("--all", "volatile", is_flag=True, help="Also variables that move on their own (GTID ...).")
@click.pass_obj
def diff_cmd(obj: Ctx, run_a: int, run_b: int, sections: tuple[str, ...], volatile: bool) -> None:
    """What differs between two runs: DBMS version, variables, config files, host, commands."""
    from benchdeck.store.analysis.run_diff import NoRecord, diff_runs

    with obj.open_store_for_reading() as store:
        try:
            diffs = diff_runs(store.cursor(), run_a, run_b, volatile=volatile)
        except NoRecord as exc:
            raise click.ClickException(str(exc)) from None
    if sections:
        diffs = [d for d in diffs if d.section in sections]
    for line in format_differences(run_a, run_b, diffs):
        click.echo(line)
