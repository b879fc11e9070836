"""The column syntax ``compare`` and ``profile`` share on the command line: ``BUILD[:CONFIG][@DOP]``."""

from __future__ import annotations

import click

from benchdeck.store.analysis.columns import Column


class ColumnParam(click.ParamType):  # type: ignore[type-arg]
    """``BUILD``, ``BUILD:CONFIG``, with ``@DOP`` after either (a column at its own dop)."""

    name = "BUILD[:CONFIG][@DOP]"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> Column:
        if isinstance(value, Column):
            return value
        try:
            return Column.parse(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
