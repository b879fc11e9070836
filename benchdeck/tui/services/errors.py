"""Is an error one of ours? Known without importing its module: one raised means it is loaded
(store.errors comes with store.db, which brings DuckDB, which the app's first frame may not
need; store.compare numpy and scipy, slower still). Shared by the CLI and the app."""

from __future__ import annotations

import sys


def is_a(error: BaseException, module: str, name: str) -> bool:
    """``error`` is a ``module.name`` (False while that module is not loaded)."""
    kind = getattr(sys.modules.get(module), name, None)
    return isinstance(kind, type) and isinstance(error, kind)


def is_store_error(error: BaseException) -> bool:
    return is_a(error, "benchdeck.store.storage.errors", "StoreError")


def is_compare_error(error: BaseException) -> bool:
    return is_a(error, "benchdeck.store.analysis.compare", "CompareError")
