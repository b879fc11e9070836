"""The app's store handle: opened once on a thread of its own, never again once closed."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdeck.store.storage.db import Store, StoreError
from benchdeck.tui.app.screens.base import StoreHandle


def test_opened_soon_counts_runs_and_is_shared(tmp_path: Path) -> None:
    Store.open(tmp_path / "s.duckdb").close()
    handle = StoreHandle(tmp_path / "s.duckdb")
    assert handle.open_soon().result(timeout=30) == 0
    assert handle.get() is handle.get()
    handle.close()


def test_a_closed_handle_does_not_open_the_store_again(tmp_path: Path) -> None:
    """A worker (or the opening thread) that comes late after quitting gets an error instead
    of a connection nobody closes."""
    handle = StoreHandle(tmp_path / "s.duckdb")
    handle.close()
    with pytest.raises(StoreError, match="closed"):
        handle.get()
    with pytest.raises(StoreError, match="closed"):
        handle.open_soon().result(timeout=30)
    Store.open(tmp_path / "s.duckdb").close()  # nobody holds it
