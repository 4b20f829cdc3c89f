"""The job on a real cluster: ``dask scheduler`` + two ``dask worker`` processes on 127.0.0.1."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from pipeline.job import schedule
from pipeline.jobconfig import JobConfig
from tests.jobhelpers import DASK, JOB_SCRIPT, REPO, dask_cluster, make_inputs, rows

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_scheduler_and_two_workers_give_the_same_rows(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in", n=5)
    with (
        LocalCluster(
            processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        reference = schedule.run_job(client, inputs, JobConfig(output=str(tmp_path / "ref")))
    assert not reference.failed

    with dask_cluster(tmp_path / "logs") as address:
        proc = subprocess.run(
            [
                DASK,
                "submit",
                str(JOB_SCRIPT),
                *inputs,
                "--output",
                str(tmp_path / "out"),
                "--no-progress",
                "--scheduler",
                address,
                # The site stage's tasks would fill the workers' bounded transition logs that
                # this test reads; tests/test_site_stage.py runs the stage on such a cluster.
                "--site-repeats",
                "0",
            ],
            capture_output=True,
            text=True,
            timeout=240,
            cwd=REPO,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        with Client(address) as client:
            workers = client.scheduler_info()["workers"]
            # both workers took part: each ran at least one of the five tasks
            # a lambda is pickled by value: the workers cannot import this test module
            done = client.run(
                lambda dask_worker: sum("clean-warc-" in str(e) for e in dask_worker.state.log)
            )
            # each worker process started its warm children once, through the plugin, and
            # loaded no cleaner itself: the children clean
            warmed = client.run(
                lambda dask_worker: (
                    sorted(n for n in dask_worker.plugins if n.startswith("warcclean-warm-up")),
                    any(c.warmed for c in __import__("pipeline.supervise", fromlist=["_"])._IDLE)
                    and "pipeline.run" not in __import__("sys").modules,
                )
            )
    assert len(workers) == 2
    assert all(n >= 1 for n in done.values()), done
    assert all(
        names == ["warcclean-warm-up-neighbours-{}"] and built for names, built in warmed.values()
    ), warmed
    assert rows(tmp_path / "out") == rows(tmp_path / "ref")


def test_a_worker_that_cannot_warm_up_still_starts_and_says_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from pipeline import supervise
    from pipeline.job.workers import WarmUp
    from pipeline.jobconfig import freeze

    cfg = JobConfig(output="unused", cleaner="neighbours", params=freeze({"model": "/no/model"}))
    worker = type("FakeWorker", (), {"address": "tcp://127.0.0.1:1"})()
    # A worker that cleans in its own threads warms up itself ...
    WarmUp(cfg, start_children=False).setup(worker)  # logs, does not raise
    assert "warm-up failed on tcp://127.0.0.1:1" in caplog.text
    assert "/no/model" in caplog.text
    caplog.clear()
    # ... one with children has them warm up, and says why they could not. An idle child left
    # by an earlier test (a spare started for a slow page) would fill the pool instead, and
    # nothing would warm up here: start from none.
    supervise.shutdown()
    WarmUp(cfg).setup(worker)
    assert "child warm-up failed" in caplog.text
    assert "/no/model" in caplog.text
    supervise.shutdown()


def test_the_jobs_own_workers_turn_arrow_into_numpy_without_importing_pandas() -> None:
    # The site stage's one task turns Arrow arrays into numpy on a worker; pyarrow's first
    # conversion imports pandas unless its probe was settled. The job's own cluster settles it
    # at worker start-up (a worker of any other cluster would import pandas here).
    def convert() -> tuple[bool, bool, list[int]]:
        import sys

        import pyarrow as pa

        before = "pandas" in sys.modules
        values = pa.array([1, 2, 3]).to_numpy().tolist()
        return before, "pandas" in sys.modules, values

    with schedule.make_client(None, 1, 1, "1GiB") as client:
        assert (
            "warcclean-no-pandas-probe"
            in client.run(lambda dask_worker: list(dask_worker.plugins)).popitem()[1]
        )
        (result,) = client.run(convert).values()
        client.cluster.close()
    assert result == (False, False, [1, 2, 3])


@pytest.mark.parametrize("scheduler", [schedule.INPROC, None])
def test_the_jobs_own_workers_run_no_profiler(scheduler: str | None, monkeypatch) -> None:
    # Dask's profiler calls sys._current_frames() every 10 ms, which can deadlock CPython 3.11
    # (python/cpython#106883): CI saw a job with --scheduler inproc stop for good so. Off
    # whatever the caller's configuration says, unless the environment sets the key itself.
    import dask

    monkeypatch.delenv("DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED", raising=False)
    with (
        dask.config.set({"distributed.worker.profile.enabled": True}),
        schedule.make_client(scheduler, 1, 1, "1GiB") as client,
    ):
        callbacks = client.run(lambda dask_worker: sorted(dask_worker.periodic_callbacks))
        client.cluster.close()
    ((_, names),) = callbacks.items()
    assert "heartbeat" in names  # the worker's own callbacks are there
    assert "profile" not in names and "profile-cycle" not in names
