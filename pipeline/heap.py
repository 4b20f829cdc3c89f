"""The C heap kept through a task's large allocations when Dask's worker would hand it back.

Dask's nanny starts each worker with ``MALLOC_TRIM_THRESHOLD_=65536``
(``distributed.nanny.pre-spawn-environ``), so that memory the worker frees shows at once in the
RSS its memory monitor reads. Setting it also stops glibc from raising its mmap threshold as it
goes, which stays at 128 KiB. The site stage's tasks run in the worker itself and allocate and
free arrays of megabytes for every row group (hashes, keys, offsets, labels): each one was mapped
afresh and faulted in page by page. On daniel's output 4 times over (6,444 documents), the
stage's task took about 215,000 page faults and spent a fifth of its CPU in the kernel; inside
`kept_heap`, about 35,000 (BENCHMARKS.md, "The site stage's cost").

`kept_heap` raises both thresholds while a task runs and then restores the worker's, handing
the free heap back (``malloc_trim``): the memory monitor sees the task's peak while it runs and
nothing of it afterwards. The children that clean pages drop the variable instead
(`pipeline.compiled.CHILD_ENV_DROPPED`). Outside such a worker (no variable), or without glibc,
it does nothing: glibc's adaptive default already keeps the heap.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from typing import Any

__all__ = ["TASK_MMAP_THRESHOLD", "TASK_TRIM_THRESHOLD", "kept_heap"]

# mallopt's parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
# glibc's mmap threshold without the variables, which Dask's setting leaves in place.
DEFAULT_MMAP_THRESHOLD = 128 * 1024
# While a task runs: blocks up to 32 MiB (glibc's largest mmap threshold on 64 bits) come from
# the heap, and up to 64 MiB of free heap stays mapped (1 GiB took as many faults and as much
# memory on daniel's output 4 times over; either way the worker's peak rose by about 5%).
TASK_MMAP_THRESHOLD = 32 * 2**20
TASK_TRIM_THRESHOLD = 64 * 2**20

_lock = threading.Lock()
_active = 0


@cache
def _glibc() -> Any:
    """The C library when it is glibc (``mallopt`` and ``malloc_trim`` both), else None."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    if not (hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim")):
        return None
    return libc


def _worker_setting(environ: Mapping[str, str]) -> tuple[int, int] | None:
    """The trim and mmap thresholds the environment fixed, or None when it fixed no trim
    threshold (glibc then adapts both itself)."""
    try:
        trim = int(environ["MALLOC_TRIM_THRESHOLD_"])
    except (KeyError, ValueError):
        return None
    try:
        mmap = int(environ["MALLOC_MMAP_THRESHOLD_"])
    except (KeyError, ValueError):
        mmap = DEFAULT_MMAP_THRESHOLD
    return trim, mmap


@contextmanager
def kept_heap() -> Iterator[None]:
    """Keep the C heap through the block, or through each call of a function it decorates
    (``@kept_heap()``; see the module). Safe across threads: the thresholds are raised by the
    first to enter and restored by the last to leave."""
    global _active
    setting = _worker_setting(os.environ)
    libc = _glibc() if setting is not None else None
    if libc is None:
        yield
        return
    with _lock:
        if _active == 0:
            libc.mallopt(M_MMAP_THRESHOLD, TASK_MMAP_THRESHOLD)
            libc.mallopt(M_TRIM_THRESHOLD, TASK_TRIM_THRESHOLD)
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                trim, mmap = setting
                libc.mallopt(M_TRIM_THRESHOLD, trim)
                libc.mallopt(M_MMAP_THRESHOLD, mmap)
                libc.malloc_trim(0)
