"""Shared test setup: real-server fixtures (sshd, MariaDB, PostgreSQL) for every test module."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _benchdeck_from_this_checkout() -> None:
    """The tests must import benchdeck from this checkout: an editable install of another one (main,
    beside a worktree) would be imported instead, and its code tested without a word."""
    try:
        import benchdeck
    except ModuleNotFoundError:
        raise pytest.UsageError("benchdeck is not installed: run `pip install -e '.[test]'` here") from None
    where = Path(benchdeck.__file__ or "").resolve().parent.parent
    if where != ROOT:
        raise pytest.UsageError(
            f"benchdeck is imported from {where}, not from this checkout ({ROOT}): "
            "run `pip install -e .` here, or use a venv of its own"
        )


_benchdeck_from_this_checkout()  # before the plugin below imports benchdeck
pytest_plugins = ["tests.fixtures.servers.conftest_plugin", "tests.fixtures.servers.replication"]

# Fixtures that start a real server: a test that uses one (directly or through another fixture)
# talks to real external programs, and is marked `integration` without having to say so.
SERVER_FIXTURES = frozenset({"sshd_server", "ssh_host_spec", "ssh", "mariadb_server", "postgres_server"})
SERVER_FIXTURES |= {"mariadb_replication", "postgres_streaming"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)
