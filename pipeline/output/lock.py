"""One job per output: a lock file in the output that a second job finds and refuses to start on.

Two jobs on one output delete each other's temporary files as leftovers, write one run report
over the other, and, with different cleaners, mix them in one dataset input by input. So a job
takes ``OUT/.warcclean-lock.json`` before it starts the cluster and removes it when it ends. The
file says who holds it (host, process id and its start time, when the job started, its cleaner
and command line), and a second job exits with that in its message (a usage error, exit 2).

Created atomically: locally with ``O_CREAT | O_EXCL``; on an object store with a conditional
PUT (``If-None-Match: *``, s3fs's ``mode="create"``), which AWS S3 honours. A store or an s3fs
that does not take the condition gets a plain check-then-write, which two jobs started within
the same second can both pass: the README says so.

A job killed outright (SIGKILL, a lost node) leaves its lock behind. On the same host, a lock
whose process no longer runs (or whose id another process has now) is taken over as it is found,
so the same command resumes after a crash as it always did. On another host nothing can tell,
and ``--force`` is the user's word that the holder is gone. A lock whose holder still runs here
is never taken over.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import fsspec
from fsspec.core import url_to_fs

from pipeline.output.sink import is_local

LOCK_NAME = ".warcclean-lock.json"


class OutputLocked(ValueError):
    """Another job holds the output (the message names it and says what to do)."""


@dataclass(frozen=True)
class Lock:
    """A lock this process holds."""

    fs: fsspec.AbstractFileSystem
    path: str
    token: str


def _process_started(pid: int) -> float | None:
    try:
        import psutil

        return float(psutil.Process(pid).create_time())
    except Exception:
        return None


def _holder_info(cleaner: str, started_at: str) -> dict[str, Any]:
    pid = os.getpid()
    return {
        "host": socket.gethostname(),
        "pid": pid,
        "process_started": _process_started(pid),
        "started_at": started_at,
        "cleaner": cleaner,
        "command": " ".join(sys.argv)[:500],
        "token": secrets.token_hex(8),
    }


def acquire(
    output: str,
    storage_options: dict[str, Any] | None = None,
    *,
    cleaner: str,
    started_at: str | None = None,
    force: bool = False,
) -> Lock:
    """Take ``output``'s lock, or raise `OutputLocked` naming the job that holds it."""
    options = (storage_options or {}) if "://" in output else {}
    fs, root = url_to_fs(output, **options)
    root = root.rstrip("/")
    path = f"{root}/{LOCK_NAME}"
    when = started_at or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    info = _holder_info(cleaner, when)
    data = json.dumps(info, indent=2).encode()
    for _ in range(3):
        if _create(fs, path, data):
            return Lock(fs, path, info["token"])
        holder = _read(fs, path)
        if holder is None:
            continue  # released between our attempt and the read: try again
        gone = _gone(holder)
        if not (gone is True or (force and gone is None)):
            raise OutputLocked(_message(output, holder, gone))
        # The holder is gone (or, on another host, the user says so): take its lock over,
        # unless someone else did meanwhile (then the next attempt reads the new holder).
        if _read(fs, path) == holder:
            with contextlib.suppress(FileNotFoundError):
                fs.rm(path)
    holder = _read(fs, path) or {}
    raise OutputLocked(_message(output, holder, _gone(holder)))


def release(lock: Lock) -> None:
    """Remove the lock if it is still this job's (best effort: a job ends either way)."""
    holder = _read(lock.fs, lock.path)
    if holder is not None and holder.get("token") == lock.token:
        with contextlib.suppress(Exception):
            lock.fs.rm(lock.path)


def _create(fs: fsspec.AbstractFileSystem, path: str, data: bytes) -> bool:
    """Write ``path`` only if it does not exist; whether this call created it."""
    if is_local(fs):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return True
    try:
        fs.pipe_file(path, data, mode="create")
        return True
    except TypeError:
        # An fsspec file system without exclusive writes: check, then write (see the module).
        if fs.exists(path):
            return False
        fs.pipe_file(path, data)
        return True
    except (FileExistsError, OSError) as exc:
        if isinstance(exc, FileExistsError) or "PreconditionFailed" in str(exc):
            return False
        raise


def _read(fs: fsspec.AbstractFileSystem, path: str) -> dict[str, Any] | None:
    try:
        data = json.loads(fs.cat_file(path))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"unreadable": True}
    return data if isinstance(data, dict) else {"unreadable": True}


def _gone(holder: dict[str, Any]) -> bool | None:
    """Whether the holder's process is gone: True or False when this host can tell, None when
    the holder ran on another host (or its lock says too little)."""
    if holder.get("host") != socket.gethostname() or not isinstance(holder.get("pid"), int):
        return None
    pid = holder["pid"]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # another user's process: alive
    # The id was given to another process since: the holder is gone.
    started = holder.get("process_started")
    now = _process_started(pid)
    return isinstance(started, int | float) and now is not None and abs(now - started) > 1.0


def _message(output: str, holder: dict[str, Any], gone: bool | None) -> str:
    if holder.get("unreadable"):
        who = "a job whose lock file cannot be read"
    else:
        who = (
            f"job {holder.get('command') or '?'!r} (process {holder.get('pid')} on host "
            f"{holder.get('host')}, started {holder.get('started_at')}, cleaner "
            f"{holder.get('cleaner')})"
        )
    if gone is True:
        advice = (
            "that process no longer runs (killed?): run again with --force to take its lock over"
        )
    elif gone is None:
        advice = (
            "it runs on another host, so whether it still runs cannot be told from here: wait "
            "for it, or if it is gone, run again with --force to take its lock over"
        )
    else:
        advice = "it is still running: wait for it to end, or write to another output"
    return (
        f"the output {output} is being written by another warcclean {who}; {advice} "
        f"(lock file {LOCK_NAME} in the output)"
    )
