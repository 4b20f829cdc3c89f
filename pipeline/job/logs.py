"""How much the job logs: ``--log-level`` for Dask's messages and warcclean's own.

On the client the level applies to the ``distributed`` and ``pipeline`` loggers; a local cluster
is started with it (`distributed.LocalCluster`'s ``silence_logs``, which sets its scheduler's and
workers' handlers); on any cluster, `LogLevel` sets it for warcclean's loggers in each worker
process. A remote cluster's own Dask logs stay as its workers were started.
"""

from __future__ import annotations

import logging
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
_FORMAT = "%(asctime)s - %(name)s - %(levelname)s - %(message)s"  # as Dask's own lines


def apply_level(level: int) -> None:
    """Show warcclean's messages from ``level`` up in this process, on stderr."""
    logger = logging.getLogger("pipeline")
    logger.setLevel(level)
    if not logger.handlers:
        # Without a handler only WARNING and above would reach stderr (logging's last resort).
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(_FORMAT))
        logger.addHandler(handler)
        logger.propagate = False


def set_log_level(name: str) -> int:
    """Apply ``--log-level NAME`` to this process; the level as a number, for the cluster."""
    level = logging.getLevelName(name.upper())
    if not isinstance(level, int):
        raise ValueError(f"--log-level expects one of {', '.join(LOG_LEVELS)}, got {name!r}")
    logging.getLogger("distributed").setLevel(level)
    apply_level(level)
    return level


class LogLevel(WorkerPlugin):
    """Sets the level of warcclean's loggers in every worker process, and any that joins."""

    name = "warcclean-log-level"

    def __init__(self, level: int) -> None:
        self.level = level

    def setup(self, worker: Any) -> None:
        apply_level(self.level)
