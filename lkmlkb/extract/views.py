"""Extraction over messages and threads: prefilter, quote-aware views, findings.

A message is read by the extractors only if the prefilter says it can hold a
report.  Extractors see a *view* of the body: one line per body line, with
the text of new segments and of quoted segments whose origin is not in the
thread (a number quoted in five replies is one fact, attributed to the
message that first said it), and blank lines elsewhere (patches, signatures,
footers, attribution lines, quotes of known messages).  Line offsets in the
view are therefore body line numbers.  A failing extractor is recorded
against the message and the others go on.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from lkmlkb.extract import has_case_twin
from lkmlkb.extract.lines import word_lines
from lkmlkb.model import Findings, Message, Segment
from lkmlkb.threads.segments import attribute_quotes, segment_body

log = logging.getLogger(__name__)

EXTRACTOR_VERSION = "1"
#: per-message time budget (CPU seconds of this thread, so that a loaded machine
#: gives the same findings as an idle one); a message past it is recorded and skipped
BUDGET_SECONDS = 2.0

# Words without which a message cannot hold a performance report (PERF-NOTES:
# real reports are well under 1% of list traffic; spaCy and the full
# extractors must not see the rest).  A plain substring test over the
# lower-cased text runs first (about 10x a regex); the regex confirms.  A tool's
# name glued to a kernel symbol is none of it ("blk_iostat_count" on 19 lines of a
# dmesg paste, "CONFIG_F2FS_IOSTAT", "potentiostats"): of five whole lists, 174 messages
# passed for such names alone, none in a thread with a regression report.
PREFILTER_WORDS = ("fio", "iops", "b/s", "mbps", "b/sec", "regress", "bisect", "bw=", "run status group",
                   "tiobench", "iostat", "fs_mark", "dbench", "%change", "test robot", "lkp", "%stddev",
                   "slow", "degrad", "performance", "real", "elapsed")
PREFILTER = re.compile(
    r"""
      \bfio\b | fio- | \biops\b | [kmgt]i?b/s\b | \b[kmgt]i?b/sec\b | \bmbps\b   # fio and throughput units
    | regress | bisect                                                 # report vocabulary
    | \bslow(?:er|down|downs|ness)\b | \bslowed[ ]down\b               # "Massive slowdown in kernels as of 6.x"
    | \bdegradation\b                                                  # "we are seeing performance degradation"
    | \bperformance[ ](?:drop|hit|loss|issue|problem|penalty|decrease)  # "a noticeable performance drop"
    | \bbw= | run[ ]status[ ]group | tiobench | \biostat | fs_mark | dbench # tools and their output
    | ^[ \t]{0,8}real[ \t]{1,8}\d{1,6}m\d | elapsed[ ]\(wall[ ]clock\)   # time(1) output
    | %change | test[ ]robot | \blkp\b | %stddev                          # kernel test robot reports
    """,
    re.I | re.X | re.M,
)
MAX_VIEW_CHARS = 2_000_000
#: extractors read at most this much of a line: no line of a real report comes near
#: (the longest of linux-block 2024 Q1's 359 passing views has 830 characters), and a
#: line of 100,000 (base64, a minified log, a flood) cost every extractor time for nothing
MAX_VIEW_LINE = 4_000


#: every PREFILTER alternative holds one of PREFILTER_WORDS and starts at most this many
#: characters before it ("KiB/s": "Ki" before "b/s"; every other alternative starts with its word)
_WORD_LEAD = 2
#: past this many occurrences of the words, one search over the text costs less than a match at each
MAX_ANCHORED = 1000


def prefilter(text: str) -> bool:
    """Can this text hold a report?  Cheap substrings first, then the one regex.

    The regex is tried only where a match can start: a few characters
    before each occurrence of a word (what ``PREFILTER.search`` over the
    whole text answers, at a fraction of its cost on long views).  That
    holds where lower-casing keeps every character's position (the lower
    text as long as the text) and no character folds to an ASCII letter
    under ``re.I`` that ``lower()`` leaves alone (``CASE_TWINS``); such
    rare text is searched whole.
    """
    text = text[:MAX_VIEW_CHARS]
    low = text.lower()
    if not text.isascii() and (len(low) != len(text) or has_case_twin(text)):
        return any(w in low for w in PREFILTER_WORDS) and bool(PREFILTER.search(text))
    tried = 0  # the loop below finds every occurrence of every word (none: False)
    for w in PREFILTER_WORDS:
        pos = low.find(w)
        while pos != -1:
            for start in range(max(0, pos - _WORD_LEAD), pos + 1):
                if PREFILTER.match(text, start):
                    return True
            tried += 1
            if tried > MAX_ANCHORED:
                return bool(PREFILTER.search(text))
            pos = low.find(w, pos + 1)
    return False


@dataclass
class View:
    text: str
    quoted_lines: dict[int, int]  # body line -> quote depth, for lines from quoted text
    #: set by :func:`focus_view` when it cut the view: the lines that could hold a report
    report_lines: int = 0


def build_view(body: str, segments: list[Segment], keep_attributed: bool = False) -> View:
    """The text extractors read, aligned line for line with the body.

    New text and quoted text, quote markers removed, each line cut at
    MAX_VIEW_LINE characters; patches, signatures, footers, attribution
    lines and quoted Outlook headers are blank, and so is quoted text whose
    origin in the thread is known (``quotes_message_id``, set by quote
    attribution), unless ``keep_attributed`` is true: a number quoted in five
    replies is read once, in the message that said it.
    """
    n = body.count("\n") + 1
    lines = [""] * n
    quoted: dict[int, int] = {}
    for s in segments:
        if in_view(s, keep_attributed):
            for k, line in enumerate(s.text.split("\n")):
                if s.line_start + k < n:
                    lines[s.line_start + k] = line[:MAX_VIEW_LINE]
                    if s.kind == "quoted":
                        quoted[s.line_start + k] = s.depth
    return View("\n".join(lines), quoted)


def in_view(s: Segment, keep_attributed: bool = False) -> bool:
    """Whether a view holds segment ``s``'s lines (:func:`build_view`, :func:`screen_text`)."""
    return s.kind == "new" or (s.kind == "quoted" and (keep_attributed or not s.quotes_message_id))


