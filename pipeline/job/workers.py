"""What every Dask worker process does once, when it starts: start the supervised children its
tasks will run in (`pipeline.supervise`), one per thread, each loading the job's cleaner and data;
or, for workers that clean in their own threads (``--scheduler inproc``), load them itself.

A worker plugin rather than work in the first task: a worker that joins later (an adaptive
cluster, or one the nanny restarted after a memory kill) is set up the same way, and several
threads of one worker never race to build the same model. This is the library's only Dask
import besides the job script and the CLI.
"""

from __future__ import annotations

import logging
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from pipeline.jobconfig import JobConfig
from pipeline.supervise import set_memory_budget, start_children


class WarmUp(WorkerPlugin):
    """Starts each worker process's children for ``cfg``, or builds ``cfg``'s cleaner, the
    language profiles and the parser in the worker when its threads clean (no children)."""

    # One per job configuration: a second job with another cleaner registers its own.
    def __init__(self, cfg: JobConfig, *, start_children: bool = True) -> None:
        self.cfg = cfg
        self.start_children = start_children
        self.name = f"warcclean-warm-up-{cfg.cleaner}-{cfg.params_json()}"

    def setup(self, worker: Any) -> None:
        if self.start_children:
            threads = int(getattr(worker, "nthreads", 1) or 1)
            manager = getattr(worker, "memory_manager", None)
            # Dask holds the worker's own process to its memory limit, never the children:
            # each child is held to its share by its supervisor (`pipeline.supervise`).
            set_memory_budget(getattr(manager, "memory_limit", None), threads)
            try:
                # Started now, the children load while the scheduler hands out the first tasks.
                # The worker process itself never cleans a page: it loads no cleaner (nor even
                # imports one), which saved a fifth of a second of CPU per worker.
                start_children(self.cfg, threads)
            except Exception:
                # A task starts its own child when none is waiting.
                logging.getLogger(__name__).exception(
                    "warcclean children not started on %s", worker.address
                )
            return
        from pipeline.job.task import run_module

        try:
            run_module().warm_up(self.cfg)
        except Exception:
            # The job's tasks build the same things and report the error per input; a worker
            # that cannot warm up must still start so that they can.
            logging.getLogger(__name__).exception("warcclean warm-up failed on %s", worker.address)


class NoPandasProbe(WorkerPlugin):
    """Settles pyarrow's pandas probe in each worker process of the job's own local cluster
    (`pipeline.output.arrow.skip_pandas_probe`), as the supervised children do: the site stage
    turns Arrow arrays into numpy on a worker, and pyarrow's first conversion would import
    pandas there (0.26 s of CPU, which a worker that only cleans never loads). At worker
    start-up no task runs, so no thread can be importing pandas in that instant; a user's own
    cluster (``--scheduler``) is left alone."""

    name = "warcclean-no-pandas-probe"

    def setup(self, worker: Any) -> None:
        from pipeline.output.arrow import skip_pandas_probe

        skip_pandas_probe()
