"""A hard time bound on each page and each input: `process_warc` in a child that can be killed.

A page's parse cannot be interrupted in-process, and Dask tasks run in threads that signals do
not reach, so the only bound that holds whatever the page does is a process that can be killed.
`process_warc_supervised` runs the whole input (read, clean, write) in a long-lived child,
``python -m pipeline.supervise`` (`subprocess`, not `multiprocessing`: Dask worker processes
are daemonic). One child serves one task at a time and is reused by the next, so its start-up
(imports, the cleaner's model, warm-up) is paid once per worker thread, not per input or page.

Watching costs the child nothing per page but two small writes to shared memory: a status file
mapped by both processes holds a sequence number, the stage (reading or cleaning), the
record's offset and when the stage began, on the machine's monotonic clock (`Status`). The
parent polls it a few times a second, and wakes at a page's cap. Then:

- a page that cleans for longer than ``Limits.max_seconds`` gets the child killed at the cap
  (`kill_after`: in the walk, whose own deadline checks usually reject the page first and
  cheaper, `KILL_GRACE` later). A fresh child
  goes on with the input from the last checkpoint of the killed one (its rows and counts,
  spooled twice a second: `pipeline.output.spool`), with that record's offset "poisoned":
  it becomes a ``timeout`` rejection there and every other record is cleaned and written
  exactly once. A kill costs its page and the pages cleaned since the checkpoint, never a
  re-run of the input from its start, and an input may hold any number of such pages;
- a page that takes the child's resident memory over its budget (the worker's memory limit
  per thread, `set_memory_budget`; Dask's own limit sees only the worker's process) is killed
  the same way, and rejected ``too_complex``;
- a child that dies while cleaning a page of anything else (the kernel's OOM killer choosing
  it for a neighbour's memory, an operator, a crash in C code) gets the page once more in a
  fresh child; if that one dies on it too, the page is ``crashed``, its detail saying what was
  seen (the signal, the step, the resident memory last seen);
- a child that makes no progress for ``Limits.max_stall_seconds`` outside a page (a read that
  hangs), or dies there, fails the input with `pipeline.errors.WarcTaskError` naming the input and
  the offset. Its output is not committed, so no rows are lost: the input stays "not done".

So an input's time is bounded by its pages' cleaning, plus for each page that had to be killed
its cap (or the time to its memory budget) and the fresh child's resuming. No page is cleaned
twice: when a page passes half its cap the parent asks the child for a checkpoint at that page
(`_Child.ask_checkpoint`; a thread of the child writes it beside the page's work), and only a
page whose work holds the GIL throughout keeps that thread from it, which then costs the pages
since the last periodic checkpoint, at most half a second. A spare child starts meanwhile
(`_start_spare`), so that a kill does not wait for a child's start as well.

Either way the Dask worker process itself survives, so other inputs queued on it are untouched.

Protocol (JSON lines, never pickle): the parent writes one request per line on the child's
stdin, ``{"op": "warm" | "run", "cfg": {...}, "warc_path": ..., "poison": [[offset, reason,
detail], ...], "spool": DIRECTORY}``; the child answers each with one line on its stdout,
``{"ok": true, "report": {...}}`` or ``{"ok": false, "error": "<type>", "message": "..."}``. The
child's stderr is the worker's.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import math
import mmap
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from typing import Any

# Only what the parent needs: this module is loaded in every Dask worker process, which only
# starts and watches children. `pipeline.run` (the cleaners, the parser, pyarrow: a tenth of a
# second of CPU per worker) is imported where a path of the parent needs it.
from pipeline.compiled import child_command, child_env
from pipeline.config import Limits
from pipeline.jobconfig import JobConfig, freeze
from pipeline.output.stats import WarcReport

log = logging.getLogger(__name__)

# Stages the child reports (`Status`). IDLE: between requests; READING: reading records,
# writing rows, committing; CLEANING: one page in `pipeline.run.clean_page`.
IDLE, READING, CLEANING = 0, 1, 2
STAGE_NAMES = {IDLE: "idle", READING: "reading", CLEANING: "cleaning"}

# How often the parent looks at the status and the child; a kill comes at most this late.
TICK = 0.2
# Past the page cap, how long the child's cooperative deadline has to reject the page itself
# before the parent kills it, in the steps that check that deadline as they go
# (`COOPERATIVE_STEPS`). In every other step (the parse above all, one call into C) the page
# cannot end itself early, so waiting would only add the grace to every kill.
KILL_GRACE = 1.0
COOPERATIVE_STEPS = frozenset({"segmentation"})
# The resident memory a child may reach while cleaning a page when the worker's memory limit
# per thread is lower: a warm child holds about 100-250 MB before its first page.
MIN_MEMORY_BUDGET = 256 * 2**20
# How long a starting child may take to load and warm up before it counts as stuck.
START_SECONDS = 300.0
# A page that has cleaned for this share of its cap starts a spare child (`_start_spare`).
SPARE_AFTER = 0.5

# sequence number, stage, offset (-1: none), when the stage began (`time.monotonic_ns`, one
# clock for every process of the machine), step
_STATUS = struct.Struct("<QQqQQ")
_STEP = struct.Struct("<Q")
_STEP_AT = _STATUS.size - _STEP.size
# Steps of cleaning one page (`pipeline.clean.report_stages`), by index in the status map.
STEPS = ("", "decode", "guards", "parse", "segmentation", "language", "labelling")
_STEP_INDEX = {name: i for i, name in enumerate(STEPS)}


def kill_after(page_cap: float, step: str) -> float:
    """Seconds into a page at which its child is killed: the cap itself, or the cap and
    `KILL_GRACE` in a step whose own deadline checks usually end the page first, at no kill."""
    return page_cap + KILL_GRACE if step in COOPERATIVE_STEPS else page_cap


class Status:
    """The child's progress, in a small file both processes map: the child writes, the
    parent reads. The sequence number changes with every `set`, so the parent sees progress
    even when the stage and offset repeat; the step within a page (`set_step`) leaves it
    alone, so that a page's clock runs across its steps.

    The file has no name: it is made unlinked (`tempfile.TemporaryFile`, O_TMPFILE on Linux)
    and the child inherits its descriptor, so nothing is left in the temporary directory
    when a worker is killed outright (an out-of-memory kill, a nanny's restart), which no
    clean-up code outlives."""

    def __init__(self, fd: int) -> None:
        self.fd: int | None = fd
        self.map = mmap.mmap(fd, _STATUS.size)
        self.seq = 0

    @classmethod
    def create(cls) -> Status:
        with tempfile.TemporaryFile(prefix="warcclean-status-") as f:
            f.write(bytes(_STATUS.size))
            f.flush()
            return cls(os.dup(f.fileno()))

    @classmethod
    def inherited(cls, fd: int) -> Status:
        """The map of a descriptor this process inherited (the child's side)."""
        status = cls(fd)
        status.release_fd()
        return status

    def release_fd(self) -> None:
        """Close the descriptor once the child holds its own copy: the map stays."""
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None

    def set(self, stage: int, offset: int | None) -> None:
        self.seq += 1
        offset = -1 if offset is None else offset
        _STATUS.pack_into(self.map, 0, self.seq, stage, offset, time.monotonic_ns(), 0)

    def set_step(self, name: str) -> None:
        _STEP.pack_into(self.map, _STEP_AT, _STEP_INDEX.get(name, 0))

    def read(self) -> tuple[int, int, int | None, str, float]:
        """(sequence number, stage, offset, step, when the stage began: `time.monotonic`)."""
        # The child may be mid-write: read until two reads agree.
        while True:
            first = _STATUS.unpack_from(self.map, 0)
            if _STATUS.unpack_from(self.map, 0) == first:
                seq, stage, offset, began, step = first
                name = STEPS[step] if step < len(STEPS) else ""
                return seq, stage, None if offset < 0 else offset, name, began / 1e9

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.map.close()
        self.release_fd()


def cfg_to_json(cfg: JobConfig) -> dict[str, Any]:
    """``cfg`` as plain JSON data (`cfg_from_json` rebuilds it)."""
    data = {
        "output": cfg.output,
        "cleaner": cfg.cleaner,
        "params": cfg.params_dict,
        "limits": asdict(cfg.limits),
        "batch_rows": cfg.batch_rows,
        "batch_bytes": cfg.batch_bytes,
        "storage_options": cfg.storage_dict,
        "formats": cfg.formats,
        "include_comments": cfg.include_comments,
        "classify_page": cfg.classify_page,
        "record_limit": cfg.record_limit,
    }
    try:
        json.dumps(data)
    except TypeError as exc:
        raise ValueError(f"a supervised job needs plain-data options (JSON): {exc}") from None
    return data


def cfg_from_json(data: dict[str, Any]) -> JobConfig:
    return JobConfig(
        output=data["output"],
        cleaner=data["cleaner"],
        params=freeze(data["params"]),
        limits=Limits(**data["limits"]),
        batch_rows=data["batch_rows"],
        batch_bytes=data["batch_bytes"],
        storage_options=freeze(data["storage_options"]),
        formats=data["formats"],
        include_comments=data.get("include_comments", False),
        classify_page=data.get("classify_page", False),
        record_limit=data.get("record_limit"),
    )


class ChildDied(Exception):
    """The child ended (or was killed) while a request was running.

    ``cause`` is why the supervisor killed it ("time", "memory"), or None when it was not the
    supervisor (the child died, or something else killed it); ``rss`` its resident memory when
    last seen, in bytes (None where /proc does not say)."""

    def __init__(
        self,
        how: str,
        stage: int,
        offset: int | None,
        step: str = "",
        *,
        cause: str | None = None,
        rss: int | None = None,
    ) -> None:
        super().__init__(how)
        self.how, self.stage, self.offset, self.step = how, stage, offset, step
        self.cause, self.rss = cause, rss


class _Child:
    """One child process, its pipes and its status map."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = tuple(argv)
        self.status = Status.create()
        # Asks for a checkpoint at the page being cleaned (`ask_checkpoint`).
        ask, self.checkpoint_pipe = os.pipe()
        os.set_blocking(self.checkpoint_pipe, False)
        status_fd = self.status.fd
        assert status_fd is not None
        try:
            self.proc = subprocess.Popen(
                [*self.argv, str(status_fd), str(ask)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=child_env(),
                pass_fds=(ask, status_fd),
            )
        except BaseException:
            os.close(self.checkpoint_pipe)
            self.status.close()
            raise
        finally:
            os.close(ask)
            self.status.release_fd()
        self.warmed: set[str] = set()
        self.rss: int | None = None  # resident bytes when last looked at
        # The warm-up key of a warm request sent ahead (a spare child), not yet answered.
        self.pending: str | None = None

    def resident(self) -> int | None:
        """The child's resident memory in bytes (None where /proc does not say)."""
        try:
            with open(f"/proc/{self.proc.pid}/statm", "rb") as f:
                return int(f.read().split()[1]) * _PAGE_SIZE
        except (OSError, ValueError, IndexError):
            return None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self, *, wait: bool = True) -> None:
        """Kill the child. Without ``wait`` it is reaped in the background: the kernel's
        tearing down of a process that maps a gigabyte takes milliseconds that a kill on a
        slow page would otherwise add to its input's time."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        if wait:
            self.proc.wait()
        else:
            threading.Thread(target=self.proc.wait, daemon=True).start()
        self.close()

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                stream.close()  # type: ignore[union-attr]
        with contextlib.suppress(OSError):
            os.close(self.checkpoint_pipe)
        self.status.close()

    def ask_checkpoint(self) -> None:
        """Have the child make every row before the page it is cleaning durable, so that
        killing it there costs that page alone (`pipeline.supervise.__main__.Watch`)."""
        with contextlib.suppress(OSError):  # a full pipe already asks; a dead child cannot
            os.write(self.checkpoint_pipe, b"c")

    def request(
        self,
        payload: dict[str, Any],
        *,
        page_cap: float | None,
        stall: float | None,
        memory: int | None = None,
        on_slow: Callable[[], None] | None = None,
    ) -> dict[str, Any]:
        """Send one request and watch the child until it answers.

        Kills the child and raises `ChildDied` when a page runs past ``page_cap`` or takes its
        resident memory past ``memory`` bytes, or nothing moves for ``stall`` seconds outside a
        page; raises it too when the child dies. ``on_slow`` is called once for each page that
        runs past half its cap (`SPARE_AFTER`), so that a spare child can start meanwhile.
        """
        self.send(payload)
        return self.answer(page_cap=page_cap, stall=stall, memory=memory, on_slow=on_slow)

    def send(self, payload: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(payload).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None

    def answer(
        self,
        *,
        page_cap: float | None,
        stall: float | None,
        memory: int | None = None,
        on_slow: Callable[[], None] | None = None,
    ) -> dict[str, Any]:
        """Watch the child until it answers the request sent last (see `request`)."""
        assert self.proc.stdout is not None
        out = self.proc.stdout
        # When this request began: a status the child set before it (the end of its last
        # request, maybe long ago; 0 in a fresh map) counts from here.
        since = time.monotonic()
        slow_seq = -1  # the page `on_slow` was last called for
        wait = TICK
        while True:
            ready, _, _ = select.select([out], [], [], wait)
            if ready:
                line = out.readline()
                if line.endswith(b"\n"):
                    return json.loads(line)
                raise self._died()  # end of file, or a reply cut short by the child's death
            if not self.alive():
                raise self._died()
            seq, stage, offset, step, began = self.status.read()
            now = time.monotonic()
            # The child's own clock reading: a kill at the cap is not late by a tick.
            elapsed = now - max(began, since)
            self.rss = self.resident()
            wait = TICK
            if stage == CLEANING:
                if (
                    page_cap is not None
                    and slow_seq != seq
                    and elapsed > max(SPARE_AFTER * page_cap, 1.0)
                ):
                    slow_seq = seq
                    self.ask_checkpoint()
                    if on_slow is not None:
                        on_slow()
                if page_cap is not None:
                    limit = kill_after(page_cap, step)
                    if elapsed >= limit:
                        self.kill(wait=False)
                        how = f"killed after {elapsed:.2f} s on one page"
                        raise ChildDied(how, stage, offset, step, cause="time", rss=self.rss)
                    # Wake at the limit itself (the step may change meanwhile: then a tick late
                    # at most, and only for a step that has a grace).
                    wait = min(TICK, max(limit - elapsed, 0.001))
                if memory is not None and self.rss is not None and self.rss > memory:
                    self.kill(wait=False)
                    # Rounded up: a child just over its budget must not read as at it.
                    how = (
                        f"killed at {math.ceil(self.rss / 2**20):,} MiB resident, over its budget "
                        f"of {memory / 2**20:,.0f} MiB"
                    )
                    raise ChildDied(how, stage, offset, step, cause="memory", rss=self.rss)
            elif stall is not None and elapsed > stall:
                self.kill()
                how = f"killed after {elapsed:.1f} s without progress"
                raise ChildDied(how, stage, offset, cause="time", rss=self.rss)

    def _died(self) -> ChildDied:
        code = self.proc.wait()
        # The map outlives the child: its last word says where it was.
        _, stage, offset, step, _ = self.status.read()
        self.close()
        if code < 0:
            try:
                how = f"died of {signal.Signals(-code).name}"
            except ValueError:
                how = f"died of signal {-code}"
        else:
            how = f"exited with status {code}"
        return ChildDied(how, stage, offset, step, rss=self.rss)


# Idle children of this process, ready for the next task; a task takes one and gives it back.
_IDLE: list[_Child] = []
_LOCK = threading.Lock()
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
# The resident memory each child may reach while cleaning a page (`set_memory_budget`).
_MEMORY_BUDGET: int | None = None


def set_memory_budget(worker_limit: int | None, threads: int) -> int | None:
    """Hold this process's children to ``worker_limit`` bytes (a Dask worker's memory limit,
    which sees only the worker's own process) shared by its ``threads``, at least
    `MIN_MEMORY_BUDGET` each; None: no budget. Returns the budget per child."""
    global _MEMORY_BUDGET
    if not worker_limit:
        _MEMORY_BUDGET = None
    else:
        _MEMORY_BUDGET = max(int(worker_limit) // max(threads, 1), MIN_MEMORY_BUDGET)
    return _MEMORY_BUDGET


def memory_budget() -> int | None:
    return _MEMORY_BUDGET


def _child_argv() -> list[str]:
    return child_command("pipeline.supervise")


def _take(argv: Sequence[str]) -> _Child:
    with _LOCK:
        for i in range(len(_IDLE) - 1, -1, -1):
            child = _IDLE[i]
            if child.argv == tuple(argv):
                del _IDLE[i]
                if child.alive():
                    return child
                child.close()
    return _Child(argv)


def _give_back(child: _Child) -> None:
    if not child.alive():
        child.close()
        return
    with _LOCK:
        _IDLE.append(child)


@atexit.register
def shutdown() -> None:
    """Stop every idle child of this process (the busy ones end with their task)."""
    with _LOCK:
        children = list(_IDLE)
        _IDLE.clear()
    for child in children:
        child.kill()


def _warm_key(cfg: JobConfig, cfg_json: dict[str, Any]) -> str:
    return json.dumps([cfg.cleaner, cfg_json["params"]], sort_keys=True)


def _warm(child: _Child, cfg: JobConfig, cfg_json: dict[str, Any]) -> None:
    key = _warm_key(cfg, cfg_json)
    if key in child.warmed:
        return
    if child.pending is not None and child.pending != key:
        # a spare warming up for another job's cleaner: its answer comes first
        child.answer(page_cap=None, stall=START_SECONDS)
        child.warmed.add(child.pending)
        child.pending = None
        if key in child.warmed:
            return
    if child.pending is None:
        child.send({"op": "warm", "cfg": cfg_json})
    reply = child.answer(page_cap=None, stall=START_SECONDS)
    child.pending = None
    if not reply.get("ok"):
        # Not fatal here: the run request builds the same things and reports the error.
        log.warning("warcclean child warm-up failed: %s", reply.get("message"))
    child.warmed.add(key)


def _start_spare(argv: tuple[str, ...], cfg: JobConfig, cfg_json: dict[str, Any]) -> None:
    """Start a child that warms up on its own, unless one is idle already: the one that takes
    over when the page being cleaned has to be killed, ready by then (its start, about a second
    or two, would otherwise come on top of every kill). At most one such spare per worker
    process stays, idle, after a slow page."""
    with _LOCK:
        if any(c.argv == argv for c in _IDLE):
            return
    try:
        child = _Child(argv)
        child.send({"op": "warm", "cfg": cfg_json})
    except (ChildDied, OSError) as exc:
        log.warning("warcclean spare child did not start: %s", exc)
        return
    child.pending = _warm_key(cfg, cfg_json)
    _give_back(child)


def start_children(cfg: JobConfig, n: int) -> None:
    """Start and warm ``n`` children for ``cfg`` ahead of the first tasks
    (`pipeline.job.workers`)."""
    cfg_json = cfg_to_json(cfg)
    with _LOCK:
        # A plugin set up again (a second job on the same cluster) tops the pool up, no more.
        n -= sum(1 for c in _IDLE if c.argv == tuple(_child_argv()))
    # All started before any is waited for, so that their imports overlap.
    for child in [_Child(_child_argv()) for _ in range(max(n, 0))]:
        try:
            _warm(child, cfg, cfg_json)
        except ChildDied as exc:
            log.warning("warcclean child did not start: %s", exc.how)
            continue
        _give_back(child)


def process_warc_supervised(
    warc_path: str, cfg: JobConfig, *, child_argv: Sequence[str] | None = None
) -> WarcReport:
    """`pipeline.run.process_warc` in a supervised child: the same rows, files and report, with
    every page held to ``cfg.limits.max_seconds`` and to the memory budget, and reading to
    ``max_stall_seconds``.

    A page that kills its child costs that page, whatever number of them an input holds: the
    child spools its rows and counts with a checkpoint twice a second
    (`pipeline.output.spool`), and a fresh child goes on from the last checkpoint with that
    page as a rejection. A page whose child died of something else (the kernel's OOM killer
    choosing it for a neighbour's memory, an operator) gets one more try in a fresh child
    first. ``child_argv`` replaces the child's command (tests use it to inject faults). Where
    the platform has no ``select`` on pipes (Windows), the input runs in this process.
    """
    if os.name != "posix":
        from pipeline.run import process_warc

        return process_warc(warc_path, cfg)
    started = time.perf_counter()
    argv = tuple(child_argv or _child_argv())
    cfg_json = cfg_to_json(cfg)
    limits = cfg.limits
    page_cap = limits.max_seconds
    memory = memory_budget()
    poison: dict[int, tuple[str, str]] = {}
    died_once: dict[int, ChildDied] = {}  # pages whose child died of something else once
    spool_dir = _make_spool_dir()
    try:
        while True:
            child = _take(argv)
            try:
                _warm(child, cfg, cfg_json)
                reply = child.request(
                    {
                        "op": "run",
                        "warc_path": warc_path,
                        "cfg": cfg_json,
                        "poison": [[o, r, d] for o, (r, d) in sorted(poison.items())],
                        "spool": spool_dir,
                    },
                    page_cap=page_cap,
                    stall=limits.max_stall_seconds,
                    memory=memory,
                    on_slow=lambda: _start_spare(argv, cfg, cfg_json),
                )
            except ChildDied as died:
                from pipeline.errors import WarcTaskError

                reason = _input_failure(died, poison)
                if reason is not None:
                    _remove_temps(cfg, warc_path)
                    raise WarcTaskError(
                        f"input {warc_path!r} failed (output {cfg.output!r}): {reason}", reason
                    ) from None
                # Killed on a page the input goes on without: a child writes the output's
                # files only once every page is cleaned (until then its rows are in the spool),
                # so there are no temporary files to remove, and listing the output's folders
                # for them would cost every kill more as the output grows.
                if died.cause is None and died.offset not in died_once:
                    died_once[died.offset] = died
                    log.warning(
                        "warcclean: %s: the cleaning process %s on the page at offset %d; "
                        "trying that page once more in a fresh process",
                        warc_path,
                        died.how,
                        died.offset,
                    )
                    continue
                poison[died.offset] = _poison_reason(
                    died, died_once.get(died.offset), page_cap, memory
                )
                log.warning(
                    "warcclean: %s: page at offset %d %s; going on without it",
                    warc_path,
                    died.offset,
                    died.how,
                )
                continue
            except BaseException:
                # A cancelled task, an interrupt: never leave a child working behind us.
                child.kill()
                raise
            _give_back(child)
            if not reply.get("ok"):
                raise _child_failure(reply, warc_path, cfg) from ChildTraceback(
                    str(reply.get("traceback") or "(the child sent no traceback)")
                )
            report = WarcReport.from_dict(reply["report"])
            return replace(report, seconds=time.perf_counter() - started)
    finally:
        shutil.rmtree(spool_dir, ignore_errors=True)


# A spool directory's name says whose it is: host name and process id, so that one left behind
# by a worker killed outright (no clean-up code outlives a SIGKILL) is removed by the next
# input any worker of the same host runs, once its process is gone. Its rows are only a copy of
# what the next run of that input writes again.
_SPOOL_PREFIX = "warcclean-spool-"


def _host_tag() -> str:
    """This host's name as a spool directory's name holds it (no "-" in it)."""
    return "".join(c if c.isalnum() else "_" for c in socket.gethostname())[:40]


def _make_spool_dir() -> str:
    _remove_orphaned_spools(tempfile.gettempdir())
    return tempfile.mkdtemp(prefix=f"{_SPOOL_PREFIX}{_host_tag()}-{os.getpid()}-")


def _remove_orphaned_spools(directory: str) -> None:
    """Remove the spool directories this host's dead processes left in ``directory``."""
    host = _host_tag()
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not name.startswith(_SPOOL_PREFIX):
            continue
        # {host}-{pid}-{mkdtemp's random part, which holds no "-"}
        owner_host, _, pid = name[len(_SPOOL_PREFIX) :].rpartition("-")[0].rpartition("-")
        if owner_host != host or not pid.isdigit() or _alive(int(pid)):
            continue
        shutil.rmtree(os.path.join(directory, name), ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


class ChildTraceback(Exception):
    """The traceback of a failure in the supervised child, as the child formatted it: the cause
    of the error `process_warc_supervised` raises (the job shows it with ``--verbose``)."""

    def __str__(self) -> str:
        return "in the cleaning process:\n" + str(self.args[0]).rstrip()


def _child_failure(reply: dict[str, Any], warc_path: str, cfg: JobConfig) -> Exception:
    from pipeline import errors

    message = str(reply.get("message", ""))
    reason = str(reply.get("reason") or "") or None
    # The input's own failures keep their type (`pipeline.errors` defines them all), so that
    # one that every attempt repeats is not retried.
    kind = getattr(errors, str(reply.get("error")), None)
    if isinstance(kind, type) and issubclass(kind, errors.WarcTaskError):
        return kind(message, reason)
    cause = f"{reply.get('error')}: {message}"
    return errors.WarcTaskError(
        f"input {warc_path!r} failed (output {cfg.output!r}): {cause}", cause
    )


def _input_failure(died: ChildDied, poison: dict[int, tuple[str, str]]) -> str | None:
    """Why a child's death fails the whole input, or None when the input goes on without the
    page it died on: it died outside a page, or again on a page it was told to skip."""
    if died.stage != CLEANING or died.offset is None:
        where = (
            "before its first record"
            if died.offset is None
            else f"after the record at offset {died.offset}"
        )
        return (
            f"the cleaning process {died.how} while "
            f"{STAGE_NAMES.get(died.stage, 'working')} {where}; "
            "nothing of this input was committed"
        )
    if died.offset in poison:  # (a page the child was told to skip: never again)
        return (
            f"the cleaning process {died.how} on the page at offset {died.offset} "
            "again after that page was rejected; nothing was committed"
        )
    return None


def _poison_reason(
    died: ChildDied, earlier: ChildDied | None, page_cap: float | None, memory: int | None
) -> tuple[str, str]:
    """The rejection of a page that killed its child: what was observed, not a guessed cause."""
    during = f" during {died.step}" if died.step else ""
    if died.cause == "time":
        return "timeout", (
            f"page exceeded its {page_cap:g} s budget{during}, which could not be interrupted: "
            f"its cleaning process was {died.how}"
        )
    if died.cause == "memory":
        return "too_complex", (
            f"page took its cleaning process over its memory budget{during} (the worker's "
            f"memory limit per thread): it was {died.how}"
        )
    first = f"; the first time it {earlier.how}" if earlier is not None else ""
    seen = (
        f"; its resident memory was last seen at {died.rss / 2**20:,.0f} MiB"
        if died.rss is not None
        else ""
    )
    return "crashed", (
        f"the cleaning process {died.how} while cleaning this page{during}, in two fresh "
        f"processes{first}; warcclean's time and memory watch did not kill it{seen}"
    )


def _remove_temps(cfg: JobConfig, warc_path: str) -> None:
    """Delete the hidden temporary files a killed child left for this input."""
    from fsspec.core import url_to_fs

    from pipeline.output.sink import OutputPaths, remove_leftover_temps
    from pipeline.run import _storage_options
    from pipeline.warc.inputs import input_stem

    try:
        fs, root = url_to_fs(cfg.output, **_storage_options(cfg.output, cfg))
        remove_leftover_temps(fs, OutputPaths(root, input_stem(warc_path)))
    except Exception:  # the next attempt's sink removes them too; the kill is what matters
        log.warning("warcclean: could not remove temporary files of %s", warc_path, exc_info=True)
