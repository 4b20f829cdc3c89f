"""One BLAS thread for the library's own small matrix products, whatever the caller's settings.

The `neighbours` model's sequence net (`pipeline.learned.convnet`) multiplies small matrices, one
page at a time. A multi-threaded BLAS pool gains nothing on products that small, and its threads
keep spinning after each one returns, burning a core and inflating the process's CPU time while the
main thread parses the next page (measured: a plain ``pipeline.clean_html`` call cost 5.9 ms CPU
per page with OpenBLAS's default pool on two cores against 2.7 ms with one thread). Parallelism
here is across pages, in worker processes.

So inference runs inside `one_blas_thread()`: the process's BLAS pools are limited to one thread
for the call and given back their previous size after it, so a notebook's or a
Spark task's own numpy work keeps the threads it was given. Entry points that only clean pages
(the ``warcclean`` command, the benchmarks) also call `single_threaded_blas` before numpy is
imported, so that nothing else in them spins either.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# The variables Dask's `distributed.nanny.pre-spawn-environ` sets for workers.
BLAS_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def single_threaded_blas() -> None:
    """Ask for one BLAS thread unless the environment already says otherwise. Effective only
    before numpy is first imported (BLAS reads the variables when it loads)."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


class _BlasLimit:
    """A process-wide, re-entrant "one BLAS thread" section shared by all threads.

    The pools' sizes are process state, so concurrent sections (Dask runs several tasks in one
    worker process) must not each save and restore them: the first section to enter saves the
    sizes and sets one thread, the last to leave restores them. threadpoolctl finds the loaded
    libraries, once (about 1 ms; a section then costs about 10 us) and only after numpy is loaded,
    which every caller of a section has done. Its own ``limit`` is not used: for OpenBLAS it obeys
    only the first Python thread that ever set a limit and silently ignores the others, and
    sections run in whatever thread a Dask, Spark or Ray task gets."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._libraries: list[Any] | None = None
        self._saved: list[tuple[Any, int]] = []

    def enter(self) -> None:
        with self._lock:
            self._depth += 1
            if self._depth > 1:
                return
            if self._libraries is None:
                from threadpoolctl import ThreadpoolController

                blas = ThreadpoolController().select(user_api="blas")
                self._libraries = list(blas.lib_controllers)
            for library in self._libraries:
                threads = library.get_num_threads()
                if threads is not None and threads != 1:
                    self._saved.append((library, threads))
                    _set_threads(library, 1)

    def exit(self) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                for library, threads in self._saved:
                    _set_threads(library, threads)
                self._saved.clear()


def _set_threads(library: Any, threads: int) -> None:
    # OpenBLAS's controller keeps the unconditional setter beside the thread-guarded one.
    getattr(library, "_real_set_num_threads", library.set_num_threads)(threads)


_LIMIT = _BlasLimit()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the body with every loaded BLAS library limited to one thread, then give the pools
    back the sizes they had (unless another thread of this process is still inside)."""
    _LIMIT.enter()
    try:
        yield
    finally:
        _LIMIT.exit()
