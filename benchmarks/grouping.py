"""The cost of grouping report threads into regressions, against the ingest it runs in.

    python benchmarks/grouping.py --input <linux-block epoch 0 clone> --workers 2 \
        --json benchmarks/results/grouping-linux-block-epoch0.json

One extracting ingest of SOURCE into a new database, with the two grouping steps timed: reading
each report thread's keys (:func:`lkmlkb.db.regressions.thread_keys_of`, which the workers run
beside each report they build: timed here by reading every thread's keys again, in one process,
after the ingest) and the regroup at the end of the run (:func:`lkmlkb.db.regressions.regroup`,
timed where the writer runs it).  Then one regroup of the finished database from its stored keys,
timed alone.  Prints JSON: the ingest's wall and CPU seconds, the grouping's CPU seconds and their
share of the ingest's, and what came out (regressions, those of more than one thread, threads
grouped, key rows).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import lkmlkb.ingest.extraction as extraction
from lkmlkb.db.connection import connect, writing
from lkmlkb.db.regressions import BUILT_KEY, regroup, thread_keys_of
from lkmlkb.ingest.run import ingest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from worst_case import source_label  # a script beside this one


class Timed:
    """A function wrapped to add up its wall seconds and calls."""

    def __init__(self, fn):
        self.fn, self.seconds, self.calls = fn, 0.0, 0

    def __call__(self, *args, **kw):
        t = time.perf_counter()
        try:
            return self.fn(*args, **kw)
        finally:
            self.seconds += time.perf_counter() - t
            self.calls += 1


def cpu_seconds() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def run(source: str, workers: int, keep: str | None) -> dict:
    work = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="lkmlkb-grouping-"))
    work.mkdir(parents=True, exist_ok=True)
    path = work / "kb.db"
    groups = Timed(extraction.regroup)
    extraction.regroup = groups  # type: ignore[assignment]
    started = datetime.now(UTC).isoformat(timespec="seconds")
    cpu0, t0 = cpu_seconds(), time.perf_counter()
    ingest([source], str(path), workers=workers, extract=True)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
    db = connect(path, create=False)
    t1 = time.perf_counter()
    with writing(db.conn):
        db.conn.execute("DELETE FROM kb_info WHERE key = ?", (BUILT_KEY,))  # a regroup, not its skip
        n = regroup(db.conn)
    once = time.perf_counter() - t1
    threads = [r[0] for r in db.execute("SELECT DISTINCT thread_id FROM regression_keys")]
    c1 = time.process_time()
    for tid in threads:
        thread_keys_of(db.conn, tid)
    keys_cpu = time.process_time() - c1
    count = lambda sql: db.execute(sql).fetchone()[0]  # noqa: E731
    grouping = keys_cpu + groups.seconds
    return {
        "input": source_label(source),  # not where one machine keeps it
        "workers": workers,
        "started": started,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "messages": count("SELECT count(*) FROM messages"),
        "reports": count("SELECT count(*) FROM reports"),
        "regression_reports": count("SELECT count(*) FROM reports WHERE is_regression_report = 1"),
        "ingest_wall_s": round(wall, 2),
        "ingest_cpu_s": round(cpu, 2),
        "keys_cpu_s": round(keys_cpu, 3),
        "keys_threads": len(threads),
        "regroup_wall_s": round(groups.seconds, 3),
        "regroup_calls": groups.calls,
        "grouping_s": round(grouping, 3),
        "grouping_share_of_ingest_cpu": round(grouping / cpu, 4) if cpu else None,
        "one_full_regroup_s": round(once, 3),
        "regressions": n,
        "regressions_of_several_threads": count("SELECT count(*) FROM regressions WHERE thread_count > 1"),
        "threads_grouped": count("SELECT count(*) FROM regression_threads"),
        "key_rows": count("SELECT count(*) FROM regression_keys"),
        "kept": str(path) if keep else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", required=True, help="any source `lkmlkb ingest` reads")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", default=None, help="keep the database in this folder")
    ap.add_argument("--json", default=None, help="write the figures here too")
    args = ap.parse_args()
    out = run(args.input, args.workers, args.keep)
    text = json.dumps(out, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
