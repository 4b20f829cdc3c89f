"""Where the job runs and how its tasks are fed: the client, and one task per input.

`run_job` keeps at most a window of tasks in flight (twice the cluster's threads), submits each
input once under a deterministic key, and reports each input as it ends; inputs with a
completion marker are skipped, so running again resumes. It retries, itself, an input whose
task failed in a way another attempt could mend, and one the cluster cancelled; never one that
every attempt would fail the same way (`pipeline.job.task`).
"""

from __future__ import annotations

import logging
import os
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import click
import dask
from dask.base import tokenize
from distributed import Client, LocalCluster, Worker, as_completed
from fsspec.core import url_to_fs

from pipeline.job.logs import LogLevel
from pipeline.job.task import InputFailure, clean_input, describe
from pipeline.job.workers import NoPandasProbe, WarmUp
from pipeline.jobconfig import JobConfig
from pipeline.output.stats import Stats, WarcReport
from pipeline.warc.inputs import input_stem

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
    # The traceback of each failed input's last attempt (shown with --verbose).
    tracebacks: dict[str, str] = field(default_factory=dict)
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
    on_report: Callable[[WarcReport | InputFailure, str], None] | None = None,
) -> RunResult:
    """Process ``inputs`` (those without a marker) with at most ``window`` tasks in flight.

    An input is tried at most ``1 + retries`` times; ``on_report`` is called once per input,
    when it ends, with its report or its (last) failure.
    """
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
        # No retries by Dask: the task returns its failure, and whether to retry is ours.
        return client.submit(clean_input, path, cfg, supervised, key=key, retries=0, pure=False)

    def submit_next() -> Any:
        return submit(queue.pop())

    pool = as_completed([submit_next() for _ in range(min(window, len(queue)))])
    for future in pool:
        path = path_of.pop(future.key)
        outcome = _outcome(future, path, attempts[path])
        future.release()
        if isinstance(outcome, InputFailure) and outcome.retry and attempts[path] <= retries:
            # A cancelled task (a worker killed at the wrong moment can leave its task cancelled
            # instead of rescheduled: seen once in a CI run of tests/test_faults.py), or a
            # failure another attempt could mend (a read that timed out, a worker's child that
            # died). Its shards are written atomically and committed by its marker, so a second
            # attempt duplicates nothing.
            pool.add(submit(path))
            continue
        if isinstance(outcome, InputFailure):
            result.failed[path] = outcome.error
            result.tracebacks[path] = outcome.traceback
        else:
            result.reports.append(outcome)
        if on_report:
            on_report(outcome, path)
        if queue:
            pool.add(submit_next())
    result.seconds = time.perf_counter() - started
    return result


def _outcome(future: Any, path: str, attempts: int) -> WarcReport | InputFailure:
    """What a finished future says of its input: the task's own value, or the cluster's error."""
    if future.status == "finished":
        return future.result()
    if future.status == "cancelled":
        return InputFailure(path, f"cancelled by the cluster {attempts} time(s)", retry=True)
    # An error outside the task's own handling: a worker that died under it too often
    # (KilledWorker, after Dask's own reschedules), or a task that could not be unpickled.
    exc = future.exception()
    text = "".join(traceback.format_exception(type(exc), exc, future.traceback()))
    return InputFailure(path, describe(exc), retry=False, traceback=text)


# Dask's own housekeeping on a local cluster, set quieter: every server (the scheduler, each
# nanny, each worker) checks its event loop every 20 ms and samples the system every 500 ms,
# and each nanny and worker reads its memory every 100 ms. Together that is 40 ms of CPU per
# second of the job on one worker, and 8 ms at these values (bench/overhead.py); a page costs
# under 10 ms. Dask's statistical profiler samples the task thread's stack every 10 ms, about
# 6% of the job's CPU (bench/pipeline.py), and is off. Each stays as the environment sets it
# (DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL=20ms): the dashboard's plots are coarser without it.
# Arrow's allocator (mimalloc) asks the kernel for transparent huge pages where it may (THP in
# "madvise" mode, many distributions' default), and each first touch of one zeroes 2 MiB: in a
# worker's first large Parquet read and write (the site stage's task), about 30% of the task's
# CPU went to zeroing pages (perf). Workers start with it off unless their environment sets
# MIMALLOC_ALLOW_THP itself (Dask's own precedence); BENCHMARKS.md, "Arrow's huge pages".
LOCAL_CLUSTER_CONFIG: dict[str, Any] = {
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.worker.profile.enabled": False,
    "distributed.nanny.pre-spawn-environ.MIMALLOC_ALLOW_THP": "0",
}


