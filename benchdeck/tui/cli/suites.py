"""Suites the CLI offers by name: the posts' (``classic``, ``modern`` ...), the built-in SQLite
one, and the inventory's ``[suites]`` — the same list for ``queue`` and ``compare``."""

from __future__ import annotations

import difflib

import click

from benchdeck.engine.catalogue import SUITES

SUITE_HELP = f"{', '.join(sorted(SUITES))}, builtin, or one from the inventory's [suites]"


def suite_steps(name: str) -> list[str]:
    """The steps of a suite: the posts' (``SUITES``), the built-in SQLite one, or the
    inventory's ``[suites]``; a usage error names the choices."""
    if name in SUITES:
        return [n for n, _ in SUITES[name]]
    if name == "builtin":
        from benchdeck.engine.families.builtin.catalogue import BUILTIN_WORKLOADS

        return list(BUILTIN_WORKLOADS)
    from benchdeck.engine.hosts.inventory_file import load_inventory

    inv_suites = load_inventory(None).suites
    if name in inv_suites:
        return list(inv_suites[name])
    close = difflib.get_close_matches(name, [*SUITES, "builtin", *inv_suites], n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise click.UsageError(f"unknown suite {name!r} (one of {SUITE_HELP}){hint}")
