"""benchdeck's built-in workloads: sysbench-shaped microbenchmarks on SQLite, standard library only.

They need neither sysbench nor a DBMS server, so a fresh machine can run, watch and compare
something real at once; their output is sysbench 1.0.20's text format.
"""

from benchdeck.engine.families.builtin.catalogue import BUILTIN_WORKLOADS, builtin_argv, is_builtin

__all__ = ["BUILTIN_WORKLOADS", "builtin_argv", "is_builtin"]
