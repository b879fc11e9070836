"""Make one store per released schema version with the code that released it.

For each version, ``git worktree add`` checks out the commit that introduced it, and that
commit's own CLI imports two runs (``benchdeck import sysbench`` with vmstat and iostat, the
files of tests/fixtures/seed001.py); then that commit's ``Store`` adds the rows only a live run or a
queue writes (remote_runs from v2, queues from v3, a queue item's config from v5, run_records
from v8). The stores are written zstd-compressed beside this script (a few kB each instead of
~1 MB) and committed: the test must not need git history, and an old checkout takes ~5 s.

Run from the repo root: ``python tests/store/migration_fixtures/make_fixtures.py``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import zstandard

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from tests.fixtures.seed001 import write_single_run_files  # noqa: E402

# schema version -> the commit that introduced it (git log -- store/storage/schema.py)
RELEASES: dict[int, str] = {
    1: "110bc92",
    2: "dfcfd92",
    3: "5648b5f",
    4: "d1f041c",
    5: "6e3c63b",
}
BUILDS = ("my8028_rel_o2nofp", "my8403_rel_o2nofp")

# Run in the old checkout, with its own store code: the rows a live run and a queue write.
EXTRAS = r"""
import sys
from benchdeck.store.storage.db import Store
version = int(sys.argv[2])
store = Store.open(sys.argv[1])
with store.transaction() as cur:
    assert cur.execute("SELECT max(version) FROM schema_version").fetchone()[0] == version
    run_ids = [r[0] for r in cur.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]
    if version >= 2:
        cur.execute(
            "INSERT INTO remote_runs VALUES "
            "(?, 'h1', '/tmp/bd-run-1', ?, ?, TIMESTAMP '2026-11-21 20:30:00')",
            [run_ids[0], '{"sysbench": 4242}', '{"workload": "point-query"}'],
        )
    if version >= 3:
        sql = "INSERT INTO queues (options) VALUES ('{\"repeat\": 1}') RETURNING queue_id"
        qid = cur.execute(sql).fetchone()[0]
        cols = "queue_id, position, host, build, workload, status, run_id"
        vals = [
            [qid, 0, "h1", "my8028_rel_o2nofp", "point-query", "done", run_ids[0]],
            [qid, 1, "h1", "my8403_rel_o2nofp", "point-query", "pending", None],
        ]
        if version >= 5:
            cols += ", config"
            vals = [v + [c] for v, c in zip(vals, [None, "z11a_c32r128"])]
        marks = ", ".join("?" * len(vals[0]))
        for v in vals:
            cur.execute(f"INSERT INTO queue_items ({cols}) VALUES ({marks})", v)
    if version >= 8:
        cur.execute(
            "INSERT INTO run_records (run_id, dbms_version, variables, git_commit) VALUES (?, ?, ?, ?)",
            [run_ids[0], "8.0.28", '{"innodb_buffer_pool_size": "134217728"}', "abc123"],
        )
store.close()
"""


def make(version: int, commit: str, files: list[dict[str, object]], work: Path) -> bytes:
    tree = work / f"v{version}"
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=ROOT, check=True)
    try:
        db = work / f"v{version}.duckdb"
        for build, f in zip(BUILDS, files, strict=False):
            argv = [
                sys.executable, "-c", "from benchdeck.tui.cli.main import main; main()", "--db", str(db),
                "import", "sysbench", str(f["sysbench"]), "--host", "h1", "--build", build,
                "--workload", str(f["workload"]), "--vmstat", str(f["vmstat"]),
                "--iostat", str(f["iostat"]), "--device", "nvme0n1",
            ]  # fmt: skip
            subprocess.run(argv, cwd=tree, check=True, env={"PATH": "/usr/bin:/bin", "HOME": str(work)})
        subprocess.run([sys.executable, "-c", EXTRAS, str(db), str(version)], cwd=tree, check=True)
        return db.read_bytes()
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        files = [write_single_run_files(work / f"run{i}", variant=i) for i in range(2)]
        for version, commit in RELEASES.items():
            data = make(version, commit, files, work)
            out = HERE / f"v{version}.duckdb.zst"
            out.write_bytes(zstandard.ZstdCompressor(level=19).compress(data))
            print(f"v{version} ({commit}): {len(data)} bytes, {out.stat().st_size} compressed")


if __name__ == "__main__":
    main()