def _extractors() -> list[tuple[str, Callable]]:
    from lkmlkb.extract.claims import find_claims
    from lkmlkb.extract.commits import find_commits
    from lkmlkb.extract.kernels import find_kernels
    from lkmlkb.extract.results import find_results
    from lkmlkb.extract.setup import find_setup
    from lkmlkb.fio import find_fio_jobs

    return [("fio_jobs", find_fio_jobs), ("results", find_results), ("kernels", find_kernels),
            ("commits", find_commits), ("setup", find_setup), ("claims", find_claims)]


_WARM: list[bool] = []
WARMUP_TEXT = ("We see a 10% fio regression on v6.8-rc7 vs 6.7, bisected to commit 0123456789ab "
               "(\"block: x\"); mq-deadline on nvme, ext4.\n  WRITE: bw=236MiB/s (247MB/s)\n")


def warm_up() -> None:
    """Build the spaCy pipelines and compile the rules once, outside any time budget."""
    if _WARM:
        return
    from lkmlkb.fio import catalog

    catalog.canonical_name("bs")  # fio's option catalog: 70 ms of JSON, once
    _run_warm_up_text()
    _WARM.append(True)


def _run_warm_up_text() -> None:
    """Every extractor once over WARMUP_TEXT: what they build on first use is built."""
    for _, fn in _extractors():
        try:
            fn(WARMUP_TEXT)
        except Exception:
            log.debug("warm-up of an extractor failed", exc_info=True)


