"""``python -m benchdeck``: the same as the ``benchdeck`` command."""

from benchdeck.tui.entry import main

main()
