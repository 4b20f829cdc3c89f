"""Helpers shared by the job tests: load the job script, build inputs, read the output."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds

from tests.test_run import ARTICLE_DE, ARTICLE_EN
from tests.warc_builders import build_warc, html_response, plain_record, request_record

REPO = Path(__file__).resolve().parents[1]
JOB_SCRIPT = REPO / "jobs" / "clean_warcs.py"


def ended_pid() -> int:
    """The id of a process that has ended (no other process takes it this soon): the holder of
    a lock left by a killed job."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    return int(done.stdout)


def stale_lock(out: Path, **fields: object) -> None:
    """The output lock of a job that is gone: a process of this host that has ended, unless
    ``fields`` say otherwise (``host="elsewhere.example"``: a job this host cannot tell about)."""
    import json

    from pipeline.output.lock import LOCK_NAME

    out.mkdir(parents=True, exist_ok=True)
    holder = {
        "host": socket.gethostname(),
        "pid": ended_pid(),
        "process_started": 1.0,
        "started_at": "2026-01-01T00:00:00Z",
        "cleaner": "justext",
        "command": "warcclean run old",
        "token": "0123",
        **fields,
    }
    (out / LOCK_NAME).write_text(json.dumps(holder))


def make_inputs(directory: Path, n: int = 4) -> list[str]:
    """``n`` small WARCs with different mixes of pages, requests and rejects."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        records = [plain_record("warcinfo", "", b"software: test")]
        for j in range(i + 2):
            url = f"https://site{i}.example/{j}"
            records.append(request_record(url))
            article = ARTICLE_EN if (i + j) % 2 else ARTICLE_DE
            records.append(html_response(url, article.replace("river", f"river {i}-{j}")))
        records.append(html_response(f"https://site{i}.example/x", "<p>x</p>", status=404))
        path = directory / f"crawl-{i:02d}.warc.gz"
        path.write_bytes(build_warc(records))
        paths.append(str(path))
    return paths


def rows(out: Path | str, drop: tuple[str, ...] = (), filesystem: Any = None) -> list[str]:
    """Every document row as a comparable string, sorted; ``drop`` leaves columns out."""
    table = ds.dataset(
        f"{out}/docs", format="parquet", partitioning="hive", filesystem=filesystem
    ).to_table()
    keep = [c for c in table.column_names if c not in drop]
    return sorted(repr([(k, r[k]) for k in keep]) for r in table.select(keep).to_pylist())


DASK = str(Path(sys.executable).with_name("dask"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(procs: list[subprocess.Popen]) -> None:
    # Workers first, then the scheduler; each process group is ours (start_new_session).
    for proc in reversed(procs):
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for proc in reversed(procs):
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


def spawn(args: list[str], log: Path) -> subprocess.Popen:
    handle = log.open("wb")
    return subprocess.Popen(
        args, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True, cwd=REPO
    )


@contextlib.contextmanager
def dask_cluster(
    logs: Path,
    scheduler_cmd: list[str] | None = None,
    worker_cmds: list[list[str]] | None = None,
    *,
    timeout: float = 60,
) -> Iterator[str]:
    """A real ``dask scheduler`` and workers as processes on 127.0.0.1; yields the address.

    ``{port}`` in the commands is replaced by a free port. Every process is stopped on exit,
    whatever happened.
    """
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler_cmd = scheduler_cmd or [DASK, "scheduler", "--host", "127.0.0.1", "--port", "{port}"]
    worker_cmds = (
        worker_cmds or [[DASK, "worker", address, "--nthreads", "1", "--memory-limit", "2GiB"]] * 2
    )
    logs.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen] = []
    try:
        sched = [a.replace("{port}", str(port)) for a in scheduler_cmd]
        procs.append(spawn([*sched, "--dashboard-address", ":0"], logs / "scheduler.log"))
        _wait_for_port(port, procs[0], timeout)
        for i, cmd in enumerate(worker_cmds):
            cmd = [a.replace("{port}", str(port)) for a in cmd]
            procs.append(spawn([*cmd, "--no-dashboard"], logs / f"worker-{i}.log"))
        from distributed import Client

        with Client(address, timeout=timeout) as client:
            client.wait_for_workers(len(worker_cmds), timeout=timeout)
        yield address
    finally:
        _stop(procs)


def _wait_for_port(port: int, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"scheduler exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"scheduler did not listen on {port} within {timeout}s")