def _bound_vocabulary() -> None:
    """Rebuild the spaCy pipelines once they hold too many words (``nlp.MAX_LEXEMES``), here,
    between messages: outside any message's budget."""
    from lkmlkb.extract import nlp

    if nlp.vocab_over_limit():
        log.info("rebuilding the spaCy pipelines (vocabulary over %d words)", nlp.MAX_LEXEMES)
        nlp.rebuild_pipelines()
        _run_warm_up_text()


#: an extractor still running this long past its message's budget is stopped (the budget is
#: checked between extractors; this bounds the one running when it runs out)
HARD_STOP_AFTER = 1.0


class _Stopped(BaseException):
    """Raised in the extracting thread at the hard stop.  Not an Exception: extractors that
    turn their own failures into "no findings" must not swallow it."""


#: [whether a SIGVTALRM now stops the message being extracted], once the handler is installed
_ARMED: list[bool] = []


def _on_signal(signum, frame) -> None:
    if _ARMED and _ARMED[0]:
        _ARMED[0] = False  # once: the unwinding and the caller's handling are not interrupted again
        raise _Stopped()


class _Watchdog:
    """Signals the main thread once its own CPU time (user and system: the clock the budget
    reads, ``time.thread_time``) passes a deadline.  A daemon thread polls that clock, one per
    process (a forked worker starts its own); other threads' CPU does not count."""

    POLL = 0.05

    def __init__(self) -> None:
        self.pid: int | None = None
        self.deadline: float | None = None

    def arm(self, seconds: float) -> None:
        if self.pid != os.getpid():
            self.pid = os.getpid()
            self.main = threading.main_thread().ident
            self.clock = time.pthread_getcpuclockid(self.main)
            threading.Thread(target=self._run, name="lkmlkb-budget", daemon=True).start()
        self.deadline = time.clock_gettime(self.clock) + seconds

    def disarm(self) -> None:
        self.deadline = None

    def _run(self) -> None:
        while True:
            time.sleep(self.POLL)
            deadline = self.deadline
            if deadline is not None and time.clock_gettime(self.clock) >= deadline:
                self.deadline = None
                signal.pthread_kill(self.main, signal.SIGVTALRM)


_WATCHDOG = _Watchdog()


@contextlib.contextmanager
def _hard_stop(seconds: float) -> Iterator[None]:
    """Raise :class:`_Stopped` in this code once the main thread has spent ``seconds`` more of
    CPU.  Only the main thread receives signals: elsewhere (or without per-thread CPU clocks)
    the budget is only checked between extractors."""
    if not hasattr(time, "pthread_getcpuclockid") or threading.current_thread() is not threading.main_thread():
        yield
        return
    if not _ARMED:
        signal.signal(signal.SIGVTALRM, _on_signal)
        _ARMED.append(False)
    _ARMED[0] = True
    _WATCHDOG.arm(seconds)
    try:
        yield
    finally:
        _ARMED[0] = False  # first: a signal sent from now on is ignored
        _WATCHDOG.disarm()


