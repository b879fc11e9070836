"""RocksDB ``db_bench`` command lines for the posts' steps and setups, as argv lists (values stay data).

Steps (docs/domain.md): ``fillseq`` (load in key order, WAL disabled), ``revrangeww``, ``fwdrangeww``
(``seekrandomwhilewriting`` with ``--reverse_iterator`` true/false and ``--seek_nexts``),
``readww`` (``readwhilewriting``) and ``overwrite``. The ``*ww`` steps run one extra,
rate-limited writer thread (``--benchmark_write_rate_limit``, bytes/s) beside the readers.
The mapping follows RocksDB's ``tools/benchmark.sh``.

Setups: ``byrx`` (cached: the block cache is larger than the database), ``iobuf`` (IO-bound,
buffered IO: the database is larger than the cache) and ``iodir`` (IO-bound with O_DIRECT for
user reads and for flush/compaction). Every flag used here is accepted by Debian's db_bench 7.8.

Facts measured with that db_bench: ``fillseq`` ignores ``--duration`` (it writes ``--num`` keys
per thread, so it runs with one thread), and ``--benchmark_write_rate_limit`` limits every
writing benchmark, so it is only passed to the ``*ww`` steps.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

STEPS = ("fillseq", "revrangeww", "fwdrangeww", "readww", "overwrite")  # the posts' order
SETUPS = ("byrx", "iobuf", "iodir")
# Long names (as RocksDB's benchmark.sh spells them) accepted for the steps.
ALIASES = {
    "readwhilewriting": "readww",
    "fwdrangewhilewriting": "fwdrangeww",
    "revrangewhilewriting": "revrangeww",
}
# step -> the db_bench benchmark it runs (the name its result line starts with)
BENCHMARK = {
    "fillseq": "fillseq",
    "revrangeww": "seekrandomwhilewriting",
    "fwdrangeww": "seekrandomwhilewriting",
    "readww": "readwhilewriting",
    "overwrite": "overwrite",
}
MIB = 1 << 20
_KEY = re.compile(r"(?a)[a-z][a-z0-9_]*")


class DbBenchError(ValueError):
    """A db_bench step or setup benchdeck cannot build as asked, with the reason."""


def step_name(name: str) -> str:
    """The canonical step for ``name`` (``readwhilewriting`` -> ``readww``)."""
    step = ALIASES.get(name, name)
    if step not in BENCHMARK:
        raise DbBenchError(f"unknown db_bench step {name!r} (known: {', '.join(STEPS)})")
    return step


@dataclass(frozen=True, slots=True)
class DbBenchConfig:
    """The database, its shape and the run parameters shared by all steps of one suite.

    ``cache_bytes`` defaults by setup: twice the raw data size for ``byrx``, a sixteenth of it
    for ``iobuf``/``iodir``. ``extra`` adds ``--key=value`` flags after the generated ones.
    """

    db_dir: str
    setup: str = "byrx"
    num_keys: int = 1_000_000
    key_size: int = 20
    value_size: int = 400
    block_size: int = 8192
    threads: int = 1
    duration_s: int = 300
    cache_bytes: int | None = None
    write_rate_mb_s: float = 2.0
    seek_nexts: int = 10
    compression: str = "none"
    stats_interval_s: int = 1
    histogram: bool = True
    sync: bool = False
    seed: int | None = None
    db_bench: str = "db_bench"
    extra: tuple[tuple[str, str], ...] = ()

    def raw_bytes(self) -> int:
        """The size of the keys and values, uncompressed (what a cached setup must hold)."""
        return self.num_keys * (self.key_size + self.value_size)

    def cache(self) -> int:
        """The block cache size for this setup."""
        if self.cache_bytes is not None:
            return self.cache_bytes
        raw = self.raw_bytes()
        if self.setup == "byrx":
            return max(2 * raw, 64 * MIB)
        return max(raw // 16, 1 * MIB)

    def validate(self) -> None:
        """Raise :class:`DbBenchError` for values db_bench would reject or a setup contradicts."""
        if self.setup not in SETUPS:
            raise DbBenchError(f"unknown db_bench setup {self.setup!r} (known: {', '.join(SETUPS)})")
        if not self.db_dir or self.db_dir.startswith("-"):
            raise DbBenchError(f"bad database directory {self.db_dir!r}")
        for name in ("num_keys", "key_size", "value_size", "block_size", "threads", "duration_s"):
            if getattr(self, name) < 1:
                raise DbBenchError(f"{name} must be at least 1")
        if self.key_size < 8:
            raise DbBenchError("key_size must be at least 8 (db_bench encodes the key number)")
        if self.seek_nexts < 0 or self.stats_interval_s < 0 or self.write_rate_mb_s < 0:
            raise DbBenchError("seek_nexts, stats_interval_s and write_rate_mb_s must not be negative")
        raw, cache = self.raw_bytes(), self.cache()
        if self.setup == "byrx" and cache <= raw:
            raise DbBenchError(f"byrx is cached: cache {cache} B must exceed the data ({raw} B)")
        if self.setup != "byrx" and cache >= raw:
            raise DbBenchError(f"{self.setup} is IO-bound: data ({raw} B) must exceed the cache ({cache} B)")
        if not re.fullmatch(r"(?a)[a-z0-9_]+", self.compression):
            raise DbBenchError(f"bad compression type {self.compression!r}")
        for key, _ in self.extra:
            if not _KEY.fullmatch(key):
                raise DbBenchError(f"bad db_bench flag name {key!r}")


def _flag(key: str, value: object) -> str:
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"--{key}={value}"


def setup_flags(setup: str) -> list[str]:
    """The IO flags of a setup: O_DIRECT for ``iodir``, buffered IO otherwise."""
    direct = setup == "iodir"
    return [_flag("use_direct_reads", direct), _flag("use_direct_io_for_flush_and_compaction", direct)]


def _common(cfg: DbBenchConfig) -> list[str]:
    argv = [
        _flag("db", cfg.db_dir),
        _flag("num", cfg.num_keys),
        _flag("key_size", cfg.key_size),
        _flag("value_size", cfg.value_size),
        _flag("block_size", cfg.block_size),
        _flag("cache_size", cfg.cache()),
        _flag("compression_type", cfg.compression),
        *setup_flags(cfg.setup),
        _flag("bloom_bits", 10),
        _flag("stats_interval_seconds", cfg.stats_interval_s),
        _flag("histogram", cfg.histogram),
    ]
    if cfg.seed is not None:
        argv.append(_flag("seed", cfg.seed))
    return argv


def step_argv(step: str, cfg: DbBenchConfig) -> list[str]:
    """The argv of one step (``fillseq`` creates the database; the others reuse it)."""
    cfg.validate()
    step = step_name(step)
    argv = [cfg.db_bench, _flag("benchmarks", BENCHMARK[step]), *_common(cfg)]
    if step == "fillseq":
        argv += [
            _flag("use_existing_db", False),
            _flag("disable_wal", True),
            _flag("sync", False),
            _flag("threads", 1),
            _flag("memtablerep", "vector"),
            _flag("allow_concurrent_memtable_write", False),
        ]
    else:
        argv += [
            _flag("use_existing_db", True),
            _flag("sync", cfg.sync),
            _flag("threads", cfg.threads),
            _flag("duration", cfg.duration_s),
        ]
    if step.endswith("ww"):
        argv.append(_flag("benchmark_write_rate_limit", int(cfg.write_rate_mb_s * MIB)))
    if step in ("fwdrangeww", "revrangeww"):
        argv += [_flag("seek_nexts", cfg.seek_nexts), _flag("reverse_iterator", step == "revrangeww")]
    argv += [_flag(k, v) for k, v in cfg.extra]
    return argv


def suite_argvs(cfg: DbBenchConfig, steps: tuple[str, ...] = STEPS) -> list[tuple[str, list[str]]]:
    """(step, argv) for each step in order; the first step must load the database."""
    names = [step_name(s) for s in steps]
    if names and names[0] != "fillseq":
        raise DbBenchError("a db_bench suite starts with fillseq (the other steps need its database)")
    return [(s, step_argv(s, cfg)) for s in names]


# A load that ran to its end leaves this file in the database directory, holding its key count.
# CURRENT alone is not enough: a fillseq killed half way leaves CURRENT and half the keys.
LOADED_MARK = "benchdeck-loaded"
# Prints 1 when "$1" holds a RocksDB database that a complete load of "$3" keys made ("$2" is the
# mark); constant scripts, values passed as data.
_DB_EXISTS = 'test -f "$1/CURRENT" && test "$(cat -- "$2" 2>/dev/null)" = "$3" && echo 1 || echo 0'
# The mark goes before a load starts (an interrupted load must not count as one)...
_UNMARK = 'mkdir -p -- "$1" && rm -f -- "$2"'
# ...and comes back once the load exited 0.
_MARK = 'printf "%s\\n" "$2" > "$1"'
_LOAD_THEN_MARK = (
    'mkdir -p -- "$1" && rm -f -- "$2" && m=$2 && n=$3 && shift 3 && "$@" && printf "%s\\n" "$n" > "$m"'
)


def loaded_mark(cfg: DbBenchConfig) -> str:
    """The file a complete load leaves in the database directory."""
    return posixpath.join(cfg.db_dir, LOADED_MARK)


def db_exists_argv(cfg: DbBenchConfig) -> list[str]:
    """A check printing 1 if a complete load of ``cfg.num_keys`` keys made the database (fits
    ``RunPlan.tables_exist_argv``); 0 for a missing, half-loaded or differently sized one.

    Needed because db_bench 7.8 with ``--use_existing_db=true`` on a missing directory quietly
    creates an empty database and reports a run anyway, and a killed fillseq leaves CURRENT.
    """
    return ["sh", "-c", _DB_EXISTS, "-", cfg.db_dir, loaded_mark(cfg), str(cfg.num_keys)]


def unmark_argv(cfg: DbBenchConfig) -> list[str]:
    """Before a measured fillseq: make the database's parent and forget that it was loaded."""
    return ["sh", "-c", _UNMARK, "-", posixpath.dirname(cfg.db_dir), loaded_mark(cfg)]


def mark_argv(cfg: DbBenchConfig) -> list[str]:
    """After a fillseq that exited 0: the database holds ``cfg.num_keys`` keys."""
    return ["sh", "-c", _MARK, "-", loaded_mark(cfg), str(cfg.num_keys)]


def load_argv(cfg: DbBenchConfig) -> list[str]:
    """fillseq as another step's prepare: unmark, load, mark only when fillseq exited 0."""
    head = ["sh", "-c", _LOAD_THEN_MARK, "-", posixpath.dirname(cfg.db_dir), loaded_mark(cfg)]
    return [*head, str(cfg.num_keys), *step_argv("fillseq", cfg)]
