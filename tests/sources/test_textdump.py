"""Plain-text thread dumps: the five seed threads in corpus/ (each with its
provenance note in corpus/README), split into messages with the authors,
dates and subjects the dump shows, then linked by what they quote.

The expectations were read off the seed files by hand; the counts say why.
"""

from __future__ import annotations

from lkmlkb.sources.textdump import parse_loose_date, split_textdump
from lkmlkb.threads.threader import thread_messages

SUBJECT_000 = "[bug-report] Performance regression with fio sequential-write on a multipath setup."
SUBJECT_002 = "Performance regression in IO scheduler still there"

# seed 002: 23 lines look like names; "Threads Avg Stddev" (x2) is a table
# heading and the "Jens Axboe" under "--" a signature, leaving 20 messages
AUTHORS_002 = [
    "Jan Kara",
    "Jeff Moyer",
    "Jeff Moyer",
    "Corrado Zoccolo",
    "Jeff Moyer",
    "Corrado Zoccolo",
    "Jeff Moyer",
    "Corrado Zoccolo",
    "Jan Kara",
    "Jan Kara",
    "Jeff Moyer",
    "Jan Kara",
    "Jeff Moyer",
    "Jens Axboe",
    "Jens Axboe",
    "Jan Kara",
    "Jan Kara",
    "Jeff Moyer",
    "Corrado Zoccolo",
    "Jan Kara",
]
ADDRS_002 = {
    "Jan Kara": "ja...@suse.cz",
    "Jeff Moyer": "jmo...@redhat.com",
    "Corrado Zoccolo": "czoc...@gmail.com",
    "Jens Axboe": "jens....@oracle.com",
}


def test_seed_000_header_block_and_chinese_outlook_quote(seed_text):
    # Harshit's "Re: 答复:" reply (header block at the top) quotes Zhiguo's
    # 答复, which carries the original report under -----邮件原件----- / 发件人:
    msgs = split_textdump(seed_text("000"), "000")
    assert len(msgs) == 2
    reply, original = msgs
    assert (reply.from_name, reply.from_addr) == ("Harshit Mogalapalli", "harshit.m.mogalapalli@...cle.com")
    assert reply.from_obfuscated
    assert reply.subject == "Re: 答复: " + SUBJECT_000
    assert reply.date_raw == "Tue, 12 Mar 2024 15:47:44 +0530"
    assert reply.date_utc == "2024-03-12T10:17:44+00:00"
    assert "Queue depth of the storage device is 254." in reply.body
    assert (original.from_name, original.from_addr) == (
        "Harshit Mogalapalli",
        "harshit.m.mogalapalli@...cle.com",
    )
    assert original.subject == SUBJECT_000
    # as written in the quote block; it carries no zone (the real Date was
    # Thu, 7 Mar 2024 00:16:07 +0530, i.e. 18:46 UTC: 2:46 is China time)
    assert original.date_raw == "2024年3月7日 2:46"
    assert original.date_utc == "2024-03-07T02:46:00+00:00"
    assert original.body.split("\n")[0].startswith("注意: 这封邮件来自于外部")
    assert (
        "We have noticed a performance regression in kernel with fio sequential write job." in original.body
    )
    assert not original.body.startswith(">")  # the quote depth of the block is removed
    assert reply.quoted_parent == original.message_id
    assert all(m.synthetic_id and m.message_id.endswith("@lkmlkb.invalid") for m in msgs)


def test_seed_001_bracket_author_line(seed_text):
    (m,) = split_textdump(seed_text("001"), "001")
    assert (m.from_name, m.from_addr, m.from_obfuscated) == ("Ming Lei", "ming.lei@redhat.com", False)
    assert m.subject == "Re: [bug report] shared tags causes IO hang and performance drop"
    assert m.date_raw == "" and m.date_utc is None
    assert m.body.startswith("On Thu, Apr 15, 2021 at 11:41:52AM +0100, John Garry wrote:")


def test_seed_002_author_name_lines(seed_text):
    msgs = split_textdump(seed_text("002"), "002")
    assert [m.from_name for m in msgs] == AUTHORS_002
    assert all(m.from_addr == ADDRS_002[m.from_name] and m.from_obfuscated for m in msgs)
    assert msgs[0].subject == SUBJECT_002
    assert all(m.subject == "Re: " + SUBJECT_002 for m in msgs[1:])
    assert msgs[0].body.startswith("I took time and remeasured tiobench results on recent kernel.")
    # "Jens Axboe" under "--" is his signature, not a new message
    assert msgs[13].body.rstrip().endswith("--\nJens Axboe")
    assert msgs[14].body.startswith("> Jens Axboe <jens....@oracle.com> writes:")
    assert all(m.date_utc is None for m in msgs)
    # quoted text links replies to what they quote: Jeff's first reply quotes Jan's report
    assert msgs[1].quoted_parent == msgs[0].message_id
    groups = thread_messages(msgs)
    assert len(groups) == 1


def test_seed_003_bracket_author_with_list_tag_subject(seed_text):
    (m,) = split_textdump(seed_text("003"), "003")
    assert (m.from_name, m.from_addr) == ("Wang Yugui", "wangyugui@e16-tech.com")
    assert m.subject == "[Cluster-devel] gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y"


