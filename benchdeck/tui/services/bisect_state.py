"""A bisect session's memory, so a killed benchdeck resumes where it was: which run measured
each (commit, nth) and which commits did not build. One small JSON file per session, named by
the session's arguments, beside the store (``<store>-bisect/``); builds and runs themselves are
in the store as usual, and a session's QPS are read back from there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def session_key(args: dict[str, Any]) -> str:
    """A short stable name for a session's arguments."""
    return hashlib.sha256(json.dumps(args, sort_keys=True, default=str).encode()).hexdigest()[:16]


def sessions_dir(store_label: Path) -> Path:
    return store_label.with_name(f"{store_label.stem}-bisect")


@dataclass
class SessionState:
    """Run ids by ``position:nth`` and the positions that failed to build, saved on each change."""

    path: Path
    args: dict[str, Any]
    runs: dict[str, int] = field(default_factory=dict)
    failed: set[int] = field(default_factory=set)
    done: bool = False
    commits: list[dict[str, str]] = field(default_factory=list)
    """good .. bad (sha, subject, author, date, parent) and each one's build name, for the app."""
    eta: tuple[float, float] | None = None
    """(seconds left, the wall-clock time it was estimated at) after the last step, for the app."""

    @classmethod
    def load(cls, directory: Path, args: dict[str, Any]) -> SessionState:
        path = directory / f"{session_key(args)}.json"
        state = cls(path, args)
        with contextlib.suppress(FileNotFoundError, ValueError, KeyError, TypeError):
            d = json.loads(path.read_text())
            state.runs = {str(k): int(v) for k, v in d["runs"].items()}
            state.failed = {int(p) for p in d["failed"]}
            state.done = bool(d.get("done", False))
            state.commits = list(d.get("commits", []))
            eta = d.get("eta")
            state.eta = (float(eta[0]), float(eta[1])) if eta else None
        return state

    @property
    def resumed(self) -> bool:
        return bool(self.runs or self.failed)

    def run_of(self, position: int, nth: int) -> int | None:
        return self.runs.get(f"{position}:{nth}")

    def set_run(self, position: int, nth: int, run_id: int) -> None:
        self.runs[f"{position}:{nth}"] = run_id
        self.save()

    def set_failed(self, position: int) -> None:
        self.failed.add(position)
        self.save()

    def set_eta(self, seconds: float) -> None:
        self.eta = (seconds, time.time())
        self.save()

    def eta_left(self, now: float) -> float | None:
        """Seconds left as of ``now``: the last estimate less the time since (never below 0)."""
        if self.eta is None:
            return None
        return max(0.0, self.eta[0] - (now - self.eta[1]))

    def set_done(self) -> None:
        self.done = True
        self.save()

    def save(self) -> None:
        """Written whole to a temporary file and renamed: a kill never leaves half a file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        body = {
            "args": self.args,
            "runs": self.runs,
            "failed": sorted(self.failed),
            "done": self.done,
            "commits": self.commits,
            "eta": list(self.eta) if self.eta else None,
        }
        tmp.write_text(json.dumps(body, indent=1, sort_keys=True, default=str))
        os.replace(tmp, self.path)


def all_sessions(directory: Path) -> list[SessionState]:
    """Every session beside the store, the latest changed first."""
    paths = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    out = []
    for path in paths if directory.is_dir() else ():
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            args = json.loads(path.read_text())["args"]
            state = SessionState.load(directory, args) if isinstance(args, dict) else None
            if state is not None and len(state.commits) >= 2:  # (its history was read)
                out.append(state)
    return out


def unfinished_sessions(directory: Path) -> list[dict[str, Any]]:
    """The arguments of the sessions a killed benchdeck left unfinished, oldest first."""
    out: list[tuple[float, dict[str, Any]]] = []
    for path in directory.glob("*.json") if directory.is_dir() else ():
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            d = json.loads(path.read_text())
            if not d.get("done") and isinstance(d["args"], dict):
                out.append((path.stat().st_mtime, d["args"]))
    return [args for _, args in sorted(out, key=lambda x: x[0])]
