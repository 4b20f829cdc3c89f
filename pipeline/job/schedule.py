"""Where the job runs and how its tasks are fed: the client, and one task per input.

`run_job` keeps at most a window of tasks in flight (twice the cluster's threads), submits each
input once under a deterministic key, resubmits inputs the cluster cancelled, and reports each
input as it ends; inputs with a completion marker are skipped, so running again resumes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import click
import dask
from dask.base import tokenize
from distributed import Client, LocalCluster, Worker, as_completed
from fsspec.core import url_to_fs

from pipeline.job.workers import WarmUp
from pipeline.jobconfig import JobConfig
from pipeline.output.stats import Stats, WarcReport
from pipeline.supervise import process_warc_supervised
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
