"""Faults during a run: a worker SIGKILLed, the client killed and re-run, an output disk error.

In each case the dataset must end with every record exactly once, equal row for row to an
uninterrupted run's, or (for the disk error) the failing input must be reported loudly while the
others complete.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import fsspec.implementations.local as fsspec_local
import pytest
from click.testing import CliRunner
from distributed import Client, LocalCluster

from pipeline.job import command, schedule
from pipeline.jobconfig import JobConfig
from pipeline.warc.inputs import input_stem
from tests.jobhelpers import JOB_SCRIPT, REPO, dask_cluster, rows
from tests.warc_builders import build_warc, html_response, plain_record, request_record

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

N_INPUTS = 10
PAGES_PER_INPUT = 30

WORDS = (
    "river town people bank water spring boat story visitor summer harbour bridge market "
    "church mill valley road field winter school"
).split()


def article(i: int, j: int) -> str:
    # Distinct, deterministic English prose per page, long enough for jusText to keep.
    sentences = [
        f"The {WORDS[(i + k) % len(WORDS)]} of page {i}-{j} is where the people of the town "
        f"go when they want to talk about the {WORDS[(j + k) % len(WORDS)]} and its history."
        for k in range(8)
    ]
    menu = "<div class='menu'><a href='/'>Home</a></div>"
    return f"<html><body>{menu}<p>{' '.join(sentences)}</p></body></html>"


def make_inputs(directory: Path, n: int = N_INPUTS) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        records = [plain_record("warcinfo", "", b"software: test")]
        for j in range(PAGES_PER_INPUT):
            url = f"https://site{i}.example/{j}"
            records.append(request_record(url))
            records.append(html_response(url, article(i, j)))
        path = directory / f"crawl-{i:02d}.warc.gz"
        path.write_bytes(build_warc(records))
        paths.append(str(path))
    return paths


def reference_rows(inputs: list[str], out: Path) -> list[str]:
    from pipeline.job.site_stage import run_site_stage
    from pipeline.site.rule import SiteSettings

    with (
        LocalCluster(
            processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        result = schedule.run_job(client, inputs, JobConfig(output=str(out)))
        # The job ends with the site stage (its defaults): so does the reference.
        run_site_stage(client, str(out), SiteSettings())
    assert not result.failed
    ref = rows(out)
    assert len(ref) == N_INPUTS * PAGES_PER_INPUT
    return ref


def markers(out: Path) -> set[str]:
    done = out / "_done"
    return {p.name for p in done.glob("*.json")} if done.exists() else set()


def wait_for_first_marker(out: Path, proc: subprocess.Popen, timeout: float = 120) -> set[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = markers(out)
        if found:
            return found
        if proc.poll() is not None:
            raise AssertionError(f"the job exited ({proc.returncode}) before any input finished")
        time.sleep(0.02)
    raise AssertionError("no input finished in time")


def job_command(inputs: list[str], out: Path, report: Path, scheduler: str) -> list[str]:
    return [
        sys.executable,
        str(JOB_SCRIPT),
        *inputs,
        "--output",
        str(out),
        "--scheduler",
        scheduler,
        "--no-progress",
        "--report",
        str(report),
    ]


@contextlib.contextmanager
def running(cmd: list[str], log: Path):
    with log.open("wb") as handle:
        proc = subprocess.Popen(
            cmd, stdout=handle, stderr=subprocess.STDOUT, cwd=REPO, start_new_session=True
        )
        try:
            yield proc
        finally:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def test_sigkill_a_worker_mid_run_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in")
    expected = reference_rows(inputs, tmp_path / "ref")
    out = tmp_path / "out"
    with dask_cluster(tmp_path / "logs") as address:
        with Client(address) as client:
            worker_pids = client.run(os.getpid)  # the worker processes, not their nannies
        assert len(worker_pids) == 2
        cmd = job_command(inputs, out, tmp_path / "report.json", address)
        with running(cmd, tmp_path / "job.log") as proc:
            done_at_kill = wait_for_first_marker(out, proc)
            victim = sorted(worker_pids.values())[0]
            os.kill(victim, signal.SIGKILL)
            returncode = proc.wait(timeout=300)
    log = (tmp_path / "job.log").read_text(errors="replace")
    assert returncode == 0, log
    assert len(done_at_kill) < N_INPUTS, "the kill came after the run had finished"
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["inputs"]["processed"] == N_INPUTS and not report["failed"]
    assert report["totals"]["docs"] == N_INPUTS * PAGES_PER_INPUT
    assert rows(out) == expected  # every record exactly once
    assert not list(out.rglob(".*.tmp"))


def test_killed_client_rerun_processes_only_unfinished_inputs(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in")
    expected = reference_rows(inputs, tmp_path / "ref")
    out = tmp_path / "out"
    # "inproc": the client process holds the scheduler and worker, so killing it stops all work
    # at once and no straggler task can finish while the second run is counting.
    first = job_command(inputs, out, tmp_path / "first.json", "inproc")
    with running(first, tmp_path / "first.log") as proc:
        wait_for_first_marker(out, proc)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finished = markers(out)
    assert 1 <= len(finished) < N_INPUTS, finished
    assert not (tmp_path / "first.json").exists()  # it never got to write its report

    second = subprocess.run(
        job_command(inputs, out, tmp_path / "second.json", "inproc"),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        check=False,
    )
    assert second.returncode == 0, second.stdout + second.stderr
    report = json.loads((tmp_path / "second.json").read_text())
    assert report["inputs"]["skipped_done"] == len(finished)
    assert report["inputs"]["processed"] == N_INPUTS - len(finished)
    reprocessed = {input_stem(r["input"]) + ".json" for r in report["per_input"]}
    assert reprocessed.isdisjoint(finished)
    assert rows(out) == expected
    assert not list(out.rglob(".*.tmp"))


class _FailingWrites:
    """A file whose writes fail as a full or read-only disk would."""

    def __init__(self, handle: object, code: int) -> None:
        self._handle = handle
        self._code = code

    def write(self, data: bytes) -> int:
        raise OSError(self._code, os.strerror(self._code))

    def __getattr__(self, name: str) -> object:
        return getattr(self._handle, name)

    def __enter__(self) -> _FailingWrites:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES])
def test_output_disk_error_fails_one_input_loudly_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    inputs = make_inputs(tmp_path / "in", n=4)
    bad = inputs[1]
    bad_stem = input_stem(bad)
    real_open = fsspec_local.LocalFileSystem._open

    def failing_open(self, path, mode="rb", *args, **kwargs):  # type: ignore[no-untyped-def]
        handle = real_open(self, path, mode, *args, **kwargs)
        if "w" in mode and bad_stem in str(path):
            return _FailingWrites(handle, code)
        return handle

    # "inproc" runs the tasks in this process's threads, so the patch reaches them.
    monkeypatch.setattr(fsspec_local.LocalFileSystem, "_open", failing_open)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        command.main,
        [
            *inputs,
            "--output",
            str(out),
            "--scheduler",
            "inproc",
            "--no-progress",
            "--report",
            str(tmp_path / "report.json"),
        ],
    )
    assert result.exit_code == 1, result.output
    assert "FAILED" in result.output and bad_stem.rsplit("-", 1)[0] in result.output
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["inputs"] == {"processed": 3, "failed": 1, "skipped_done": 0}
    (failure,) = report["failed"]
    assert failure["input"] == bad
    # The cause alone: the input is the entry's other field.
    assert failure["error"].endswith(f"Error: [Errno {code}] {os.strerror(code)}")
    assert markers(out) == {input_stem(p) + ".json" for p in inputs if p != bad}
    # Nothing of the failed input is visible to readers (hidden temp names aside, see below).
    assert not [p for p in out.rglob("*") if bad_stem in p.name and not p.name.startswith(".")]
    assert len(rows(out)) == 3 * PAGES_PER_INPUT


def test_disk_error_at_first_write_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.run import process_warc

    (path,) = make_inputs(tmp_path / "in", n=1)
    real_open = fsspec_local.LocalFileSystem._open

    def failing_open(self, p, mode="rb", *args, **kwargs):  # type: ignore[no-untyped-def]
        handle = real_open(self, p, mode, *args, **kwargs)
        return _FailingWrites(handle, errno.ENOSPC) if "w" in mode else handle

    monkeypatch.setattr(fsspec_local.LocalFileSystem, "_open", failing_open)
    with pytest.raises(Exception, match="No space left"):
        process_warc(path, JobConfig(output=str(tmp_path / "out")))
    assert not list((tmp_path / "out").rglob(".*.tmp"))
