"""Where the UI settings live: ``$BENCHDECK_UI_DIR`` (issue 25 item 18: its first name,
``$BENCHDECK_CONFIG_DIR``, read like the inventory's place; it still works)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdeck.tui.app.state.settings import LEGACY_UI_DIR_ENV, UI_DIR_ENV, config_dir


def test_ui_dir_env_and_its_old_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(UI_DIR_ENV, raising=False)
    monkeypatch.setenv(LEGACY_UI_DIR_ENV, str(tmp_path / "old"))
    assert config_dir() == tmp_path / "old"
    monkeypatch.setenv(UI_DIR_ENV, str(tmp_path / "new"))
    assert config_dir() == tmp_path / "new"
    assert (UI_DIR_ENV, LEGACY_UI_DIR_ENV) == ("BENCHDECK_UI_DIR", "BENCHDECK_CONFIG_DIR")
