"""The supervised child: runs `pipeline.run.process_warc` for each request on stdin.

Run as ``python -m pipeline.supervise STATUS_PATH`` by `pipeline.supervise`; the protocol is in
that package's docstring. It stays up between requests, so its imports, the cleaner's model and
the warm-up are paid once.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
import traceback
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
    """Reports each record and page to the parent through the status map, and rejects the
    pages that killed an earlier attempt instead of cleaning them again."""

    def __init__(self, status: Status, poison: dict[int, tuple[str, str]]) -> None:
        self.status = status
        self.poison = poison

    def record(self, item: object) -> None:
        offset = getattr(item, "warc_offset", None)
        self.status.set(READING, getattr(item, "offset", None) if offset is None else offset)

    def clean(self, page: RawPage, cfg: JobConfig) -> Any:
        bad = self.poison.get(page.warc_offset)
        if bad is not None:
            return run.reject_page(page, bad[0], bad[1])
        self.status.set(CLEANING, page.warc_offset)
        try:
            # Looked up at call time, as process_warc does, so wrappers (bench/faults.py) apply.
            return run.clean_page(page, cfg)
        finally:
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
    status.set(READING, None)
    try:
        report = process_warc(request["warc_path"], cfg, watch=Watch(status, poison))
    finally:
        status.set(IDLE, None)
    return {"ok": True, "report": report.to_dict()}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    status = Status(argv[0])
    report_stages(status.set_step)
    # Before the watcher thread starts: the only moment this process surely imports nothing
    # else. pyarrow would otherwise import pandas on the first rows written (0.2 s per child).
    skip_pandas_probe()
    # The protocol gets the real stdout; anything else printed goes to stderr.
    reply_out: BinaryIO = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    threading.Thread(target=_watch_parent, daemon=True).start()
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
