from pathlib import Path

import pytest

from benchdeck.engine.hosts.inventory import ConfigError
from benchdeck.engine.hosts.inventory_file import load_inventory
from benchdeck.engine.running.post_write import needs_post_write


def test_suite_settings_are_read_and_checked(tmp_path: Path) -> None:
    cfg = tmp_path / "b.toml"
    cfg.write_text('[suites.s]\nworkloads = ["insert_range=100"]\nthreads = 8\nwrite_s = 900\n')
    inv = load_inventory(cfg)
    assert inv.suites["s"] == ("insert_range=100",)
    assert inv.suite_settings["s"] == {"threads": 8, "write_s": 900}
    cfg.write_text('[suites.s]\nworkloads = ["insert_range=100"]\nthreads = "eight"\n')
    with pytest.raises(ConfigError, match=r"b\.toml:3: suites\.s\.threads"):
        load_inventory(cfg)


@pytest.mark.parametrize(
    ("done", "following", "expected"),
    [
        ("update-index_range=100", "point-query_range=100", True),
        ("read-write_range=100", "scan_range=100", True),
        ("update-index_range=100", "insert_range=100", False),
        ("point-query_range=100", "scan_range=100", False),
        ("update-index_range=100", None, False),
        ("l.i1", "qr100", False),
    ],
)
def test_post_write_only_between_writes_and_reads(done: str, following: str | None, expected: bool) -> None:
    assert needs_post_write(done, following) is expected
