"""benchdeck's screens, one module each; the app lists them in ``tui/app/nav.py``."""
