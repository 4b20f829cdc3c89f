"""The supervised child: runs `pipeline.run.process_warc` for each request on stdin.

Run as ``python -m pipeline.supervise STATUS_PATH [CHECKPOINT_FD]`` by `pipeline.supervise`;
the protocol is in that package's docstring. It stays up between requests, so its imports, the
cleaner's model and the warm-up are paid once.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from typing import Any, BinaryIO

from pipeline import run
from pipeline.clean import report_stages
from pipeline.jobconfig import JobConfig
from pipeline.output.arrow import skip_pandas_probe
from pipeline.run import TaskWatch, process_warc, warm_up
from pipeline.sandbox import cap_memory
from pipeline.supervise import CLEANING, IDLE, READING, Status, cfg_from_json
from pipeline.types import RawPage


class Watch(TaskWatch):
    """Reports each record and page to the parent through the status map, rejects the pages
    that killed an earlier attempt instead of cleaning them again, and writes a checkpoint at
    the page being cleaned when the parent asks (`checkpoint_now`)."""

    def __init__(self, status: Status, poison: dict[int, tuple[str, str]]) -> None:
        self.status = status
        self.poison = poison
        self.lock = threading.Lock()
        self.page: RawPage | None = None  # the page `clean` is on
        self.write_checkpoint: Callable[[RawPage], None] | None = None

    def offer_checkpoint(self, write: Callable[[RawPage], None]) -> None:
        self.write_checkpoint = write

    def checkpoint_now(self) -> bool:
        """Make everything before the page being cleaned durable, resuming at that page; False
        when no page is being cleaned (it ended meanwhile). Runs on the checkpoint thread."""
        with self.lock:
            if self.page is None or self.write_checkpoint is None:
                return False
            self.write_checkpoint(self.page)
            return True

    def record(self, item: object) -> None:
        offset = getattr(item, "warc_offset", None)
        self.status.set(READING, getattr(item, "offset", None) if offset is None else offset)

    def clean(self, page: RawPage, cfg: JobConfig) -> Any:
        bad = self.poison.get(page.warc_offset)
        if bad is not None:
            return run.reject_page(page, bad[0], bad[1])
        self.status.set(CLEANING, page.warc_offset)
        self.page = page
        try:
            # Looked up at call time, as process_warc does, so wrappers (bench/faults.py) apply.
            return run.clean_page(page, cfg)
        finally:
            with self.lock:  # a checkpoint being written at this page ends first
                self.page = None
            self.status.set(READING, page.warc_offset)


def _child_cfg(cfg: JobConfig) -> JobConfig:
    # Here a page that hangs costs a kill and a re-run, not a stuck worker: no page needs the
    # per-page sandbox (a fork per deep page), the parent owns the hard clock.
    return replace(cfg, limits=replace(cfg.limits, isolate_depth=None))


# The cyclic collector's first-generation threshold once the child is warm (Python's default is
# 700). A page's containers (blocks, tuples, lists) are short-lived and reference counting frees
# them; at 700 the collector still runs about once a page, and its older
# generations walk the model and every module again. At 50,000 it runs every 25-30 WCXB pages,
# which still frees the few reference cycles a page leaves (about 12). BENCHMARKS.md, issue 36.
GEN0_THRESHOLD = 50_000


def settle_heap() -> None:
    """Freeze what warm-up built (modules, the model, the language profiles): the collector
    stops walking it on every full collection. Then raise the first generation's threshold."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, *gc.get_threshold()[1:])


def _watch_parent() -> None:
    # A parent that dies (a worker killed by the nanny) cannot kill us: leave on our own.
    parent = os.getppid()
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(3)


# The watch of the input being run, for the checkpoint thread.
_CURRENT: Watch | None = None


def _serve_checkpoints(fd: int) -> None:
    # The parent asks (one byte) when a page has run past half its cap: a checkpoint at that
    # page then means its kill costs no page cleaned twice. The page's own work runs on the
    # main thread; the parse, the usual culprit, holds no GIL, so this thread gets to run.
    with os.fdopen(fd, "rb", buffering=0) as requests:
        while requests.read(1):
            watch = _CURRENT
            if watch is None:
                continue
            try:
                watch.checkpoint_now()
            except Exception:  # the periodic checkpoints still stand; say why this one failed
                traceback.print_exc()


def handle(request: dict[str, Any], status: Status) -> dict[str, Any]:
    cfg = _child_cfg(cfg_from_json(request["cfg"]))
    if request["op"] == "warm":
        warm_up(cfg)
        settle_heap()
        return {"ok": True}
    # Loaded (cached per process) before the cap: the cap is for the input's work.
    run.get_cleaner(cfg.cleaner, cfg.params_dict)
    cap_memory(cfg.limits.isolate_memory_bytes)
    poison = {int(o): (str(r), str(d)) for o, r, d in request.get("poison", [])}
    global _CURRENT
    status.set(READING, None)
    _CURRENT = Watch(status, poison)
    try:
        report = process_warc(
            request["warc_path"], cfg, watch=_CURRENT, spool_dir=request.get("spool")
        )
    finally:
        _CURRENT = None
        status.set(IDLE, None)
    return {"ok": True, "report": report.to_dict()}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    status = Status.inherited(int(argv[0]))
    report_stages(status.set_step)
    # Before the watcher thread starts: the only moment this process surely imports nothing
    # else. pyarrow would otherwise import pandas on the first rows written (0.2 s per child).
    skip_pandas_probe()
    # The protocol gets the real stdout; anything else printed goes to stderr.
    reply_out: BinaryIO = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    threading.Thread(target=_watch_parent, daemon=True).start()
    if len(argv) > 1:
        threading.Thread(target=_serve_checkpoints, args=(int(argv[1]),), daemon=True).start()
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            reply = handle(json.loads(line), status)
        except Exception as exc:  # reported to the parent, which fails the input with it
            reply = {
                "ok": False,
                "error": type(exc).__name__,
                "message": str(exc)[:4000],
                "reason": str(getattr(exc, "reason", ""))[:4000],
                "traceback": traceback.format_exc()[-20000:],
            }
        reply_out.write(json.dumps(reply).encode() + b"\n")
        reply_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
