"""The job's command line: ``warcclean run`` and ``jobs/clean_warcs.py`` (``dask submit``).

Everything a user gives is checked before the cluster starts, as a usage error (exit 2): the
option values, the inputs (listed once each, symlinks resolved: `pipeline.warc.inputs`) and the
output, which must be writable and new, empty or an earlier warcclean output
(`pipeline.output.layout`).
"""

from __future__ import annotations

import math
import os
import sys
import time
from datetime import datetime, timezone

import click

from pipeline.cleaners.params import PARAM_HELP, OptionError, cleaner_options
from pipeline.cleaners.registry import DEFAULT_CLEANER
from pipeline.config import Limits
from pipeline.job import OWN_PROCESS
from pipeline.job.cluster_options import cluster_options, storage_option
from pipeline.job.logs import LOG_LEVELS, logging_at
from pipeline.job.reports import (
    html_report_path,
    run_report,
    run_report_path,
    summary_table,
    warm_up_report,
    write_html_report,
    write_run_report,
)
from pipeline.job.schedule import (
    MAX_PAGE_SECONDS,
    MAX_RETRIES,
    make_client,
    pending_inputs,
    run_job,
)
from pipeline.job.site_command import print_site_result, site_options
from pipeline.job.task import InputFailure
from pipeline.jobconfig import (
    DEFAULT_BATCH_ROWS,
    DEFAULT_FORMATS,
    FORMATS,
    MIN_ISOLATE_MEMORY,
    JobConfig,
    freeze,
    parse_memory,
    parse_pairs,
)
from pipeline.output.stats import Stats, WarcReport
from pipeline.report.plural import count
from pipeline.warc.inputs import display_path, list_inputs


def _not_nan(ctx: click.Context, param: click.Parameter, value: float) -> float:
    # FloatRange lets NaN through: it compares false with both bounds.
    if math.isnan(value):
        raise click.BadParameter("expects a number of seconds, got nan", ctx=ctx, param=param)
    return value


def _isolate_memory(ctx: click.Context, param: click.Parameter, value: str) -> int | None:
    try:
        return parse_memory(value, "--isolate-memory", minimum=MIN_ISOLATE_MEMORY)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


# Worker processes per CPU past which a local cluster is surely a typo: each worker and its
# cleaning child hold a few hundred MB, and two cores cannot run a thousand of them.
WORKERS_PER_CPU_WARNING = 4