def extract_view(message_id: str, view: View) -> Findings:
    """Run every extractor over one message's view; failures are recorded.

    Past BUDGET_SECONDS of CPU the extractors not yet run are skipped; one
    still running HARD_STOP_AFTER later is stopped (its findings lost, the
    message recorded).  What the others found is kept.
    """
    from lkmlkb.extract.setup import find_tools
    from lkmlkb.fio import fio_version

    warm_up()
    _bound_vocabulary()
    f = Findings(message_id)
    if view.report_lines:  # recorded first: a message also stopped past its budget was cut too
        f.errors["focus"] = (f"cut: {view.report_lines:,} lines can hold a report, over the limit of "
                             f"{FOCUS_MAX_LINES:,}; read up to the {FOCUS_MAX_LINES:,}th and the "
                             f"{FOCUS_RADIUS} lines after it")
    t0 = time.thread_time()
    extractors = _extractors()
    names = [name for name, _ in extractors]
    skipped = f"skipped: message over its {BUDGET_SECONDS:g}s extraction budget"
    running = "tools"
    try:
        with _hard_stop(BUDGET_SECONDS + HARD_STOP_AFTER):
            for name, fn in extractors:
                running = name
                if time.thread_time() - t0 > BUDGET_SECONDS:
                    f.errors[name] = skipped
                    continue
                try:
                    records = fn(view.text)
                except Exception as exc:
                    log.info("%s: extractor %s failed: %s", message_id, name, exc)
                    f.errors[name] = f"{exc.__class__.__name__}: {exc}"[:500]
                    continue
                for r in records:
                    ev = r.evidence
                    ev.message_id = message_id
                    depth = max((view.quoted_lines.get(i, 0) for i in range(ev.line_start, ev.line_end + 1)),
                                default=0)
                    ev.quoted = depth > 0
                    ev.depth = depth
                setattr(f, name, records)
            running = "tools"
            try:
                f.tools = find_tools(view.text)
                f.fio_version = fio_version(view.text)
            except Exception as exc:
                f.errors["tools"] = f"{exc.__class__.__name__}: {exc}"[:500]
    except _Stopped:
        log.info("%s: extractor %s stopped past the budget", message_id, running)
        f.errors[running] = (f"stopped: message over its {BUDGET_SECONDS:g}s extraction budget "
                             f"({HARD_STOP_AFTER:g}s more of CPU spent in this extractor)")
        for name in [*names[names.index(running) + 1:], "tools"] if running in names else ():
            f.errors[name] = skipped
        return f
    spent = time.thread_time() - t0
    if spent > BUDGET_SECONDS and not any(r.startswith("skipped: ") for r in f.errors.values()):
        # the last extractor ran past the budget: nothing was skipped, but the message is recorded
        log.info("%s: extraction took %.1fs of CPU, over its %gs budget", message_id, spent, BUDGET_SECONDS)
        f.errors["budget"] = f"over budget: extraction took {spent:.1f}s of CPU (budget {BUDGET_SECONDS:g}s)"
    return f


def extract_message(msg: Message, segments: list[Segment], screened_pass: bool = False) -> tuple[Findings, bool]:
    """Findings of one message and whether it passed the prefilter.

    Quoted segments whose origin attribution found are not read
    (:func:`build_view`), though the prefilter sees them
    (:func:`may_hold_report`; ``screened_pass``: it was screened and passed,
    and attribution does not change what the prefilter sees).  Pure: the
    ingest workers run it (:func:`extract_payloads`).
    """
    view = None
    if not screened_pass:
        view = _screened_view(msg, segments)
        if view is None:
            return Findings(msg.message_id), False
    if view is None or any(s.quotes_message_id for s in segments if s.kind == "quoted"):
        view = build_view(msg.body, segments)  # else the screened view is this one
    return extract_view(msg.message_id, focus_view(view)), True


def may_hold_report(msg: Message, segments: list[Segment]) -> bool:
    """The prefilter on a message: its subject, or its view with the quotes of known origin kept.

    A reply that only says "Applied, thanks" with the commit it was applied
    as, under a quoted report, is read (for the commit); what the
    extractors then read of it is its own text.
    """
    if len(msg.body) > MAX_VIEW_CHARS:  # the view is cut: read as it is cut
        return _screened_view(msg, segments) is not None
    return prefilter(screen_text(segments)) or prefilter(msg.subject)


def screen_text(segments: list[Segment]) -> str:
    """The lines a view holds (new and quoted text, quotes of known origin kept, each line cut at
    MAX_VIEW_LINE), without the blank lines between: what :func:`prefilter` reads of the view
    of a body of at most MAX_VIEW_CHARS, built without laying out the body's every line.  No
    PREFILTER alternative spans a line break, so the blank lines change no answer.  The
    segments are :func:`build_view`'s with ``keep_attributed`` (:func:`in_view`), cut as it
    cuts them (a test compares the two on real mail)."""
    parts = []
    for s in segments:
        if in_view(s, keep_attributed=True):
            text = s.text
            if len(text) > MAX_VIEW_LINE:
                text = "\n".join([line[:MAX_VIEW_LINE] for line in text.split("\n")])
            parts.append(text)
    return "\n".join(parts)


