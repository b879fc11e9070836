"""Where the CPU goes: hardware/software counters (``perf stat``) and CPU profiles (``perf record``)
captured while a benchmark runs, parsed into typed records (:mod:`.records`)."""
