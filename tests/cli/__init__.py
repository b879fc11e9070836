"""Tests of the CLI commands, through their output."""
