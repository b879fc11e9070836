"""``python -m benchdeck``: the same as the ``benchdeck`` command."""

from benchdeck.tui.cli.main import main

main()
