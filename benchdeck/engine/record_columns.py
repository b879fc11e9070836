"""Many parsed records of one type held as a list per field, not an object each.

An import of the author's mar25 tree parses ~600k vmstat and iostat rows: a frozen record per
row cost ~2 µs to make (1.3 of ~12 CPU-s), and the store's insert took each apart again into
columns. A parser that reads many plain rows at once hands them over as :class:`RecordColumns`:
a sequence of the same records (made one at a time when asked for, equal to a list of them),
whose :meth:`column` the store inserts and the metrics average as they are.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

R = TypeVar("R")


class RecordColumns(Sequence[R], Generic[R]):
    """Records made by ``record(*values)`` from one value of each of ``columns`` (named
    ``names``, in the record's field order, all of one length)."""

    __slots__ = ("_columns", "_names", "_record")
    __hash__ = None  # type: ignore[assignment]  # as a list: equal to one

    def __init__(self, record: Callable[..., R], names: tuple[str, ...], columns: list[list[Any]]) -> None:
        self._record = record
        self._names = names
        self._columns = columns

    def column(self, name: str) -> list[Any]:
        """The values of field ``name``, in order (the list itself: not to be changed)."""
        return self._columns[self._names.index(name)]

    def __len__(self) -> int:
        return len(self._columns[0]) if self._columns else 0

    @overload
    def __getitem__(self, i: int) -> R: ...

    @overload
    def __getitem__(self, i: slice) -> RecordColumns[R]: ...

    def __getitem__(self, i: int | slice) -> R | RecordColumns[R]:
        if isinstance(i, slice):
            return RecordColumns(self._record, self._names, [c[i] for c in self._columns])
        return self._record(*(c[i] for c in self._columns))

    def __iter__(self) -> Iterator[R]:
        return map(self._record, *self._columns)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(map(operator.eq, self, other))

    def __repr__(self) -> str:
        return repr(list(self))


def columns_of(records: Sequence[R], names: tuple[str, ...]) -> list[list[Any]]:
    """The fields ``names`` of ``records`` as a list each (a :class:`RecordColumns`' own)."""
    if isinstance(records, RecordColumns):
        return [records.column(n) for n in names]
    if not records:
        return [[] for _ in names]
    get = operator.attrgetter(*names) if len(names) > 1 else (lambda r: (getattr(r, names[0]),))
    return [list(c) for c in zip(*map(get, records), strict=True)]
