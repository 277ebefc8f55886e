"""lkmlkb.gitlink: cited SHAs judged by a small git tree the test builds.

The tree mimics a kernel history: tags v6.0, v6.1-rc1, v6.1; the seed 003
culprit and fix (subjects as quoted in corpus/003_f5869eda4829fcf2.txt, the
fix carrying ``Fixes: <12-char culprit> ("...")`` and ``Closes:`` pointing
at a message of the report's thread); the seed 000 culprit's subject
(corpus/000_a3585e8f2465c212.txt cites it as d47f9717e5cf, a SHA of the real
kernel tree, which this tree does not hold) and its revert; two commits whose
SHAs share their first 8 hex digits.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from repo_helpers import run_git

from lkmlkb.db.connection import connect
from lkmlkb.errors import GitError
from lkmlkb.link import commits as gitlink

CULPRIT_SUBJECT = "gfs2: Stop using glock holder auto-demotion for now"  # seed 003
FIX_SUBJECT = "gfs2: Fix duplicate should_fault_in_pages() call"  # seed 003
SEED000_SUBJECT = "block/mq-deadline: use correct way to throttling write requests"  # seed 000
SEED000_SHA = "d47f9717e5cf"  # as cited in seed 000: a SHA of torvalds/linux, not of this tree
THREAD_003 = "20230528175345.C5D1.409509F4@e16-tech.com"
# message ids in the shape Wang Yugui's mailer writes them (seed 003 cites
# https://lore.kernel.org/linux-xfs/20230508172406.1CF3.409509F4 at e16-tech.com/)
REPLY_003 = "20230705113428.D2BC.409509F4@e16-tech.com"
THREAD_000 = "5a9e1b2c-0d4f-4b8e-9d57-b1c5a2e3f4d6@kernel.dk"

STAMP = "1700000000 +0000"
ENV = {
    "GIT_AUTHOR_NAME": "Andreas Gruenbacher",
    "GIT_AUTHOR_EMAIL": "agruenba@redhat.com",
    "GIT_COMMITTER_NAME": "Andreas Gruenbacher",
    "GIT_COMMITTER_EMAIL": "agruenba@redhat.com",
    "GIT_AUTHOR_DATE": STAMP,
    "GIT_COMMITTER_DATE": STAMP,
}


def git(repo: Path, *args: str, input: str | None = None) -> str:
    return run_git(
        repo, *args, who=(ENV["GIT_AUTHOR_NAME"], ENV["GIT_AUTHOR_EMAIL"]), stamp=STAMP, input=input
    )


def commit(repo: Path, message: str) -> str:
    git(repo, "commit", "-q", "--allow-empty", "-F", "-", input=message)
    return git(repo, "rev-parse", "HEAD")


def commit_sha(tree: str, parent: str, message: str) -> str:
    """The SHA git gives ``commit-tree -p parent -m message`` under ENV."""
    who = "Andreas Gruenbacher <agruenba@redhat.com> " + STAMP
    body = f"tree {tree}\nparent {parent}\nauthor {who}\ncommitter {who}\n\n{message}\n".encode()
    return hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest()


def colliding_messages(tree: str, parent: str, digits: int = 8, bound: int = 2_000_000) -> tuple[str, str]:
    """Two commit messages whose commits (same tree, parent) share ``digits`` hex digits."""
    seen: dict[str, str] = {}
    for n in range(bound):
        msg = f"gfs2: cleanup number {n}"
        prefix = commit_sha(tree, parent, msg)[:digits]
        if prefix in seen:
            return seen[prefix], msg
        seen[prefix] = msg
    raise AssertionError("no prefix collision within the bound")


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> dict:
    repo = tmp_path_factory.mktemp("linux") / "linux"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "master")
    base = commit(repo, "Linux 6.0")
    git(repo, "tag", "-a", "v6.0", "-m", "Linux 6.0")
    culprit = commit(
        repo,
        f"{CULPRIT_SUBJECT}\n\nThis reverts the auto-demotion for now.\n\n"
        "Signed-off-by: Andreas Gruenbacher <agruenba@redhat.com>\n",
    )
    mqd = commit(repo, f"{SEED000_SUBJECT}\n\nSigned-off-by: Zhiguo Niu <zhiguo.niu@unisoc.com>\n")
    git(repo, "tag", "-a", "v6.1-rc1", "-m", "Linux 6.1-rc1")
    fix = commit(
        repo,
        f"{FIX_SUBJECT}\n\nIn gfs2_file_buffered_write(), we call should_fault_in_pages() twice.\n\n"
        f'Fixes: {culprit[:12]} ("{CULPRIT_SUBJECT}")\n'
        f"Reported-by: Wang Yugui <wangyugui@e16-tech.com>\n"
        f"Closes: https://lore.kernel.org/r/{THREAD_003}\n"
        "Signed-off-by: Andreas Gruenbacher <agruenba@redhat.com>\n",
    )
    linked = commit(
        repo,
        "gfs2: Add a comment on write bandwidth\n\n"
        f"Link: https://lore.kernel.org/cluster-devel/{REPLY_003}/\n",
    )
    revert = commit(
        repo,
        f'Revert "{SEED000_SUBJECT}"\n\nThis reverts commit {mqd}.\n\n'
        f"Link: https://patch.msgid.link/{THREAD_000}\n"
        "Signed-off-by: Jens Axboe <axboe@kernel.dk>\n",
    )
    git(repo, "tag", "-a", "v6.1", "-m", "Linux 6.1")
    # two commits sharing their first 8 hex digits, found by hashing in Python first
    t = git(repo, "rev-parse", "HEAD^{tree}")
    head = git(repo, "rev-parse", "HEAD")
    msg_a, msg_b = colliding_messages(t, head)
    twin_a = git(repo, "commit-tree", t, "-p", head, "-m", msg_a)
    twin_b = git(repo, "commit-tree", t, "-p", head, "-m", msg_b)
    assert twin_a == commit_sha(t, head, msg_a) and twin_a[:8] == twin_b[:8] and twin_a != twin_b
    git(repo, "branch", "twin-a", twin_a)
    git(repo, "branch", "twin-b", twin_b)
    return {
        "path": repo,
        "base": base,
        "culprit": culprit,
        "mqd": mqd,
        "fix": fix,
        "linked": linked,
        "revert": revert,
        "twin_a": twin_a,
        "twin_b": twin_b,
        "msg_a": msg_a,
        "msg_b": msg_b,
    }


def cite(db, sha, subject, role, thread, message_id, cue="", form="prose", line=0):
    db.execute(
        "INSERT INTO commit_citations(sha, subject, role, cue, form, message_id, thread_id, line_start, "
        "line_end, evidence) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (sha, subject, role, cue, form, message_id, thread, line, line, f'{sha} ("{subject}")'),
    )


def add_message(db, mid, thread, subject, date):
    db.execute(
        "INSERT INTO messages(message_id, thread_id, subject, date_utc, new_text) VALUES (?,?,?,?,?)",
        (mid, thread, subject, date, subject),
    )
    db.execute("INSERT INTO thread_members(message_id, thread_id) VALUES (?, ?)", (mid, thread))


@pytest.fixture()
def kb(tmp_path, tree):
    """A knowledge base holding the citations extraction makes for seeds 003 and 000."""
    db = connect(tmp_path / "kb.db")
    add_message(
        db,
        THREAD_003,
        THREAD_003,
        "[Cluster-devel] gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y",
        "2023-05-28T09:53:45",
    )
    add_message(
        db,
        REPLY_003,
        THREAD_003,
        "Re: [Cluster-devel] gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y",
        "2023-07-05T03:34:28",
    )
    add_message(
        db,
        THREAD_000,
        THREAD_000,
        "[bug report] mq-deadline write throughput regression",
        "2024-03-08T01:02:03",
    )
    # seed 003: "e1fa9ea85ce8 ("gfs2: Stop using ...")" -- here the culprit's SHA in this tree
    cite(
        db,
        tree["culprit"][:12],
        CULPRIT_SUBJECT,
        "culprit",
        THREAD_003,
        REPLY_003,
        "regression introduced by",
        line=61,
    )
    cite(db, tree["fix"][:12], FIX_SUBJECT, "fix", THREAD_003, REPLY_003, "should be fixed by", line=69)
    cite(db, tree["fix"][:12], None, "tested", THREAD_003, REPLY_003, "I applied", line=74)
    cite(
        db,
        tree["fix"][:12],
        "gfs2: Fix duplicated should_fault_in_pages",
        "mentioned",
        THREAD_003,
        REPLY_003,
        line=83,
    )
    # seed 000: the culprit as the mail cites it (a SHA of torvalds/linux)
    cite(db, SEED000_SHA, SEED000_SUBJECT, "culprit", THREAD_000, THREAD_000, "culprit", line=12)
    # a SHA of another tree, no subject
    cite(db, "0123456789ab", None, "mentioned", THREAD_000, THREAD_000, line=30)
    # the twins: a 7-digit prefix without subject, an 8-digit prefix with twin A's subject
    cite(db, tree["twin_a"][:7], None, "mentioned", THREAD_000, THREAD_000, line=40)
    cite(db, tree["twin_a"][:8], tree["msg_a"], "mentioned", THREAD_000, THREAD_000, line=41)
    # a Link: citation (form link) carries a Message-ID, not a SHA, and must be left out
    cite(db, REPLY_003, None, "mentioned", THREAD_003, REPLY_003, "Link:", form="link", line=90)
    db.execute(
        "INSERT INTO reports(report_id, thread_id, title, status, culprits, fixes) VALUES (?,?,?,?,?,?)",
        (
            THREAD_003,
            THREAD_003,
            "gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y",
            "fix proposed",
            json.dumps([tree["culprit"][:12]]),
            json.dumps([tree["fix"][:12]]),
        ),
    )
    db.execute(
        "INSERT INTO report_commits(report_id, sha, subject, role, message_id) VALUES (?,?,?,?,?)",
        (THREAD_003, tree["culprit"][:12], CULPRIT_SUBJECT, "culprit", REPLY_003),
    )
    return db


def rows(db) -> dict[str, dict]:
    cur = db.execute("SELECT * FROM commits")
    cols = [d[0] for d in cur.description]
    return {r[0]: dict(zip(cols, r)) for r in cur.fetchall()}


def test_full_sha_subject_author_and_first_tag(kb, tree):
    summary = gitlink.link(kb, tree["path"])
    got = rows(kb)
    culprit = got[tree["culprit"][:12]]
    assert culprit["full_sha"] == tree["culprit"]
    assert culprit["status"] == "resolved"
    assert culprit["subject"] == CULPRIT_SUBJECT and culprit["subject_matches"] == 1
    assert culprit["author"] == "Andreas Gruenbacher <agruenba@redhat.com>"
    assert culprit["date"].startswith("2023-11-14T22:13:20")
    assert culprit["first_tag"] == "v6.1-rc1"
    assert got[tree["fix"][:12]]["first_tag"] == "v6.1"
    assert summary.by_status["resolved"] == 2
    assert summary.tree == str(tree["path"].resolve())


def test_subject_mismatch_is_flagged(kb, tree):
    # the fix is also cited as "gfs2: Fix duplicated should_fault_in_pages": the subject most
    # citations agree on wins, so it still matches; a lone wrong subject is flagged
    kb.execute(
        "UPDATE commit_citations SET subject='gfs2: Fix duplicated should_fault_in_pages' WHERE sha=?",
        (tree["fix"][:12],),
    )
    gitlink.link(kb, tree["path"])
    fix = rows(kb)[tree["fix"][:12]]
    assert fix["subject"] == FIX_SUBJECT
    assert fix["subject_in_mail"] == "gfs2: Fix duplicated should_fault_in_pages"
    assert fix["subject_matches"] == 0


def test_fixed_by_via_fixes_trailer_and_closes(kb, tree):
    gitlink.link(kb, tree["path"])
    culprit = rows(kb)[tree["culprit"][:12]]
    fixed_by = json.loads(culprit["fixed_by"])
    assert [(f["sha"], f["via"], f["first_tag"]) for f in fixed_by] == [(tree["fix"], "Fixes", "v6.1")]
    linked = json.loads(culprit["linked_by"])
    assert {(x["sha"], x["trailer"], x["message_id"]) for x in linked} == {
        (tree["fix"], "Closes", THREAD_003),
        (tree["linked"], "Link", REPLY_003),
    }
    # the fix itself is fixed by nothing
    assert json.loads(rows(kb)[tree["fix"][:12]]["fixed_by"]) == []


def test_sha_of_another_tree_found_by_subject_and_its_revert(kb, tree):
    summary = gitlink.link(kb, tree["path"])
    mqd = rows(kb)[SEED000_SHA]
    assert mqd["status"] == "subject-match"
    assert mqd["full_sha"] == tree["mqd"]
    assert mqd["first_tag"] == "v6.1-rc1"
    assert [(f["sha"], f["via"]) for f in json.loads(mqd["fixed_by"])] == [(tree["revert"], "revert")]
    assert [x["trailer"] for x in json.loads(mqd["linked_by"])] == ["Link"]
    assert any(n.startswith(SEED000_SHA) and "quoted subject" in n for n in summary.notes)


def test_unknown_sha_kept_with_a_note(kb, tree):
    summary = gitlink.link(kb, tree["path"])
    row = rows(kb)["0123456789ab"]
    assert row["status"] == "unknown"
    assert row["full_sha"] is None and row["subject"] is None
    assert any(n.startswith("0123456789ab: not in the tree") for n in summary.notes)


def test_ambiguous_short_sha_is_not_guessed(kb, tree):
    summary = gitlink.link(kb, tree["path"])
    row = rows(kb)[tree["twin_a"][:7]]
    assert row["status"] == "ambiguous"
    assert row["full_sha"] is None
    assert {c["sha"] for c in json.loads(row["candidates"])} == {tree["twin_a"], tree["twin_b"]}
    assert summary.by_status["ambiguous"] == 1


def test_ambiguous_short_sha_resolved_by_quoted_subject(kb, tree):
    gitlink.link(kb, tree["path"])
    row = rows(kb)[tree["twin_a"][:8]]
    assert row["status"] == "resolved-by-subject"
    assert row["full_sha"] == tree["twin_a"]
    assert len(json.loads(row["candidates"])) == 2


def test_link_citations_are_not_shas(kb, tree):
    gitlink.link(kb, tree["path"])
    assert REPLY_003 not in rows(kb)
    assert len(rows(kb)) == 6


def test_linking_twice_changes_nothing(kb, tree):
    first = gitlink.link(kb, tree["path"])
    before = rows(kb)
    second = gitlink.link(kb, tree["path"])
    assert rows(kb) == before
    assert first.written == 6 and second.written == 0 and second.unchanged == 6


def test_not_a_repository_leaves_the_db_untouched(kb, tmp_path):
    gitlink.link_without_tree(kb)
    before = rows(kb)
    plain = tmp_path / "not-a-tree"
    plain.mkdir()
    with pytest.raises(GitError) as err:
        gitlink.link(kb, plain)
    assert "not a git repository" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(GitError, match="no such directory"):
        gitlink.link(kb, tmp_path / "missing")
    assert rows(kb) == before


def test_git_tree_judgement_replaces_unresolved_rows(kb, tree):
    gitlink.link_without_tree(kb)
    assert rows(kb)[tree["culprit"][:12]]["status"] == "unresolved"
    gitlink.link(kb, tree["path"])
    assert rows(kb)[tree["culprit"][:12]]["status"] == "resolved"
    # and without a tree afterwards, the tree's judgement stays
    gitlink.link_without_tree(kb)
    assert rows(kb)[tree["culprit"][:12]]["status"] == "resolved"


# ---------------------------------------------------------------- without a tree


def test_without_tree_joins_prefixes_with_agreeing_subjects(tmp_path):
    # seed 003 cites c8ed1b359312 (12 digits); a reply writing the 7-digit form and
    # another writing 10 digits name the same commit
    db = connect(tmp_path / "kb.db")
    cite(db, "c8ed1b359312", FIX_SUBJECT, "fix", THREAD_003, REPLY_003)
    cite(db, "c8ed1b3", FIX_SUBJECT, "tested", THREAD_003, REPLY_003)
    cite(db, "c8ed1b3593", None, "mentioned", THREAD_003, REPLY_003)
    cite(db, "e1fa9ea85ce8", CULPRIT_SUBJECT, "culprit", THREAD_003, REPLY_003)
    # same prefix, a different subject: another commit
    cite(db, "e1fa9ea", "gfs2: something else entirely", "mentioned", THREAD_003, REPLY_003)
    summary = gitlink.link_without_tree(db)
    got = rows(db)
    assert {s: got[s]["full_sha"] for s in ("c8ed1b359312", "c8ed1b3", "c8ed1b3593")} == dict.fromkeys(
        ("c8ed1b359312", "c8ed1b3", "c8ed1b3593"), "c8ed1b359312"
    )
    assert got["c8ed1b3593"]["subject_in_mail"] == FIX_SUBJECT
    assert got["e1fa9ea"]["full_sha"] == "e1fa9ea"
    assert got["e1fa9ea85ce8"]["full_sha"] == "e1fa9ea85ce8"
    assert {r["status"] for r in got.values()} == {"unresolved"}
    assert summary.written == 5
    assert gitlink.link_without_tree(db).written == 0


def test_without_tree_prefix_of_two_commits_stays_alone(tmp_path):
    db = connect(tmp_path / "kb.db")
    cite(db, "abcdef012345", "block: one", "mentioned", THREAD_000, THREAD_000)
    cite(db, "abcdef09876", "block: two", "mentioned", THREAD_000, THREAD_000)
    cite(db, "abcdef0", None, "mentioned", THREAD_000, THREAD_000)
    gitlink.link_without_tree(db)
    assert rows(db)["abcdef0"]["full_sha"] == "abcdef0"


# ---------------------------------------------------------------- helpers on real text


@pytest.mark.parametrize(
    "url, mid",
    [
        # lore list URL with thread suffix, as in seed 003's "[1]" reference
        (
            "https://lore.kernel.org/linux-xfs/20230508172406.1CF3.409509F4@e16-tech.com/",
            "20230508172406.1CF3.409509F4@e16-tech.com",
        ),
        (
            "https://lore.kernel.org/all/20240307123456.1234-1-zhiguo.niu@unisoc.com/T/#u",
            "20240307123456.1234-1-zhiguo.niu@unisoc.com",
        ),
        # /r/ short form and patch.msgid.link, as b4 writes them in Closes:/Link:
        (
            "https://lore.kernel.org/r/202403081511.5d4f3c2a-oliver.sang@intel.com",
            "202403081511.5d4f3c2a-oliver.sang@intel.com",
        ),
        (
            "https://patch.msgid.link/20240308020401.1234-1-axboe@kernel.dk.",
            "20240308020401.1234-1-axboe@kernel.dk",
        ),
        # percent-encoded
        ("https://lore.kernel.org/r/CAHk-%3Dwg%40mail.gmail.com", "CAHk-=wg@mail.gmail.com"),
        ("https://bugzilla.kernel.org/show_bug.cgi?id=218512", None),
    ],
)
def test_message_id_from_url(url, mid):
    assert gitlink.message_id_from_url(url) == mid


@pytest.mark.parametrize(
    "mail, tree_subject, expected",
    [
        (FIX_SUBJECT, FIX_SUBJECT, True),
        # wrapped by the mailer and quoted, as in seed 003
        ("gfs2: Fix duplicate\n> > should_fault_in_pages() call", FIX_SUBJECT, True),
        ("“gfs2: Fix duplicate should_fault_in_pages() call.”", FIX_SUBJECT, True),
        ("gfs2: Fix duplicate should_fault...", FIX_SUBJECT, True),
        # fio's tree: 'Fixes: a7e8aae0 ("fio: add fdp support ..")'
        ("fio: add fdp support ..", "fio: add fdp support for io_uring_cmd nvme engine", True),
        ("fio: add", "fio: add fdp support for io_uring_cmd nvme engine", False),
        ("gfs2: Fix duplicated should_fault_in_pages", FIX_SUBJECT, False),
        (None, FIX_SUBJECT, None),
    ],
)
def test_subjects_match(mail, tree_subject, expected):
    assert gitlink.subjects_match(mail, tree_subject) is expected


# ---------------------------------------------------------------- end to end on a real seed


def test_seed_003_ingested_then_linked(tmp_path, tree, corpus_dir):
    """corpus/003 through `lkmlkb ingest`'s library path, then `link`: the mail's
    e1fa9ea85ce8 is a SHA of torvalds/linux, absent here, so the tree's commit
    with the quoted subject is taken (subject-match) and its Fixes: commit found;
    `lkmlkb commit e1fa9ea85ce8` then shows the report with its numbers and the fix."""
    from lkmlkb.db.queries import reports_citing
    from lkmlkb.ingest.run import ingest

    (seed,) = sorted(corpus_dir.glob("003_*.txt"))
    db_path = tmp_path / "kb.db"
    ingest([str(seed)], str(db_path), workers=1, extract=True)
    db = connect(db_path)
    summary = gitlink.link(db, tree["path"])
    got = rows(db)
    assert got["e1fa9ea85ce8"]["status"] == "subject-match"
    assert got["e1fa9ea85ce8"]["full_sha"] == tree["culprit"]
    assert got["c8ed1b359312"]["full_sha"] == tree["fix"]
    assert [f["sha"] for f in json.loads(got["e1fa9ea85ce8"]["fixed_by"])] == [tree["fix"]]
    assert summary.by_status.get("subject-match", 0) >= 2
    (rep,) = reports_citing(db, "e1fa9ea85ce8")
    assert rep["role"] == "culprit"
    assert (rep["baseline_value"], rep["regressed_value"], rep["unit"]) == (5139.0, 2599.0, "MiB/s")
    assert [f["sha"] for f in rep["fixed_by"]] == [tree["fix"]]
    assert gitlink.link(db, tree["path"]).written == 0


def test_bare_clone_gives_the_same_rows(kb, tree, tmp_path):
    gitlink.link(kb, tree["path"])
    from_work_tree = {
        s: {k: v for k, v in r.items() if k not in ("tree", "checked")} for s, r in rows(kb).items()
    }
    bare = tmp_path / "linux.git"
    git(tree["path"], "clone", "-q", "--bare", str(tree["path"]), str(bare))
    gitlink.link(kb, bare)
    got = rows(kb)
    assert {
        s: {k: v for k, v in r.items() if k not in ("tree", "checked")} for s, r in got.items()
    } == from_work_tree
    assert {r["tree"] for r in got.values()} == {str(bare.resolve())}


@pytest.mark.parametrize("rev", ["--output=/tmp/x", "no-such-branch"])
def test_bad_revision_is_a_git_error(kb, tree, rev):
    with pytest.raises(GitError):
        gitlink.link(kb, tree["path"], rev=rev)
    assert rows(kb) == {}


def test_all_refs_history(kb, tree):
    summary = gitlink.link(kb, tree["path"], rev="--all")
    assert summary.by_status["resolved"] == 2 and summary.by_status["subject-match"] == 1


def test_report_links_without_a_cited_commit(kb, tree):
    # the seed 000 report names no culprit the tree holds; the revert's Link: names its thread
    kb.execute(
        "INSERT INTO reports(report_id, thread_id, title) VALUES (?,?,?)",
        (THREAD_000, THREAD_000, "[bug report] mq-deadline write throughput regression"),
    )
    summary = gitlink.link(kb, tree["path"])
    assert [(x["sha"], x["trailer"], x["first_tag"]) for x in summary.report_links[THREAD_000]] == [
        (tree["revert"], "Link", "v6.1")
    ]
    assert {x["sha"] for x in summary.report_links[THREAD_003]} == {tree["fix"], tree["linked"]}


# ---------------------------------------------------------------- must not crash


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_helpers_never_raise_on_any_text(text):
    gitlink.message_id_from_url("https://lore.kernel.org/r/" + text)
    gitlink.message_id_from_url(text)
    gitlink.subjects_match(text, FIX_SUBJECT)
    idx = gitlink.TrailerIndex()
    c = gitlink._Commit("0" * 40, text[:50])
    for line in ("Fixes: " + text, "Closes: https://" + text, "This reverts commit " + text, text):
        gitlink._index_line(idx, c, line, {text})


def test_huge_and_nul_lines_are_tolerated(tmp_path):
    idx = gitlink.TrailerIndex()
    c = gitlink._Commit("0" * 40, "x")
    gitlink._index_line(idx, c, "Fixes: " + "a" * 1_000_000, set())
    gitlink._index_line(idx, c, "Link: https://lore.kernel.org/r/" + "\0" * 5000 + "@x", {"x"})
    assert not idx.fixes and not idx.links
    assert gitlink.normalize_commit_subject("gfs2: " + "x" * 1_000_000).startswith("gfs2: x")
