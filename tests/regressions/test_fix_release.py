"""The first release of a fix on a regression's timeline: `lkmlkb link --git` finds in a kernel
tree the commits that land each applied patch and revert of a regression, with the lowest
release tag that contains each, and stores them; `lkmlkb show` (and the page) then name that
release beside the "fixed" and "reverted" entries, without a tree.

The knowledge base is the regression fixtures' (tests/regression_helpers.py); the tree, built
here by git, holds the iSCSI rescan fix (first in v6.8), the revert of seed 000's culprit
(first in v6.9-rc1, which ``git name-rev`` would call v6.9) and the fix the report "read
regression for dm-snapshot with loopback" cites (in no release), as the module docstring of
tests/regression_helpers.py draws them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from regression_helpers import (
    ISCSI_REPORT,
    ISCSI_V1,
    ISCSI_V2,
    LOOP_REPORT,
    REVERT,
    SEED000,
    build_kernel_tree,
)
from repo_helpers import copy_kb

from lkmlkb.cli import main
from lkmlkb.db.connection import connect
from lkmlkb.db.regressions import regression_data, regression_of

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _copy(kb: Path, tmp_path: Path) -> Path:
    return copy_kb(kb, tmp_path / "kb.db")


def _link(db: Path, tree: Path) -> str:
    out = CliRunner().invoke(main, ["link", "--db", str(db), "--git", str(tree)])
    assert out.exit_code == 0, out.output
    return out.output


def _fix_commits(db: Path) -> dict[str, list[tuple]]:
    conn = connect(db, create=False).conn
    found: dict[str, list[tuple]] = {}
    for tid, sha, via, mid, tag in conn.execute(
        "SELECT thread_id, sha, via, message_id, first_tag FROM fix_commits ORDER BY thread_id, sha"
    ):
        found.setdefault(tid, []).append((sha, via, mid, tag))
    conn.close()
    return found


def _show(db: Path, thread_id: str, *fmt: str) -> str:
    conn = connect(db, create=False).conn
    rid = regression_of(conn, thread_id)["regression_id"]
    conn.close()
    out = CliRunner().invoke(main, ["show", rid, "--db", str(db), *fmt])
    assert out.exit_code == 0, out.output
    return out.output


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("linux") / "linux"
    return {"path": path, **build_kernel_tree(path)}


@pytest.fixture()
def linked(kb, tmp_path, tree) -> Path:
    """A copy of the knowledge base after `lkmlkb link --git` of the tree."""
    db = _copy(kb, tmp_path)
    assert "3 regression threads' fixes found in the tree" in _link(db, tree["path"])
    return db


def test_link_stores_each_landed_fix_with_its_lowest_release_tag(linked, tree):
    assert _fix_commits(linked) == {
        # the applied v2 of the iSCSI fix, by the Link: its commit carries
        ISCSI_V2: [(tree["fix"], "Link", ISCSI_V2, "v6.8")],
        # the revert: v6.9-rc1 holds it (and v6.9 reaches it in fewer steps)
        REVERT: [(tree["revert"], "Link", REVERT, "v6.9-rc1")],
        # the report that says it is fixed, by the commit it cites (667ea36378cf, "loop: don't set
        # QUEUE_FLAG_NOMERGES": another tree's SHA, its subject this tree's), in no release yet
        LOOP_REPORT: [(tree["loop"], "cited", LOOP_REPORT, None)],
    }
    # the v1 nobody applied is no landed fix, nor are the reports
    assert ISCSI_V1 not in _fix_commits(linked) and ISCSI_REPORT not in _fix_commits(linked)


def test_the_timeline_names_the_release_of_the_fix_and_of_the_revert(linked, tree):
    iscsi = json.loads(_show(linked, ISCSI_REPORT, "--format", "json"))
    (fixed,) = [e for e in iscsi["timeline"] if e["event"] == "fixed"]
    assert fixed["thread_id"] == ISCSI_V2 and fixed["first_tag"] == "v6.8"
    assert [(c["sha"], c["via"], c["first_tag"]) for c in fixed["commits"]] == [(tree["fix"], "Link", "v6.8")]
    assert fixed["commits"][0]["subject"] == "block: fix revalidate performance regression"
    # "fix proposed" entries are no landing, and name no release
    assert all("first_tag" not in e for e in iscsi["timeline"] if e["event"] != "fixed")
    seed = json.loads(_show(linked, SEED000, "--format", "json"))
    (reverted,) = [e for e in seed["timeline"] if e["event"] == "reverted"]
    assert reverted["thread_id"] == REVERT and reverted["first_tag"] == "v6.9-rc1"
    assert [c["sha"] for c in reverted["commits"]] == [tree["revert"]]


def test_a_fix_in_no_release_yet_is_named_so(linked, tree):
    data = json.loads(_show(linked, LOOP_REPORT, "--format", "json"))
    (fixed,) = [e for e in data["timeline"] if e["event"] == "fixed"]
    assert fixed["thread_id"] == LOOP_REPORT and fixed["first_tag"] is None
    assert [(c["sha"], c["via"]) for c in fixed["commits"]] == [(tree["loop"], "cited")]
    text = _show(linked, LOOP_REPORT)
    assert (
        f"in no release yet: {tree['loop'][:12]} loop: don't set QUEUE_FLAG_NOMERGES (cited as the fix)"
        in text
    )


def test_show_prints_the_release_under_its_entry(linked, tree):
    lines = _show(linked, SEED000).splitlines()
    at = next(i for i, line in enumerate(lines) if " reverted " in line)
    assert REVERT in lines[at]
    assert lines[at + 1].strip() == (
        f"first in v6.9-rc1: {tree['revert'][:12]} "
        'Revert "block/mq-deadline: use correct way to throttling write requests" (Link: trailer)'
    )


def test_the_release_is_read_from_the_knowledge_base_not_from_git(linked, tree, tmp_path):
    moved = tmp_path / "elsewhere"
    shutil.copytree(tree["path"], moved)
    shutil.rmtree(tree["path"])
    try:
        out = _show(linked, ISCSI_REPORT)
        assert "first in v6.8: " + tree["fix"][:12] in out
    finally:
        shutil.copytree(moved, tree["path"])


def test_before_a_tree_is_linked_the_timeline_names_no_release(kb):
    conn = connect(kb, create=False).conn
    data = regression_data(conn, regression_of(conn, SEED000)["regression_id"])
    conn.close()
    (reverted,) = [e for e in data["timeline"] if e["event"] == "reverted"]
    assert "first_tag" not in reverted and "commits" not in reverted
    assert "first in" not in _show(kb, SEED000)


def test_linking_again_gives_the_same_rows(linked, tree):
    before = _fix_commits(linked)
    _link(linked, tree["path"])
    assert _fix_commits(linked) == before


def test_a_tree_without_link_trailers_is_read_by_the_patches_subjects(kb, tmp_path):
    plain = tmp_path / "linux-plain"
    shas = build_kernel_tree(plain, trailers=False)
    db = _copy(kb, tmp_path)
    _link(db, plain)
    assert _fix_commits(db) == {
        # "[PATCH v2] block: fix revalidate performance regression" is the commit's subject
        ISCSI_V2: [(shas["fix"], "subject", None, "v6.8")],
        # '[PATCH] Revert "block/mq-deadline: ..."' too
        REVERT: [(shas["revert"], "subject", None, "v6.9-rc1")],
        # the report's citation needs no trailer
        LOOP_REPORT: [(shas["loop"], "cited", LOOP_REPORT, None)],
    }
