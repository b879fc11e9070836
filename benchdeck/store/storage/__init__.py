"""Storage: the backends (a DuckDB file, a DuckLake team store), schema and migrations, writes and reads."""
