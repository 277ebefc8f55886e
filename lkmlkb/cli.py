"""The ``lkmlkb`` command.  Thin: check arguments, call the library, print."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path

import click

from lkmlkb.errors import LkmlkbError

DB_OPTION = click.option(
    "--db",
    "db_path",
    default="lkmlkb.db",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="The knowledge base (SQLite).",
)


class Main(click.Group):
    """Turns lkmlkb's own errors into one line on stderr, no traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except LkmlkbError as exc:
            click.echo(f"lkmlkb: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=Main)
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.version_option(package_name="lkmlkb")
def main(verbose: int) -> None:
    """A knowledge base of Linux kernel performance regressions mined from mailing lists."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


@main.command()
@click.argument("sources", nargs=-1, required=True)
@DB_OPTION
@click.option(
    "--workers",
    "-j",
    type=int,
    default=None,
    help="Worker processes for parsing and extraction (default: number of CPUs).",
)
@click.option("--no-extract", is_flag=True, help="Raw import only: no extraction or reports.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
def ingest(sources, db_path, workers, no_extract, progress):
    """Read archives into the knowledge base.

    SOURCE is an mbox (.gz), Maildir, .eml, a folder of files, a public-inbox
    repository (epochs N.git), a text dump, an HTML archive page, or a lore
    URL / Message-ID.
    """
    from lkmlkb.ingest.run import ingest as run_ingest

    workers = workers or (os.cpu_count() or 1)
    show = sys.stderr.isatty() if progress is None else progress
    if show:
        summary = _ingest_with_progress(run_ingest, list(sources), db_path, workers, not no_extract)
    else:
        summary = run_ingest(list(sources), db_path, workers=workers, extract=not no_extract)
    for err in summary.source_errors:
        click.echo(f"lkmlkb: {err}", err=True)
    click.echo(summary.line())
    if summary.read == 0 and summary.source_errors:
        sys.exit(1)


def _ingest_with_progress(run_ingest, sources, db_path, workers, extract):
    """A progress bar: messages, rate, and an ETA where the input size is known."""
    from rich.progress import (
        BarColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from lkmlkb.ingest.run import estimate_bytes

    total = estimate_bytes(sources)
    columns = [
        SpinnerColumn(),
        TextColumn("ingesting {task.fields[count]} messages"),
        TextColumn("{task.fields[rate]:.0f} msg/s"),
        TimeElapsedColumn(),
    ]
    if total:
        columns[1:1] = [BarColumn()]
        columns.append(TimeRemainingColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("ingest", total=total, count=0, rate=0.0)
        t0 = time.perf_counter()
        state = {"n": 0}

        def tick(n, nbytes):
            state["n"] += n
            elapsed = max(time.perf_counter() - t0, 1e-6)
            bar.update(task, advance=nbytes, count=state["n"], rate=state["n"] / elapsed)

        return run_ingest(sources, db_path, workers=workers, extract=extract, progress=tick)


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default="text", show_default=True)
def extract(paths, fmt):
    """Extract reports from mail of any form ingest reads, without a database."""
    from lkmlkb.reports.from_mail import extract_paths

    messages, reports = extract_paths(list(paths))
    if fmt == "json":
        from lkmlkb.reports.contract import document

        click.echo(json.dumps(document(messages, reports), ensure_ascii=False, indent=1, sort_keys=True))
    else:
        from lkmlkb.reports.text import render_report

        for r in reports:
            click.echo(render_report(r))


@main.command()
@DB_OPTION
@click.option("--thread", "threads", multiple=True, help="Only these threads (default: all).")
def reprocess(db_path, threads):
    """Re-run extraction and report building over stored messages.

    Messages an earlier run could not parse (kept raw in ingest_errors) are
    parsed again first, and messages of a public-inbox epoch whose git object
    was missing then are read again from their commit.
    """
    from lkmlkb.db.connection import connect
    from lkmlkb.ingest.reprocess import reprocess as run
    from lkmlkb.ingest.reprocess import retry_errors

    db = connect(db_path, create=False, migrate=True)
    recovered, failing = retry_errors(db_path)
    if recovered or failing:
        click.echo(f"{recovered} message(s) recovered from ingest_errors, {failing} still failing")
    n = run(db, list(threads) or None)
    click.echo(f"{n} report(s) rebuilt")


@main.command()
@click.argument("report_id")
@DB_OPTION
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default="text", show_default=True)
def show(report_id, db_path, fmt):
    """Print one report in full (REPORT is a report id, i.e. its thread id)."""
    from lkmlkb.db.connection import connect_readonly
    from lkmlkb.db.reports import load_report

    db = connect_readonly(db_path)
    report = load_report(db, report_id)
    if report is None:
        raise click.ClickException(f"{db_path}: no report {report_id!r} (see `lkmlkb reports`)")
    if fmt == "json":
        from lkmlkb.reports.contract import report_json

        click.echo(json.dumps(report_json(report), ensure_ascii=False, indent=1, sort_keys=True))
    else:
        from lkmlkb.reports.text import render_report

        click.echo(render_report(report, report_id))


def _report_for(spec: str, db_path: str):
    """(report, message texts) by report id, or extracted on the spot from a mail file."""
    if Path(spec).exists():
        from lkmlkb.reports.from_mail import extract_paths

        messages, reports = extract_paths([spec])
        best = sorted(reports, key=lambda r: (not r.is_regression_report, -len(r.results) - len(r.fio_jobs)))
        if not best:
            raise click.ClickException(f"{spec}: no report found in this mail")
        ids = set(best[0].message_ids)
        return best[0], [m.body for m in messages if m.message_id in ids]
    from lkmlkb.db.connection import connect_readonly
    from lkmlkb.db.reports import load_report
    from lkmlkb.db.store import load_messages

    db = connect_readonly(db_path)
    report = load_report(db, spec)
    if report is None:
        raise click.ClickException(f"{db_path}: no report {spec!r} (see `lkmlkb reports`)")
    return report, [m.body for m in load_messages(db, report.thread_id)]


@main.command()
@click.argument("report")
@click.option(
    "-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Bundle folder."
)
@DB_OPTION
@click.option("--target", default=None, help="File or device the jobs use (default: a scratch file).")
@click.option("--allow-device-writes", is_flag=True, help="Allow writes and trims on a block device target.")
@click.option("--smoke", is_flag=True, help="Scale jobs down so they finish in seconds.")
def repro(report, out_dir, db_path, target, allow_device_writes, smoke):
    """Write a runnable, safe reproduction bundle for REPORT (id or mail file)."""
    from lkmlkb.repro.bundle import write_bundle

    r, texts = _report_for(report, db_path)
    info = write_bundle(
        r, Path(out_dir), target=target, allow_device_writes=allow_device_writes, smoke=smoke, texts=texts
    )
    for path in info.job_files:
        click.echo(f"{path}")
        for note in info.notes.get(path.name, []):
            click.echo(f"  - {note}")
    click.echo(f"{info.setup_script}\n{info.expected}\n{info.readme}")


@main.command()
@click.argument("report")
@click.argument("fio_json", type=click.Path(exists=True, dir_okay=False))
@DB_OPTION
def compare(report, fio_json, db_path):
    """Hold your fio --output-format=json result against REPORT's numbers."""
    from lkmlkb.repro.compare import compare as run
    from lkmlkb.repro.compare import format_comparison, load_fio_json

    r, _ = _report_for(report, db_path)
    rows = run(r, load_fio_json(fio_json))
    click.echo(format_comparison(rows))


@main.command()
@DB_OPTION
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8001, show_default=True, type=int)
@click.option("--immutable", is_flag=True, help="Serve the file as unchanging (a published copy).")
def serve(db_path, host, port, immutable):
    """Serve the knowledge base in Datasette (read-only)."""
    from lkmlkb.web.serve import serve as run

    run(
        db_path,
        host=host,
        port=port,
        immutable=immutable,
        on_ready=lambda url: click.echo(f"Serving {db_path} at {url}"),
    )


