"""How the job feeds its cluster (`pipeline.job.schedule`): which inputs are pending, where the
tasks run, the warm-up, the run's own time, and the clients `make_client` makes."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import click
import pytest
from distributed import Client, LocalCluster, Worker

from pipeline.job import schedule
from pipeline.jobconfig import JobConfig
from tests.jobhelpers import make_inputs


def test_inputs_sharing_an_output_name_are_refused_and_one_given_twice_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Output names carry a hash of the whole path, so only a hash collision shares one: made
    # here by naming every input alike.
    monkeypatch.setattr(schedule, "input_stem", lambda path: "crawl")
    cfg = JobConfig(output=str(tmp_path / "out"))
    one, other = tmp_path / "a" / "crawl.warc.gz", tmp_path / "b" / "crawl.warc.gz"
    with pytest.raises(click.UsageError, match="share output name 'crawl'") as refused:
        schedule.pending_inputs([str(one), str(other)], cfg)
    assert str(one) in str(refused.value) and str(other) in str(refused.value)
    todo, done = schedule.pending_inputs([str(one), str(one)], cfg)
    assert todo == [str(one), str(one)] and done == []


def _client_of(*workers: object) -> SimpleNamespace:
    return SimpleNamespace(cluster=SimpleNamespace(workers=dict(enumerate(workers))))


def test_tasks_run_here_only_when_every_worker_is_a_thread_of_this_process() -> None:
    here = object.__new__(Worker)  # a `Worker` object, as a threaded LocalCluster holds
    nanny = object()  # what a process cluster holds instead: a Nanny
    assert schedule._workers_in_this_process(_client_of(here))
    assert schedule._workers_in_this_process(_client_of(here, here))
    assert not schedule._workers_in_this_process(_client_of(nanny))
    assert not schedule._workers_in_this_process(_client_of(here, nanny))
    # No workers known (a remote scheduler's client has no cluster object).
    assert not schedule._workers_in_this_process(_client_of())
    assert not schedule._workers_in_this_process(SimpleNamespace())


def _plugins(client: Client) -> list[str]:
    return [
        name
        for names in client.run(lambda dask_worker: list(dask_worker.plugins)).values()
        for name in names
    ]


def test_workers_warm_up_only_for_a_run_with_work_and_the_run_times_itself(
    tmp_path: Path,
) -> None:
    inputs = make_inputs(tmp_path / "in", n=2)
    cfg = JobConfig(output=str(tmp_path / "out"))
    with (
        LocalCluster(
            processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        started = time.perf_counter()
        result = schedule.run_job(client, inputs[:1], cfg)
        took = time.perf_counter() - started
        assert len(result.reports) == 1
        assert 0 < result.seconds <= took
        warm = [name for name in _plugins(client) if name.startswith("warcclean-warm-up-")]
        assert warm == [f"warcclean-warm-up-{cfg.cleaner}-{cfg.params_json()}"]
    # Nothing to do: no warm-up is registered, on a fresh cluster.
    with (
        LocalCluster(
            processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        again = schedule.run_job(client, inputs[:1], cfg)
        assert again.skipped == inputs[:1] and not again.reports
        assert not [name for name in _plugins(client) if name.startswith("warcclean-warm-up")]


def test_an_inproc_client_has_one_worker_of_threads_in_this_process() -> None:
    with schedule.make_client(schedule.INPROC, None, 2, None) as client:
        workers = list(client.cluster.workers.values())
        assert len(workers) == 1 and isinstance(workers[0], Worker)
        assert list(client.nthreads().values()) == [2]
        assert schedule._workers_in_this_process(client)
        cluster = client.cluster
    # The cluster it started closes with the block, not at the interpreter's exit.
    assert client.status == "closed" and cluster.status.name == "closed"
    assert not cluster.workers and cluster.scheduler.status.name == "closed"


def test_a_local_client_has_the_workers_asked_for_as_processes(monkeypatch) -> None:
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    with schedule.make_client(None, 2, 1, "1GiB") as client:
        assert sorted(client.nthreads().values()) == [1, 1]
        assert not schedule._workers_in_this_process(client)
        # The job's own local cluster settles pyarrow's pandas probe in every worker.
        assert all(
            "warcclean-no-pandas-probe" in names
            for names in client.run(lambda dask_worker: list(dask_worker.plugins)).values()
        )


def test_local_workers_start_without_arrows_huge_pages_unless_the_environment_says(
    monkeypatch,
) -> None:
    # Dask's nanny writes its pre-spawn variables into this process's environment as it starts
    # a worker, so an earlier test's cluster may have left the variable here: start clean.
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    monkeypatch.delenv("MIMALLOC_ALLOW_THP", raising=False)
    with schedule.make_client(None, 1, 1, "1GiB") as client:
        seen = client.run(lambda: __import__("os").environ.get("MIMALLOC_ALLOW_THP"))
    assert list(seen.values()) == ["0"]
    monkeypatch.setenv("MIMALLOC_ALLOW_THP", "1")
    with schedule.make_client(None, 1, 1, "1GiB") as client:
        seen = client.run(lambda: __import__("os").environ.get("MIMALLOC_ALLOW_THP"))
    assert list(seen.values()) == ["1"]


def test_a_local_client_without_a_count_has_a_worker_per_cpu(monkeypatch) -> None:
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    monkeypatch.setattr(schedule.os, "cpu_count", lambda: 1)
    with schedule.make_client(None, None, 1, "1GiB") as client:
        assert list(client.nthreads().values()) == [1]
    monkeypatch.setattr(schedule.os, "cpu_count", lambda: None)  # unknown: one
    with schedule.make_client(None, None, 1, "1GiB") as client:
        assert list(client.nthreads().values()) == [1]


# The task below runs on the in-process cluster's worker thread, but Dask pickles it: a function
# of this module goes by reference, so these module globals are the test's own.
_FAILING: set[str] = set()
_CALLS: list[str] = []


def _task_that_errs(path: str, *args: object) -> object:
    _CALLS.append(path)
    if path in _FAILING:
        raise RuntimeError("the worker went away")
    return schedule_clean_input(path, *args)


schedule_clean_input = schedule.clean_input


def test_an_error_outside_the_tasks_own_handling_fails_the_input_once(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a worker dying under the task too often (KilledWorker) or a task that cannot be
    # unpickled gives: the future itself errs, where the task would have returned its failure.
    # Such an error is not retried: Dask has already rescheduled the task as often as allowed.
    inputs = make_inputs(tmp_path / "in", n=2)
    _CALLS.clear()
    monkeypatch.setattr(sys.modules[__name__], "_FAILING", {inputs[0]})
    monkeypatch.setattr(schedule, "clean_input", _task_that_errs)
    result = schedule.run_job(client, inputs, JobConfig(output=str(tmp_path / "out")))
    assert sorted(_CALLS) == sorted(inputs)
    assert result.failed == {inputs[0]: "RuntimeError: the worker went away"}
    assert "Traceback" in result.tracebacks[inputs[0]]
    assert "the worker went away" in result.tracebacks[inputs[0]]
    assert [r.warc_path for r in result.reports] == [inputs[1]]


def test_a_retry_is_a_new_task_named_after_the_first(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline import run

    inputs = make_inputs(tmp_path / "in", n=1)
    real_process, real_submit = run.process_warc, client.submit
    failed: list[str] = []
    keys: list[str] = []

    def process_warc(path: str, cfg: JobConfig, **kwargs: object) -> object:
        if not failed:
            failed.append(path)
            raise ConnectionResetError("reset by peer")  # mended by another attempt
        return real_process(path, cfg, **kwargs)

    def submit(*args: object, key: str, **kwargs: object) -> object:
        keys.append(key)
        return real_submit(*args, key=key, **kwargs)

    monkeypatch.setattr(run, "process_warc", process_warc)
    monkeypatch.setattr(client, "submit", submit)
    result = schedule.run_job(client, inputs, JobConfig(output=str(tmp_path / "out")))
    assert not result.failed and len(result.reports) == 1
    stem = schedule.input_stem(inputs[0])
    assert len(keys) == 2 and re.fullmatch(rf"clean-warc-{re.escape(stem)}-[0-9a-f]+", keys[0])
    assert keys[1] == keys[0] + "-again1"
