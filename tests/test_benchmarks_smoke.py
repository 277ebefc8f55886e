"""Smoke test of benchmarks/bench.py and benchmarks/synth.py (not timed).

The harness runs on the first 50 messages of the real linux-block 2024 Q1
archive (`../shared/archives/linux-block-2024q1.mboxrd.gz` beside the clone, the CI-sized
input of issue 7); the test checks that every stage and reference run
reports numbers, not how fast they are.  The synthetic generator must be
deterministic and produce mail that lkmlkb parses and threads.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARCHIVE = (
    Path(__file__).resolve().parent.parent.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"
)


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


synth = _load("synth")
bench = _load("bench")


def test_synth_is_deterministic_and_seed_dependent():
    a = b"".join(synth.generate(60, seed=7))
    b = b"".join(synth.generate(60, seed=7))
    c = b"".join(synth.generate(60, seed=8))
    assert a == b
    assert a != c
    assert a.count(b"\nFrom mboxrd@z ") == 59  # 60 entries, the first at offset 0
    assert a.startswith(b"From mboxrd@z ")


def test_synth_mail_parses_threads_and_carries_reports():
    import io

    from lkmlkb.extract.prefilter import prefilter
    from lkmlkb.sources.mail import parse_message
    from lkmlkb.sources.mbox import split_mbox
    from lkmlkb.threads.threader import thread_messages

    data = b"".join(synth.generate(600, seed=3))
    msgs = [parse_message(raw, "synth") for raw in split_mbox(io.BytesIO(data))]
    assert len(msgs) == 600
    assert len({m.message_id for m in msgs}) == 600
    replies = [m for m in msgs if m.in_reply_to]
    assert len(replies) > 300  # most list mail is replies
    assert any(len(m.references) >= 3 for m in replies)  # References chains grow down a thread
    threads = thread_messages(msgs)
    assert 20 < len(threads) < 300
    reports = [m for m in msgs if "Run status group" in m.body and not m.in_reply_to]
    assert reports, "about 1% of threads start with a fio report"
    assert all(prefilter(m.body) for m in reports)
    assert any("diff --git" in m.body for m in msgs)
    assert any("\n> " in m.body for m in replies)


@pytest.mark.skipif(not ARCHIVE.exists(), reason="the shared linux-block archive is not on this machine")
def test_harness_reports_numbers_for_every_stage(tmp_path):
    out = tmp_path / "res.json"
    rc = bench.main(
        [
            "--input",
            str(ARCHIVE),
            "--limit",
            "50",
            "--workers",
            "2",
            "--no-extract",
            "--runs",
            "floor,stdlib,stages,ingest,prefilter",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["messages"] == 50
    for run in ("floor", "stdlib", "ingest", "ingest_par"):
        assert res[run]["messages"] >= 49, run  # the floor counts Message-ID headers
        assert res[run]["msg_per_s"] > 0, run
        assert res[run]["peak_rss_mb"] > 0, run
    assert res["stdlib"]["db_mb"] > 0 and res["ingest"]["db_mb"] > 0
    assert res["ingest"]["new"] == 50
    assert res["ingest"]["rerun_new"] == 0
    stages = res["stages"]["stages"]
    for name in ("read", "parse", "segment", "thread", "prefilter", "store", "fts"):
        assert stages[name]["messages"] == 50, name
        assert stages[name]["seconds"] >= 0, name
        assert "msg_per_s" in stages[name] and "mb_per_s" in stages[name], name
    assert "extract" in stages  # numbers, or "unavailable: <reason>" while extractors land
    assert 0 < res["stages"]["prefilter_passed"] <= 50
    pf = res["prefilter"]
    assert pf["input_messages"] == 50
    assert pf["corpus_threads"] == len(list((ROOT / "corpus").glob("*.txt")))
    assert pf["corpus_dropped_with_results"] == 0
    assert "floor" in res["ratios"] and "stdlib" in res["ratios"]
    # every run is probed before and after; the stdlib run against itself is 1 at any speed
    assert all(
        len(res[run]["probe_cpu_s"]) == 2 and min(res[run]["probe_cpu_s"]) > 0
        for run in ("floor", "stdlib", "ingest", "ingest_par")
    )
    assert res["ratios"]["stdlib"]["x_stdlib_probed"] == 1.0
    assert res["ratios"]["ingest"]["x_stdlib_probed"] > 0
    # the machine's stolen and idle shares over each run, read from /proc/stat
    assert all(
        0 <= res[run]["steal_share"] <= 1 and 0 <= res[run]["idle_share"] <= 1
        for run in ("floor", "stdlib", "ingest", "ingest_par")
    )
    # the re-run of the unchanged mbox resumes at its cursor: nothing is read again
    assert (res["ingest"]["rerun_read"], res["ingest"]["rerun_new"]) == (0, 0)


def test_machine_shares_are_the_stolen_and_idle_parts_of_the_ticks_between_two_readings():
    before = [1000, 10, 300, 5000, 20, 1, 2, 70]
    after = [
        1500,
        10,
        400,
        5200,
        120,
        1,
        2,
        170,
    ]  # 1,000 ticks: 500 user, 100 system, 300 idle (100 on the disk), 100 stolen
    assert bench.machine_shares(before, after) == {"steal_share": 0.1, "idle_share": 0.3}
    assert bench.machine_shares(before, before) == {} and bench.machine_shares(None, after) == {}
    now = bench.machine_ticks()
    if Path("/proc/stat").exists():  # Linux: the eight counters, growing
        assert len(now) == 8 and sum(bench.machine_ticks()) >= sum(now) > 0
    else:
        assert now is None


def test_search_run_times_lkmlkbs_canned_query_and_the_table_search(tmp_path):
    """The search run against a real `lkmlkb serve` of the corpus (127.0.0.1; figures not checked)."""
    import socket

    from lkmlkb.ingest.run import ingest

    db = tmp_path / "kb.db"
    ingest([str(ROOT / "corpus")], str(db), extract=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = bench.run_search(str(db), port=port, loops=2)
    q = out["queries"]["mq-deadline"]
    assert q["matches"] >= 1  # seed 000 is about mq-deadline
    assert q["canned_query"]["rows"] == min(20, q["matches"])
    assert q["table_search"]["rows"] == min(20, q["matches"])
    assert q["canned_query"]["p95_ms"] > 0
    assert set(out["queries"]) == set(bench.SEARCHES)


def test_worst_case_times_every_group_and_scans_a_source(tmp_path):
    """benchmarks/worst_case.py: the fuzz corpus, the adversarial runs, the largest archive
    messages and, with --scan, every message of a source; numbers for each, not their size."""
    worst = _load("worst_case")
    out = tmp_path / "worst.json"
    assert worst.main(["--largest", "3", "--scan", str(ROOT / "corpus"), "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    groups = {g.split(" of ")[0] if g.startswith("every") else g: s for g, s in summary.items()}
    assert set(groups) >= {"fuzz corpus", "adversarial", "every message"}
    scan = groups["every message"]
    assert scan["inputs"] >= 30 and scan["passed_prefilter"] >= 20 and scan["rejected"] == 0
    assert len(scan["worst"]) == 5 and all(w["cpu_s"] > 0 and w["first_cpu_s"] > 0 for w in scan["worst"])
    assert groups["adversarial"]["inputs"] == len(worst.adversarial())
    # every group is read beside a speed probe: the five seeds' first messages, a few ms of CPU
    assert len(worst.reference_messages()) == 5
    assert all(0 < s["probe_ms"] < 5_000 for s in summary.values())


@pytest.mark.parametrize(
    ("source", "name"),
    [
        (
            "/srv/mirror/linux-mailinglist-archives+linux-block.vger.kernel.org.0/repo",
            "linux-block.vger.kernel.org.0",
        ),
        ("/home/me/lore/linux-xfs/0/.git", "0"),
        ("/data/linux-block-2024q1.mboxrd.gz", "linux-block-2024q1.mboxrd.gz"),
    ],
)
def test_results_name_their_input_not_where_a_machine_keeps_it(source, name):
    worst = _load("worst_case")
    assert bench.input_name(source) == name
    assert worst.source_label(source) == name