@click.command("run", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, required=True)
@click.option("--output", "-o", required=True, help="Output root: a directory or fsspec URL.")
@click.option("--cleaner", default=DEFAULT_CLEANER, show_default=True, help="Cleaner name.")
@click.option("--param", "params", multiple=True, metavar="K=V", help=PARAM_HELP)
@cluster_options
@click.option("--threads-per-worker", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--max-body-bytes",
    type=click.IntRange(min=1),
    default=Limits().max_body_bytes,
    show_default=True,
    help="Body bytes kept per record; longer bodies are cleaned from this prefix, flagged.",
)
@click.option(
    "--max-nodes",
    type=click.IntRange(min=1),
    default=Limits().max_nodes,
    show_default=True,
    help="Pages with more elements are rejected 'too_complex'.",
)
@click.option(
    "--max-blocks",
    type=click.IntRange(min=1),
    default=Limits().max_blocks,
    show_default=True,
    help="Pages with more text blocks are rejected 'too_complex'.",
)
@click.option(
    "--max-seconds",
    type=click.FloatRange(min=0, min_open=True, max=MAX_PAGE_SECONDS),
    default=Limits().max_seconds,
    show_default=True,
    callback=_not_nan,
    help="Cleaning time per page; slower pages are rejected 'timeout'.",
)
@click.option(
    "--isolate-depth",
    type=click.IntRange(min=0),
    default=Limits().isolate_depth,
    show_default=True,
    help="Pages nested deeper are cleaned in a child process killed at --max-seconds.",
)
@click.option(
    "--isolate-memory",
    "isolate_memory",
    default=str(Limits().isolate_memory_bytes),
    show_default=True,
    callback=_isolate_memory,
    metavar="BYTES",
    help="Address space of that child (e.g. 4GB; 'none': no cap); more is 'too_complex'.",
)
@click.option(
    "--batch-rows", type=click.IntRange(min=1), default=DEFAULT_BATCH_ROWS, show_default=True
)
@storage_option
@click.option("--report", "report_path", default=None, help="Run report path.")
@click.option("--base-url", default=None, help="Prefix for relative paths in paths files.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option(
    "--retries",
    type=click.IntRange(min=0, max=MAX_RETRIES),
    default=2,
    show_default=True,
    help="Attempts after the first of an input that failed; an input no attempt can read (not "
    "an archive, missing) is never retried.",
)
@click.option(
    "--formats",
    type=click.Choice(FORMATS),
    default=DEFAULT_FORMATS,
    show_default=True,
    help="What each document holds: its clean text, its Markdown, or both "
    "(text: no Markdown rendering, markdown column null; markdown: text column '').",
)
@click.option(
    "--include-comments",
    is_flag=True,
    help="Keep reader comments in the text and Markdown (their blocks are labelled 'comment' "
    "either way; by default they are left out).",
)
@click.option(
    "--page-type",
    "classify_page",
    is_flag=True,
    help="Name each page's type (the page_type and page_type_prob columns: article, product, "
    "listing, ...); it adds about a tenth to a page's cleaning, so it is off by default.",
)
@click.option(
    "--no-html-report",
    is_flag=True,
    help="Write no HTML report (it counts the whole output; `warcclean report OUT` builds it).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Take over the output's lock held on another host when that job is gone (its host "
    "lost); a dead job's lock on this host is taken over without it, a running one's never.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="A trial run: read at most N records (of any type) of each input. An input cut there "
    "is marked _done/<stem>.limited.json, not done: a run without --limit processes it again.",
)
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Print the traceback of each failed input under its line.",
)
@click.option(
    "--log-level",
    type=click.Choice(LOG_LEVELS, case_sensitive=False),
    default="warning",
    show_default=True,
    help="Least level of Dask's and warcclean's log messages shown, on this machine and on the "
    "local cluster's workers.",
)
@site_options
def main(
    inputs: tuple[str, ...],
    output: str,
    cleaner: str,
    params: tuple[str, ...],
    scheduler: str | None,
    workers: int | None,
    threads_per_worker: int,
    memory_limit: str | int | None,
    max_body_bytes: int,
    max_nodes: int,
    max_blocks: int,
    max_seconds: float,
    isolate_depth: int,
    isolate_memory: int | None,
    batch_rows: int,
    storage: tuple[str, ...],
    report_path: str | None,
    base_url: str | None,
    no_progress: bool,
    retries: int,
    no_html_report: bool,
    formats: str,
    include_comments: bool,
    classify_page: bool,
    force: bool,
    limit: int | None,
    verbose: bool,
    log_level: str,
    site_repeats: int,
    site_key: str,
    site_max_chars: int,
    site_long_repeats: int,
    site_max_share: float,
) -> None:
    """Clean INPUT WARC files (files, directories, globs, URLs or paths files) into --output,
    then run the site stage over the whole output (--site-repeats)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from pipeline.output import lock
    from pipeline.output.layout import OutputError, check_output, check_report_path
    from pipeline.report.charts import INSTALL_HINT as CHARTS_HINT
    from pipeline.report.charts import available as charts_available

    try:
        # Checked here once, so that an unknown cleaner or parameter stops the job with a usage
        # error naming what it takes, instead of failing every task on the workers.
        cleaner_params = cleaner_options(cleaner, params)
    except OptionError as exc:
        raise click.BadParameter(str(exc), param_hint=exc.option) from None
    try:
        cfg = JobConfig(
            output=output,
            cleaner=cleaner,
            params=freeze(cleaner_params),
            limits=Limits(
                max_body_bytes=max_body_bytes,
                max_nodes=max_nodes,
                max_blocks=max_blocks,
                max_seconds=max_seconds,
                isolate_depth=isolate_depth,
                isolate_memory_bytes=isolate_memory,
            ),
            batch_rows=batch_rows,
            storage_options=freeze(parse_pairs(storage, "--storage-option")),
            formats=formats,
            include_comments=include_comments,
            classify_page=classify_page,
            record_limit=limit,
        )
        paths = list_inputs(list(inputs), base_url=base_url, storage_options=cfg.storage_dict)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    if not paths:
        raise click.UsageError(f"no WARC files found in {' '.join(inputs)}")
    try:
        # Before the cluster starts: an output the workers cannot write fails every input,
        # each after its retries, and leaves the run report nowhere to go.
        own = [report_path, html_report_path(report_path)] if report_path else []
        check_output(cfg.output, cfg.storage_dict, own_files=own)
        if report_path:
            check_report_path(report_path, cfg.storage_dict)
    except OutputError as exc:
        raise click.UsageError(str(exc)) from exc
    from pipeline.site.rule import SiteSettings

    site_settings = SiteSettings(
        min_pages=site_repeats,
        site_key=site_key,
        max_chars=site_max_chars,
        long_pages=site_long_repeats,
        max_share=site_max_share,
    )
    started_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        # One job per output (`pipeline.output.lock`), held until this command ends.
        held = lock.acquire(
            cfg.output, cfg.storage_dict, cleaner=cfg.cleaner, started_at=started_at, force=force
        )
    except lock.OutputLocked as exc:
        raise click.UsageError(str(exc)) from exc
    click.get_current_context().call_on_close(lambda: lock.release(held))
    # A site stage stopped while it published its files is finished before anything is
    # written, so that its journal can never move a file over one this run writes.
    finished = _finish_site_stage(cfg)
    out = Console()
    err = Console(stderr=True)
    if finished:
        out.print("site stage: finished publishing a stage that was stopped")
    cpus = os.cpu_count() or 1
    if workers is not None and workers > WORKERS_PER_CPU_WARNING * cpus:
        err.print(
            f"[yellow]warning[/]: --workers {workers} on {cpus} CPUs starts {workers} worker "
            "processes, each with its own cleaning process: more than "
            f"{WORKERS_PER_CPU_WARNING} per CPU only adds memory and switching"
        )
    # matplotlib loads while the workers run, so the report costs only its drawing at the end.
    warming = None if no_html_report else warm_up_report()
    with (
        logging_at(log_level) as level,
        make_client(scheduler, workers, threads_per_worker, memory_limit, level) as client,
    ):
        err.print(f"[bold]{count(len(paths), 'input')}[/], dashboard: {client.dashboard_link}")
        progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[records]:,} records {task.fields[rate]:.0f}/s"),
            TextColumn("{task.fields[mbs]:.1f} MB/s"),
            TimeElapsedColumn(),
            console=err,
            disable=no_progress,
            # rich redraws 10 times a second by default: 13 ms of CPU per second of the job on
            # a terminal, against 3 ms at this rate; the bar moves once per input anyway.
            refresh_per_second=2,
        )
        seen = Stats()
        t0 = time.perf_counter()
        nbytes = 0

        with progress:
            task = progress.add_task("inputs", total=len(paths), records=0, rate=0.0, mbs=0.0)

            def on_report(outcome: WarcReport | InputFailure, path: str) -> None:
                nonlocal seen, nbytes
                if isinstance(outcome, WarcReport):
                    seen = seen + outcome.stats
                    nbytes += outcome.input_bytes
                else:
                    # One line per failed input, as it fails; the traceback only on request.
                    err.print(
                        f"[red]FAILED[/] {escape(display_path(path))}: {escape(outcome.error)}",
                        soft_wrap=True,
                    )
                    if verbose and outcome.traceback:
                        err.print(escape(outcome.traceback.rstrip()), soft_wrap=True)
                dt = time.perf_counter() - t0
                progress.update(
                    task,
                    advance=1,
                    records=seen.records,
                    rate=seen.records / dt,
                    mbs=nbytes / dt / 1e6,
                )

            todo_done = pending_inputs(paths, cfg)[1]
            progress.update(task, advance=len(todo_done))
            result = run_job(client, paths, cfg, retries=retries, on_report=on_report)
        from pipeline.job.site_stage import quiet_shuffle_logs, run_site_stage

        quiet_shuffle_logs()
        # Over the whole output (this run's documents and every earlier run's), after every
        # input is cleaned; also after failed inputs, whose re-run then counts again.
        site = run_site_stage(client, cfg.output, site_settings, storage_options=cfg.storage_dict)
    out.print(summary_table(result))
    print_site_result(site, out.print)
    report = run_report(result, cfg, started_at)
    report["site_stage"] = site.to_dict()
    where = report_path or run_report_path(report, cfg)
    # The HTML first (it takes a while: it reads the whole output), then the JSON (one small
    # write), so that a run killed meanwhile leaves no JSON report without its HTML. Either
    # failing is a warning: the data and the markers are written, and the exit status says
    # what became of the inputs.
    if not no_html_report:
        if warming is not None:
            warming.join()
        if click.get_current_context().find_root().obj == OWN_PROCESS:
            # The job's own process (not a program that called `main`), its cluster closed, so
            # nothing else imports now: the report reads Parquet without pandas.
            from pipeline.output.arrow import skip_pandas_probe

            skip_pandas_probe()
        try:
            html = write_html_report(report, cfg, where)
        except Exception as exc:  # the data are written: the run succeeded
            err.print(
                f"[yellow]warning: HTML report not written[/]: "
                f"{escape(f'{type(exc).__name__}: {exc}')}",
                soft_wrap=True,
            )
        else:
            out.print(f"HTML report: {escape(html)}", soft_wrap=True)
            if not charts_available():
                out.print(f"(tables only: {escape(CHARTS_HINT)} adds the charts)", soft_wrap=True)
    try:
        write_run_report(report, cfg, where)
    except Exception as exc:  # the output changed under the run (disk full, permissions)
        err.print(
            f"[yellow]warning: run report not written[/]: {escape(f'{type(exc).__name__}: {exc}')}",
            soft_wrap=True,
        )
    else:
        out.print(f"run report: {escape(where)}", soft_wrap=True)
    sys.exit(1 if result.failed else 0)


def _finish_site_stage(cfg: JobConfig) -> bool:
    """Publish what a site stage stopped while publishing left journaled; True if it did."""
    from fsspec.core import url_to_fs

    from pipeline.site.commit import SitePaths, publish

    fs, root = url_to_fs(cfg.output, **cfg.storage_dict if "://" in cfg.output else {})
    return fs.isdir(root) and publish(fs, SitePaths(root))


def run_as_program() -> None:
    """Run the job as this process's program: the entry point of ``jobs/clean_warcs.py``."""
    main(obj=OWN_PROCESS)
