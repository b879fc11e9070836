"""Tests of the app's start-up: the entry, the kept first page, the store handle."""
