"""Shared test setup: real-server fixtures (sshd, MariaDB, PostgreSQL) for every test module."""

pytest_plugins = ["tests.servers.conftest_plugin"]
