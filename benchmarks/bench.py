"""Ingest benchmark: lkmlkb per stage and end to end, against three reference runs.

Every run reads the same input in the same invocation, each in its own
subprocess (so peak RSS is that run's own), and the figures are reported as
ratios to the floor and to the stdlib baseline as well as absolute rates.

Runs (``--runs``, comma-separated; default all but ``search``):

``floor``      stream the mbox file in 8 MB blocks and run one bytes regex (the
               Message-ID header) over it; for a public-inbox input also
               ``floor_git``: one ``git log --raw | git cat-file --batch`` stream.
``stdlib``     ``mailbox.mbox`` + ``BytesParser(policy=default)`` + six headers +
               ``get_body().get_content()`` + ``executemany`` into SQLite + FTS5.
``m2s``        ``mbox-to-sqlite mbox`` (PyPI) in a subprocess; a crash is recorded.
``stages``     one serial, instrumented pass of lkmlkb: read (split_mbox), parse
               (parse_message), segment (segment_body + new_text), thread
               (Threader, in memory), prefilter (build_view + prefilter), extract
               (extract_view on the messages the prefilter passes), store
               (Store.write_batch with the FTS triggers dropped, SQL threading
               included) and FTS (one FTS5 'rebuild' of the same rows).
``ingest``     lkmlkb.ingest.ingest(workers=1, extract=True if the
               extractors import), then ``ingest_par`` with ``--workers``, then a
               re-run on the unchanged input (``ingest_rerun``).
``ingest_par`` / ``ingest_noext``  only the ``--workers`` ingest with / without
               extraction (and its re-run): for whole-epoch inputs.
``prefilter``  pass rate on the input and the check on corpus/*.txt.
``search``     build nothing: serve ``--search-db`` with Datasette and time
               full-text queries through its JSON API.

Usage::

    python benchmarks/bench.py --input ../shared/archives/linux-block-2024q1.mboxrd.gz --json out.json
    python benchmarks/bench.py --input /tmp/synth-1m.mbox --limit 200000 --runs floor,stdlib,ingest
    python benchmarks/bench.py --runs search --search-db /tmp/kb.db
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

log = logging.getLogger("bench")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: the shared data beside the clone (archives, eval labels)
SHARED = ROOT.parent / "shared"
BLOCK = 8 << 20
# the floor's one regex: a Message-ID header line ("Message-ID: <...>", "Message-Id:")
FLOOR_RE = re.compile(rb"""^Message-I[Dd]:[ \t]{0,20}<([^>\n]{1,998})>""", re.M | re.X)
DEFAULT_RUNS = "floor,stdlib,m2s,stages,ingest,prefilter"


# ---------------------------------------------------------------- helpers


def input_name(source: str) -> str:
    """The input's name: a file's, or a public-inbox clone's directory without its owner's prefix
    ("<owner>+linux-block.vger.kernel.org.0/repo" -> "linux-block.vger.kernel.org.0")."""
    path = Path(source)
    if path.name in ("repo", "git", ".git"):
        path = path.parent
    return path.name.rpartition("+")[2]


def peak_rss_mb() -> dict:
    """Peak RSS of this process and of its largest waited-for child, in MB (Linux: ru_maxrss is KB)."""
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"peak_rss_mb": round(me, 1), "peak_rss_children_mb": round(kids, 1)}


def db_size_mb(path: str | Path) -> float:
    """Size of an SQLite database with its -wal and -shm files."""
    total = 0
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            total += p.stat().st_size
    return round(total / 1e6, 2)


def cpu_seconds() -> float:
    """User + system CPU of this process and its waited-for children (robust to a busy machine)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def machine_ticks() -> list[int] | None:
    """The machine's CPU time so far by state (``/proc/stat``'s first line: user, nice, system,
    idle, iowait, irq, softirq, steal, in clock ticks summed over the cores); None off Linux."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
        return [int(x) for x in fields[1:9]] if fields[:1] == ["cpu"] and len(fields) >= 9 else None
    except (OSError, ValueError):
        return None


def machine_shares(before: list[int] | None, after: list[int] | None) -> dict:
    """Of the machine's CPU time between two :func:`machine_ticks`: the share its hypervisor
    gave to other guests (steal) and the share no one used (idle, waiting for the disk too).
    A run taken with much stolen is slower for it: compare ratios of runs with little."""
    if before is None or after is None:
        return {}
    d = [a - b for a, b in zip(after, before)]
    total = sum(d)
    if total <= 0:
        return {}
    return {"steal_share": round(d[7] / total, 3), "idle_share": round((d[3] + d[4]) / total, 3)}


def rate(n: int, seconds: float, nbytes: int | None = None) -> dict:
    out = {
        "messages": n,
        "seconds": round(seconds, 4),
        "msg_per_s": round(n / seconds, 1) if seconds > 0 else None,
    }
    if nbytes is not None:
        out["mb_per_s"] = round(nbytes / 1e6 / seconds, 2) if seconds > 0 else None
    return out


def is_public_inbox(path: Path) -> bool:
    return path.is_dir()


def materialize(src: Path, limit: int | None, out: Path) -> tuple[int, int]:
    """Write the first ``limit`` messages of ``src`` as one uncompressed mboxrd file.

    Every run then reads the same bytes; gunzip / git reads of the original
    are not counted anywhere.  Returns (messages, bytes).
    """
    sys.path.insert(0, str(ROOT))
    from lkmlkb.sources import iter_source
    from lkmlkb.sources.base import RawMail

    n = 0
    with open(out, "wb") as fh:
        for item in iter_source(str(src)):
            if not isinstance(item, RawMail):
                continue
            raw = item.raw
            if raw.startswith(b"From ") and b"\n" in raw[:1000]:
                raw = raw.split(b"\n", 1)[1]
            # mboxrd escaping of any ">*From " body line
            raw = re.sub(rb"^(>*From )", rb">\1", raw, flags=re.M)
            fh.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + raw.rstrip(b"\n") + b"\n\n")
            n += 1
            if limit and n >= limit:
                break
    return n, out.stat().st_size


# ---------------------------------------------------------------- runs


def run_floor(mbox: str, **_) -> dict:
    """Stream the file in large blocks and run one bytes regex over it."""
    t0 = time.perf_counter()
    n = 0
    nbytes = 0
    tail = b""
    with open(mbox, "rb", buffering=0) as fh:
        while True:
            chunk = fh.read(BLOCK)
            if not chunk:
                break
            nbytes += len(chunk)
            buf = tail + chunk
            cut = buf.rfind(b"\n") + 1  # a header line never straddles two scans
            n += sum(1 for _ in FLOOR_RE.finditer(buf, 0, cut))
            tail = buf[cut:]
    n += sum(1 for _ in FLOOR_RE.finditer(tail))
    return {**rate(n, time.perf_counter() - t0, nbytes), **peak_rss_mb()}


def run_floor_git(repo: str, limit: int | None = None, **_) -> dict:
    """``git log --raw`` names the blobs; one ``git cat-file --batch`` streams them; one regex."""
    t0 = time.perf_counter()
    gd = ["git", "--git-dir", repo]
    log_p = subprocess.Popen(
        [*gd, "log", "--reverse", "--raw", "--no-abbrev", "--format="], stdout=subprocess.PIPE
    )
    cat = subprocess.Popen(
        [*gd, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=1 << 20
    )
    import threading

    def feed():
        count = 0
        for line in log_p.stdout:
            parts = line.split()
            if len(parts) >= 6 and parts[-1] == b"m":
                cat.stdin.write(parts[3] + b"\n")
                count += 1
                if limit and count >= limit:
                    break
        cat.stdin.close()
        log_p.stdout.close()

    th = threading.Thread(target=feed)
    th.start()
    n = nbytes = matched = 0
    out = cat.stdout
    while True:
        head = out.readline()
        if not head:
            break
        size = int(head.split()[2])
        blob = out.read(size)
        out.read(1)
        n += 1
        nbytes += size
        if FLOOR_RE.search(blob):
            matched += 1
    th.join()
    cat.wait()
    log_p.wait()
    return {**rate(n, time.perf_counter() - t0, nbytes), "regex_matched": matched, **peak_rss_mb()}


def stdlib_read(parser, raw: bytes) -> tuple[list[str], str]:
    """What the stdlib baseline reads of one message: six headers and the plain-text body
    ("" when it has none or it does not decode); raises when the message does not parse."""
    m = parser.parsebytes(raw)
    heads = [str(m.get(h, "") or "") for h in ("Message-ID", "Subject", "From", "To", "Date", "In-Reply-To")]
    try:
        part = m.get_body(preferencelist=("plain",))
        body = part.get_content() if part is not None else ""
    except Exception:
        body = ""
    return heads, body


def run_stdlib(mbox: str, workdir: str, **_) -> dict:
    """What a careful first version does: mailbox + email(policy.default) + executemany + FTS5."""
    import mailbox
    from email import policy
    from email.parser import BytesParser

    db_path = os.path.join(workdir, "stdlib.db")
    t0 = time.perf_counter()
    conn = sqlite3.connect(db_path)
    conn.execute(
        "CREATE TABLE messages (id INTEGER PRIMARY KEY, message_id TEXT, subject TEXT, "
        "sender TEXT, recipients TEXT, date TEXT, in_reply_to TEXT, body TEXT)"
    )
    parser = BytesParser(policy=policy.default)
    box = mailbox.mbox(mbox, create=False)
    rows = []
    n = errors = 0
    nbytes = 0
    for key in box.iterkeys():
        raw = box.get_bytes(key)
        nbytes += len(raw)
        try:
            heads, body = stdlib_read(parser, raw)
        except Exception:
            errors += 1
            continue
        rows.append((*heads, body))
        n += 1
        if len(rows) >= 1000:
            conn.executemany(
                "INSERT INTO messages(message_id, subject, sender, recipients, date, in_reply_to, body) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            conn.commit()
            rows = []
    if rows:
        conn.executemany(
            "INSERT INTO messages(message_id, subject, sender, recipients, date, in_reply_to, body) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    conn.commit()
    t_fts = time.perf_counter()
    conn.execute(
        'CREATE VIRTUAL TABLE messages_fts USING fts5(subject, body, content="messages", content_rowid=id)'
    )
    conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")
    conn.commit()
    conn.close()
    t1 = time.perf_counter()
    return {
        **rate(n, t1 - t0, nbytes),
        "fts_seconds": round(t1 - t_fts, 3),
        "errors": errors,
        "db_mb": db_size_mb(db_path),
        **peak_rss_mb(),
    }


def run_m2s(mbox: str, workdir: str, **_) -> dict:
    """mbox-to-sqlite from PyPI, as released, in a subprocess; a crash is reported with its reason."""
    exe = shutil.which("mbox-to-sqlite")
    if not exe:
        return {"status": "not installed (pip install mbox-to-sqlite)"}
    db_path = os.path.join(workdir, "m2s.db")
    t0 = time.perf_counter()
    p = subprocess.run([exe, "mbox", db_path, mbox], capture_output=True, text=True, check=False)
    secs = time.perf_counter() - t0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if p.returncode != 0:
        last = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
        return {
            "status": "crashed: " + (last[-1][:300] if last else f"exit {p.returncode}"),
            "seconds": round(secs, 2),
            "peak_rss_mb": round(kids, 1),
        }
    n = sqlite3.connect(db_path).execute("SELECT count(*) FROM messages").fetchone()[0]
    return {
        "status": "ok",
        **rate(n, secs, os.path.getsize(mbox)),
        "db_mb": db_size_mb(db_path),
        "peak_rss_mb": round(kids, 1),
    }


def _extract_fn():
    """extract_view if every extractor imports, else (None, reason)."""
    try:
        from lkmlkb.extract import messages

        messages._extractors()
        return messages.extract_view, None
    except Exception as exc:
        return None, f"{exc.__class__.__name__}: {exc}"


def run_stages(mbox: str, workdir: str, **_) -> dict:
    """One serial pass, each stage timed on its own (process_time around each call).

    Extraction is timed as the ingest runs it: on the focused view, after the
    one-off ``warm_up`` (spaCy's import and the cue pipelines), which is
    reported apart as ``warm_up_seconds``.
    """
    from lkmlkb.db.connection import connect
    from lkmlkb.db.store import Store
    from lkmlkb.extract.messages import warm_up
    from lkmlkb.extract.prefilter import prefilter
    from lkmlkb.extract.views import build_view, focus_view
    from lkmlkb.sources.mail import parse_message
    from lkmlkb.sources.mbox import split_mbox
    from lkmlkb.threads.segments import new_text, segment_body
    from lkmlkb.threads.threader import DictBackend, Threader

    extract_view, why = _extract_fn()
    warm = time.process_time()
    if extract_view is not None:
        warm_up()
    warm = time.process_time() - warm
    db_path = os.path.join(workdir, "stages.db")
    db = connect(db_path)
    for trig in ("messages_ai", "messages_ad", "messages_au"):
        db.execute(f"DROP TRIGGER IF EXISTS {trig}")
    store = Store(db)
    store.start_run([mbox])
    t = dict.fromkeys(
        (
            "read",
            "parse",
            "segment",
            "thread",
            "prefilter",
            "build_view",
            "extract",
            "store",
            "store_threading",
            "fts",
        ),
        0.0,
    )
    sql_threader_add = store.threader.add

    def timed_add(msg):
        s = time.process_time()
        try:
            return sql_threader_add(msg)
        finally:
            t["store_threading"] += time.process_time() - s

    store.threader.add = timed_add
    threader = Threader(DictBackend())
    pc = time.process_time  # CPU seconds: the machine is shared, wall time is noisy
    n = nbytes = passed = extracted_records = 0
    batch = []
    with open(mbox, "rb") as fh:
        it = split_mbox(fh)
        while True:
            s = pc()
            raw = next(it, None)
            t["read"] += pc() - s
            if raw is None:
                break
            n += 1
            nbytes += len(raw)
            s = pc()
            msg = parse_message(raw, mbox)
            t["parse"] += pc() - s
            s = pc()
            segs = segment_body(msg.body)
            text = new_text(segs)
            t["segment"] += pc() - s
            s = pc()
            threader.add(msg)
            t["thread"] += pc() - s
            s = pc()
            view = build_view(msg.body, segs)
            t["build_view"] += pc() - s
            s = pc()
            hit = prefilter(view.text) or prefilter(msg.subject)
            t["prefilter"] += pc() - s
            if hit:
                passed += 1
                if extract_view is not None:
                    s = pc()
                    f = extract_view(msg.message_id, focus_view(view))
                    t["extract"] += pc() - s
                    extracted_records += sum(
                        len(getattr(f, k, []) or [])
                        for k in ("fio_jobs", "results", "kernels", "commits", "claims")
                    )
            batch.append((msg, segs, text))
            if len(batch) >= 500:
                s = pc()
                store.write_batch(batch)
                t["store"] += pc() - s
                batch = []
    if batch:
        s = pc()
        store.write_batch(batch)
        t["store"] += pc() - s
    s = pc()
    db.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")
    t["fts"] = pc() - s
    store.finish_run()
    db.conn.close()
    stages = {}
    for name in ("read", "parse", "segment", "thread", "build_view", "prefilter", "extract", "store", "fts"):
        secs = t[name]
        k = passed if name == "extract" else n
        stages[name] = rate(k, secs, nbytes if name != "extract" else None)
    stages["store"]["of_which_sql_threading_s"] = round(t["store_threading"], 3)
    if extract_view is None:
        stages["extract"] = {"status": "unavailable: " + why}
    total = sum(v for k, v in t.items() if k != "store_threading")
    return {
        "messages": n,
        "bytes": nbytes,
        "timing": "CPU seconds per stage (time.process_time)",
        "stages": stages,
        "serial_total": rate(n, total, nbytes),
        "prefilter_passed": passed,
        "prefilter_pass_rate": round(passed / n, 4) if n else None,
        "extracted_records": extracted_records,
        "warm_up_seconds": round(warm, 3),
        "db_mb": db_size_mb(db_path),
        **peak_rss_mb(),
    }


def run_ingest(
    mbox: str, workdir: str, workers: int = 1, extract: bool = True, tag: str = "ingest", **_
) -> dict:
    """lkmlkb's real ingest (store, FTS triggers, threading, extraction hook), then a re-run."""
    from lkmlkb.ingest.run import ingest

    why = None
    if extract:
        fn, why = _extract_fn()
        extract = fn is not None
    db_path = os.path.join(workdir, f"{tag}.db")
    nbytes = os.path.getsize(mbox)
    c0 = cpu_seconds()
    t0 = time.perf_counter()
    summary = ingest([mbox], db_path, workers=workers, extract=extract)
    secs = time.perf_counter() - t0
    cpu = cpu_seconds() - c0
    out = {
        **rate(summary.read, secs, nbytes),
        "workers": workers,
        "new": summary.new,
        "errors": summary.errors,
        "extraction": "on" if extract else f"off ({why or 'not asked'})",
        "db_mb": db_size_mb(db_path),
        "cpu_seconds": round(cpu, 3),
        "msg_per_cpu_s": round(summary.read / cpu, 1) if cpu else None,
        **peak_rss_mb(),
    }
    conn = sqlite3.connect(db_path)
    for table in ("reports", "findings", "extracted_messages"):
        try:
            out[f"rows_{table}"] = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        except sqlite3.Error:
            pass
    try:
        out["prefilter_passed"] = conn.execute(
            "SELECT count(*) FROM extracted_messages WHERE prefilter_passed=1"
        ).fetchone()[0]
    except sqlite3.Error:
        pass
    conn.close()
    t0, c0 = time.perf_counter(), cpu_seconds()
    again = ingest([mbox], db_path, workers=workers, extract=extract)
    out["rerun_seconds"] = round(time.perf_counter() - t0, 2)
    out["rerun_cpu_seconds"] = round(cpu_seconds() - c0, 2)
    out["rerun_read"] = again.read
    out["rerun_new"] = again.new
    out["rerun_unchanged"] = again.unchanged
    return out


def message_has_results(text: str, results: list[dict]) -> bool:
    """Does a message's view hold one of the thread's gold result values with its unit?"""
    for r in results:
        v = r.get("value")
        if v is None:
            continue
        num = ("%g" % v) if isinstance(v, float) else str(v)
        unit = (r.get("unit") or r.get("metric") or "").lower()
        for line in text.split("\n"):
            if num in line and (not unit or unit in line.lower()):
                return True
    return False


def run_prefilter(mbox: str, **_) -> dict:
    """Pass rate on the input, and that no corpus message holding gold results is dropped."""
    from lkmlkb.extract.views import build_view, may_hold_report
    from lkmlkb.sources import iter_source
    from lkmlkb.sources.mail import parse_message
    from lkmlkb.sources.mbox import split_mbox
    from lkmlkb.threads.quotes import attribute_quotes
    from lkmlkb.threads.segments import segment_body
    from lkmlkb.threads.threader import thread_messages

    n = passed = 0
    t0 = time.perf_counter()
    with open(mbox, "rb") as fh:
        for raw in split_mbox(fh):
            msg = parse_message(raw, mbox)
            n += 1
            if may_hold_report(msg, segment_body(msg.body)):  # as the ingest workers screen it
                passed += 1
    secs = time.perf_counter() - t0
    corpus = []
    for path in sorted((ROOT / "corpus").glob("*.txt")):
        gold_file = SHARED / "eval" / "seeds" / path.name[:3] / "gold.json"
        gold = json.loads(gold_file.read_text()) if gold_file.exists() else {}
        msgs = [m for m in iter_source(str(path)) if not isinstance(m, bytes)]
        msgs = [
            m if not hasattr(m, "raw") or hasattr(m, "message_id") else parse_message(m.raw) for m in msgs
        ]
        with_results = passing = dropped = 0
        for _, thread in thread_messages(msgs).items():
            items = [(m, segment_body(m.body)) for m in thread]
            attribute_quotes(items)
            for m, segs in items:
                view = build_view(m.body, segs)  # what the extractors read of it
                ok = may_hold_report(m, segs)  # as ingest decides
                passing += ok
                if message_has_results(view.text, gold.get("results") or []):
                    with_results += 1
                    dropped += not ok
        corpus.append(
            {
                "file": path.name,
                "messages": len(msgs),
                "passing": passing,
                "with_gold_results": with_results,
                "dropped_with_results": dropped,
                "is_regression_report": gold.get("is_regression_report"),
            }
        )
    return {
        "input_messages": n,
        "input_passed": passed,
        "input_pass_rate": round(passed / n, 4) if n else None,
        "seconds_parse_and_prefilter": round(secs, 2),
        "corpus": corpus,
        "corpus_dropped_with_results": sum(c["dropped_with_results"] for c in corpus),
        "corpus_threads_with_a_passing_message": sum(1 for c in corpus if c["passing"]),
        "corpus_threads": len(corpus),
    }


RUNNERS = {
    "floor": run_floor,
    "floor_git": run_floor_git,
    "stdlib": run_stdlib,
    "m2s": run_m2s,
    "stages": run_stages,
    "ingest": run_ingest,
    "prefilter": run_prefilter,
}


# ---------------------------------------------------------------- search latency

#: what people type: a hyphenated kernel name, two words with AND, a phrase of fio's output
SEARCHES = ["mq-deadline", "fio AND regression", '"run status group"']


def _timed_get(url: str, loops: int) -> tuple[list[float], bytes]:
    import urllib.request

    body = urllib.request.urlopen(url, timeout=120).read()  # warm-up, also checks it answers
    times = []
    for _ in range(loops):
        s = time.perf_counter()
        body = urllib.request.urlopen(url, timeout=120).read()
        times.append((time.perf_counter() - s) * 1000)
    times.sort()
    return times, body


def _latency(times: list[float]) -> dict:
    return {
        "p50_ms": round(times[len(times) // 2], 1),
        "p95_ms": round(times[min(len(times) - 1, int(len(times) * 0.95))], 1),
        "max_ms": round(times[-1], 1),
    }


def run_search(db: str, port: int = 8765, loops: int = 30) -> dict:
    """Serve ``db`` with ``lkmlkb serve`` on 127.0.0.1 and time full-text searches through Datasette's JSON API.

    Two routes per query: the ``search_messages`` canned query (lkmlkb's
    search: the typed text made a safe FTS5 query, ranked among the newest
    2,000 matches) and Datasette's own table search (``messages.json?_search=``,
    which ranks every match), with the number of matching messages.
    """
    import urllib.parse
    import urllib.request

    dbname = Path(db).stem
    proc = subprocess.Popen(
        [sys.executable, "-m", "lkmlkb.cli", "serve", "--db", db, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=str(ROOT),
    )
    root = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{root}/-/versions.json", timeout=2).read()
                break
            except OSError:
                time.sleep(0.5)
        conn = sqlite3.connect(db)
        n_messages = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        out = {"messages": n_messages, "db_mb": db_size_mb(db), "loops": loops, "queries": {}}
        from lkmlkb.db.queries import fts_query

        for q in SEARCHES:
            fts = fts_query(q)
            matches = conn.execute(
                "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (fts,)
            ).fetchone()[0]
            canned = f"{root}/{dbname}/search_messages.json?" + urllib.parse.urlencode(
                {"q": q, "_shape": "objects"}
            )
            times, body = _timed_get(canned, loops)
            row = {
                "fts": fts,
                "matches": matches,
                "canned_query": {**_latency(times), "rows": len(json.loads(body).get("rows", []))},
            }
            table = f"{root}/{dbname}/messages.json?" + urllib.parse.urlencode(
                {"_search": fts, "_searchmode": "raw", "_size": 20, "_shape": "objects", "_col": "subject"}
            )
            times, body = _timed_get(table, max(5, loops // 3))
            row["table_search"] = {**_latency(times), "rows": len(json.loads(body).get("rows", []))}
            out["queries"][q] = row
            log.info("search %s: %s", q, json.dumps(row))
        conn.close()
        return out
    finally:
        proc.terminate()
        proc.wait(10)


def _search_rows(batch: list[bytes]) -> list[tuple]:
    """Worker: raw messages -> rows of lkmlkb's messages table (parse + segment, no threading)."""
    from lkmlkb.db.store import content_hash
    from lkmlkb.sources.mail import parse_message
    from lkmlkb.threads.segments import new_text, segment_body

    rows = []
    for raw in batch:
        try:
            m = parse_message(raw, "synthetic")
        except Exception:
            continue
        refs = [*m.references]
        rows.append(
            (
                m.message_id,
                refs[0] if refs else m.message_id,
                m.in_reply_to,
                m.subject,
                m.from_name,
                m.from_addr,
                0,
                m.date_raw,
                m.date_utc,
                m.in_reply_to,
                json.dumps(refs),
                m.to,
                m.cc,
                m.body,
                new_text(segment_body(m.body)),
                m.archive_url,
                m.source,
                0,
                content_hash(m),
                json.dumps(m.lists),
            )
        )
    return rows


def build_search_db(mbox: str, db_path: str, limit: int | None, workers: int) -> dict:
    """A database with lkmlkb's schema and FTS config holding ``limit`` messages, built fast.

    Rows are parsed and segmented by lkmlkb in worker processes and bulk-inserted
    with the FTS trigger dropped, then the FTS index is rebuilt once.  Thread ids
    are approximated by the first Reference (search does not use them).
    """
    import multiprocessing

    from lkmlkb.db.connection import connect
    from lkmlkb.db.store import MESSAGE_COLUMNS
    from lkmlkb.sources.mbox import split_mbox

    db = connect(db_path)
    db.execute("DROP TRIGGER IF EXISTS messages_ai")
    conn = db.conn
    t0 = time.perf_counter()

    def batches():
        batch, n = [], 0
        with open(mbox, "rb") as fh:
            for raw in split_mbox(fh):
                batch.append(raw)
                n += 1
                if len(batch) >= 1000:
                    yield batch
                    batch = []
                if limit and n >= limit:
                    break
        if batch:
            yield batch

    sql = "INSERT OR IGNORE INTO messages(%s) VALUES (%s)" % (
        ",".join(f'"{k}"' for k in MESSAGE_COLUMNS),
        ",".join("?" * len(MESSAGE_COLUMNS)),
    )
    n = 0
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for rows in pool.imap(_search_rows, batches()):
            conn.execute("BEGIN")
            conn.executemany(sql, rows)
            conn.execute("COMMIT")
            n += len(rows)
            if n % 50000 < 1000:
                log.info("search db: %d rows", n)
    t_load = time.perf_counter() - t0
    t1 = time.perf_counter()
    conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")
    t_fts = time.perf_counter() - t1
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return {
        "messages": n,
        "load_seconds": round(t_load, 1),
        "fts_rebuild_seconds": round(t_fts, 1),
        "db_mb": db_size_mb(db_path),
    }


# ---------------------------------------------------------------- driver

#: messages of the input the speed probe parses (the stdlib baseline's own work), best of PROBE_PASSES
PROBE_MESSAGES = 1000
PROBE_PASSES = 2


class SpeedProbe:
    """How fast this machine is right now, as the CPU seconds the stdlib baseline's reading
    (:func:`stdlib_read`) of the input's first PROBE_MESSAGES takes (best of PROBE_PASSES).

    Measured before and after every run: on this shared machine the same
    stdlib run of the whole epoch took 195 CPU-s at 16:55 and 269 CPU-s at
    17:36, so a ratio of two runs minutes apart says as much about the machine
    as about the code.  ``ratios`` also gives each run's rate scaled by its
    probe (what it would be at the stdlib run's speed).
    """

    def __init__(self, mbox: str, n: int = PROBE_MESSAGES):
        import mailbox

        box = mailbox.mbox(mbox, create=False)
        self.raws = []
        for key in box.iterkeys():
            if len(self.raws) >= n:
                break
            self.raws.append(box.get_bytes(key))

    def __call__(self) -> float:
        from email import policy
        from email.parser import BytesParser

        parser = BytesParser(policy=policy.default)
        best = None
        for _ in range(PROBE_PASSES):
            c0 = time.process_time()
            for raw in self.raws:
                try:
                    stdlib_read(parser, raw)
                except Exception:
                    pass  # the baseline counts it as an error and goes on
            t = time.process_time() - c0
            best = t if best is None else min(best, t)
        return round(best, 3)


#: set by main once the input is ready: every child run is then probed before and after
_PROBE: SpeedProbe | None = None


def child(name: str, kwargs: dict) -> dict:
    """Run one named run in a fresh interpreter; its JSON result is the last stdout line, with
    the machine's steal and idle shares over the run (:func:`machine_shares`).  With a speed
    probe, its CPU seconds before and after the run are in ``probe_cpu_s``."""
    before = _PROBE() if _PROBE is not None else None
    cmd = [sys.executable, str(Path(__file__).resolve()), "--_child", name, "--_kwargs", json.dumps(kwargs)]
    ticks = machine_ticks()
    p = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=str(ROOT))
    shares = machine_shares(ticks, machine_ticks())
    if p.returncode != 0:
        tail = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
        return {"status": "failed: " + (tail[-1][:300] if tail else f"exit {p.returncode}")}
    res = json.loads(p.stdout.strip().splitlines()[-1])
    res.update(shares)
    if before is not None:
        res["probe_cpu_s"] = [before, _PROBE()]
    return res


def _probe_speed(v: dict) -> float | None:
    """The mean probe CPU seconds around a run (larger: the machine was slower)."""
    pr = v.get("probe_cpu_s")
    return sum(pr) / len(pr) if pr and all(pr) else None


def ratios(results: dict) -> dict:
    """msg/s of every run as a fraction of the floor and as a multiple of the stdlib baseline."""
    floor = (results.get("floor") or {}).get("msg_per_s")
    base = (results.get("stdlib") or {}).get("msg_per_s")
    out = {}
    rows = {k: v for k, v in results.items() if isinstance(v, dict) and v.get("msg_per_s")}
    for k, st in ((results.get("stages") or {}).get("stages") or {}).items():
        if st.get("msg_per_s"):
            rows[f"stage:{k}"] = st
    if (results.get("stages") or {}).get("serial_total"):
        rows["stages:serial_total"] = results["stages"]["serial_total"]
    floor_cpu = (results.get("floor") or {}).get("msg_per_cpu_s")
    base_cpu = (results.get("stdlib") or {}).get("msg_per_cpu_s")
    for k, v in rows.items():
        if k.startswith("stage"):  # CPU-timed: only CPU ratios mean anything
            out[k] = {
                "msg_per_cpu_s": v["msg_per_s"],
                "of_floor_cpu": round(v["msg_per_s"] / floor_cpu, 3) if floor_cpu else None,
                "x_stdlib_cpu": round(v["msg_per_s"] / base_cpu, 2) if base_cpu else None,
            }
            continue
        out[k] = {
            "msg_per_s": v["msg_per_s"],
            "of_floor": round(v["msg_per_s"] / floor, 3) if floor else None,
            "x_stdlib": round(v["msg_per_s"] / base, 2) if base else None,
        }
        # scaled by the speed probes around each run: the ratio at one machine speed
        here, there = _probe_speed(v), _probe_speed(results.get("stdlib") or {})
        if base and here and there:
            out[k]["x_stdlib_probed"] = round(v["msg_per_s"] * here / (base * there), 2)
        # per CPU-second (stages are CPU-timed already): ratios that hold on a shared machine
        cpu_rate = v.get("msg_per_cpu_s") or (v["msg_per_s"] if k.startswith("stage") else None)
        if cpu_rate:
            out[k]["msg_per_cpu_s"] = cpu_rate
            out[k]["of_floor_cpu"] = round(cpu_rate / floor_cpu, 3) if floor_cpu else None
            out[k]["x_stdlib_cpu"] = round(cpu_rate / base_cpu, 2) if base_cpu else None
            if base_cpu and here and there:
                out[k]["x_stdlib_cpu_probed"] = round(cpu_rate * here / (base_cpu * there), 2)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="lkmlkb ingest benchmark")
    ap.add_argument(
        "--input",
        default=str(SHARED / "archives" / "linux-block-2024q1.mboxrd.gz"),
        help="mbox / mbox.gz file or public-inbox epoch (git dir)",
    )
    ap.add_argument("--limit", type=int, default=None, help="first N messages only")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--runs", default=DEFAULT_RUNS)
    ap.add_argument("--no-extract", action="store_true", help="ingest without the extraction hook")
    ap.add_argument(
        "--no-probe", action="store_true", help="no speed probe before and after each run (see SpeedProbe)"
    )
    ap.add_argument("--keep", default=None, help="keep the work directory (databases) here")
    ap.add_argument("--search-db", default=None)
    ap.add_argument(
        "--build-search-db",
        default=None,
        metavar="DB",
        help="build DB from --input (first --limit messages) for --runs search, then exit",
    )
    ap.add_argument("--search-loops", type=int, default=30)
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--_child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--_kwargs", default="{}", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    if a._child:
        sys.path.insert(0, str(ROOT))
        logging.getLogger().setLevel(logging.WARNING)
        c0 = cpu_seconds()
        res = RUNNERS[a._child](**json.loads(a._kwargs))
        if "cpu_seconds" not in res and res.get("messages"):
            res["cpu_seconds"] = round(cpu_seconds() - c0, 3)
        if res.get("cpu_seconds") and res.get("messages") and "msg_per_cpu_s" not in res:
            res["msg_per_cpu_s"] = round(res["messages"] / res["cpu_seconds"], 1)
        sys.stdout.write(json.dumps(res) + "\n")
        return 0

    if a.build_search_db:
        sys.path.insert(0, str(ROOT))
        res = build_search_db(a.input, a.build_search_db, a.limit, a.workers)
        _emit(res, a.json)
        return 0
    runs = [r.strip() for r in a.runs.split(",") if r.strip()]
    results: dict = {
        "input": input_name(a.input),  # the file or the clone, not where one machine keeps it
        "limit": a.limit,
        "workers": a.workers,
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    if runs == ["search"] or (runs and all(r == "search" for r in runs)):
        results["search"] = run_search(a.search_db, a.port, a.search_loops)
        _emit(results, a.json)
        return 0
    workdir = a.keep or tempfile.mkdtemp(prefix="lkmlkb-bench-")
    os.makedirs(workdir, exist_ok=True)
    src = Path(a.input)
    mbox = Path(workdir) / "input.mbox"
    t0 = time.perf_counter()
    n, nbytes = materialize(src, a.limit, mbox)
    log.info(
        "input: %d messages, %.1f MB (prepared in %.1fs, not counted)",
        n,
        nbytes / 1e6,
        time.perf_counter() - t0,
    )
    results.update({"messages": n, "mbox_mb": round(nbytes / 1e6, 1)})
    global _PROBE
    _PROBE = None if a.no_probe else SpeedProbe(str(mbox))
    common = {"mbox": str(mbox), "workdir": workdir}
    for r in runs:
        if r == "search":
            continue
        log.info("run %s ...", r)
        if r == "floor":
            results["floor"] = child("floor", common)
            if is_public_inbox(src):
                results["floor_git"] = child("floor_git", {"repo": str(src), "limit": a.limit})
        elif r in ("ingest_par", "ingest_noext"):
            # one of the ingest runs alone (whole-epoch sizes: the serial run takes hours)
            ext = r == "ingest_par" and not a.no_extract
            results[r] = child("ingest", {**common, "workers": a.workers, "extract": ext, "tag": r})
        elif r == "ingest":
            ext = not a.no_extract
            results["ingest"] = child("ingest", {**common, "workers": 1, "extract": ext, "tag": "ingest1"})
            if a.workers > 1:
                results["ingest_par"] = child(
                    "ingest", {**common, "workers": a.workers, "extract": ext, "tag": f"ingest{a.workers}"}
                )
            if ext:
                results["ingest_noextract"] = child(
                    "ingest", {**common, "workers": a.workers, "extract": False, "tag": "ingest_noext"}
                )
        else:
            results[r] = child(r, common)
        log.info("  %s", json.dumps(results.get(r))[:400])
        if a.json:  # partial results survive an interrupted long run
            Path(a.json).parent.mkdir(parents=True, exist_ok=True)
            Path(a.json + ".partial").write_text(json.dumps(results, indent=2) + "\n")
    if "search" in runs and a.search_db:
        results["search"] = run_search(a.search_db, a.port, a.search_loops)
    results["ratios"] = ratios(results)
    _emit(results, a.json)
    if not a.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


def _emit(results: dict, path: str | None) -> None:
    text = json.dumps(results, indent=2)
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text + "\n")
    sys.stdout.write(text + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