def _screened_view(msg: Message, segments: list[Segment]) -> View | None:
    """The view the prefilter reads (quotes of known origin kept) if the message may hold a
    report (:func:`may_hold_report`), else None."""
    view = build_view(msg.body, segments, keep_attributed=True)
    return view if prefilter(view.text) or prefilter(msg.subject) else None


#: a view longer than this is cut down to the neighbourhoods of lines that can hold a report
FOCUS_ABOVE_CHARS = 64_000
#: lines kept on either side of a line that passes the prefilter and is no kernel log line
FOCUS_RADIUS = 40
#: a kernel log line ("[   94.641946] ...", dmesg's timestamp) is an event among others: one
#: naming a tool ("Comm: fio", "in process dbench", "gen() 17777 MB/s") heads no report, and its
#: neighbourhood is more log.  Of five whole lists, 19 long views read less for it; what they lost
#: were setup facts and kernels of crash logs; the 760 KB test robot report it was found in costs
#: a ninth less
_KERNEL_LOG_LINE = re.compile(r"[ \t]{0,8}\[[ \t]{0,12}\d{1,12}\.\d{1,9}\]")
#: a view is read up to its this-many-th line that can hold a report (and that line's
#: neighbourhood).  The extractors' work grows with such lines (a SHA, a version, a result or a
#: claim on each, 30-100 us apiece): a flood of them cost 200-300 ms.  Kernel log lines are not
#: counted.  Of the 23,029 messages of five whole lists (linux-block, linux-xfs, io-uring,
#: linux-ext4, linux-raid) that passed the prefilter in the tenth session, one had more (a
#: stress-ng iostat dump of 713, which yields nothing past its first 100 lines) and the next most
#: 169 (LKP reports of 700 KB hold at most 158).
FOCUS_MAX_LINES = 500


def focus_view(view: View) -> View:
    """Blank what lies far from any line that can hold a report, in very long messages, and
    what lies past the FOCUS_MAX_LINES-th such line in any message.

    A 1 MB kernel log or a pasted trace mentions fio once; the extractors'
    cost grows with the text, their findings do not.  Lines within
    FOCUS_RADIUS of a line that passes the prefilter and is no kernel log line
    stay (a fio output block or a results table passes on nearly every line,
    so it stays whole); the rest become empty lines, so line numbers still
    point into the body.  A view cut at FOCUS_MAX_LINES says how many such
    lines it had (``report_lines``), and its extraction is recorded as cut.
    """
    text = view.text
    long = len(text) > FOCUS_ABOVE_CHARS
    if not long and text.count("\n") < FOCUS_MAX_LINES:
        return view
    lines = text.split("\n")
    passing = [i for i in _prefilter_lines(text, lines) if not _KERNEL_LOG_LINE.match(lines[i])]
    # cut only if a line that can hold a report lies past the last one read and its neighbourhood
    cut = len(passing) > FOCUS_MAX_LINES and passing[-1] > passing[FOCUS_MAX_LINES - 1] + FOCUS_RADIUS
    if not long and not cut:
        return view
    keep = bytearray(len(lines))
    if long:
        for i in passing[:FOCUS_MAX_LINES] if cut else passing:
            lo, hi = max(0, i - FOCUS_RADIUS), min(len(lines), i + FOCUS_RADIUS + 1)
            keep[lo:hi] = b"\x01" * (hi - lo)
    else:  # a short view stays whole up to the neighbourhood of its last line read
        end = min(len(lines), passing[FOCUS_MAX_LINES - 1] + FOCUS_RADIUS + 1)
        keep[:end] = b"\x01" * end
    focused = "\n".join(line if keep[i] else "" for i, line in enumerate(lines))
    return View(focused, view.quoted_lines, report_lines=len(passing) if cut else 0)


