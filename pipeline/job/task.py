"""The job's task: one input cleaned, and what became of it returned as a value.

A failed input comes back as an `InputFailure`, not as an exception: Dask then neither logs the
failure with its traceback on the worker (its "Compute Failed" blocks, one per attempt) nor
retries it on its own. The client decides (`pipeline.job.schedule.run_job`): it resubmits an
input whose failure another attempt could mend, never one that every attempt repeats (an input
that is no archive or cannot be opened, `pipeline.errors.PermanentInputError`), and prints one
line per failed input, with the traceback only on request (``--verbose``).

Workers import this module to run the task: it imports nothing heavy until a task runs.
"""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass
from types import ModuleType

from pipeline.errors import PermanentInputError
from pipeline.jobconfig import JobConfig
from pipeline.output.stats import WarcReport

# One line on the terminal: a reader's "first line" of a binary file can run to kilobytes.
MAX_ERROR_CHARS = 400

# A worker's warm-up (`pipeline.job.workers.WarmUp`) and its first task can import the cleaning
# stack at the same moment, on two threads of one process. When two threads each wait on a module
# the other is importing, Python's per-module import locks hand one of them a half-built module:
# CI once saw warcio's ``from six.moves import range`` fail so ("'six' is not a package"). The
# first import is therefore taken under one lock.
_IMPORT_LOCK = threading.Lock()


def run_module() -> ModuleType:
    """`pipeline.run`, imported under the worker's import lock."""
    with _IMPORT_LOCK:
        from pipeline import run
    return run


@dataclass(frozen=True)
class InputFailure:
    """An input that failed: why (one line), whether to try it again, and the traceback."""

    path: str
    error: str
    retry: bool
    traceback: str = ""


def one_line(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe(exc: BaseException) -> str:
    """What the job prints for a failure: the cause, without the input's path it is shown by."""
    reason = getattr(exc, "reason", None)
    return one_line(str(reason) if reason else f"{type(exc).__name__}: {exc}")


def clean_input(path: str, cfg: JobConfig, supervised: bool = True) -> WarcReport | InputFailure:
    """Clean ``path`` into ``cfg.output``: its report, or its failure.

    ``supervised``: in a child process held to the time caps (`pipeline.supervise`), as on
    worker processes; else in this thread (workers that are threads of the client, where what a
    test patches or a debugger steps through is what runs). Both are looked up when the task
    runs, for the same reason.
    """
    try:
        if supervised:
            from pipeline import supervise

            return supervise.process_warc_supervised(path, cfg)
        return run_module().process_warc(path, cfg)
    except Exception as exc:
        return InputFailure(
            path=path,
            error=describe(exc),
            retry=not isinstance(exc, PermanentInputError),
            traceback=traceback.format_exc(),
        )