@main.command()
@DB_OPTION
@click.option(
    "--git",
    "git_path",
    type=click.Path(file_okay=False),
    default=None,
    help="A kernel git tree (any clone) to resolve cited SHAs against.",
)
@click.option("--rev", default="HEAD", show_default=True, help="The branch or commit of the tree to search.")
def link(db_path, git_path, rev):
    """Resolve cited commits (full SHA, subject, first tag, later fixes) and link them to reports."""
    from lkmlkb.db.connection import connect
    from lkmlkb.link.commits import link as run
    from lkmlkb.link.commits import link_without_tree

    db = connect(db_path, create=False)
    summary = run(db, git_path, rev=rev) if git_path else link_without_tree(db)
    for note in summary.notes[:50]:
        click.echo(f"  {note}")
    click.echo(summary.line())


@main.command()
@click.argument("sha")
@DB_OPTION
def commit(sha, db_path):
    """Every report that blames, fixes, reverts or tests a commit, with the numbers."""
    from lkmlkb.db.connection import connect_readonly
    from lkmlkb.db.queries import reports_citing

    rows = reports_citing(connect_readonly(db_path), sha)
    if not rows:
        click.echo(f"no report cites {sha}")
        return
    for r in rows:
        nums = ""
        if r.get("baseline_value") is not None and r.get("regressed_value") is not None:
            nums = f"  {r['baseline_value']:g} -> {r['regressed_value']:g} {r.get('unit') or ''}"
        pct = f"  {r['regression_pct']:g}%" if r.get("regression_pct") is not None else ""
        click.echo(
            f"{r.get('role', '?'):<9} {r['report_id']}  {r.get('title') or ''}{nums}{pct}  [{r.get('status')}]"
        )


