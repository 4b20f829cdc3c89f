"""A supervised child with faults injected, for tests/test_supervise.py only.

Run as ``python -m tests.supervise_faults STATUS_PATH`` (passed as ``child_argv``). It wraps the
real child's page and reader steps, then runs the real child (`pipeline.supervise.__main__`),
so everything but the injected fault is the production code. ``WARCCLEAN_TEST_FAULTS`` (JSON)
says what to do: ``{"hang": [url, ...]}`` sleeps on those pages (a stage the cooperative
deadline cannot see), ``{"die": [url, ...]}`` kills the child with SIGKILL on them (what the
kernel's OOM killer does), ``{"die_once": [url, ...], "marker_dir": DIR}`` only the first time
each, ``{"allocate": [url, ...]}`` asks for far more memory than the address-space cap allows,
``{"grow": [url, ...]}`` takes resident memory without end, ``{"stall_after": n}`` makes the
reader hang after n records, ``{"slow_start": s}`` sleeps s seconds at the start of every run
request, before the child's first status. ``{"log_pages": FILE}`` appends each page's URL to
FILE as it is cleaned, and ``{"checkpoint_seconds": s}`` sets how often the child's spool
checkpoints.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from typing import Any

from pipeline import run
from pipeline.output import spool
from pipeline.supervise import __main__ as child
from pipeline.supervise.__main__ import main

FAULTS: dict[str, Any] = json.loads(os.environ.get("WARCCLEAN_TEST_FAULTS", "{}"))
_real_clean_html = run.clean_html
_real_iter_records = run.iter_records


def faulty_clean_html(html: Any, **kwargs: Any) -> Any:
    # Inside the page step, where a real parse or cleaner would misbehave.
    page_url = kwargs.get("url")
    if "log_pages" in FAULTS:  # every page cleaned, in order, across fresh children
        with open(FAULTS["log_pages"], "a") as log:
            log.write(f"{page_url}\n")
    if page_url in FAULTS.get("hang", ()):
        time.sleep(3600)
    if page_url in FAULTS.get("die", ()):
        os.kill(os.getpid(), signal.SIGKILL)
    if page_url in FAULTS.get("die_once", ()):
        # once per page and test: a marker file remembers it across the fresh children
        marker = os.path.join(FAULTS["marker_dir"], hashlib.sha1(page_url.encode()).hexdigest())
        if not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
    if page_url in FAULTS.get("grow", ()):
        # resident memory that grows past any budget, slowly enough to be seen doing it
        hog = []
        while True:
            hog.append(bytearray(16 * 2**20))
            time.sleep(0.01)
    if page_url in FAULTS.get("allocate", ()):
        # Under the child's RLIMIT_AS this fails with MemoryError instead of taking the host.
        hog = bytearray(64 * 2**30)
        del hog
    return _real_clean_html(html, **kwargs)


def stalling_iter_records(*args: Any, **kwargs: Any) -> Iterator[Any]:
    after = FAULTS.get("stall_after")
    for n, item in enumerate(_real_iter_records(*args, **kwargs)):
        if after is not None and n == after:
            time.sleep(3600)
        yield item


def slow_to_start(limit: Any) -> None:
    # Before the child reports its first status of a run request.
    time.sleep(float(FAULTS["slow_start"]))
    _real_cap_memory(limit)


run.clean_html = faulty_clean_html
run.iter_records = stalling_iter_records
if "slow_start" in FAULTS:
    _real_cap_memory = child.cap_memory
    child.cap_memory = slow_to_start
if "checkpoint_seconds" in FAULTS:
    spool.CHECKPOINT_SECONDS = float(FAULTS["checkpoint_seconds"])

if __name__ == "__main__":
    sys.exit(main())
