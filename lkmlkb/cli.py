"""The ``lkmlkb`` command.  Thin: check arguments, call the library, print."""

from __future__ import annotations

import logging
import os
import sys

import click

from .errors import LkmlkbError

DB_OPTION = click.option("--db", "db_path", default="lkmlkb.db", show_default=True,
                         type=click.Path(dir_okay=False), help="The knowledge base (SQLite).")


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
@click.option("--workers", "-j", type=int, default=None,
              help="Worker processes for parsing and extraction (default: number of CPUs).")
@click.option("--no-extract", is_flag=True, help="Raw import only: no extraction or reports.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
def ingest(sources, db_path, workers, no_extract, progress):
    """Read archives into the knowledge base.

    SOURCE is an mbox (.gz), Maildir, .eml, a folder of files, a public-inbox
    repository (epochs N.git), a text dump, an HTML archive page, or a lore
    URL / Message-ID.
    """
    from .ingest import ingest as run_ingest

    workers = workers or (os.cpu_count() or 1)
    show = sys.stderr.isatty() if progress is None else progress
    on_batch = None
    if not no_extract:
        from .pipeline import extract_batch

        on_batch = extract_batch
    if show:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                                   TimeElapsedColumn)

        with Progress(SpinnerColumn(), TextColumn("ingesting"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[rate]:.0f} msg/s"), TimeElapsedColumn(),
                      transient=True) as bar:
            task = bar.add_task("ingest", total=None, rate=0.0)
            state = {"n": 0}
            import time

            t0 = time.perf_counter()

            def tick(n):
                state["n"] += n
                elapsed = max(time.perf_counter() - t0, 1e-6)
                bar.update(task, advance=n, rate=state["n"] / elapsed)

            summary = run_ingest(list(sources), db_path, workers=workers, on_batch=on_batch, progress=tick)
    else:
        summary = run_ingest(list(sources), db_path, workers=workers, on_batch=on_batch)
    for err in summary.source_errors:
        click.echo(f"lkmlkb: {err}", err=True)
    click.echo(summary.line())
    if summary.read == 0 and summary.source_errors:
        sys.exit(1)


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default="text", show_default=True)
def extract(paths, fmt):
    """Extract reports from mail of any form ingest reads, without a database."""
    from .pipeline import extract_paths

    messages, reports = extract_paths(list(paths))
    if fmt == "json":
        import json

        from .contract import document

        click.echo(json.dumps(document(messages, reports), ensure_ascii=False, indent=1, sort_keys=True))
    else:
        from .render_text import render_report

        for r in reports:
            click.echo(render_report(r))


if __name__ == "__main__":  # pragma: no cover
    main()
