"""Apache Otava's own ``compute_change_points``, run in a venv of its own, as a test oracle.

Otava pins numpy and scipy versions that differ from ours, so it lives in a separate venv under
a cache directory (``$BENCHDECK_TEST_CACHE`` or ``~/.cache/benchdeck-tests``), made on first use
with ``pip install apache-otava==0.8.0``, and is called in a subprocess: JSON in, JSON out.
``python tests/changes/otava_oracle.py`` makes the venv ahead (scripts/install-test-deps.sh).
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import venv
from collections.abc import Sequence
from pathlib import Path

OTAVA_VERSION = "0.8.0"

_RUNNER = """
import json, sys
from otava.analysis import compute_change_points
job = json.load(sys.stdin)
out = []
for series in job["series"]:
    cps, _weak = compute_change_points(
        list(series), window_len=job["window"], max_pvalue=job["max_pvalue"],
        min_magnitude=job["min_magnitude"],
    )
    out.append([[int(cp.index), float(cp.stats.pvalue), float(cp.stats.change_magnitude())] for cp in cps])
json.dump(out, sys.stdout)
"""


def cache_dir() -> Path:
    root = os.environ.get("BENCHDECK_TEST_CACHE") or Path.home() / ".cache" / "benchdeck-tests"
    return Path(root)


def venv_python() -> Path:
    """The venv's interpreter, made (once, under a lock) if it is not there yet."""
    home = cache_dir() / f"otava-{OTAVA_VERSION}"
    python = home / "bin" / "python"
    ready = home / ".installed"
    if ready.exists():
        return python
    home.parent.mkdir(parents=True, exist_ok=True)
    with open(home.parent / f"otava-{OTAVA_VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not ready.exists():
            venv.create(home, with_pip=True, clear=True)
            subprocess.run(
                [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                 f"apache-otava=={OTAVA_VERSION}"],
                check=True,
            )  # fmt: skip
            ready.write_text(OTAVA_VERSION)
    return python


def otava_change_points(
    series: Sequence[Sequence[float]],
    *,
    max_pvalue: float = 0.001,
    min_magnitude: float = 0.0,
    window: int = 50,
) -> list[list[tuple[int, float, float]]]:
    """(index, p-value, magnitude) of each change point Otava finds, for each series."""
    job = {
        "series": [list(map(float, s)) for s in series],
        "max_pvalue": max_pvalue,
        "min_magnitude": min_magnitude,
        "window": window,
    }
    done = subprocess.run(
        [str(venv_python()), "-c", _RUNNER],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"otava failed: {done.stderr.strip()[-2000:]}")
    return [[(int(i), p, m) for i, p, m in cps] for cps in json.loads(done.stdout)]


if __name__ == "__main__":
    print(f"otava {OTAVA_VERSION} ready: {venv_python()}", file=sys.stderr)
