"""Launch offers a build's server configs (inventory ``configs``) when there is a choice."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import SelectionList

from benchdeck.engine.hosts.inventory import INVENTORY_ENV
from benchdeck.tui.app.app import BenchdeckApp
from tests.app.test_launch_live import SIZE, matrix, open_launch, wait_for

BUILD = "ma101119_rel"


@pytest.fixture(autouse=True)
def inventory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The ``local`` host with the built-in builds and one managed build with two configs."""
    cfg = tmp_path / "benchdeck.toml"
    cfg.write_text(
        f"""
[hosts.local]
transport = "local"
workdir = "{tmp_path / "work"}"

[[hosts.local.builds]]
name = "{BUILD}"
managed = true
config = "small"
config_file = "/etc/small.cnf"
configs = {{ big = "/etc/big.cnf" }}
"""
    )
    monkeypatch.setenv(INVENTORY_ENV, str(cfg))
    return cfg


async def test_configs_show_with_a_choice_and_size_the_matrix(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        launch = await open_launch(pilot)
        configs: SelectionList[str] = launch.query_one("#launch-configs", SelectionList)
        builds: SelectionList[str] = launch.query_one("#launch-builds", SelectionList)
        assert list(builds.selected) == ["sqlite", "sqlite-sync"]
        assert not configs.display or configs.has_class("-hidden"), "no choice: no list"
        assert matrix(app).startswith("6 runs = 1 host(s) x 2 build(s) x 3 workload(s)")

        builds.select(BUILD)  # a build with two configs: the list shows, its default picked
        await wait_for(pilot, lambda: not configs.has_class("-hidden"), "the configs list")
        offered = [str(configs.get_option_at_index(i).prompt) for i in range(configs.option_count)]
        assert offered == ["small", "default", "big"]  # the defaults first
        assert set(configs.selected) == {"", "small"}
        assert matrix(app).startswith("9 runs = 1 host(s) x 3 build(s) x 2 config(s) x 3 workload(s)")

        configs.select("big")  # big only exists for the managed build: 3 more runs
        await wait_for(pilot, lambda: matrix(app).startswith("12 runs"), "the matrix with big")
        configs.deselect("")  # the built-in builds have no named config: they drop out
        await wait_for(pilot, lambda: matrix(app).startswith("6 runs"), "the matrix without them")
        assert "x 2 config(s)" in matrix(app)

        builds.deselect(BUILD)  # no choice left: the list hides, defaults again
        await wait_for(pilot, lambda: configs.has_class("-hidden"), "the configs list to hide")
        assert matrix(app).startswith("6 runs = 1 host(s) x 2 build(s) x 3 workload(s)")
