"""The recipe's source tree on the host as a git history: the commits between two refs along the
first parent, and each commit's tree exported where a build can compile it.

Every command is an argv list (refs and paths are data, never shell words); the export goes to a
``.part`` directory renamed when complete, so a killed export is redone from scratch.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from benchdeck.engine.transport import Transport

_FIELDS = "%H%x1f%P%x1f%s%x1f%an%x1f%aI"
# $1 source, $2 destination, $3 commit: export the commit's tree unless it is already there.
_EXPORT = (
    'set -e; test -d "$2" && exit 0; rm -rf "$2.part" "$2.tar"; mkdir -p "$2.part"; '
    'git -C "$1" archive -o "$2.tar" "$3"; tar -xf "$2.tar" -C "$2.part"; rm -f "$2.tar"; mv "$2.part" "$2"'
)


class GitError(Exception):
    """A ref, history or export the host's git cannot give, in one line."""


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    subject: str
    author: str
    date: str  # ISO 8601, the author date
    parent: str = ""  # the first parent's sha

    @property
    def short(self) -> str:
        return self.sha[:8]


async def _git(t: Transport, source: str, *args: str) -> str:
    res = await t.run(["git", "-C", source, *args])
    if not res.ok:
        why = (res.stderr.strip().splitlines() or [f"exit {res.exit_status}"])[-1]
        raise GitError(f"git {args[0]} in {source}: {why}")
    return res.stdout


async def resolve(t: Transport, source: str, ref: str) -> str:
    """The full sha of ``ref`` (a branch, tag or sha) in the host's source tree."""
    res = await t.run(["git", "-C", source, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"])
    if not res.ok or not res.stdout.strip():
        raise GitError(f"{ref!r} is not a commit in {source}")
    return res.stdout.strip()


def _commit(line: str) -> Commit:
    sha, parents, subject, author, date = line.split("\x1f")
    return Commit(sha, subject, author, date, parents.split(" ")[0] if parents else "")


async def history(t: Transport, source: str, good: str, bad: str) -> list[Commit]:
    """good, then every first-parent commit after it up to bad (oldest first)."""
    if (await t.run(["git", "-C", source, "rev-parse", "--git-dir"])).ok is False:
        raise GitError(f"{source} is not a git repository (bisect needs the recipe's source history)")
    g, b = await resolve(t, source, good), await resolve(t, source, bad)
    if not (await t.run(["git", "-C", source, "merge-base", "--is-ancestor", g, b])).ok:
        raise GitError(f"good {good} ({g[:8]}) is not an ancestor of bad {bad} ({b[:8]})")
    first = await _git(t, source, "log", "-1", f"--format={_FIELDS}", g)
    rest = await _git(t, source, "log", "--first-parent", "--reverse", f"--format={_FIELDS}", f"{g}..{b}")
    commits = [_commit(ln) for ln in [first.strip(), *rest.splitlines()] if ln]
    if len(commits) < 2:
        raise GitError(f"no commits between good {good} and bad {bad}")
    if commits[-1].sha != b:
        raise GitError(f"bad {bad} is not on the first-parent line after good {good}")
    return commits


async def export(t: Transport, source: str, sha: str, workdir: str, recipe: str) -> str:
    """The commit's tree as a directory on the host (made once): ``WORKDIR/bisect/src/RECIPE-SHA``."""
    dest = posixpath.join(workdir, "bisect", "src", f"{recipe}-{sha[:12]}")
    res = await t.run(["sh", "-c", _EXPORT, "-", source, dest, sha])
    if not res.ok:
        why = (res.stderr.strip().splitlines() or [f"exit {res.exit_status}"])[-1]
        raise GitError(f"cannot export {sha[:8]} of {source} to {dest}: {why}")
    return dest
