"""pipeline.heap: the C heap kept through a site-stage task in a Dask worker."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import threading

import pytest

from pipeline import heap


class _Libc:
    """Records the allocator calls `kept_heap` makes."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append(("mallopt", param, value))
        return 1

    def malloc_trim(self, pad: int) -> int:
        self.calls.append(("malloc_trim", pad))
        return 1


@pytest.fixture
def libc(monkeypatch) -> _Libc:
    fake = _Libc()
    monkeypatch.setattr(heap, "_glibc", lambda: fake)
    return fake


RAISED = [
    ("mallopt", heap.M_MMAP_THRESHOLD, heap.TASK_MMAP_THRESHOLD),
    ("mallopt", heap.M_TRIM_THRESHOLD, heap.TASK_TRIM_THRESHOLD),
]


RESTORED = [
    ("mallopt", heap.M_TRIM_THRESHOLD, 65536),
    ("mallopt", heap.M_MMAP_THRESHOLD, heap.DEFAULT_MMAP_THRESHOLD),
    ("malloc_trim", 0),
]


def test_a_worker_s_thresholds_are_raised_for_the_task_and_restored_after_it(
    libc: _Libc, monkeypatch
) -> None:
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    with heap.kept_heap():
        assert libc.calls == RAISED
    assert libc.calls[2:] == RESTORED


def test_as_a_decorator_it_keeps_the_heap_through_each_call(libc: _Libc, monkeypatch) -> None:
    @heap.kept_heap()
    def task(x: int) -> int:
        return x + len(libc.calls)

    # Nothing happens where the function is defined (at import, on a worker)...
    assert libc.calls == []
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    # ...and each call raises the thresholds before it runs and restores them after it.
    assert task(0) == 2
    assert task(0) == 7
    assert libc.calls == (RAISED + RESTORED) * 2


def test_an_mmap_threshold_the_environment_set_is_the_one_restored(
    libc: _Libc, monkeypatch
) -> None:
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "131072")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "262144")
    with pytest.raises(RuntimeError, match="task failed"), heap.kept_heap():
        raise RuntimeError("task failed")
    # Restored on the way out of a failing task too.
    assert libc.calls[2:] == [
        ("mallopt", heap.M_TRIM_THRESHOLD, 131072),
        ("mallopt", heap.M_MMAP_THRESHOLD, 262144),
        ("malloc_trim", 0),
    ]


@pytest.mark.parametrize("value", [None, "", "lots"])
def test_without_a_fixed_trim_threshold_nothing_is_touched(
    libc: _Libc, monkeypatch, value: str | None
) -> None:
    # glibc adapts its thresholds itself then; a mallopt call would stop that for good.
    if value is None:
        monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    else:
        monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", value)
    with heap.kept_heap():
        pass
    assert libc.calls == []


def test_overlapping_tasks_raise_once_and_the_last_to_end_restores(
    libc: _Libc, monkeypatch
) -> None:
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    inside, release = threading.Event(), threading.Event()

    def other_task() -> None:
        with heap.kept_heap():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other_task)
    thread.start()
    assert inside.wait(10)
    with heap.kept_heap():
        pass
    # This task ended while the other ran: the thresholds stay raised.
    assert libc.calls == RAISED
    release.set()
    thread.join(10)
    assert [c[0] for c in libc.calls[2:]] == ["mallopt", "mallopt", "malloc_trim"]


_FAULTS = """
import json, resource, sys
import numpy as np
from pipeline.heap import kept_heap

def faults(keep):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(40):
        if keep:
            with kept_heap():
                for _ in range(20):
                    a = np.ones(1 << 17)  # 1 MiB, every page written
                    del a
        else:
            for _ in range(20):
                a = np.ones(1 << 17)
                del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

print(json.dumps({"plain": faults(False), "kept": faults(True)}))
"""


def test_in_a_process_started_as_dask_starts_a_worker_the_heap_is_kept() -> None:
    if heap._glibc() is None:
        pytest.skip("the C library is not glibc: kept_heap does nothing here")
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
    env.pop("MALLOC_MMAP_THRESHOLD_", None)
    out = subprocess.run(
        [sys.executable, "-c", _FAULTS], env=env, capture_output=True, text=True, check=True
    )
    counts = json.loads(out.stdout)
    # 800 arrays of 1 MiB (256 pages): each one mapped and faulted in afresh without the kept
    # heap (about 200,000 faults), the heap faulted in once per task with it (about 10,000:
    # the heap is handed back after each of the 40 tasks). Without the variable, glibc's
    # adaptive thresholds fault in a few hundred in all. Arrays of 4 MiB and more would not
    # do: numpy asks for transparent huge pages there, and a huge page is one fault.
    assert counts["plain"] > 100_000
    assert counts["kept"] * 5 < counts["plain"]


@pytest.mark.skipif(
    not (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"),
    reason="glibc's allocator calls exist only on a glibc system",
)
def test_on_glibc_the_allocator_calls_are_found() -> None:
    # Everything above fakes the C library; on the systems the job runs on, the real one must
    # be found, or `kept_heap` silently does nothing and every array is faulted in afresh.
    libc = heap._glibc()
    assert libc is not None and hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim")
