"""TUI test fixtures: a fixed demo store (built once, copied per test) and a private config dir."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.state.settings import UI_DIR_ENV
from benchdeck.tui.startup import first_page
from benchdeck.tui.startup.first_page import CACHE_DIR_ENV
from tests.app.storedata import Demo, build_demo
from tests.fixtures.big_store import build_store


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every TUI test gets its own settings dir: the user's ui.toml is never read or written."""
    d = tmp_path / "config"
    monkeypatch.setenv(UI_DIR_ENV, str(d))
    return d


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """... and its own cache dir (the first page of Runs a start keeps for the next)."""
    d = tmp_path / "cache"
    monkeypatch.setenv(CACHE_DIR_ENV, str(d))
    return d


@pytest.fixture(autouse=True)
def lasting_toasts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Notifications without a timeout of their own stay up for the test: tests read them
    after a settle, which on a loaded machine took longer than the 5 s a toast lasts (a
    test saw none of the two it was shown)."""
    monkeypatch.setattr(BenchdeckApp, "NOTIFICATION_TIMEOUT", 3600.0)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A 168-run store (bench_compare's), its first page kept at once by a start in this
    process (else only 2 s after the store's last write: first_page.QUIET_S)."""
    monkeypatch.setattr(first_page, "QUIET_S", 0.0)
    path = tmp_path / "s.duckdb"
    build_store(path, n_hosts=4, n_builds=1)
    return path


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    return build_demo(tmp_path_factory.mktemp("demo") / "demo.duckdb")


@pytest.fixture
def demo(demo_template: Demo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Demo:
    """A private copy of the demo store, in the working directory (the header shows where the
    store is, relative to it: ``demo.duckdb``, the same in every run)."""
    d = tmp_path / "store"
    d.mkdir()
    shutil.copy2(demo_template.path, d / "demo.duckdb")
    monkeypatch.chdir(d)
    return replace(demo_template, path=d / "demo.duckdb")
