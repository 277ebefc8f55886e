"""A knowledge base for the Datasette tests, built from the real corpus.

The messages come from ``lkmlkb ingest corpus/`` (the five real seed
threads).  Until ingest builds reports itself, the report of seed 000 is
added by hand from what that thread says (linux-block, March 2024, "[bug-report]
Performance regression with fio sequential-write on a multipath setup"): its
fio job file, the fio "WRITE: bw=236MiB/s" (6.8-rc7) and "bw=315MiB/s"
(6.8-rc7+ Revert) group lines, "WRITE:247:1884:0" / "WRITE:330:2518:0"
throughput lines, and the bisection to d47f9717e5cf.  When ingest produces a
report for that thread, the built one is used instead and nothing is added.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from lkmlkb.ingest import ingest
from lkmlkb.store import connect

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
SEED000_SUBJECT = "%fio sequential-write on a multipath setup%"
CULPRIT = "d47f9717e5cf"
CULPRIT_SUBJECT = "block/mq-deadline: use correct way to throttling write requests"


def _kernel_sort(version: str) -> str:
    """The text form the fixture stores for a kernel's sort key (only its order matters here)."""
    from lkmlkb.kernels import sort_key

    return json.dumps(sort_key(version))


def add_seed000_report(db) -> str:
    """Insert the report of seed 000 as the thread states it; returns its report id."""
    thread_id, first_id, first_date, last_date, count = db.execute(
        "SELECT t.thread_id, t.root_message_id, t.first_date, t.last_date, t.message_count "
        "FROM threads t WHERE t.subject LIKE ?", (SEED000_SUBJECT,)).fetchone()
    root = db.execute("SELECT message_id FROM messages WHERE thread_id = ? ORDER BY date_utc LIMIT 1",
                      (thread_id,)).fetchone()[0]
    reply = db.execute("SELECT message_id FROM messages WHERE thread_id = ? ORDER BY date_utc DESC LIMIT 1",
                       (thread_id,)).fetchone()[0]
    rid = thread_id
    db["reports"].insert({
        "report_id": rid, "thread_id": thread_id,
        "title": "[bug-report] Performance regression with fio sequential-write on a multipath setup.",
        "is_regression_report": 1, "kind": "regression", "status": "bisected",
        "workload": "fio rw=write bs=128k ioengine=libaio iodepth=64 numjobs=24 direct=1 fsync=1 on dm multipath",
        "tools": json.dumps(["fio"]), "good_kernel": "6.8-rc7+revert", "bad_kernel": "6.8-rc7",
        "stated_pct": None, "computed_pct": -25.08, "regression_pct": -25.08, "pct_disagrees": 0,
        "headline_metric": "bw", "baseline_value": 315.0, "regressed_value": 236.0, "unit": "MiB/s",
        "culprits": json.dumps([CULPRIT]), "fixes": json.dumps([]), "fio_version": "fio-3.19",
        "scheduler": "mq-deadline", "filesystem": None, "device_class": "multipath",
        "people": json.dumps(["Harshit Mogalapalli"]), "lists": json.dumps(["linux-block"]),
        "first_date": first_date, "last_date": last_date, "message_count": count, "first_message_id": first_id,
        "summary": "Sequential write bandwidth with fio on two dm multipath devices drops from 315 MiB/s "
                   "to 236 MiB/s on 6.8-rc7; reverting d47f9717e5cf (block/mq-deadline) restores it. "
                   "Sequential read is unaffected.",
        "built": "2024-03-12T12:00:00+00:00",
    })
    for version, role in (("5.15.y", None), ("6.6", None), ("6.8-rc7", "bad"), ("6.8-rc7+revert", "good")):
        db["report_kernels"].insert({"report_id": rid, "version": version, "sort_key": _kernel_sort(version),
                                     "role": role})
    db["report_commits"].insert({"report_id": rid, "sha": CULPRIT, "subject": CULPRIT_SUBJECT, "role": "culprit",
                                 "message_id": root, "line_start": 30, "line_end": 31,
                                 "cue": "the bisection points to commit"})
    glob = {"ioengine": "libaio", "rw": "write", "bs": "128k", "iodepth": "64", "numjobs": "24", "direct": "1",
            "fsync": "1", "runtime": "600", "group_reporting": ""}
    for dev, (a, b) in (("/dev/dm-0", (70, 71)), ("/dev/dm-1", (72, 73))):
        db["fio_jobs"].insert({
            "report_id": rid, "name": "job", "form": "jobfile", "options": json.dumps({**glob, "filename": dev}),
            "global_options": json.dumps(glob), "normalized": json.dumps({}), "unknown_options": "[]",
            "notes": "[]", "rw": "write", "bs": "128k", "ioengine": "libaio", "iodepth": "64", "numjobs": "24",
            "message_id": reply, "thread_id": thread_id, "line_start": a, "line_end": b,
            "evidence": f"[job]\nfilename={dev}", "quoted": 1})
    rows = [("6.8-rc7", "regressed", "bw", "write", 236.0, "MiB/s", 236 * 2**20, "B/s",
             "WRITE: bw=236MiB/s (247MB/s), 236MiB/s-236MiB/s (247MB/s-247MB/s), io=138GiB (148GB)"),
            ("6.8-rc7+revert", "baseline", "bw", "write", 315.0, "MiB/s", 315 * 2**20, "B/s",
             "WRITE: bw=315MiB/s (330MB/s), 315MiB/s-315MiB/s (330MB/s-330MB/s), io=185GiB (198GB)"),
            ("6.8-rc7", "regressed", "iops", "write", 1884.0, "IOPS", 1884.0, "IOPS", "WRITE:247:1884:0"),
            ("6.8-rc7+revert", "baseline", "iops", "write", 2518.0, "IOPS", 2518.0, "IOPS", "WRITE:330:2518:0"),
            ("6.8-rc7", None, "bw", "read", 448.0, "MiB/s", 448 * 2**20, "B/s", "READ: bw=448MiB/s (470MB/s)"),
            ("6.8-rc7+revert", None, "bw", "read", 462.0, "MiB/s", 462 * 2**20, "B/s", "READ: bw=462MiB/s (484MB/s)")]
    for kernel, label, metric, direction, value, unit, nv, nu, ev in rows:
        db["results"].insert({
            "report_id": rid, "kernel": kernel, "kernel_sort": _kernel_sort(kernel), "label": label, "config": None,
            "tool": "fio", "metric": metric, "direction": direction, "value": value, "unit": unit,
            "normalized_value": nv, "normalized_unit": nu, "stddev": None, "samples": "[]",
            "message_id": reply, "thread_id": thread_id, "line_start": 0, "line_end": 0, "evidence": ev,
            "quoted": 1})
    db["setups"].insert_all([
        {"report_id": rid, "key": "scheduler", "value": "mq-deadline", "message_id": reply},
        {"report_id": rid, "key": "device", "value": "2 block devices with multi-path (dm-0, dm-1), 600G each",
         "message_id": reply},
        {"report_id": rid, "key": "queue_depth", "value": "254", "message_id": root}])
    db["commits"].insert({"sha": CULPRIT, "status": "unchecked", "subject_in_mail": CULPRIT_SUBJECT})
    return rid