def _env_name(key: str) -> str:
    return "DASK_" + key.upper().replace(".", "__").replace("-", "_")


def local_cluster_config() -> dict[str, Any]:
    """`LOCAL_CLUSTER_CONFIG` less what the environment sets itself."""
    return {k: v for k, v in LOCAL_CLUSTER_CONFIG.items() if _env_name(k) not in os.environ}


class SchedulerUnreachable(click.ClickException):
    """The cluster's address is not a scheduler's, or nothing answers there: said in one line
    before anything runs, instead of Dask's traceback."""


def _connect(address: str) -> Client:
    where = "the scheduler address (--scheduler, or DASK_SCHEDULER_ADDRESS)"
    try:
        return Client(address)
    except ValueError as exc:  # distributed's address parser: scheme, host or port
        raise SchedulerUnreachable(
            f"{where} {address!r} is not a Dask scheduler's address ({exc}); give it as "
            "tcp://host:8786 (the dashboard's http:// address is another one)"
        ) from exc
    except OSError as exc:  # refused, timed out, unknown host
        raise SchedulerUnreachable(
            f"no Dask scheduler answers at {address}, {where}: {exc}. Start one (`dask "
            "scheduler`, then `dask worker ADDRESS`) or leave the address out to run on a "
            "local cluster"
        ) from exc


@contextmanager
def make_client(
    scheduler: str | None,
    workers: int | None,
    threads: int,
    memory_limit: str | int | None,
    log_level: int = logging.WARNING,
) -> Iterator[Client]:
    """A client of the cluster at ``scheduler`` (or Dask's configured address), of threads of
    this process (`INPROC`), or of a new local cluster of ``workers`` processes, for the block.

    A cluster started here closes with the block, its workers before its scheduler: left to
    the interpreter's exit, an in-process worker could send its heartbeat to a scheduler
    already closed and print Dask's traceback under the job's last line (seen once in CI)."""
    address = scheduler or dask.config.get("scheduler-address", None)
    cluster: LocalCluster | None = None
    if address == INPROC:
        # For debugging and tests: its dashboard on any free port (the job prints the link).
        # The profiler must be off here above all: its sys._current_frames() deadlocks CPython
        # 3.11 when a garbage collection inside it frees a threading.local, whose clearing
        # takes the interpreter's head lock that the call already holds, with the GIL held
        # (python/cpython#106883): every thread of the process stops. CI saw the job so,
        # cleaning a page in this process's worker thread.
        with dask.config.set(local_cluster_config()):
            cluster = LocalCluster(
                processes=False,
                n_workers=1,
                threads_per_worker=threads,
                dashboard_address=":0",
                silence_logs=log_level,
            )
        client = Client(cluster)
    elif address:
        client = _connect(address)
    else:
        # Pages are pure-Python work that holds the GIL: processes with one thread each.
        n = workers or os.cpu_count() or 1
        with dask.config.set(local_cluster_config()), warnings.catch_warnings():
            # With port 8787 taken (another cluster on the machine), Dask warns in three lines
            # and uses another port; the job's first line gives the dashboard's real address.
            warnings.filterwarnings("ignore", message=r"Port \d+ is already in use")
            cluster = LocalCluster(
                n_workers=n,
                threads_per_worker=threads,
                processes=True,
                memory_limit=memory_limit,
                silence_logs=log_level,
            )
        client = Client(cluster)
        client.register_plugin(NoPandasProbe())
    try:
        client.register_plugin(LogLevel(log_level))
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
