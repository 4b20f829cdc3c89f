"""How much the job logs: ``--log-level`` for Dask's messages and warcclean's own.

On the client the level applies to the ``distributed`` and ``pipeline`` loggers while the job
runs (`logging_at`); a local cluster is started with it (`distributed.LocalCluster`'s
``silence_logs``, which sets its scheduler's and workers' handlers); on any cluster, `LogLevel`
sets it for warcclean's loggers in each worker process. A remote cluster's own Dask logs stay
as its workers were started. Levels are put back when the job ends: a program or a test that
runs the command in its own process keeps its logging as it was.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
_LOGGERS = ("distributed", "pipeline")


def level_number(name: str) -> int:
    """``"warning"`` -> `logging.WARNING`; raises `ValueError` for a name not in `LOG_LEVELS`."""
    if name.lower() not in LOG_LEVELS:
        raise ValueError(f"--log-level expects one of {', '.join(LOG_LEVELS)}, got {name!r}")
    return int(logging.getLevelName(name.upper()))


@contextmanager
def logging_at(name: str) -> Iterator[int]:
    """Apply ``--log-level NAME`` to this process until the block ends; yields the level."""
    level = level_number(name)
    loggers = [logging.getLogger(n) for n in _LOGGERS]
    before = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(level)
    try:
        yield level
    finally:
        for logger, old in zip(loggers, before, strict=True):
            logger.setLevel(old)


class LogLevel(WorkerPlugin):
    """Sets the level of warcclean's loggers in every worker process, and any that joins;
    puts it back when the worker closes (a worker that is a thread of the client)."""

    name = "warcclean-log-level"

    def __init__(self, level: int) -> None:
        self.level = level
        self._before: int | None = None

    def setup(self, worker: Any) -> None:
        logger = logging.getLogger("pipeline")
        self._before = logger.level
        logger.setLevel(self.level)

    def teardown(self, worker: Any) -> None:
        if self._before is not None:
            logging.getLogger("pipeline").setLevel(self._before)
