"""The recipe's git history as bisect reads it, on a real repository with the local transport:
first-parent commits from good to bad, refs that are no commit or run backwards, a merge's
side branch left out, and a commit's tree exported once."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from benchdeck.engine.bisect.history import GitError, export, history
from benchdeck.engine.transport.local import LocalTransport


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org"}
    env.update(GIT_COMMITTER_NAME="Ada", GIT_COMMITTER_EMAIL="ada@example.org")
    res = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return res.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "src"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    for k in range(4):
        (r / "f.c").write_text(f"int v = {k};\n")
        git(r, "add", "f.c")
        git(r, "commit", "-q", "-m", f"change {k}")
        if k == 1:
            git(r, "tag", "v1")
    git(r, "checkout", "-q", "-b", "side", "HEAD~1")
    (r / "g.c").write_text("int side;\n")
    git(r, "add", "g.c")
    git(r, "commit", "-q", "-m", "side work")
    git(r, "checkout", "-q", "main")
    git(r, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    return r


async def test_first_parent_commits_from_good_to_bad(repo: Path) -> None:
    commits = await history(LocalTransport(), str(repo), "v1", "main")
    assert [c.subject for c in commits] == ["change 1", "change 2", "change 3", "merge side"]
    assert commits[0].author == "Ada"
    assert commits[1].parent == commits[0].sha
    assert "side work" not in [c.subject for c in commits]


async def test_refs_that_cannot_be_bisected_are_one_line_errors(repo: Path) -> None:
    t = LocalTransport()
    with pytest.raises(GitError, match="'nope' is not a commit"):
        await history(t, str(repo), "nope", "main")
    with pytest.raises(GitError, match="is not an ancestor of bad"):
        await history(t, str(repo), "main", "v1")
    with pytest.raises(GitError, match="no commits between"):
        await history(t, str(repo), "v1", "v1")
    with pytest.raises(GitError, match="not a git repository"):
        await history(t, str(repo.parent), "v1", "main")


async def test_a_commit_is_exported_once(repo: Path, tmp_path: Path) -> None:
    t = LocalTransport()
    first = (await history(t, str(repo), "v1", "main"))[0]
    dest = await export(t, str(repo), first.sha, str(tmp_path / "work"), "r")
    assert Path(dest, "f.c").read_text() == "int v = 1;\n"
    Path(dest, "f.c").write_text("touched\n")
    assert await export(t, str(repo), first.sha, str(tmp_path / "work"), "r") == dest
    assert Path(dest, "f.c").read_text() == "touched\n"  # already there: not exported again
    assert not Path(dest + ".part").exists()