def _prefilter_lines(text: str, lines: list[str]) -> list[int]:
    """Numbers of the lines of ``text`` (split into ``lines``) that pass :func:`prefilter`.

    The prefilter's words are found in the lower-cased text with ``str.find``
    (lower-casing keeps the line breaks, so a hit's line number is the count
    of breaks before it), then the regex runs on those lines only: the same
    lines as testing each one, without a Python loop over the 15,000 lines
    of a pasted kernel log.
    """
    candidates = word_lines(text.lower(), PREFILTER_WORDS)  # lower() keeps every line break
    return [i for i in candidates if i < len(lines) and lines[i] and prefilter(lines[i])]


def extract_thread(items: list[tuple[Message, list[Segment]]]) -> list[Findings]:
    """Findings for every message of one thread (messages in date order), each read
    without what it quotes from an earlier message (quote attribution runs first)."""
    attribute_quotes(items)
    return [extract_message(msg, segs)[0] for msg, segs in items]


def extract_messages(messages: list[Message]) -> dict[str, tuple[list[Message], list[Findings]]]:
    """Thread a set of messages (no database) and extract each thread."""
    from lkmlkb.threads.segments import thread_messages

    out = {}
    for thread_id, msgs in thread_messages(messages).items():
        # the order the knowledge base reads a thread in: dated messages by date, then undated ones
        order = {id(m): n for n, m in enumerate(msgs)}
        msgs = sorted(msgs, key=lambda m: (m.date_utc is None, m.date_utc or "", order[id(m)]))
        items = [(m, segment_body(m.body)) for m in msgs]
        out[thread_id] = (msgs, extract_thread(items))
    return out


#: reports are rebuilt once per this many ingest batches (and at the end of the run)
REPORT_EVERY_BATCHES = 20


def extract_payloads(payloads: list[tuple]) -> list[tuple[Findings, bool]]:
    """(findings, passed) of each (message id, subject, body, attributed segments, screened and
    passed): what the ingest workers run once the parent has attributed a batch's quotes."""
    if not _WARM:
        from lkmlkb.ingest.run import _freeze_once

        warm_up()
        _freeze_once(True)  # what the pipelines hold lives as long as the worker: out of the collector's sight
    out = []
    for mid, subject, body, segments, screened_pass in payloads:
        try:
            out.append(extract_message(Message(mid, subject=subject, body=body), segments, screened_pass))
        except Exception as exc:
            f = Findings(mid)
            f.errors["pipeline"] = f"{exc.__class__.__name__}: {exc}"[:500]
            out.append((f, False))
    return out


#: extraction jobs of this many batches may be out with the workers at once (memory stays flat)
JOBS_IN_FLIGHT = 4


