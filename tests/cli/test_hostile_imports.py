"""`import sysbench` and `import mytools` of mutated files, through the CLI's own entry point.

Hypothesis mutates hand-written files in the post author's formats (tests/fixtures/seed001.py): huge
numbers, garbage tokens, truncated lines, bytes that are not UTF-8, a 100 kB password, names
that are not UTF-8 or hold a concurrency no column can store. Whatever the input: no exception
escapes ``main``, a failure is exit 1 or 2 with one line per problem on stderr, the store still
opens and the runs stored before are unchanged. ``main`` runs in this process (a subprocess per
example would not fit CI's time); tests/store/test_store_faults.py runs the CLI as a program.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchdeck.tui.cli.main import main
from tests.fixtures.seed001 import write_dell32_tree, write_single_run_files

BUILD = "my8028_rel_o2nofp"
TempFactory = pytest.TempPathFactory
HUGE = ["9223372036854775808", "2147483648", "4294967296", "1" + "0" * 39, "9" * 400, "9" * 5000]
GARBAGE = ["", "x", "nan", "-1", "inf", "1e400", "١٢", "{", "\x00", "%s", "'", '"', "\\"]
BAD_BYTES = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\r", b"\xef\xbb\xbf"]
FINGERPRINT = """
    SELECT r.run_id, r.threads, r.status, r.source_path, s.qps, s.bench_samples, s.vm_samples,
           s.io_samples, (SELECT count(*) FROM bench_samples b WHERE b.run_id = r.run_id),
           (SELECT count(*) FROM vmstat_samples v WHERE v.run_id = r.run_id),
           (SELECT sum(size) FROM raw_files f WHERE f.run_id = r.run_id)
    FROM runs r JOIN run_summary s USING (run_id) ORDER BY r.run_id
