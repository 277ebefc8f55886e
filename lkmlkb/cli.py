"""The ``lkmlkb`` command.  Thin: check arguments, call the library, print."""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import sys
import textwrap
import time
import urllib.parse
from pathlib import Path

import click

from lkmlkb.errors import DatabaseError, LkmlkbError, SourceError


def _refuse_foreign_db(ctx, param, db_path: str) -> str:
    """``--db``: a SQLite file that holds tables but no ``kb_info`` is another application's;
    refuse it before anything opens it for writing (switching it to WAL or adding tables)."""
    path = Path(db_path)
    if not path.is_file() or path.stat().st_size == 0:
        return db_path
    try:
        conn = sqlite3.connect(f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return db_path  # not SQLite at all: connect() names that
    if tables and "kb_info" not in tables:
        shown = ", ".join(sorted(tables)[:3]) + (" ..." if len(tables) > 3 else "")
        raise DatabaseError(
            db_path, f"a SQLite database that is not an lkmlkb knowledge base (tables {shown})"
        )
    return db_path


DB_OPTION = click.option(
    "--db",
    "db_path",
    default="lkmlkb.db",
    show_default=True,
    type=click.Path(dir_okay=False),
    callback=_refuse_foreign_db,
    help="The knowledge base (SQLite).",
)
#: -j above this many workers per CPU is refused
MAX_WORKERS_PER_CPU = 4


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
    """A knowledge base of Linux kernel performance regressions mined from mailing lists.

    \b
    Exit codes:
      0  done
      1  ran, but found or read nothing it needed (no such report, no source
         read, no reported numbers to compare)
      2  bad input or usage: one line naming the input and the reason
    """
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

    workers = _workers(workers)
    _check_sources(sources)
    db_existed = Path(db_path).exists()
    show = sys.stderr.isatty() if progress is None else progress
    if show:
        summary = _ingest_with_progress(run_ingest, list(sources), db_path, workers, not no_extract)
    else:
        summary = run_ingest(list(sources), db_path, workers=workers, extract=not no_extract)
    for err in summary.source_errors:
        click.echo(f"lkmlkb: {err}", err=True)
    click.echo(summary.line())
    if summary.read == 0 and not db_existed:
        _remove_database(db_path)
    if summary.read == 0 and summary.source_errors:
        sys.exit(1)


def _workers(workers: int | None) -> int:
    """``-j``: the number of CPUs by default; 1 to MAX_WORKERS_PER_CPU x CPUs."""
    cpus = os.cpu_count() or 1
    if workers is None:
        return cpus
    top = MAX_WORKERS_PER_CPU * cpus
    if not 1 <= workers <= top:
        raise LkmlkbError(f"-j {workers}", f"give 1 to {top} worker processes ({cpus} CPUs here)")
    return workers


def _check_sources(sources) -> None:
    """Every SOURCE is a lore address, ``-`` or an existing path, before a database is opened."""
    from lkmlkb.sources import STDIN, missing_reason

    for spec in sources:
        if spec == STDIN or "://" in spec or spec.startswith("lore:") or os.path.lexists(spec):
            continue
        raise SourceError(spec, missing_reason(spec))


def _remove_database(db_path: str) -> None:
    """Remove the database this run created when it read nothing, with its WAL files."""
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(db_path + suffix)
        except FileNotFoundError:
            pass


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
    """Print one report in full (REPORT is a report id, i.e. its thread id), or a regression
    with its timeline (an id `lkmlkb regressions` lists)."""
    from lkmlkb.db.connection import connect_readonly
    from lkmlkb.db.reports import load_report

    if _show_regression(report_id, db_path, fmt):
        return
    db = connect_readonly(db_path)
    report = load_report(db, report_id)
    if report is None:
        raise click.ClickException(f"{db_path}: no report {report_id!r} (see `lkmlkb reports`)")
    if fmt == "json":
        from lkmlkb.reports.contract import report_json

        _out_json(json.dumps(report_json(report), ensure_ascii=False, indent=1, sort_keys=True))
    else:
        from lkmlkb.reports.text import render_report

        _out(fold_percentiles(render_report(report, report_id)))
        _echo_regression_of(db, report_id)


def _show_regression(spec: str, db_path: str, fmt: str) -> bool:
    """Print the regression ``spec`` names; False when ``spec`` is no regression id."""
    from lkmlkb.db.connection import connect_readonly
    from lkmlkb.db.regressions import is_regression_id, regression_data
    from lkmlkb.regressions.text import render_regression

    if not is_regression_id(spec):
        return False
    data = regression_data(connect_readonly(db_path).conn, spec)
    if data is None:
        raise click.ClickException(f"{db_path}: no regression {spec!r} (see `lkmlkb regressions`)")
    if fmt == "json":
        _out_json(json.dumps(data, ensure_ascii=False, indent=1))
    else:
        _out(render_regression(data))
    return True


def _echo_regression_of(db, thread_id: str) -> None:
    from lkmlkb.db.regressions import regression_of

    found = regression_of(db.conn, thread_id)
    if found:
        _out(f"\nregression: {found['regression_id']} ({found['part']}, {found['status']}): {found['title']}")


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

    r = _compared_report(report, db_path)
    rows = run(r, load_fio_json(fio_json))
    if not rows:
        raise click.ClickException(f"{report}: no reported numbers to compare")
    click.echo(format_comparison(rows))


def _compared_report(spec: str, db_path: str):
    """The report ``compare`` holds a result against: a bundle's expected.json, a mail file or an id."""
    from lkmlkb.repro.compare import report_from_expected

    path = Path(spec)
    if path.is_file() and path.suffix == ".json":
        return report_from_expected(path)
    return _report_for(spec, db_path)[0]


@main.command()
@DB_OPTION
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8001, show_default=True, type=click.IntRange(1, 65535))
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
    _regroup_after_link(db)