class BatchExtraction:
    """The ingest hook that extracts: stores each batch's screened messages, attributes
    their threads' quotes, and has the extractors read what each message says itself.

    The workers parse, segment and screen a batch (:func:`may_hold_report`);
    this process stores it and attributes quotes within each thread it
    touches (which needs the earlier messages); the messages that may hold a
    report go back to the workers (``pool``) to be extracted, and their
    findings are written when they return, in order, while later batches are
    read.  Without a pool they are extracted here.  Reports of the touched
    threads are rebuilt every ``REPORT_EVERY_BATCHES`` batches and at the end
    (after every job has returned), not once per batch; with a pool the
    workers build them (:func:`knowledge.build_reports`, reading the
    database) while this process goes on storing, and they are written when
    they return, in order.  A run killed with jobs or reports out leaves
    messages without findings or reports: the next run's
    :func:`knowledge.flush_reports` extracts and builds them.
    """

    def __init__(self, store, pool=None):
        self.store = store
        self.pool = pool
        self.out: collections.deque = collections.deque()  # (async result or None, jobs)
        self.reports: collections.deque = collections.deque()  # (rowid covered, async results)
        self.pending: set[str] = set()
        self.batches = 0
        self.workers = 1  # the pool's processes: the last flush is split between them

    def begin(self) -> None:
        """Remember where this run's messages begin (see :func:`knowledge.begin_reports`)."""
        from lkmlkb.db.findings import begin_reports

        begin_reports(self.store.db)

    def __call__(self, store, prepared: list) -> None:
        from lkmlkb.db.findings import store_batch_findings

        jobs = store_batch_findings(store.db, prepared, self.pending)
        payloads = [j.payload() for j in jobs if j.extract]
        # without a pool (or nothing to extract) the jobs are done here when their turn comes
        result = self.pool.apply_async(extract_payloads, (payloads,)) if self.pool is not None and payloads else None
        self.out.append((result, jobs))
        self.pending.update(j.message.message_id for j in jobs)
        self._collect(keep=JOBS_IN_FLIGHT)
        self._write_reports(keep=1)
        self.batches += 1
        if self.batches >= REPORT_EVERY_BATCHES:
            self._collect(keep=0)
            self._flush_reports()
            self.batches = 0

    def finish(self) -> None:
        """Write what is still out, then build the reports still pending (also those a killed run left)."""
        self._collect(keep=0)
        self._write_reports(keep=0)
        self._flush_reports(final=True)

    def _flush_reports(self, final: bool = False) -> None:
        """Rebuild the reports of the threads touched since the last flush: here without a
        pool, else by the workers (at the end, the last flush split between them, and waited for)."""
        from lkmlkb.db.findings import build_reports, flush_reports, report_plan

        db = self.store.db
        if self.pool is None:
            flush_reports(db, final=final)
            _bound_vocabulary()  # report building reads subjects with the cue pipelines too
            return
        # after the flushes still out (the stored mark moves when they are written)
        plan = report_plan(db, self.reports[-1][0] if self.reports else None)
        if plan is None:
            return
        upto, thread_ids = plan
        path = db.execute("PRAGMA database_list").fetchone()[2]
        parts = self.workers if final else 1
        self.reports.append((upto, [self.pool.apply_async(build_reports, (path, thread_ids[k::parts], upto))
                                    for k in range(parts)]))
        if final:
            self._write_reports(keep=0, final=True)

    def _write_reports(self, keep: int, final: bool = False) -> None:
        """Write the reports that returned, in order, waiting while more than ``keep`` flushes are out."""
        from lkmlkb.db.findings import write_reports
        from lkmlkb.ingest.run import wait_for

        while self.reports:
            upto, results = self.reports[0]
            if len(self.reports) <= keep and not all(r.ready() for r in results):
                return
            self.reports.popleft()
            built = [b for r in results for b in wait_for(self.pool, r)]
            write_reports(self.store.db, built, upto, final=final)

    def _collect(self, keep: int) -> None:
        """Write the jobs that returned, in order, waiting while more than ``keep`` batches are out."""
        from lkmlkb.db.findings import run_jobs, write_jobs
        from lkmlkb.ingest.run import wait_for

        while self.out:
            result, jobs = self.out[0]
            if len(self.out) <= keep and result is not None and not result.ready():
                return
            self.out.popleft()
            run_jobs(jobs, None if result is None else wait_for(self.pool, result))
            write_jobs(self.store.db, jobs)
            self.pending.difference_update(j.message.message_id for j in jobs)


def extract_paths(paths: list[str]):
    """``lkmlkb extract``: read sources, thread, extract, build reports — no database."""
    from lkmlkb.ingest.run import read_messages
    from lkmlkb.reports.build import build_report

    messages = list(read_messages(paths))
    reports = []
    for thread_id, (msgs, findings) in extract_messages(messages).items():
        reports.append(build_report(thread_id, msgs, findings))
    return messages, reports
