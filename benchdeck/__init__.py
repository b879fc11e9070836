"""benchdeck: run, watch and compare database benchmark sessions at the terminal.

The packages live beside pyproject.toml (engine/, store/, tui/, themes/); this folder links them
under their import names (benchdeck.engine, ...), so Python, editors and type checkers find
``benchdeck.*`` in a checkout exactly where an installed copy has it.
"""
