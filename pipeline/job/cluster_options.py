"""The options that say where a command runs and where its output lives, shared by ``warcclean
run`` and ``warcclean site`` so that both read them the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from pipeline.job.schedule import INPROC
from pipeline.jobconfig import parse_memory_limit


def _memory_limit(ctx: click.Context, param: click.Parameter, value: str) -> str | int | None:
    try:
        return parse_memory_limit(value, "--memory-limit")
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


def cluster_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--scheduler, --workers and --memory-limit (as the command's help lists them)."""
    command = click.option(
        "--memory-limit",
        default="auto",
        show_default=True,
        callback=_memory_limit,
        help="Per worker of the local cluster: a size (4GiB), 'auto' or 'none'.",
    )(command)
    command = click.option(
        "--workers",
        type=click.IntRange(min=1),
        default=None,
        help="Workers of the local cluster (no --scheduler) [default: CPUs].",
    )(command)
    return click.option("--scheduler", default=None, help=f"Scheduler address, or '{INPROC}'.")(
        command
    )


def storage_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """--storage-option K=V, repeated: fsspec options for remote inputs and outputs."""
    return click.option(
        "--storage-option",
        "storage",
        multiple=True,
        metavar="K=V",
        help="fsspec option for remote paths, e.g. endpoint_url=http://...",
    )(command)
