"""Clean WARC files into a partitioned Parquet corpus on a Dask cluster.

    dask submit jobs/clean_warcs.py INPUT... --output OUT [--scheduler tcp://host:8786]
    python jobs/clean_warcs.py INPUT... --output OUT

One task per input WARC (`pipeline.run.process_warc`; on worker processes it runs in a
supervised child that holds each page to its time cap, `pipeline.supervise`); inputs that
already have a completion marker are skipped, so re-running the same command resumes. This
script only schedules and reports: all cleaning and writing happens in the library, on the
workers.

Everything a user gives is checked before the cluster starts, as a usage error (exit 2): the
option values, the inputs (listed once each, symlinks resolved: `pipeline.warc.inputs`) and the
output, which must be writable and new, empty or an earlier warcclean output
(`pipeline.output.layout`).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import click
import dask
from dask.base import tokenize
from distributed import Client, LocalCluster, Worker, as_completed
from fsspec.core import url_to_fs

from pipeline.cleaners.registry import DEFAULT_CLEANER, make_cleaner
from pipeline.config import Limits
from pipeline.jobconfig import (
    DEFAULT_BATCH_ROWS,
    DEFAULT_FORMATS,
    FORMATS,
    JobConfig,
    freeze,
    parse_memory,
    parse_memory_limit,
    parse_pairs,
)
from pipeline.output.stats import Stats, WarcReport
from pipeline.supervise import process_warc_supervised
from pipeline.warc.inputs import input_stem, list_inputs
from pipeline.workers import WarmUp

if TYPE_CHECKING:
    import threading

    from rich.table import Table

# What only the client uses (the console, the output checks, the reports, the in-process path)
# is imported where it is used: each worker process of a local cluster runs this script's
# imports again (multiprocessing's spawn loads the main script), and those cost each worker a
# tenth of a second of CPU for nothing.

INPROC = "inproc"
# Each retry re-reads the whole input: more than a few only repeats a failure that is not passing.
MAX_RETRIES = 10
# A page that needs more than an hour is never worth its worker; the default is 20 seconds.
MAX_PAGE_SECONDS = 3600.0


@dataclass
class RunResult:
    """What a run did: per-input reports, failures, skipped inputs and the wall time."""

    reports: list[WarcReport] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def totals(self) -> Stats:
        return sum((r.stats for r in self.reports), Stats())


def pending_inputs(inputs: Sequence[str], cfg: JobConfig) -> tuple[list[str], list[str]]:
    """Split inputs into (to do, already done): done means ``_done/<stem>.json`` exists."""
    seen: dict[str, str] = {}
    for path in inputs:
        stem = input_stem(path)
        if stem in seen and seen[stem] != path:
            raise click.UsageError(f"inputs {seen[stem]!r} and {path!r} share output name {stem!r}")
        seen[stem] = path
    fs, root = url_to_fs(cfg.output, **cfg.storage_dict if "://" in cfg.output else {})
    done_dir = f"{root.rstrip('/')}/_done"
    # One listing instead of one existence check per input (thousands of HEADs on S3).
    done = (
        {p.rpartition("/")[2] for p in fs.ls(done_dir, detail=False)}
        if fs.exists(done_dir)
        else set()
    )
    todo = [p for p in inputs if f"{input_stem(p)}.json" not in done]
    skipped = [p for p in inputs if f"{input_stem(p)}.json" in done]
    return todo, skipped


def _workers_in_this_process(client: Client) -> bool:
    cluster = getattr(client, "cluster", None)
    workers = list(getattr(cluster, "workers", {}).values()) if cluster is not None else []
    # A threaded LocalCluster's workers are `Worker` objects here; process workers are Nannies.
    return bool(workers) and all(isinstance(w, Worker) for w in workers)


def run_job(
    client: Client,
    inputs: Sequence[str],
    cfg: JobConfig,
    *,
    retries: int = 2,
    window: int | None = None,
    on_report: Callable[[WarcReport | None, str], None] | None = None,
) -> RunResult:
    """Process ``inputs`` (those without a marker) with at most ``window`` tasks in flight."""
    started = time.perf_counter()
    todo, skipped = pending_inputs(inputs, cfg)
    result = RunResult(skipped=skipped)
    if window is None:
        threads = sum(client.nthreads().values()) or 1
        window = max(4, 2 * threads)
    queue = list(reversed(todo))
    # Workers that are threads of this very process (--scheduler inproc: tests, debugging) run
    # the tasks here too, so that what the caller patches or steps through is what runs.
    supervised = not _workers_in_this_process(client)
    if supervised:
        task = process_warc_supervised
    else:
        from pipeline.run import process_warc as task
    if queue:
        # Every worker, and any that joins later, loads the cleaner and data once, up front.
        client.register_plugin(WarmUp(cfg, start_children=supervised))
    config_token = tokenize(cfg)
    path_of: dict[str, str] = {}
    attempts: dict[str, int] = {}

    def submit(path: str) -> Any:
        again = attempts.get(path, 0)
        attempts[path] = again + 1
        # Deterministic keys: the same input and config name the same task on the dashboard.
        key = f"clean-warc-{input_stem(path)}-{tokenize(path, config_token)}"
        if again:
            key += f"-again{again}"
        path_of[key] = path
        return client.submit(task, path, cfg, key=key, retries=retries, pure=False)

    def submit_next() -> Any:
        return submit(queue.pop())

    pool = as_completed([submit_next() for _ in range(min(window, len(queue)))])
    for future in pool:
        path = path_of.pop(future.key)
        if future.status == "finished":
            report: WarcReport = future.result()
            result.reports.append(report)
        elif future.status == "cancelled" and attempts[path] <= retries:
            # Cancelled by the cluster, not failed: a worker killed at the wrong moment can
            # leave its task cancelled instead of rescheduled (seen once in a CI run of
            # tests/test_faults.py). The input is submitted again: its shards are written
            # atomically and committed by its marker, so a second attempt duplicates nothing.
            future.release()
            pool.add(submit(path))
            continue
        else:
            exc = future.exception()  # None for a task the cluster cancelled
            result.failed[path] = (
                f"{type(exc).__name__}: {exc}"
                if exc is not None
                else f"cancelled by the cluster {attempts[path]} time(s)"
            )
            report = None
        if on_report:
            on_report(report, path)
        future.release()
        if queue:
            pool.add(submit_next())
    result.seconds = time.perf_counter() - started
    return result


def run_report(result: RunResult, cfg: JobConfig, started_at: str) -> dict[str, Any]:
    totals = result.totals
    return {
        "started_at": started_at,
        "seconds": round(result.seconds, 3),
        "output": cfg.output,
        "cleaner": cfg.cleaner,
        "cleaner_params": cfg.params_dict,
        "formats": cfg.formats,
        "include_comments": cfg.include_comments,
        "inputs": {
            "processed": len(result.reports),
            "failed": len(result.failed),
            "skipped_done": len(result.skipped),
        },
        "totals": totals.to_dict(),
        # Records counts every WARC record (requests and metadata too); pages are the records
        # that could hold one (documents and rejects).
        "records_per_second": round(totals.records / result.seconds, 2) if result.seconds else None,
        "pages_per_second": (
            round((totals.records - totals.n_skipped) / result.seconds, 2)
            if result.seconds
            else None
        ),
        "failed": [{"input": p, "error": e} for p, e in sorted(result.failed.items())],
        "unbalanced": [r.warc_path for r in result.reports if not r.stats.balanced],
        "per_input": [
            {
                "input": r.warc_path,
                "records": r.stats.records,
                "docs": r.stats.docs,
                "rejects": r.stats.n_rejects,
                "seconds": round(r.seconds, 3),
            }
            for r in result.reports
        ],
    }


def write_run_report(report: dict[str, Any], cfg: JobConfig, path: str | None) -> str:
    if path is None:
        stamp = report["started_at"].replace(":", "").replace("-", "")
        path = f"{cfg.output.rstrip('/')}/_runs/{stamp}.json"
    from pipeline.output.sink import write_atomic

    fs, fs_path = url_to_fs(path, **cfg.storage_dict if "://" in path else {})
    write_atomic(fs, fs_path, json.dumps(report, indent=2).encode())
    return path


def html_report_path(json_path: str) -> str:
    """The HTML report's path: the JSON report's, with ``.html`` for ``.json``."""
    return json_path.removesuffix(".json") + ".html"


def write_html_report(report: dict[str, Any], cfg: JobConfig, json_path: str) -> str:
    """Write the HTML report of the whole output (this run and any before it) beside the JSON.

    Built from the output directory alone, as ``warcclean report OUT`` rebuilds it; this run's
    report is passed in as well in case ``--report`` put its JSON outside ``OUT/_runs/``.
    """
    from pipeline.report.run_report import write_report

    path = html_report_path(json_path)
    name = json_path.rpartition("/")[2]
    return write_report(
        cfg.output, path, storage_options=cfg.storage_dict, extra_runs=[(name, report)]
    )


def summary_table(result: RunResult) -> Table:
    from rich.table import Table

    from pipeline.report.run_report import STRUCTURE_KINDS

    totals = result.totals
    table = Table(title="warcclean run", show_header=True)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("inputs processed", str(len(result.reports)))
    table.add_row("inputs skipped (done)", str(len(result.skipped)))
    table.add_row("inputs failed", str(len(result.failed)), style="red" if result.failed else None)
    table.add_row("records read", f"{totals.records:,}")
    table.add_row("documents", f"{totals.docs:,}")
    for reason, n in totals.rejects.most_common():
        table.add_row(f"rejected: {reason}", f"{n:,}")
    for rec_type, n in totals.skipped.most_common():
        table.add_row(f"skipped: {rec_type} records", f"{n:,}")
    for kind, n in totals.issues.most_common():
        table.add_row(f"reader issue: {kind}", f"{n:,}")
    for kind in STRUCTURE_KINDS:
        table.add_row(f"documents with {kind}", f"{totals.structure.get(kind, 0):,}")
    for lang, n in totals.languages.most_common(10):
        table.add_row(f"language={lang}", f"{n:,}")
    rate = totals.records / result.seconds if result.seconds else 0.0
    table.add_row("wall seconds", f"{result.seconds:.1f}")
    table.add_row("records / s", f"{rate:.1f}")
    pages = totals.records - totals.n_skipped
    table.add_row("pages / s", f"{pages / result.seconds if result.seconds else 0.0:.1f}")
    return table


# Dask's own housekeeping on a local cluster, set quieter: every server (the scheduler, each
# nanny, each worker) checks its event loop every 20 ms and samples the system every 500 ms,
# and each nanny and worker reads its memory every 100 ms. Together that is 40 ms of CPU per
# second of the job on one worker, and 8 ms at these values (bench/overhead.py); a page costs
# under 10 ms. Dask's statistical profiler samples the task thread's stack every 10 ms, about
# 6% of the job's CPU (bench/pipeline.py), and is off. Each stays as the environment sets it
# (DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL=20ms): the dashboard's plots are coarser without it.
LOCAL_CLUSTER_CONFIG: dict[str, Any] = {
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.worker.profile.enabled": False,
}


def _env_name(key: str) -> str:
    return "DASK_" + key.upper().replace(".", "__").replace("-", "_")


def local_cluster_config() -> dict[str, Any]:
    """`LOCAL_CLUSTER_CONFIG` less what the environment sets itself."""
    return {k: v for k, v in LOCAL_CLUSTER_CONFIG.items() if _env_name(k) not in os.environ}


def warm_up_report() -> threading.Thread | None:
    """Start the HTML report's warm-up thread (`pipeline.report.run_report.warm_up`)."""
    from pipeline.report.run_report import warm_up

    return warm_up()


