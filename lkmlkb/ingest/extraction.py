"""The ingest's extraction: each batch's new messages attributed, extracted by the workers, and
their findings and reports written, while later batches are read."""

from __future__ import annotations

import collections

import sqlite_utils

from lkmlkb.db.connection import database_path, writing
from lkmlkb.db.findings import write_findings_many
from lkmlkb.db.regressions import regroup
from lkmlkb.db.reports import begin_reports, build_reports, report_plan
from lkmlkb.db.store import threads_of
from lkmlkb.extract.messages import bound_vocabulary, extract_message, warm_up, warmed_up
from lkmlkb.ingest.attribution import ExtractionJob, store_batch_findings
from lkmlkb.ingest.pool import freeze_once, wait_for
from lkmlkb.ingest.reprocess import flush_reports, write_reports
from lkmlkb.model import Findings, Message

#: reports are rebuilt once per this many ingest batches (and at the end of the run)
REPORT_EVERY_BATCHES = 20


def extract_payloads(payloads: list[tuple]) -> list[tuple[Findings, bool]]:
    """(findings, passed) of each (message id, subject, body, attributed segments, screened and
    passed): what the ingest workers run once the parent has attributed a batch's quotes."""
    if not warmed_up():
        warm_up()
        freeze_once(True)  # what the pipelines hold lives as long as the worker: out of the collector's sight
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

    The workers parse, segment and screen a batch
    (:func:`lkmlkb.extract.views.may_hold_report`);
    this process stores it and attributes quotes within each thread it
    touches (which needs the earlier messages); the messages that may hold a
    report go back to the workers (``pool``) to be extracted, and their
    findings are written when they return, in order, while later batches are
    read.  Without a pool they are extracted here.  Reports of the touched
    threads are rebuilt every ``REPORT_EVERY_BATCHES`` batches and at the end
    (after every job has returned), not once per batch; with a pool the
    workers build them (:func:`lkmlkb.db.reports.build_reports`, reading the
    database) while this process goes on storing, and they are written when
    they return, in order.  A run killed with jobs or reports out leaves
    messages without findings or reports: the next run's
    :func:`lkmlkb.ingest.reprocess.flush_reports` extracts and builds them.
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
        """Remember where this run's messages begin (see :func:`lkmlkb.db.reports.begin_reports`)."""
        begin_reports(self.store.db)

    def __call__(self, store, prepared: list) -> None:
        jobs = store_batch_findings(store.db, prepared, self.pending)
        payloads = [j.payload() for j in jobs if j.extract]
        # without a pool (or nothing to extract) the jobs are done here when their turn comes
        result = (
            self.pool.apply_async(extract_payloads, (payloads,))
            if self.pool is not None and payloads
            else None
        )
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
        # regressions are regrouped once a run, not at every flush: the writer is the ingest's one
        # serial stage (a killed run's keys are grouped by the next run, or by reprocess or link)
        with writing(self.store.db.conn):
            regroup(self.store.db.conn)

    def _flush_reports(self, final: bool = False) -> None:
        """Rebuild the reports of the threads touched since the last flush: here without a
        pool, else by the workers (at the end, the last flush split between them, and waited for)."""
        db = self.store.db
        if self.pool is None:
            flush_reports(db, final=final)
            bound_vocabulary()  # report building reads subjects with the cue pipelines too
            return
        # after the flushes still out (the stored mark moves when they are written)
        plan = report_plan(db, self.reports[-1][0] if self.reports else None)
        if plan is None:
            return
        upto, thread_ids = plan
        path = database_path(db)
        parts = self.workers if final else 1
        self.reports.append(
            (
                upto,
                [
                    self.pool.apply_async(build_reports, (path, thread_ids[k::parts], upto))
                    for k in range(parts)
                ],
            )
        )
        if final:
            self._write_reports(keep=0, final=True)

    def _write_reports(self, keep: int, final: bool = False) -> None:
        """Write the reports that returned, in order, waiting while more than ``keep`` flushes are out."""
        while self.reports:
            upto, results = self.reports[0]
            if len(self.reports) <= keep and not all(r.ready() for r in results):
                return
            self.reports.popleft()
            built = [b for r in results for b in wait_for(self.pool, r)]
            write_reports(self.store.db, built, upto, final=final)

    def _collect(self, keep: int) -> None:
        """Write the jobs that returned, in order, waiting while more than ``keep`` batches are out."""
        while self.out:
            result, jobs = self.out[0]
            if len(self.out) <= keep and result is not None and not result.ready():
                return
            self.out.popleft()
            run_jobs(jobs, None if result is None else wait_for(self.pool, result))
            write_jobs(self.store.db, jobs)
            self.pending.difference_update(j.message.message_id for j in jobs)


def run_jobs(jobs: list[ExtractionJob], extracted: list[tuple[Findings, bool]] | None = None) -> None:
    """Give each job that needs extraction its findings and prefilter outcome: ``extracted``,
    what a worker's :func:`extract_payloads` returned for their payloads, or else
    extracted in this process."""
    todo = [j for j in jobs if j.extract]
    if extracted is None:
        extracted = extract_payloads([j.payload() for j in todo])
    for j, (f, passed) in zip(todo, extracted):
        j.findings, j.passed = f, passed


def write_jobs(db: sqlite_utils.Database, jobs: list[ExtractionJob]) -> None:
    """Write the findings of extracted jobs (one transaction); jobs not extracted are recorded
    as not passing.  Nothing quoted from a known message is among them: the extractors saw
    those quotes blank (:func:`lkmlkb.extract.views.build_view`)."""
    if not jobs:
        return
    conn = db.conn
    with writing(conn):
        # a later batch may have merged the thread into another while the job was out
        thread_of = threads_of(conn, [j.message.message_id for j in jobs])
        write_findings_many(
            conn,
            [
                (
                    thread_of.get(j.message.message_id, j.thread_id),
                    j.findings or Findings(j.message.message_id),
                    j.passed,
                )
                for j in jobs
            ],
        )
