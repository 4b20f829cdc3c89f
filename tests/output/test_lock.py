"""One job per output (`pipeline.output.lock`), called directly: who holds the lock, when a
lock is taken over, and what release leaves. The job-level tests (tests/test_job.py) run the
command; these pin the rules themselves, locally and on a non-local file system."""

from __future__ import annotations

import json
import os
import socket
import sys
import uuid
from pathlib import Path
from typing import Any

import fsspec
import psutil
import pytest
from fsspec.implementations.memory import MemoryFileSystem

from pipeline.output import lock
from pipeline.output.lock import LOCK_NAME, OutputLocked
from tests.jobhelpers import ended_pid


def _holder(**fields: Any) -> dict[str, Any]:
    return {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "process_started": psutil.Process().create_time(),
        "started_at": "2026-01-01T00:00:00Z",
        "cleaner": "justext",
        "command": "warcclean run old",
        "token": "0123",
        **fields,
    }


def _write(out: Path, holder: Any) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / LOCK_NAME
    path.write_text(json.dumps(holder))
    return path


def test_the_lock_names_its_holder_and_a_second_acquire_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    held = lock.acquire(str(out), cleaner="bte", started_at="2026-02-03T04:05:06Z")
    info = json.loads((out / LOCK_NAME).read_text())
    assert info["host"] == socket.gethostname() and info["pid"] == os.getpid()
    assert info["cleaner"] == "bte" and info["started_at"] == "2026-02-03T04:05:06Z"
    assert info["token"] == held.token and len(held.token) == 16
    assert info["process_started"] == pytest.approx(psutil.Process().create_time())
    # This process still runs: refused, with or without --force.
    for force in (False, True):
        with pytest.raises(OutputLocked, match=r"cleaner bte\); it is still running") as refused:
            lock.acquire(str(out), cleaner="justext", force=force)
        assert f"process {os.getpid()} on host {socket.gethostname()}" in str(refused.value)
        assert f"the output {out} is being written" in str(refused.value)
    assert json.loads((out / LOCK_NAME).read_text())["token"] == held.token
    lock.release(held)
    assert not (out / LOCK_NAME).exists()


def test_release_leaves_a_lock_another_job_has_taken_since(tmp_path: Path) -> None:
    out = tmp_path / "out"
    held = lock.acquire(str(out), cleaner="bte")
    path = _write(out, _holder(token="another job's"))
    lock.release(held)
    assert json.loads(path.read_text())["token"] == "another job's"
    path.unlink()
    lock.release(held)  # nothing to release: no error either


def test_a_lock_whose_process_ended_here_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write(out, _holder(pid=ended_pid()))
    held = lock.acquire(str(out), cleaner="bte")
    assert json.loads((out / LOCK_NAME).read_text())["token"] == held.token


@pytest.mark.parametrize(
    ("shift", "taken"), [(0.0, False), (0.9, False), (1.5, True), (-1.5, True)]
)
def test_a_process_id_given_to_another_process_since_is_gone(
    tmp_path: Path, shift: float, taken: bool
) -> None:
    # The lock names this process's id, but a process started more than a second apart from
    # this one: the id was reused, so its holder is gone.
    out = tmp_path / "out"
    started = psutil.Process().create_time() + shift
    _write(out, _holder(process_started=started))
    if taken:
        held = lock.acquire(str(out), cleaner="bte")
        assert json.loads((out / LOCK_NAME).read_text())["token"] == held.token
    else:
        with pytest.raises(OutputLocked, match="still running"):
            lock.acquire(str(out), cleaner="bte", force=True)


def test_a_lock_without_its_process_start_is_alive_while_the_id_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write(out, _holder(process_started=None))
    with pytest.raises(OutputLocked, match="still running"):
        lock.acquire(str(out), cleaner="bte", force=True)


@pytest.mark.parametrize(
    "fields",
    [{"host": "elsewhere.example"}, {"pid": str(os.getpid())}, {"pid": None}],
    ids=["another host", "a pid that is text", "no pid"],
)
def test_a_holder_this_host_cannot_judge_needs_force(
    tmp_path: Path, fields: dict[str, Any]
) -> None:
    out = tmp_path / "out"
    _write(out, _holder(**fields))
    with pytest.raises(OutputLocked, match=r"cannot be told from here.*--force"):
        lock.acquire(str(out), cleaner="bte")
    held = lock.acquire(str(out), cleaner="bte", force=True)
    assert json.loads((out / LOCK_NAME).read_text())["token"] == held.token


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '"text"'])
def test_an_unreadable_lock_is_named_so_and_taken_only_with_force(
    tmp_path: Path, content: str
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_NAME).write_text(content)
    with pytest.raises(OutputLocked, match="a job whose lock file cannot be read; it runs on"):
        lock.acquire(str(out), cleaner="bte")
    held = lock.acquire(str(out), cleaner="bte", force=True)
    assert json.loads((out / LOCK_NAME).read_text())["token"] == held.token


