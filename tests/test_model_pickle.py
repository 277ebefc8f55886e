"""The records the ingest's worker processes send back and forth pickle as their field values
(``model.pickled_as_fields``): everything an instance holds comes back, on real mail.

Input: the first 300 entries of ../shared/archives/linux-block-2024q1.mboxrd.gz (real
linux-block mail, 2024 Q1) and the corpus threads.
"""

from __future__ import annotations

import dataclasses
import gzip
import itertools
import pickle
from pathlib import Path

import pytest

from lkmlkb.ingest import prepare
from lkmlkb.ingest.known import Known
from lkmlkb.model import Evidence, Findings, Message, Segment, pickled_as_fields
from lkmlkb.reports.from_mail import extract_paths
from lkmlkb.sources.mbox import iter_mbox_file

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = ROOT.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"


def held(obj):
    """Everything an object holds, its instances' attributes (not only their fields) included."""
    if isinstance(obj, (list, tuple)):
        return [held(x) for x in obj]
    if isinstance(obj, dict):
        return {k: held(v) for k, v in obj.items()}
    if hasattr(obj, "__dict__"):
        return (type(obj).__name__, {k: held(v) for k, v in vars(obj).items()})
    return obj


def round_trip(obj):
    return pickle.loads(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


@pytest.fixture(scope="module")
def raw_mail(tmp_path_factory):
    path = tmp_path_factory.mktemp("mbox") / "sample.mbox"
    with gzip.open(ARCHIVE, "rb") as src:
        path.write_bytes(src.read(3_000_000))
    return list(itertools.islice(iter_mbox_file(path), 300))


def test_raw_mail_and_what_the_workers_make_of_it_come_back_whole(raw_mail):
    assert len(raw_mail) == 300 and all(r.cursor for r in raw_mail)
    assert held(round_trip(raw_mail)) == held(raw_mail)
    prepared = prepare.prepare_and_screen(raw_mail)
    assert sum(isinstance(p, prepare.Prepared) for p in prepared) == 300
    assert sum(p.screened for p in prepared) == 300 and any(p.passed for p in prepared)
    assert held(round_trip(prepared)) == held(prepared)
    known = Known("a.mbox", "entry 3", "mbox:/a.mbox", "mbox1 1 1 1 00")
    failure = prepare.Failure("a.mbox", "entry 4", "parse", "no headers", b"x")
    assert held(round_trip([known, failure])) == held([known, failure])


def test_findings_and_reports_of_the_corpus_come_back_whole():
    messages, reports = extract_paths([str(ROOT / "corpus")])
    assert len(reports) >= 10 and any(r.fio_jobs for r in reports) and any(r.results for r in reports)
    assert held(round_trip(reports)) == held(reports)
    assert held(round_trip(messages)) == held(messages)


def test_an_instance_comes_back_from_a_call_with_its_field_values():
    seg = Segment("quoted", 3, 9, "a\nb", 2, "<x@y>")
    assert round_trip(seg) == seg and type(round_trip(seg)) is Segment
    f = Findings("<m@x>", errors={"claims": "skipped"})
    assert round_trip(f) == f
    assert round_trip(Evidence()) == Evidence()
    msg = Message("<m@x>", subject="s", references=["<a@b>"], raw=b"\x00\xff")
    assert held(round_trip(msg)) == held(msg)
    # pickled as (class, field values): the field values are all an instance is made from
    assert msg.__reduce__() == (Message, tuple(getattr(msg, f.name) for f in dataclasses.fields(Message)))

    @dataclasses.dataclass
    class One:
        only: int

    pickled_as_fields(One)
    assert One(5).__reduce__() == (One, (5,))
