"""Body segmentation (lkmlkb.threads.segment_body) on real messages: new text,
quoted text with depth, attribution lines, Outlook quote headers, signatures,
patches, list footers, and quote attribution back to the message that said it.

Messages: tests/fixtures/mail (real linux-block mail, origin in its README.md)
and the seed threads in corpus/.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from lkmlkb.sources.mail import parse_message
from lkmlkb.sources.textdump import split_textdump
from lkmlkb.threads.quotes import attribute_quotes
from lkmlkb.threads.segments import MAX_SIG_LINES, new_text, quote_depth, segment_body

ROOT = Path(__file__).resolve().parents[2]
MAIL = ROOT / "tests" / "fixtures" / "mail"


def body(name: str) -> str:
    return parse_message((MAIL / name).read_bytes()).body


def spans(segs):
    return [(s.kind, s.depth, s.line_start, s.line_end) for s in segs]


def check_invariants(text: str, segs) -> None:
    """Spans are ordered, disjoint, inside the body, and each text is its lines unquoted."""
    lines = text.split("\n")
    last = -1
    for s in segs:
        assert last < s.line_start <= s.line_end < len(lines)
        last = s.line_end
        want = [
            quote_depth(line)[1] if s.depth and quote_depth(line)[0] else line
            for line in lines[s.line_start : s.line_end + 1]
        ]
        assert s.text.split("\n") == want


def test_reply_with_three_levels_of_quotes():
    # 20240123090506.GA31535@lst.de (Christoph Hellwig)
    text = body("nested_quotes.eml")
    segs = segment_body(text)
    check_invariants(text, segs)
    assert spans(segs) == [
        ("attribution", 0, 0, 0),  # On Thu, Jan 18, 2024 at 09:02:43AM -0800, alan.adamson@oracle.com wrote:
        ("quoted", 1, 1, 1),
        ("attribution", 1, 2, 2),  # > On 1/17/24 11:24 PM, Christoph Hellwig wrote:
        ("attribution", 2, 3, 3),  # >> On Tue, Jan 16, 2024 at 03:27:27PM -0800, Alan Adamson wrote:
        ("quoted", 3, 4, 5),
        ("quoted", 2, 6, 7),
        ("quoted", 1, 8, 11),
        ("new", 0, 12, 17),
    ]
    assert segs[4].text.startswith("It has been requested that the NVMe fault injector")
    assert (
        new_text(segs)
        .strip()
        .startswith("Well, how about they then insert it into the real or virtual hardware.")
    )


def test_patch_mail_with_diffstat_diff_and_git_signature():
    # 20240327121329.2830355-1-sashal@kernel.org: a format-patch inside a stable-tree mail
    text = body("stable_patch_from_line.eml")
    segs = segment_body(text)
    check_invariants(text, segs)
    lines = text.split("\n")
    kinds = {s.kind for s in segs}
    assert {"new", "patch", "signature"} <= kinds
    patch_lines = {i for s in segs if s.kind == "patch" for i in range(s.line_start, s.line_end + 1)}
    assert lines.index("diff --git a/block/bio.c b/block/bio.c") in patch_lines
    assert lines.index(" block/bio.c | 7 ++++---") in patch_lines
    assert all(not lines[i].startswith("Fixes:") for i in patch_lines)  # the commit message is text
    sig = [s for s in segs if s.kind == "signature"][-1]
    assert sig.text.startswith("-- \n2.43.0")
    assert "Fixes: 1b151e2435fc" in new_text(segs)


def test_vger_footer_and_signature_in_seed_002(seed_text):
    first = split_textdump(seed_text("002"), "002")[0]
    segs = segment_body(first.body)
    check_invariants(first.body, segs)
    assert [s.kind for s in segs] == ["new", "signature", "footer"]
    assert segs[1].text == "--\nJan Kara <ja...@suse.cz>\nSUSE Labs, CR\n--"
    assert segs[2].text.startswith(
        'To unsubscribe from this list: send the line "unsubscribe linux-kernel" in'
    )
    assert segs[2].text.endswith("Please read the FAQ at http://www.tux.org/lkml/")
    assert "majordomo" not in new_text(segs)


def test_outlook_top_post_quotes_the_original_report():
    # d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com: reply on top, the report below -----邮件原件-----
    text = body("utf8_split_subject_dafu.eml")
    segs = segment_body(text)
    check_invariants(text, segs)
    assert [s.kind for s in segs[:3]] == ["new", "quoted_header", "quoted"]
    assert segs[1].text.split("\n")[0] == "-----邮件原件-----"
    assert segs[1].text.split("\n")[1].startswith("发件人: Harshit Mogalapalli")
    own = new_text(segs)
    assert "What is the queue_depth of queue of your storage device?" in own
    assert "ioengine=libaio" not in own and "[global]" not in own  # the quoted report's fio job is not new
    assert segs[2].depth == 1 and "rw=write" in segs[2].text


def test_fio_percentile_line_starting_with_greater_equal_is_not_a_quote():
    # a wrapped fio line from the report quoted in seed 000: ">=2000=8.42%" / "  >=64=199.5%"
    assert quote_depth("  >=2000=8.42%") == (0, "  >=2000=8.42%")
    assert quote_depth(">   >=2000=8.42%")[0] == 1
    assert quote_depth("> > >> x")[0] == 4


def test_outlook_from_sent_quoted_with_markers():
    # cbd8de6ff70849a98faf2fd25b065a94@AcuMS.aculab.com: "From: Dongsoo Lee" then "> Sent: ..."
    segs = segment_body(body("quoted_printable.eml"))
    assert spans(segs)[:3] == [("attribution", 0, 0, 0), ("quoted_header", 1, 1, 1), ("quoted", 1, 2, 10)]
    assert "The LEA algorithm is a lightweight block cipher" in new_text(segs)


def test_format_flowed_reply_with_quoted_hunk():
    segs = segment_body(body("format_flowed.eml"))
    assert spans(segs)[:3] == [("attribution", 0, 0, 0), ("quoted", 1, 1, 3), ("new", 0, 4, 14)]
    assert segs[1].text.startswith("+_have_null_blk_feature() {")


def test_quoted_text_is_attributed_to_the_message_that_said_it():
    original = parse_message((MAIL / "bug_report_original.eml").read_bytes())
    reply = parse_message((MAIL / "utf8_split_subject_dafu.eml").read_bytes())
    pairs = [(original, segment_body(original.body)), (reply, segment_body(reply.body))]
    attribute_quotes(pairs)
    quoted = [s for s in pairs[1][1] if s.kind == "quoted"]
    assert quoted and quoted[0].quotes_message_id == original.message_id


def test_seed_replies_link_quotes_to_earlier_dump_messages(seed_text):
    msgs = split_textdump(seed_text("002"), "002")
    # text dumps run attribute_quotes while splitting: Jeff's first reply quotes Jan's report
    assert msgs[1].quoted_parent == msgs[0].message_id


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n\n",
        "--",
        "-- \n2.43.0",
        ">" * 5000,
        "> " * 3000 + "x",
        "On " + "x" * 100_000 + " wrote:\n> y",
        "diff --git a/x b/x\n" + "+" * 1_000_000,
        "-----Original Message-----\n" * 2000,
        "From: a\nSent: b\n" * 3000,
        "\x00" * 10_000,
        "> \ud800 lone surrogate\n",
    ],
    ids=[
        "empty",
        "blank",
        "dashdash",
        "git-sig",
        "5000-gt",
        "3000-quote-levels",
        "100k-attribution",
        "1MB-diff-line",
        "2000-outlook-separators",
        "3000-from-sent",
        "nuls",
        "surrogate",
    ],
)
def test_hostile_bodies_segment_quickly(text):
    t0 = time.perf_counter()
    segs = segment_body(text)
    assert time.perf_counter() - t0 < 2.0
    check_invariants(text, segs)


def test_every_line_of_the_seed_bodies_is_accounted_for(seed_text):
    for seed in ("000", "001", "002", "003", "004"):
        for m in split_textdump(seed_text(seed), seed):
            segs = segment_body(m.body)
            check_invariants(m.body, segs)
            covered = {i for s in segs for i in range(s.line_start, s.line_end + 1)}
            blank = {i for i, line in enumerate(m.body.split("\n")) if not line.strip()}
            assert covered | blank == set(range(len(m.body.split("\n")))), (seed, m.source)
            assert not re.search(r"(?m)^>", new_text(segs)), (seed, m.source)


@pytest.mark.parametrize("sep", ["-- ", "--"])
def test_signature_is_at_most_max_sig_lines_below_its_separator(sep):
    """The separator's run is read no further than a signature can reach: exactly MAX_SIG_LINES
    lines below it are a signature, one more and it is text (and a flood of separators costs
    linear time, tests/fuzz ADVERSARIAL "signature-flood")."""

    def kinds(below):
        body = "Hello,\nthe numbers.\n" + sep + "\n" + "\n".join(f"line {i}" for i in range(below))
        return [s.kind for s in segment_body(body)]

    assert kinds(MAX_SIG_LINES) == ["new", "signature"]
    assert kinds(MAX_SIG_LINES + 1) == ["new"]
    body = "text\n" + sep + "\nsig\n> quoted\n"  # a quote ends the run
    assert [s.kind for s in segment_body(body)] == ["new", "signature", "quoted"]