def _regroup_after_link(db) -> None:
    """Group the regressions again: SHAs the tree resolved to one commit now join their reports."""
    from lkmlkb.db.connection import writing
    from lkmlkb.db.regressions import regroup

    with writing(db.conn):
        regroup(db.conn)


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
        kernels = _kernels(r)
        _out(
            f"{r.get('role', '?'):<9} {r['report_id']}  {r.get('title') or ''}{nums}{pct}{kernels}"
            f"  [{r.get('status')}]"
        )


def _kernels(row: dict) -> str:
    """``  (good 5.15.y, bad 6.6)`` beside a report's numbers, or nothing when neither is known."""
    if not (row.get("good_kernel") or row.get("bad_kernel")):
        return ""
    return f"  (good {row.get('good_kernel') or '?'}, bad {row.get('bad_kernel') or '?'})"


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
        _out(
            f"{(r.get('last_date') or '')[:10]}  {r.get('status') or '':<13} {pct:>7}  "
            f"{r['report_id']}  {r.get('title') or ''}"
        )


@main.command("regressions")
@DB_OPTION
@click.option("--limit", default=50, show_default=True)
def regressions_cmd(db_path, limit):
    """List regressions (report threads grouped), newest first: id, status, threads, title."""
    from lkmlkb.db.connection import connect_readonly
    from lkmlkb.db.regressions import list_regressions

    for r in list_regressions(connect_readonly(db_path).conn, limit=limit):
        _out(
            f"{r['regression_id']}  {(r.get('last_date') or '')[:10]:<10}  {r.get('status') or '':<13} "
            f"{r['thread_count']:>3}  {r.get('title') or ''}"
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
        rid = r.get("report_id") or "(no report)"
        _out(f"{r.get('kind', ''):<7} {(r.get('date') or '')[:10]}  {rid}  {r.get('title') or ''}")
        if r.get("snippet"):
            _out(f"        {r['snippet']}")


#: what a terminal may take for a command: C0 controls but tab and newline, DEL, C1 controls
TERMINAL_CONTROL_RE = re.compile(
    r"""
    [\x00-\x08\x0b-\x1f\x7f-\x9f]    # ESC starts title changes and screen clears; C1 CSI (0x9b) too
""",
    re.VERBOSE,
)
#: one result line of ``render_report`` for a percentile: lead (indent, kernel, padding), metric,
#: percentile, the rest (direction), value, unit, the label
PERCENTILE_LINE_RE = re.compile(
    r"""
    ^(?P<lead>\ +\S+\ +)              # "  6.8-rc7                "
    (?P<metric>[A-Za-z]+)_p(?P<p>[0-9.]+)
    (?P<rest>(?:\ [a-z]+)?)            # " write"
    \ =\ (?P<value>\S+)\ (?P<unit>\S+)
    (?P<label>(?:\ \[[a-z ]+\])?)$    # " [regressed]"
""",
    re.VERBOSE,
)
#: a percentile list longer than this is folded into one wrapped line
FOLD_AT = 4


def _out(text: str) -> None:
    """Mail text to the terminal, its control characters (escape sequences) removed."""
    click.echo(TERMINAL_CONTROL_RE.sub("", text))


def _out_json(text: str) -> None:
    """JSON to the terminal: json.dumps escapes C0 controls; C1 controls are escaped here."""
    click.echo(re.sub(r"[\x7f-\x9f]", lambda m: f"\\u{ord(m.group()):04x}", text))


def fold_percentiles(text: str) -> str:
    """Runs of percentile result lines of one metric, kernel and label folded into one wrapped
    line: ``clat percentiles write [regressed]: p1 986, p5 1167, ... msec``."""
    out: list[str] = []
    run: list[re.Match] = []

    def key(m: re.Match) -> tuple:
        return (m["lead"], m["metric"], m["rest"], m["unit"], m["label"])

    def flush() -> None:
        if len(run) <= FOLD_AT:
            out.extend(m.string for m in run)
        else:
            m = run[0]
            values = ", ".join(f"p{r['p']}={r['value']}" for r in run)
            head = f"{m['lead']}{m['metric']} percentiles{m['rest']}{m['label']} ({m['unit']}): "
            out.extend(
                textwrap.wrap(
                    values, width=100, initial_indent=head, subsequent_indent=" " * (len(m["lead"]) + 4)
                )
            )
        run.clear()

    for line in text.split("\n"):
        m = PERCENTILE_LINE_RE.match(line)
        if run and (m is None or key(m) != key(run[0])):
            flush()
        if m is None:
            out.append(line)
        else:
            run.append(m)
    flush()
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover
    main()