def build_kb(path: Path) -> tuple[Path, str]:
    """Ingest the corpus into ``path``; make sure seed 000 has its report. Returns (path, report id)."""
    ingest([str(CORPUS)], str(path))
    db = connect(path)
    found = db.execute("SELECT r.report_id FROM reports r JOIN threads t ON t.thread_id = r.thread_id "
                       "WHERE t.subject LIKE ?", (SEED000_SUBJECT,)).fetchone()
    rid = found[0] if found else add_seed000_report(db)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.conn.close()
    return path, rid


@pytest.fixture(scope="session")
def kb(tmp_path_factory) -> tuple[Path, str]:
    """(path of a knowledge base built from the corpus, report id of seed 000)."""
    return build_kb(tmp_path_factory.mktemp("kb") / "kb.db")


@pytest.fixture()
def kb_copy(kb, tmp_path) -> tuple[Path, str]:
    """A private copy of the knowledge base, for tests that change it."""
    dst = tmp_path / "kb.db"
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(kb[0]) + suffix)
        if src.exists():
            shutil.copy(src, str(dst) + suffix)
    return dst, kb[1]


@pytest.fixture(scope="session")
def ds(kb):
    """A started Datasette on the knowledge base, configured as ``lkmlkb serve`` does it."""
    from lkmlkb.serve import make_datasette

    datasette = make_datasette(kb[0])
    asyncio.run(datasette.invoke_startup())
    return datasette


@pytest.fixture(scope="session")
def get(ds):
    """GET a path through Datasette's own test client."""
    def fetch(path: str, **kw):
        return asyncio.run(ds.client.get(path, **kw))
    return fetch
