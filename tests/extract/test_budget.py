"""The per-message extraction budget: a message past it is recorded and the run goes on.

The mbox is a real thread (corpus/102_multipath_seqwrite_raw.mbox: the
linux-block "[bug-report] Performance regression with fio sequential-write
on a multipath setup" thread, 4 messages) followed by one hostile message
that passes the prefilter ("fio regression") and then floods spaCy with
60 lines of punctuation words (lines, since a single line is cut at
views.MAX_VIEW_LINE characters) — once the slowest input the fuzzing
found.  The extractors now read such floods in bounded windows, so no real
input stands in for a slow one any more: where a test needs the budget
exceeded, one extractor is made to spend CPU on the hostile message
(``burning``).  Ingested with ``extract=True``, the hostile message ends up
in ``extraction_errors`` (or, at the default budget, finishes inside it)
and the real thread still gets its findings and its report.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from lkmlkb.extract import budget, messages, views
from lkmlkb.ingest.run import ingest
from lkmlkb.model import Message
from lkmlkb.threads.segments import segment_body

ROOT = Path(__file__).resolve().parents[2]
THREAD = ROOT / "corpus" / "102_multipath_seqwrite_raw.mbox"
THREAD_IDS = {
    "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com",
    "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com",
    "be93c772-d400-4105-b05a-735ed7365730@oracle.com",
    "29f6145427be4d5b81f34cc0a9f747a2@BJMBX02.spreadtrum.com",
}
HOSTILE_ID = "flood-1@fuzz.invalid"
#: above what each real message of the thread costs (0.06-0.09 s of CPU), below what the hostile
#: message costs with ``burning``
SMALL_BUDGET = 0.2


def hostile_body(tag: str) -> str:
    """The flood, its words made unique per ``tag``: spaCy's tokenizer caches words it has
    seen, and other tests flood it with "=>=>…a" too, which made a repeated flood cheap."""
    lines = (" ".join(f"{'=>' * 7}{tag}{n * 250 + k}" for k in range(250)) for n in range(60))
    return "We see a fio regression of 10% on v6.8.\n" + "\n".join(lines) + "\n"


def hostile_mbox(tmp_path: Path, tag: str) -> Path:
    """The real thread, then the hostile message (mboxrd, its own thread)."""
    hostile = (
        "From flood@fuzz.invalid Mon Jan  1 00:00:00 2024\n"
        "From: Flood <flood@fuzz.invalid>\n"
        "To: linux-block@vger.kernel.org\n"
        "Subject: fio regression flood\n"
        "Date: Mon, 1 Jan 2024 00:00:00 +0000\n"
        f"Message-ID: <{HOSTILE_ID}>\n"
        "Content-Type: text/plain; charset=us-ascii\n"
        "\n" + hostile_body(tag) + "\n"
    )
    path = tmp_path / "hostile.mbox"
    path.write_bytes(THREAD.read_bytes().rstrip(b"\n") + b"\n\n" + hostile.encode())
    return path


def errors_and_findings(db: Path) -> tuple[dict[str, dict[str, str]], set[str], int]:
    """extraction_errors by message, messages with any finding, and the number of reports."""
    conn = sqlite3.connect(db)
    try:
        errors: dict[str, dict[str, str]] = {}
        for mid, extractor, reason in conn.execute(
            "SELECT message_id, extractor, reason FROM extraction_errors"
        ):
            errors.setdefault(mid, {})[extractor] = reason
        found: set[str] = set()
        for table in ("results", "fio_jobs", "kernel_mentions", "commit_citations", "setup_facts", "claims"):
            found.update(r[0] for r in conn.execute(f"SELECT DISTINCT message_id FROM {table}"))
        reports = conn.execute("SELECT count(*) FROM reports").fetchone()[0]
        return errors, found, reports
    finally:
        conn.close()


def burning(monkeypatch, seconds: float) -> None:
    """Make the claims extractor spend ``seconds`` of CPU (not sleep: the budget counts the
    extracting thread's CPU time) before it reads the hostile message; other texts as before."""
    real = messages._extractors()

    def slow(fn):
        def run(text):
            if "=>=>=>" in text:
                t0 = time.thread_time()
                while time.thread_time() - t0 < seconds:
                    pass
            return fn(text)

        return run

    monkeypatch.setattr(
        messages, "_extractors", lambda: [(n, slow(fn) if n == "claims" else fn) for n, fn in real]
    )


def test_the_burning_extractor_puts_the_hostile_message_past_the_small_budget(monkeypatch):
    # what makes the next test mean something: extracted as the pipeline does (it passes the
    # prefilter), the message costs more than the small budget
    burning(monkeypatch, 2 * SMALL_BUDGET)
    messages.warm_up()
    t0 = time.thread_time()
    body = hostile_body("slow")
    _, passed = messages.extract_message(
        Message(HOSTILE_ID, subject="fio regression flood", body=body), segment_body(body)
    )
    assert passed and time.thread_time() - t0 > 1.5 * SMALL_BUDGET


def test_a_message_over_the_budget_is_recorded_and_the_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(budget, "BUDGET_SECONDS", SMALL_BUDGET)
    burning(monkeypatch, 2 * SMALL_BUDGET)
    db = tmp_path / "kb.db"
    summary = ingest([str(hostile_mbox(tmp_path, "small"))], str(db), extract=True)
    assert summary.new == 5 and summary.errors == 0
    errors, found, reports = errors_and_findings(db)
    assert HOSTILE_ID in errors
    reasons = " ".join(errors[HOSTILE_ID].values())
    assert "budget" in reasons
    # the real thread: no budget trouble, findings in its report message, a report
    assert not THREAD_IDS & set(errors)
    assert "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com" in found
    assert reports >= 1


def test_at_the_default_budget_the_hostile_message_is_recorded_or_in_time(tmp_path):
    db = tmp_path / "kb.db"
    messages.warm_up()
    t0 = (
        time.process_time()
    )  # CPU time (the ingest runs in this process): a loaded machine does not add to it
    summary = ingest([str(hostile_mbox(tmp_path, "default"))], str(db), extract=True)
    elapsed = time.process_time() - t0
    assert summary.new == 5
    errors, found, reports = errors_and_findings(db)
    if HOSTILE_ID not in errors:
        # not recorded: then the whole ingest, hostile message included, stayed inside one budget's reach
        assert elapsed < budget.BUDGET_SECONDS + 10
    else:
        assert "budget" in " ".join(errors[HOSTILE_ID].values())
    assert "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com" in found
    assert reports >= 1


def test_an_extractor_that_overruns_skips_the_rest(monkeypatch):
    # the check between extractors: once the budget is spent, later extractors are skipped by name
    monkeypatch.setattr(budget, "BUDGET_SECONDS", 0.05)
    real = messages._extractors()

    def slow_first():
        name, fn = real[0]

        def slow(text):
            t0 = time.thread_time()
            while time.thread_time() - t0 < 0.1:  # CPU, not sleep: the budget counts CPU time
                pass
            return fn(text)

        return [(name, slow), *real[1:]]

    monkeypatch.setattr(messages, "_extractors", slow_first)
    text = "fio write regression: WRITE: bw=236MiB/s (247MB/s) on v6.8-rc7\n"
    f = messages.extract_view("m@x", views.View(text, {}))
    skipped = {k for k, v in f.errors.items() if v.startswith("skipped")}
    assert skipped == {name for name, _ in real[1:]}


def test_focus_view_keeps_report_lines_and_blanks_a_long_log():
    """A long message keeps the neighbourhood of its report lines, line numbers unchanged."""
    from lkmlkb.extract.views import FOCUS_RADIUS, View, focus_view

    log_lines = [f"[{i:8d}.000000] sd 0:0:0:0: [sda] tag#{i} queued cmd" for i in range(3000)]
    report = [
        "Run status group 0 (all jobs):",
        "  WRITE: bw=236MiB/s (247MB/s), 236MiB/s-236MiB/s (247MB/s-247MB/s), io=138GiB (148GB)",
    ]
    lines = log_lines[:1500] + report + log_lines[1500:]
    view = focus_view(View("\n".join(lines), {}))
    out = view.text.split("\n")
    assert len(out) == len(lines)
    assert out[1500:1502] == report
    assert out[1500 - FOCUS_RADIUS] == lines[1500 - FOCUS_RADIUS] and out[0] == "" and out[-1] == ""
    assert len(view.text) < len("\n".join(lines)) / 10
    short = View("\n".join(lines[:100]), {})
    assert focus_view(short) is short


def _never_ending(monkeypatch, which: str) -> None:
    """Make extractor ``which`` spin on CPU for up to 60 s on every text (a hang in all but name),
    inside a ``try/except Exception`` as the extractors that never raise have: the stop must
    get through it."""
    real = messages._extractors()

    def spin(text):
        t0 = time.thread_time()
        try:
            while time.thread_time() - t0 < 60:
                pass
        except Exception:
            return []
        return []

    monkeypatch.setattr(messages, "_extractors", lambda: [(n, spin if n == which else fn) for n, fn in real])


def test_an_extractor_that_never_returns_is_stopped_past_the_budget(monkeypatch):
    monkeypatch.setattr(budget, "BUDGET_SECONDS", 0.1)
    monkeypatch.setattr(budget, "HARD_STOP_AFTER", 0.2)
    real = messages._extractors()
    _never_ending(monkeypatch, "kernels")
    text = "fio write regression: WRITE: bw=236MiB/s (247MB/s) on v6.8-rc7\n"
    t0 = time.thread_time()
    f = messages.extract_view("m@x", views.View(text, {}))
    assert time.thread_time() - t0 < 5  # stopped at about 0.3 s, not after the 60 s spin
    assert f.errors["kernels"].startswith("stopped: ")
    names = [n for n, _ in real]
    assert all(f.errors[n].startswith("skipped: ") for n in [*names[names.index("kernels") + 1 :], "tools"])
    assert f.results and not f.kernels  # the extractors before it kept what they found
    # the timer is off once the message is done: the next message is extracted in full
    monkeypatch.setattr(messages, "_extractors", lambda: real)
    g = messages.extract_view("n@x", views.View(text, {}))
    assert not g.errors and g.kernels and g.results


def test_a_cut_message_stopped_past_its_budget_is_recorded_as_both(monkeypatch):
    monkeypatch.setattr(budget, "BUDGET_SECONDS", 0.1)
    monkeypatch.setattr(budget, "HARD_STOP_AFTER", 0.2)
    _never_ending(monkeypatch, "claims")
    text = "fio write regression: WRITE: bw=236MiB/s (247MB/s) on v6.8-rc7\n"
    f = messages.extract_view("m@x", views.View(text, {}, report_lines=600))
    assert f.errors["claims"].startswith("stopped: ") and f.errors["focus"].startswith("cut: 600 lines")


def test_a_message_that_hangs_an_extractor_is_recorded_and_the_ingest_goes_on(tmp_path, monkeypatch):
    """The same with the ingest's worker processes: the stop reaches an extractor in a worker."""
    monkeypatch.setattr(budget, "BUDGET_SECONDS", SMALL_BUDGET)
    monkeypatch.setattr(budget, "HARD_STOP_AFTER", 0.2)
    real = messages._extractors()

    def hang_on_hostile(fn):
        def run(text):
            if "=>=>=>" in text:
                t0 = time.thread_time()
                while time.thread_time() - t0 < 60:
                    pass
            return fn(text)

        return run

    monkeypatch.setattr(
        messages,
        "_extractors",
        lambda: [(n, hang_on_hostile(fn) if n == "commits" else fn) for n, fn in real],
    )
    db = tmp_path / "kb.db"
    t0 = time.perf_counter()
    summary = ingest([str(hostile_mbox(tmp_path, "hang"))], str(db), workers=2, extract=True)
    assert time.perf_counter() - t0 < 45
    assert summary.new == 5 and summary.errors == 0
    errors, found, reports = errors_and_findings(db)
    assert errors[HOSTILE_ID]["commits"].startswith("stopped: ")
    assert not THREAD_IDS & set(errors)
    assert "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com" in found and reports >= 1


def test_the_stop_counts_this_threads_cpu_system_time_included_and_no_other_threads(monkeypatch):
    """Found by review of the first version (a process-wide user-time timer): an extractor whose CPU
    goes to the kernel (page faults of big allocations) was never stopped, and a busy thread
    elsewhere in the process stopped an extractor early."""
    import hashlib
    import threading

    monkeypatch.setattr(budget, "BUDGET_SECONDS", 0.2)
    monkeypatch.setattr(budget, "HARD_STOP_AFTER", 0.1)
    messages.warm_up()
    real = messages._extractors()
    text = "fio write regression: WRITE: bw=236MiB/s (247MB/s) on v6.8-rc7\n"

    def allocating(text):
        t0 = time.thread_time()
        while time.thread_time() - t0 < 30:
            bytearray(64 << 20)  # mostly system time
        return []

    monkeypatch.setattr(
        messages, "_extractors", lambda: [(n, allocating if n == "results" else fn) for n, fn in real]
    )
    t0 = time.thread_time()
    f = messages.extract_view("m@x", views.View(text, {}))
    assert f.errors["results"].startswith("stopped: ") and time.thread_time() - t0 < 5

    stop = threading.Event()

    def busy():  # hashing releases the GIL: CPU on another core, in this process
        data = b"x" * (8 << 20)
        while not stop.is_set():
            hashlib.sha256(data).digest()

    def own_cpu(seconds):
        def run(text):
            t0 = time.thread_time()
            while time.thread_time() - t0 < seconds:
                pass
            return []

        return run

    monkeypatch.setattr(
        messages, "_extractors", lambda: [(n, own_cpu(0.25) if n == "results" else fn) for n, fn in real]
    )
    worker = threading.Thread(target=busy, daemon=True)
    worker.start()
    try:
        g = messages.extract_view("n@x", views.View(text, {}))
    finally:
        stop.set()
        worker.join()
    assert "results" not in g.errors  # 0.25 s of its own CPU, under budget + hard stop (0.3 s)


def test_the_default_budget_is_two_seconds_of_cpu(monkeypatch):
    """The documented default (docs/design.md, docs/reliability.md): a message whose first
    extractor spends just over 2 s of CPU has every later extractor skipped, the reason naming 2s;
    one spending well under it has none skipped."""
    messages.warm_up()  # spaCy loaded before, so the later extractors cost little CPU
    real = messages._extractors()

    def first_spending(seconds: float):
        name, fn = real[0]

        def slow(text):
            t0 = time.thread_time()
            while time.thread_time() - t0 < seconds:  # CPU, not sleep: the budget counts CPU time
                pass
            return fn(text)

        return lambda: [(name, slow), *real[1:]]

    text = "fio write regression: WRITE: bw=236MiB/s (247MB/s) on v6.8-rc7\n"
    monkeypatch.setattr(messages, "_extractors", first_spending(2.2))
    f = messages.extract_view("m@x", views.View(text, {}))
    skipped = {k: v for k, v in f.errors.items() if v.startswith("skipped")}
    assert set(skipped) == {name for name, _ in real[1:]}
    assert all("over its 2s extraction budget" in v for v in skipped.values())
    monkeypatch.setattr(messages, "_extractors", first_spending(1.4))
    f = messages.extract_view("m@x", views.View(text, {}))
    assert not any(v.startswith("skipped") for v in f.errors.values())