def make_client(
    scheduler: str | None, workers: int | None, threads: int, memory_limit: str | int | None
) -> Client:
    address = scheduler or dask.config.get("scheduler-address", None)
    if address == INPROC:
        return Client(LocalCluster(processes=False, n_workers=1, threads_per_worker=threads))
    if address:
        return Client(address)
    # Pages are pure-Python work that holds the GIL: processes with one thread each.
    n = workers or os.cpu_count() or 1
    with dask.config.set(local_cluster_config()):
        cluster = LocalCluster(
            n_workers=n, threads_per_worker=threads, processes=True, memory_limit=memory_limit
        )
    return Client(cluster)


def _memory_limit(ctx: click.Context, param: click.Parameter, value: str) -> str | int | None:
    try:
        return parse_memory_limit(value, "--memory-limit")
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


def _not_nan(ctx: click.Context, param: click.Parameter, value: float) -> float:
    # FloatRange lets NaN through: it compares false with both bounds.
    if math.isnan(value):
        raise click.BadParameter("expects a number of seconds, got nan", ctx=ctx, param=param)
    return value


def _isolate_memory(ctx: click.Context, param: click.Parameter, value: str) -> int | None:
    try:
        return parse_memory(value, "--isolate-memory")
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, required=True)
@click.option("--output", "-o", required=True, help="Output root: a directory or fsspec URL.")
@click.option("--cleaner", default=DEFAULT_CLEANER, show_default=True, help="Cleaner name.")
@click.option("--param", "params", multiple=True, metavar="K=V", help="Cleaner parameter.")
@click.option("--scheduler", default=None, help=f"Scheduler address, or '{INPROC}'.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Workers of the local cluster (no --scheduler) [default: CPUs].",
)
@click.option("--threads-per-worker", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--memory-limit",
    default="auto",
    show_default=True,
    callback=_memory_limit,
    help="Per worker of the local cluster: a size (4GiB), 'auto' or 'none'.",
)
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
@click.option(
    "--storage-option",
    "storage",
    multiple=True,
    metavar="K=V",
    help="fsspec option for remote paths, e.g. endpoint_url=http://...",
)
@click.option("--report", "report_path", default=None, help="Run report path.")
@click.option("--base-url", default=None, help="Prefix for relative paths in paths files.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option(
    "--retries",
    type=click.IntRange(min=0, max=MAX_RETRIES),
    default=2,
    show_default=True,
    help="Dask retries of a failed input.",
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
    "--no-html-report",
    is_flag=True,
    help="Write no HTML report (it counts the whole output; `warcclean report OUT` builds it).",
)
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
) -> None:
    """Clean INPUT WARC files (files, directories, globs, URLs or paths files) into --output."""
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from pipeline.output.layout import OutputError, check_output, check_report_path
    from pipeline.report.charts import INSTALL_HINT as CHARTS_HINT
    from pipeline.report.charts import available as charts_available

    try:
        cfg = JobConfig(
            output=output,
            cleaner=cleaner,
            params=freeze(parse_pairs(params)),
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
        )
        paths = list_inputs(list(inputs), base_url=base_url, storage_options=cfg.storage_dict)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        # Built here once so that an unknown cleaner or parameter stops the job with a usage
        # error, instead of failing every task on the workers.
        make_cleaner(cfg.cleaner, **cfg.params_dict)
    except (ValueError, TypeError) as exc:
        raise click.UsageError(f"--cleaner {cleaner} with --param {params or '()'}: {exc}") from exc
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
    out = Console()
    err = Console(stderr=True)
    started_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    # matplotlib loads while the workers run, so the report costs only its drawing at the end.
    warming = None if no_html_report else warm_up_report()
    with make_client(scheduler, workers, threads_per_worker, memory_limit) as client:
        err.print(f"[bold]{len(paths)}[/] inputs, dashboard: {client.dashboard_link}")
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

            def on_report(report: WarcReport | None, path: str) -> None:
                nonlocal seen, nbytes
                if report is not None:
                    seen = seen + report.stats
                    nbytes += report.input_bytes
                else:
                    err.print(f"[red]failed[/] {escape(path)}", soft_wrap=True)
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
    out.print(summary_table(result))
    for path, error in sorted(result.failed.items()):
        out.print(f"[red]FAILED[/] {escape(path)}: {escape(error)}", soft_wrap=True)
    report = run_report(result, cfg, started_at)
    try:
        where = write_run_report(report, cfg, report_path)
    except Exception as exc:  # the output changed under the run (disk full, permissions)
        err.print(
            f"[red]run report not written[/]: {escape(f'{type(exc).__name__}: {exc}')}",
            soft_wrap=True,
        )
        sys.exit(1)
    out.print(f"run report: {escape(where)}", soft_wrap=True)
    if not no_html_report:
        if warming is not None:
            warming.join()
        if __name__ == "__main__":
            # The job's own process (not a program that imported this script), its cluster
            # closed, so nothing else imports now: the report reads Parquet without pandas.
            from pipeline.output.arrow import skip_pandas_probe

            skip_pandas_probe()
        try:
            html = write_html_report(report, cfg, where)
        except Exception as exc:  # the data and the JSON report are written: the run succeeded
            err.print(
                f"[yellow]HTML report not written[/]: {escape(f'{type(exc).__name__}: {exc}')}"
            )
        else:
            out.print(f"HTML report: {escape(html)}", soft_wrap=True)
            if not charts_available():
                out.print(f"(tables only: {escape(CHARTS_HINT)} adds the charts)", soft_wrap=True)
    sys.exit(1 if result.failed else 0)


if __name__ == "__main__":
    main()
