"""store.bulk: every column type and NULL goes in exactly, by either path (NumPy or nanoarrow)."""

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchdeck.store.storage import bulk
from benchdeck.store.storage.db import Store

TABLE = """CREATE TABLE t (i BIGINT, n INTEGER, x DOUBLE, s VARCHAR, j JSON, k JSON, ts TIMESTAMP, b BLOB)"""


def _columns(s: list[str | None], b: list[bytes | None] | None = None) -> dict[str, tuple[str, list[object]]]:
    n = len(s)
    columns: dict[str, tuple[str, list[object]]] = {
        "i": ("BIGINT", [2**62, None, -1][:n]),
        "n": ("INTEGER", [None, 7, 2**31 - 1][:n]),
        "x": ("DOUBLE", [1.5, None, 3][:n]),
        "s": ("VARCHAR", list(s)),
        "j": ("JSON", ['{"a": 1}', None, "[]"][:n]),
        "k": ("JSON", ['{"b": [2]}', "3", '"s"'][:n]),  # no NULL: no mask
        "ts": (
            "TIMESTAMP",
            [
                datetime(2026, 11, 21, 19, 52, 23, 5),
                None,
                datetime(2026, 11, 21, 21, 52, 23, tzinfo=timezone(timedelta(hours=2))),
            ][:n],
        ),
    }
    if b is not None:  # a BLOB column takes the nanoarrow path
        columns["b"] = ("BLOB", list(b))
    return columns


@pytest.mark.parametrize(
    ("path", "text", "blobs"),
    [
        ("numpy", ["nvme0n1", None, "é😀"], None),  # masks for the NULL int and text
        ("numpy", [None, None, None], None),  # a text column of NULLs: NULL in the SELECT, no array
        ("nanoarrow", ["ends in NUL\0", None, "x"], None),  # NumPy would strip the NUL
        ("nanoarrow", ["w" * (bulk._WIDE_TEXT // 2), None, ""], None),  # too wide for NumPy
        ("nanoarrow", ["a", None, "c"], [b"\0\xff", None, b""]),  # BLOBs
    ],
)
def test_values_and_nulls_round_trip(
    tmp_path: Path, path: str, text: list[str | None], blobs: list[bytes | None] | None
) -> None:
    columns = _columns(text, blobs)
    assert (bulk._numpy(columns) is None) == (path == "nanoarrow")
    with Store.open(tmp_path / "s.duckdb") as store, store.transaction() as cur:
        cur.execute(TABLE)
        assert bulk.insert_columns(cur, "t", columns) == 3
        rows = cur.execute("SELECT i, n, x, s, j::VARCHAR, ts, b, k->>'$' FROM t ORDER BY rowid").fetchall()
        kinds = cur.execute("SELECT json_type(j), json_type(k) FROM t ORDER BY rowid").fetchall()
    assert [r[3] for r in rows] == text
    assert [r[6] for r in rows] == (blobs or [None] * 3)
    assert [r[:3] for r in rows] == [(2**62, None, 1.5), (None, 7, None), (-1, 2**31 - 1, 3.0)]
    assert [r[4] for r in rows] == ['{"a": 1}', None, "[]"]
    assert kinds == [("OBJECT", "OBJECT"), (None, "UBIGINT"), ("ARRAY", "VARCHAR")]  # parsed, not quoted
    # an aware datetime is stored as UTC, as a TIMESTAMP holds no zone
    assert [r[5] for r in rows] == [
        datetime(2026, 11, 21, 19, 52, 23, 5),
        None,
        datetime(2026, 11, 21, 19, 52, 23),
    ]
    assert rows[2][5] == datetime(2026, 11, 21, 19, 52, 23, tzinfo=UTC).replace(tzinfo=None)


def test_an_empty_batch_inserts_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.duckdb") as store, store.transaction() as cur:
        cur.execute(TABLE)
        assert bulk.insert_columns(cur, "t", {"i": ("BIGINT", []), "s": ("VARCHAR", [])}) == 0
        assert cur.execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_no_pyarrow_and_no_pandas_on_the_way(tmp_path: Path) -> None:
    """The store writes without pyarrow or pandas: a process that blocks both still inserts."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['pyarrow'] = None; sys.modules['pandas'] = None\n"
        "from pathlib import Path; from benchdeck.store.storage import bulk\n"
        "from benchdeck.store.storage.db import Store\n"
        f"with Store.open(Path({str(tmp_path / 'p.duckdb')!r})) as s, s.transaction() as cur:\n"
        "    cur.execute('CREATE TABLE t (s VARCHAR, b BLOB)')\n"
        "    rows = {'s': ('VARCHAR', ['a', 'b\\0']), 'b': ('BLOB', [b'x', None])}\n"
        "    print(bulk.insert_columns(cur, 't', rows))  # nanoarrow\n"
        "    print(bulk.insert_columns(cur, 't', {'s': ('VARCHAR', ['c'])}))  # NumPy\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["2", "1"]
