"""Widgets and renderers shared by benchdeck's screens."""
