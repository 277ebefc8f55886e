"""Threading (lkmlkb.threads): JWZ over References/In-Reply-To with ghost parents,
merges when a late message links two threads, the subject fallback with
reply prefixes in other languages, and one message in two lists (store).

Messages are trimmed real linux-block mail (tests/fixtures/mail, origin in
its README.md): the seed-000 conversation (original report, Zhiguo Niu's
``答复:``, Harshit's ``Re: 答复:``) and the nvme fault-injection reply.  Where
a test needs a header changed (references dropped, a prefix swapped), the
change is made in the test on the real bytes.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from lkmlkb.ingest.run import ingest
from lkmlkb.sources.mail import parse_message
from lkmlkb.threads.threader import Threader, is_reply_subject, normalize_subject, thread_messages

MAIL = Path(__file__).resolve().parents[1] / "fixtures" / "mail"
ORIGINAL = "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com"
DAFU = "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com"
RE_DAFU = "be93c772-d400-4105-b05a-735ed7365730@oracle.com"
TOPIC = "performance regression with fio sequential-write on a multipath setup"


def raw(name: str) -> bytes:
    return (MAIL / name).read_bytes()


def msg(name: str, **changes):
    return parse_message(edit(raw(name), **changes), name)


def edit(
    data: bytes,
    drop_refs: bool = False,
    subject: str | None = None,
    message_id: str | None = None,
    refs: str | None = None,
) -> bytes:
    head, body = data.split(b"\n\n", 1)
    lines = re.split(rb"\n(?![ \t])", head)  # unfolded header fields
    out = []
    for field in lines:
        name = field.split(b":", 1)[0].lower()
        if name in (b"references", b"in-reply-to") and (drop_refs or refs is not None):
            continue
        if name == b"subject" and subject is not None:
            field = b"Subject: " + subject.encode()
        if name == b"message-id" and message_id is not None:
            field = b"Message-ID: <" + message_id.encode() + b">"
        out.append(field)
    if refs is not None:
        out.append(b"References: " + refs.encode())
    return b"\n".join(out) + b"\n\n" + body


def test_seed_000_in_date_order_is_one_thread_rooted_at_the_report():
    t = Threader()
    ids = [
        t.add(msg(n)) for n in ("bug_report_original.eml", "utf8_split_subject_dafu.eml", "re_dafu_reply.eml")
    ]
    assert ids == [ORIGINAL, ORIGINAL, ORIGINAL]


def test_reply_first_makes_ghost_parents_and_the_root_joins_later():
    t = Threader()
    # the Re: 答复 reply arrives first: its References name two messages never seen
    assert t.add(msg("re_dafu_reply.eml")) == ORIGINAL  # thread named by the oldest ancestor, a ghost
    assert t.backend.lookup([ORIGINAL, DAFU]) == {ORIGINAL: ORIGINAL, DAFU: ORIGINAL}  # ghosts are members
    assert t.add(msg("utf8_split_subject_dafu.eml")) == ORIGINAL
    assert t.add(msg("bug_report_original.eml")) == ORIGINAL


def test_late_message_links_two_threads_and_they_merge():
    t = Threader()
    # the nvme thread: one reply knows only its direct parent, another only the root
    a = msg(
        "nested_quotes.eml",
        message_id="a-reply@lst.de",
        refs="<6874a81c-3f4f-428a-8a95-19898ca004a2@oracle.com>",
    )
    b = msg(
        "nested_quotes.eml",
        message_id="b-reply@lst.de",
        refs="<20240116232728.3392996-1-alan.adamson@oracle.com>",
    )
    ta, tb = t.add(a), t.add(b)
    assert ta != tb
    # the real message carries the whole chain: root, 20240118072419.GA21315@lst.de, 6874a81c...
    late = msg("nested_quotes.eml")
    merged = t.add(late)
    assert merged in (ta, tb)
    assert (
        len(
            set(
                t.backend.lookup(
                    ["a-reply@lst.de", "b-reply@lst.de", late.message_id, "20240118072419.GA21315@lst.de"]
                ).values()
            )
        )
        == 1
    )


@pytest.mark.parametrize(
    "prefix", ["答复: ", "回复：", "AW: ", "SV: ", "Re[2]: ", "RE: ", "Antw: ", "Re: Re: ", "Fwd: "]
)
def test_subject_fallback_for_reply_prefixes(prefix):
    # the 答复 message with its References/In-Reply-To dropped, the prefix swapped
    original = msg("bug_report_original.eml")
    reply = msg(
        "utf8_split_subject_dafu.eml",
        drop_refs=True,
        subject=prefix
        + "[bug-report] Performance regression with fio sequential-write on a multipath setup.",
    )
    assert reply.references == [] and reply.in_reply_to is None
    assert is_reply_subject(reply.subject)
    groups = thread_messages([reply, original])  # order does not matter: linked by date
    assert list(groups) == [ORIGINAL] and len(groups[ORIGINAL]) == 2


def test_same_topic_without_reply_prefix_is_a_new_thread():
    original = msg("bug_report_original.eml")
    resend = msg(
        "utf8_split_subject_dafu.eml",
        drop_refs=True,
        subject="[bug-report] Performance regression with fio sequential-write on a multipath setup.",
    )
    other = msg(
        "utf8_split_subject_dafu.eml",
        drop_refs=True,
        message_id="x@example.invalid",
        subject="Re: [bug-report] Some other regression",
    )
    assert len(thread_messages([original, resend, other])) == 3


@pytest.mark.parametrize(
    "subject, topic",
    [
        (
            "答复: 答复: [bug-report] Performance regression with fio sequential-write on a multipath setup.",
            TOPIC,
        ),
        (
            "Re: 答复: [bug-report] Performance regression with fio sequential-write on a multipath setup.",
            TOPIC,
        ),
        ("Re: [PATCH v2 1/3] block: fix   length", "block: fix length"),
        (
            "[Cluster-devel] gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y",
            "gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y",
        ),
        ("Re: [RFC PATCH net-next 0/5] x", "x"),
        ("AW: SV: Re[3]: Precise disk statistics", "precise disk statistics"),
    ],
)
def test_normalize_subject(subject, topic):
    assert normalize_subject(subject) == topic


def test_references_to_self_and_loops_are_ignored():
    m = msg("format_flowed.eml", refs="<34ea6da8-9ac6-4449-abb9-5be02df08869@acm.org>")
    t = Threader()
    assert t.add(m) == m.message_id


def test_same_message_id_from_two_lists_is_one_message_in_both(tmp_path):
    # the same delivery of the 答复 mail archived by linux-block and by LKML (List-Id differs)
    block = raw("utf8_split_subject_dafu.eml")
    lkml = block.replace(
        b"List-Id: <linux-block.vger.kernel.org>", b"List-Id: <linux-kernel.vger.kernel.org>"
    )
    a, b = tmp_path / "block.eml", tmp_path / "lkml.eml"
    a.write_bytes(block)
    b.write_bytes(lkml)
    db = tmp_path / "kb.db"
    s1 = ingest([str(a)], str(db))
    s2 = ingest([str(b)], str(db))
    assert (s1.new, s2.new, s2.copies) == (1, 0, 1)
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM messages").fetchone()[0] == 1
    assert sorted(
        r[0] for r in con.execute("SELECT list FROM message_lists WHERE message_id=?", (DAFU,))
    ) == ["linux-block.vger.kernel.org", "linux-kernel.vger.kernel.org"]
    assert dict(con.execute("SELECT name, message_count FROM lists")) == {
        "linux-block.vger.kernel.org": 1,
        "linux-kernel.vger.kernel.org": 1,
    }
    # the second list's bytes are kept as a copy of the one message
    assert con.execute("SELECT count(*) FROM message_copies WHERE message_id=?", (DAFU,)).fetchone()[0] == 2


def test_store_merges_threads_when_a_late_message_links_them(tmp_path):
    a = edit(
        raw("nested_quotes.eml"),
        message_id="a-reply@lst.de",
        refs="<6874a81c-3f4f-428a-8a95-19898ca004a2@oracle.com>",
    )
    b = edit(
        raw("nested_quotes.eml"),
        message_id="b-reply@lst.de",
        refs="<20240116232728.3392996-1-alan.adamson@oracle.com>",
    )
    files = []
    for n, data in enumerate((a, b, raw("nested_quotes.eml"))):
        f = tmp_path / f"{n}.eml"
        f.write_bytes(data)
        files.append(f)
    db = tmp_path / "kb.db"
    ingest([str(files[0]), str(files[1])], str(db))
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM threads").fetchone()[0] == 2
    ingest([str(files[2])], str(db))
    assert con.execute("SELECT count(DISTINCT thread_id) FROM messages").fetchone()[0] == 1
    assert con.execute("SELECT count(*), sum(message_count) FROM threads").fetchone() == (1, 3)


def _report(n: int) -> bytes:
    return (
        f"From: r{n}@example.org\nSubject: fio regression {n}\nMessage-ID: <root{n}@example.org>\n"
        f"Date: Mon, 1 Jan 2024 00:00:0{n} +0000\n\nrandread 10% slower on v6.{n}\n"
    ).encode()


def test_a_message_that_links_many_threads_joins_only_its_parents(tmp_path):
    """One message whose References name the roots of five unrelated threads would merge them
    (and their reports) into one; no real message of linux-block or linux-xfs joins more than
    two threads (183,184 messages), so past MAX_THREADS_JOINED it joins its parent's thread
    only and the others stay as they are."""
    from lkmlkb.threads.threader import MAX_THREADS_JOINED

    t = Threader()
    roots = [parse_message(_report(n)) for n in range(5)]
    assert [t.add(m) for m in roots] == [f"root{n}@example.org" for n in range(5)]
    refs = " ".join(f"<root{n}@example.org>" for n in range(5))
    evil = parse_message(
        f"From: e@x\nSubject: Re: all\nMessage-ID: <evil@x>\nReferences: {refs} <ghost@x>\n"
        "In-Reply-To: <root2@example.org>\n\nhi\n".encode()
    )
    assert MAX_THREADS_JOINED < 5
    assert t.add(evil) == "root2@example.org"  # its parent's (In-Reply-To) thread
    ids = [f"root{n}@example.org" for n in range(5)]
    assert t.backend.lookup(ids) == {i: i for i in ids}  # every thread as it was
    assert t.backend.lookup(["evil@x", "ghost@x"]) == {
        "evil@x": "root2@example.org",
        "ghost@x": "root2@example.org",
    }
    # two threads, as real mail links them, still merge
    late = parse_message(
        b"From: l@x\nSubject: Re: x\nMessage-ID: <late@x>\n"
        b"References: <root0@example.org> <root1@example.org>\n\nhi\n"
    )
    assert t.add(late) == "root0@example.org"
    assert t.backend.lookup(["root1@example.org"]) == {"root1@example.org": "root0@example.org"}


def test_the_store_keeps_the_threads_a_hostile_message_names(tmp_path):
    mbox = tmp_path / "x.mbox"
    refs = " ".join(f"<root{n}@example.org>" for n in range(5))
    evil = (
        f"From: e@x\nSubject: Re: all\nMessage-ID: <evil@x>\nReferences: {refs}\n"
        "Date: Tue, 2 Jan 2024 00:00:00 +0000\n\nhi\n"
    ).encode()
    mbox.write_bytes(
        b"".join(b"From x Mon Jan  1 00:00:00 2024\n" + m + b"\n" for m in [*map(_report, range(5)), evil])
    )
    db = tmp_path / "kb.db"
    ingest([str(mbox)], str(db), extract=True)
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(DISTINCT thread_id) FROM messages").fetchone()[0] == 5
    assert con.execute("SELECT thread_id FROM messages WHERE message_id='evil@x'").fetchone() == (
        "root4@example.org",
    )
