"""Rich renderings of reports for the terminal, shared by the CLI (--format rich) and the app."""