def test_the_message_for_a_holder_known_to_be_gone_says_force() -> None:
    text = lock._message("OUT", _holder(), True)
    assert "no longer runs (killed?): run again with --force" in text
    assert "job 'warcclean run old' (process" in text and "cleaner justext)" in text


def test_a_lock_on_a_store_is_a_create_only_write() -> None:
    # The memory file system refuses mode="create" over an existing file, as S3's conditional
    # PUT does (tests/test_s3.py runs the real one against a local S3 server).
    root = f"memory://lock-{uuid.uuid4().hex}"
    fs = fsspec.filesystem("memory")
    held = lock.acquire(root, cleaner="bte")
    path = f"{root.removeprefix('memory://')}/{LOCK_NAME}"
    assert json.loads(fs.cat_file(path))["token"] == held.token
    with pytest.raises(OutputLocked, match="still running"):
        lock.acquire(root, cleaner="justext")
    lock.release(held)
    assert not fs.exists(path)


class _NoCreateMode(MemoryFileSystem):
    """A store whose writes take no ``mode``: the lock falls back to check-then-write."""

    protocol = "nocreate"

    def pipe_file(self, path: str, value: bytes, **kwargs: Any) -> None:  # type: ignore[override]
        if "mode" in kwargs:
            raise TypeError("pipe_file() got an unexpected keyword argument 'mode'")
        super().pipe_file(path, value)


def test_a_store_without_exclusive_writes_checks_then_writes() -> None:
    fsspec.register_implementation("nocreate", _NoCreateMode, clobber=True)
    root = f"nocreate://lock-{uuid.uuid4().hex}"
    held = lock.acquire(root, cleaner="bte")
    fs = _NoCreateMode()
    path = f"{root}/{LOCK_NAME}"  # this class strips only memory:// from its paths
    assert json.loads(fs.cat_file(path))["token"] == held.token
    with pytest.raises(OutputLocked, match="still running"):
        lock.acquire(root, cleaner="justext")
    assert json.loads(fs.cat_file(path))["token"] == held.token
    lock.release(held)
    assert not fs.exists(path)


class _FailingStore(MemoryFileSystem):
    protocol = "failingstore"

    def pipe_file(self, path: str, value: bytes, **kwargs: Any) -> None:  # type: ignore[override]
        raise OSError("Access Denied")


def test_a_store_that_refuses_the_write_is_an_error_not_a_lock() -> None:
    fsspec.register_implementation("failingstore", _FailingStore, clobber=True)
    with pytest.raises(OSError, match="Access Denied"):
        lock.acquire(f"failingstore://lock-{uuid.uuid4().hex}", cleaner="bte")


def test_a_lock_taken_by_a_third_job_meanwhile_is_not_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The stale lock is read, then replaced by a live job before it is removed: the take-over
    # must leave the live job's lock and refuse, naming that job.
    out = tmp_path / "out"
    path = _write(out, _holder(pid=ended_pid()))
    reads = 0
    real_read = lock._read

    def read(fs: Any, p: str) -> dict[str, Any] | None:
        nonlocal reads
        reads += 1
        if reads == 2:  # between the first reading and the check before removal
            path.write_text(json.dumps(_holder(token="live", command="warcclean run live")))
        return real_read(fs, p)

    monkeypatch.setattr(lock, "_read", read)
    with pytest.raises(OutputLocked, match=r"warcclean run live.*still running"):
        lock.acquire(str(out), cleaner="bte")
    assert json.loads(path.read_text())["token"] == "live"


def test_a_lock_released_and_taken_again_on_every_attempt_ends_in_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Other jobs keep taking and releasing the lock between this job's create and its read:
    # after three attempts it stops, naming the holder it finds then.
    creates = 0
    reads = iter([None, None, None, _holder(command="warcclean run busy")])

    def create(fs: Any, path: str, data: bytes) -> bool:
        nonlocal creates
        creates += 1
        return False

    monkeypatch.setattr(lock, "_create", create)
    monkeypatch.setattr(lock, "_read", lambda fs, path: next(reads))
    with pytest.raises(OutputLocked, match=r"warcclean run busy.*still running"):
        lock.acquire(str(tmp_path / "out"), cleaner="bte")
    assert creates == 3


def test_the_command_is_cut_to_500_characters_and_the_file_is_readable_by_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["warcclean", "run", "x" * 1000])
    out = tmp_path / "out"
    lock.acquire(str(out), cleaner="bte")
    info = json.loads((out / LOCK_NAME).read_text())
    assert info["command"] == ("warcclean run " + "x" * 1000)[:500]
    umask = os.umask(0)
    os.umask(umask)
    assert (out / LOCK_NAME).stat().st_mode & 0o777 == 0o644 & ~umask
