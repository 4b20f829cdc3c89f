"""One BLAS thread per process, as Dask's nanny gives every worker it spawns.

The `neighbours` model's sequence net (`pipeline.learned.convnet`) multiplies small matrices, one
page at a time. A multi-threaded BLAS pool gains nothing on products that small, and its threads
keep spinning after each one returns, burning a core and inflating the process's CPU time while the
main thread parses the next page (measured: every stage of `bench/default_cleaner.py`, jusText
included, took 1.7-2.9x longer with OpenBLAS's default pool on two cores). Parallelism here is
across pages, in worker processes. Entry points that clean pages in-process (the ``warcclean``
command, the benchmarks) call `single_threaded_blas` before numpy is imported; a library caller who
wants the same sets ``OPENBLAS_NUM_THREADS=1`` (or uses threadpoolctl) themselves."""

from __future__ import annotations

import os

# The variables Dask's `distributed.nanny.pre-spawn-environ` sets for workers.
BLAS_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def single_threaded_blas() -> None:
    """Ask for one BLAS thread unless the environment already says otherwise. Effective only
    before numpy is first imported (BLAS reads the variables when it loads)."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