@main.command("reports")
@DB_OPTION
@click.option("--status", default=None, help="reported, bisected, fix proposed, fixed, reverted, ...")
@click.option("--list", "list_name", default=None, help="Mailing list (linux-block or its address).")
@click.option("--kernel", default=None, help="A kernel version the report names.")
@click.option("--tool", default=None, help="fio, tiobench, dd, ...")
@click.option("--commit", "commit_sha", default=None, help="A commit the report cites (prefix).")
@click.option("--all", "show_all", is_flag=True, help="Also threads with numbers that report no regression.")
@click.option("--limit", default=50, show_default=True)
def reports_cmd(db_path, status, list_name, kernel, tool, commit_sha, show_all, limit):
    """List reports, newest first."""
    from lkmlkb.db.connection import connect_readonly
    from lkmlkb.db.queries import list_reports

    rows = list_reports(
        connect_readonly(db_path),
        status=status,
        list_name=list_name,
        kernel=kernel,
        tool=tool,
        commit=commit_sha,
        limit=limit,
        regressions_only=not show_all,
    )
    for r in rows:
        pct = f"{r['regression_pct']:g}%" if r.get("regression_pct") is not None else "-"
        click.echo(
            f"{(r.get('last_date') or '')[:10]}  {r.get('status') or '':<13} {pct:>7}  "
            f"{r['report_id']}  {r.get('title') or ''}"
        )


@main.command()
@click.argument("text")
@DB_OPTION
@click.option("--limit", default=20, show_default=True)
def search(text, db_path, limit):
    """Full-text search over reports and messages."""
    from lkmlkb.db.connection import connect_readonly
    from lkmlkb.db.queries import search as run

    for r in run(connect_readonly(db_path), text, limit=limit):
        click.echo(f"{r.get('kind', ''):<7} {(r.get('date') or '')[:10]}  {r.get('title') or ''}")
        if r.get("snippet"):
            click.echo(f"        {r['snippet']}")


if __name__ == "__main__":  # pragma: no cover
    main()