def test_seed_004_outlook_underscore_block(seed_text):
    # a resend: the "[Name <addr>]" message holds the original under ____ From:/Sent:
    msgs = split_textdump(seed_text("004"), "004")
    assert len(msgs) == 2
    resend, original = msgs
    assert (resend.from_name, resend.from_addr) == ("Jayaramappa, Srilakshmi", "sjayaram@xxxxxxxxxx")
    assert resend.from_obfuscated and resend.subject == "Re: Precise disk statistics"
    assert (original.from_name, original.from_addr) == ("Jayaramappa, Srilakshmi", "")
    assert original.subject == "Precise disk statistics"
    assert original.date_raw == "Friday, April 22, 2022 5:02 PM"
    assert original.date_utc == "2022-04-22T17:02:00+00:00"
    assert original.to == "axboe@xxxxxxxxx; snitzer@xxxxxxxxxx; linux-block@xxxxxxxxxxxxxxx"
    assert original.cc == "Hunt, Joshua"
    assert original.body.startswith("Hi,\n\nWe install LTS kernel on our machines.")
    assert resend.quoted_parent == original.message_id


def test_english_original_message_block_inside_quotes():
    # the shape of an Outlook reply as seen on lkml.iu.edu; text from seed 000 (Zhiguo's 答复)
    dump = "\n".join(
        [
            "Subject: RE: [bug-report] Performance regression",
            "From: Zhiguo Niu <Zhiguo.Niu@unisoc.com>",
            "Date: Thu, 7 Mar 2024 02:55:36 +0000",
            "",
            "Hi Harshit Mogalapalli",
            "What is the queue_depth of queue of your storage device?",
            "",
            "-----Original Message-----",
            "From: Harshit Mogalapalli <harshit.m.mogalapalli@oracle.com>",
            "Sent: Thursday, March 7, 2024 2:46 AM",
            "Subject: [bug-report] Performance regression",
            "",
            "We have noticed a performance regression in kernel with fio sequential write job.",
        ]
    )
    reply, original = split_textdump(dump, "x")
    assert reply.from_name == "Zhiguo Niu" and reply.date_utc == "2024-03-07T02:55:36+00:00"
    assert original.from_addr == "harshit.m.mogalapalli@oracle.com"
    assert original.date_utc == "2024-03-07T02:46:00+00:00"
    assert (
        original.body == "We have noticed a performance regression in kernel with fio sequential write job."
    )
    assert reply.body.rstrip().endswith("What is the queue_depth of queue of your storage device?")


def test_quoted_original_keeps_fios_io_depth_figures():
    # seed 000's shape (an Outlook original quoted under "> "), with a wrapped fio
    # "IO depths" line whose continuation starts ">=64=" (corpus/000, line 178)
    dump = "\n".join(
        [
            "Subject: RE: [bug-report] Performance regression",
            "From: Zhiguo Niu <Zhiguo.Niu@unisoc.com>",
            "Date: Thu, 7 Mar 2024 02:55:36 +0000",
            "",
            "Hi, what is the queue depth?",
            "",
            "> -----Original Message-----",
            "> From: Harshit Mogalapalli <harshit.m.mogalapalli@oracle.com>",
            "> Sent: Thursday, March 7, 2024 2:46 AM",
            "> Subject: [bug-report] Performance regression",
            ">",
            ">     IO depths    : 1=0.1%, 2=0.1%, 4=0.1%, 8=0.1%, 16=0.1%, 32=0.1%,",
            "> >=64=199.5%",
        ]
    )
    reply, original = split_textdump(dump, "x")
    assert original.body.split("\n")[-1] == ">=64=199.5%"  # fio's figure, not a quote of a quote


def test_ids_are_stable_content_hashes(seed_text):
    a = [m.message_id for m in split_textdump(seed_text("002"), "002")]
    b = [m.message_id for m in split_textdump(seed_text("002"), "elsewhere")]
    assert a == b and len(set(a)) == 20


def test_parse_loose_date_forms():
    assert parse_loose_date("2024年3月7日 2:46") == "2024-03-07T02:46:00+00:00"
    assert parse_loose_date("Friday, April 22, 2022 5:02 PM") == "2022-04-22T17:02:00+00:00"
    assert parse_loose_date("Tue, 12 Mar 2024 15:47:44 +0530") == "2024-03-12T10:17:44+00:00"
    assert parse_loose_date("2024年13月7日 2:46") is None
    assert parse_loose_date("yesterday") is None


def test_plain_text_without_any_header_is_one_message():
    (m,) = split_textdump("Some notes\n\nfio --name=x --rw=write\n", "notes.txt")
    assert m.subject == "Some notes" and m.from_name == "" and m.body.startswith("fio --name=x")


def test_nul_and_crlf_in_a_dump():
    (m,) = split_textdump("Subject line\r\n[A B <a@b.c>]\r\n\r\nbo\x00dy\r\n", "x")
    assert m.body == "body" and m.from_addr == "a@b.c"
