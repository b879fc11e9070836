"""Tests of the services the CLI and the app share."""
