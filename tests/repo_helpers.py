"""Real git repositories and copies of knowledge bases, for the tests that need them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path


def run_git(repo: Path, *args: str, who: tuple[str, str], stamp: str, input: str | None = None) -> str:
    """``git -C repo args`` as ``who`` (name, address) at ``stamp``, with no system or user
    configuration of this machine: the same SHAs on every machine."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    name, email = who
    env.update(
        GIT_AUTHOR_NAME=name,
        GIT_AUTHOR_EMAIL=email,
        GIT_COMMITTER_NAME=name,
        GIT_COMMITTER_EMAIL=email,
        GIT_AUTHOR_DATE=stamp,
        GIT_COMMITTER_DATE=stamp,
        GIT_CONFIG_NOSYSTEM="1",
        HOME=str(repo.parent),
    )
    return subprocess.run(
        ["git", "-C", str(repo), *args], input=input, capture_output=True, text=True, env=env, check=True
    ).stdout.strip()


def copy_kb(kb: Path, copy: Path) -> Path:
    """A private copy of the knowledge base ``kb`` (with its WAL) at ``copy``, for a test that
    changes it."""
    for suffix in ("", "-wal", "-shm"):
        if Path(str(kb) + suffix).exists():
            shutil.copy(str(kb) + suffix, str(copy) + suffix)
    return copy
