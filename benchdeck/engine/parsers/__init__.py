"""Pure parsers for benchmark tool output (sysbench, vmstat, iostat): text lines in, records out.

No I/O here: callers feed lines (live tailing) or whole outputs (archives).
"""

from benchdeck.engine.parsers.iostat import IostatParser, IostatResult, parse_iostat
from benchdeck.engine.parsers.sysbench import (
    SysbenchParser,
    SysbenchResult,
    parse_command,
    parse_interval,
    parse_sysbench_output,
)
from benchdeck.engine.parsers.vmstat import VmstatParser, VmstatResult, parse_vmstat

__all__ = [
    "IostatParser",
    "IostatResult",
    "SysbenchParser",
    "SysbenchResult",
    "VmstatParser",
    "VmstatResult",
    "parse_command",
    "parse_interval",
    "parse_iostat",
    "parse_sysbench_output",
    "parse_vmstat",
]