"""


def cli(*args: str | Path) -> tuple[int, str, str]:
    """``benchdeck ARGS`` through ``tui.cli.main``: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def fingerprint(db: Path) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(FINGERPRINT).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A store holding one imported run, and the files to mutate."""
    root = tmp_path_factory.mktemp("hostile")
    files = write_single_run_files(root / "single")
    db = root / "base.duckdb"
    code, _, err = cli(
        "--db", db, "import", "sysbench", files["sysbench"], "--host", "h", "--build", BUILD,
        "--workload", files["workload"], "--vmstat", files["vmstat"],
    )  # fmt: skip
    assert code == 0, err
    tree = write_dell32_tree(root / "tree")
    run_dir = next(tree.glob(f"x.{BUILD}.*"))
    return {"root": root, "db": db, "files": files, "run_dir": run_dir, "before": fingerprint(db)}


def mutate_text(draw: st.DrawFn, data: bytes) -> bytes:
    lines = data.split(b"\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        tokens = lines[i].split(b" ")
        j = draw(st.integers(0, len(tokens) - 1))
        kind = draw(st.sampled_from(["huge", "digits", "garbage", "bytes", "truncate", "drop", "dup"]))
        if kind == "huge":
            tokens[j] = draw(st.sampled_from(HUGE)).encode()
        elif kind == "digits":
            tokens[j] = re.sub(rb"\d+", draw(st.sampled_from(HUGE)).encode(), tokens[j])
        elif kind == "garbage":
            tokens[j] = draw(st.sampled_from(GARBAGE)).encode()
        elif kind == "bytes":
            tokens[j] += draw(st.sampled_from(BAD_BYTES))
        elif kind == "truncate":
            tokens = tokens[:j]
        elif kind == "drop":
            del lines[i]
            continue
        else:
            lines.insert(i, lines[i])
            continue
        lines[i] = b" ".join(tokens)
    if draw(st.integers(0, 9)) == 0:  # a long password on the command line (first line)
        lines[0] += b" --mysql-password=" + b"p" * 100_000
    return b"\n".join(lines)


def check_outcome(code: int, err: str, *, per_problem: bool) -> None:
    # plain progress lines ("import: 3/9 files, ...", stderr when not a terminal) are not problems
    lines = [line for line in err.splitlines() if not line.startswith("import: ")]
    assert code in (0, 1, 2), (code, err)
    assert all(line.startswith("benchdeck: ") for line in lines), err
    assert "Traceback" not in err
    if code == 0:
        assert all(line.startswith(("benchdeck: warning: ", "benchdeck: skipped: ")) for line in lines), err
    elif per_problem:  # mytools: a line per file not imported, then one error line
        assert not lines[-1].startswith(("benchdeck: warning: ", "benchdeck: skipped: ")), err
    else:
        assert len(lines) == 1, err


def fresh_store(base: dict[str, Any], work: Path) -> Path:
    db = work / "store.duckdb"
    shutil.copyfile(base["db"], db)
    return db


@st.composite
def sysbench_case(draw: st.DrawFn, files: dict[str, Any]) -> dict[str, bytes]:
    which = draw(st.sets(st.sampled_from(["sysbench", "vmstat", "iostat"]), min_size=1))
    return {
        k: mutate_text(draw, Path(files[k]).read_bytes()) if k in which else Path(files[k]).read_bytes()
        for k in ("sysbench", "vmstat", "iostat")
    }


def test_import_sysbench_of_mutated_files(
    base: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    @settings(
        max_examples=25, derandomize=True, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )  # fmt: skip
    @given(sysbench_case(base["files"]), st.booleans())
    def check(contents: dict[str, bytes], with_iostat: bool) -> None:
        work = tmp_path_factory.mktemp("sb")
        paths = {}
        for k, data in contents.items():
            paths[k] = work / f"{k}.txt"
            paths[k].write_bytes(data)
        db = fresh_store(base, work)
        extra = ["--iostat", paths["iostat"], "--device", "nvme0n1"] if with_iostat else []
        code, _, err = cli(
            "--db", db, "import", "sysbench", paths["sysbench"], "--host", "h", "--build", BUILD,
            "--workload", base["files"]["workload"], "--vmstat", paths["vmstat"], *extra,
        )  # fmt: skip
        check_outcome(code, err, per_problem=False)
        after = fingerprint(db)
        assert after[: len(base["before"])] == base["before"]
        stored = code == 0 and "already stored" not in err  # an unmutated sysbench file: the same run
        assert len(after) == len(base["before"]) + stored
        shutil.rmtree(work)

    check()


@st.composite
def mytools_case(draw: st.DrawFn, run_dir: Path) -> dict[bytes, bytes]:
    """Relative byte paths -> contents: two runs of one build folder, mutated."""
    names = sorted(p.name for p in run_dir.glob("sb.o.*"))[:2]
    dir_name = os.fsencode(run_dir.name)
    odd = draw(st.sampled_from(["none", "dir", "file", "dop", "build"]))
    if odd == "dir":
        dir_name = dir_name.replace(b".pk1", b"\xff.pk1")
    elif odd == "build":
        dir_name = b"x.\xe9t\xe9.z11a.pk1"
    tree: dict[bytes, bytes] = {}
    for i, name in enumerate(names):
        suffix = name.removeprefix("sb.o.")
        out_name = os.fsencode(name)
        if i == 0 and odd == "file":
            out_name += b"\xfe"
        if i == 0 and odd == "dop":
            out_name = re.sub(rb"dop\d+", b"dop99999999999", out_name)
        data = (run_dir / name).read_bytes()
        tree[dir_name + b"/" + out_name] = mutate_text(draw, data) if draw(st.booleans()) else data
        vm = run_dir / f"sb.vm.{suffix}"
        if vm.exists():
            vm_data = vm.read_bytes()
            tree[dir_name + b"/" + out_name.replace(b"sb.o.", b"sb.vm.")] = (
                mutate_text(draw, vm_data) if draw(st.booleans()) else vm_data
            )
    return tree


def test_import_mytools_of_mutated_trees(
    base: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    @settings(
        max_examples=15, derandomize=True, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )  # fmt: skip
    @given(mytools_case(base["run_dir"]))
    def check(tree: dict[bytes, bytes]) -> None:
        work = tmp_path_factory.mktemp("mt")
        root = os.fsencode(work / "tree")
        for rel, data in tree.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        db = fresh_store(base, work)
        code, out, err = cli("--db", db, "import", "mytools", os.fsdecode(root), "--host", "h")
        check_outcome(code, err, per_problem=True)
        assert "imported" in out or code != 0
        after = fingerprint(db)
        assert after[: len(base["before"])] == base["before"]
        shutil.rmtree(work)

    check()


def test_non_utf8_folder_is_one_line_and_the_rest_is_imported(base: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "tree"
    good = root / base["run_dir"].name
    shutil.copytree(base["run_dir"], good)
    for p in sorted(good.glob("sb.*"))[8:]:
        p.unlink()
    bad = os.path.join(os.fsencode(root), os.fsencode(good.name).replace(b".pk1", b"\xff.pk1"))
    shutil.copytree(os.fsencode(good), bad)
    db = fresh_store(base, tmp_path)
    code, out, err = cli("--db", db, "import", "mytools", root, "--host", "h2")
    assert code == 0, err
    skipped = [line for line in err.splitlines() if line.startswith("benchdeck: skipped: ")]
    assert len(skipped) == 1, err
    assert "not valid UTF-8" in skipped[0]
    assert "\\xff" in skipped[0]
    n = len(list(good.glob("sb.o.*")))
    assert f"imported {n} runs" in out


def test_tree_where_every_file_fails_ends_with_an_error_line(base: dict[str, Any], tmp_path: Path) -> None:
    run = tmp_path / "tree" / base["run_dir"].name
    run.mkdir(parents=True)
    for name in sorted(p.name for p in base["run_dir"].glob("sb.o.*"))[:3]:
        (run / name).write_text("sysbench 1.0.20\ninterrupted\n")
    db = fresh_store(base, tmp_path)
    code, _, err = cli("--db", db, "import", "mytools", tmp_path / "tree", "--host", "h")
    lines = [line for line in err.splitlines() if not line.startswith("import: ")]  # not progress
    assert code == 1
    assert [line.startswith("benchdeck: skipped: ") for line in lines] == [True, True, True, False]
    assert "no new run imported" in lines[-1]
    assert "3 file(s) failed" in lines[-1]
    assert fingerprint(db) == base["before"]


def test_the_reproductions_through_the_program(base: dict[str, Any], tmp_path: Path) -> None:
    """The issue's figures as one import through the real program: a 1 MB password on the
    command line (19-26 s before), a CPU count, a table size and vmstat values no column holds."""
    import subprocess
    import time

    from tests.fixtures.cli_helpers import CLI, ROOT

    files = base["files"]
    sb = Path(files["sysbench"]).read_text().splitlines()
    sb.insert(0, "4294967296 CPUs")
    sb.insert(0, f"sysbench --mysql-password={'p' * 1_000_000} --table-size={'1' + '0' * 39} "
                 "--threads=24 oltp_point_select run")  # fmt: skip
    vm = Path(files["vmstat"]).read_text().splitlines()
    vm[3] = re.sub(r"^(\s*\S+\s+\S+\s+\S+\s+)\S+", r"\g<1>9223372036854775808", vm[3])
    vm[4] = re.sub(r"(\S+)(\s+\S+\s+\S+\s+\S+\s+\S+)$", r"2147483648\2", vm[4])
    (tmp_path / "sb.txt").write_text("\n".join(sb) + "\n")
    (tmp_path / "vm.txt").write_text("\n".join(vm) + "\n")
    db = fresh_store(base, tmp_path)
    start = time.perf_counter()
    r = subprocess.run(
        [*CLI, "--db", str(db), "import", "sysbench", str(tmp_path / "sb.txt"), "--host", "h",
         "--build", BUILD, "--workload", files["workload"], "--vmstat", str(tmp_path / "vm.txt")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    elapsed = time.perf_counter() - start
    assert r.returncode == 0, r.stderr
    warnings = r.stderr.splitlines()
    assert any("CPU count 4294967296 is out of range" in w for w in warnings), warnings
    assert any("table-size 1" + "0" * 39 + " is out of range" in w for w in warnings), warnings
    assert all(w.startswith("benchdeck: warning: ") for w in warnings), warnings
    assert elapsed < 30, elapsed  # a Python start-up and a 1 MB line: seconds, not tens of them
    con = duckdb.connect(str(db), read_only=True)
    try:
        run_id = int(r.stdout.split()[-1])
        reasons = con.execute(
            "SELECT lineno, reason FROM skipped_lines WHERE run_id = ? AND source = 'vmstat' ORDER BY lineno",
            [run_id],
        ).fetchall()
        cols = con.execute("SELECT table_size, threads FROM runs WHERE run_id = ?", [run_id]).fetchone()
    finally:
        con.close()
    assert [lineno for lineno, _ in reasons] == [4, 5]
    assert "out of range" in reasons[0][1]
    assert "us 2147483648" in reasons[1][1]
    assert cols == (None, 24)
    assert fingerprint(db)[: len(base["before"])] == base["before"]
