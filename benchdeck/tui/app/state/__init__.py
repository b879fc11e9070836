"""The app's own state and services: live runs, selections, settings, watching the store (no widgets)."""
