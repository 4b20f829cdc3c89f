"""``warcclean site OUT``: the site stage on its own, over an output cleaned earlier.

For users who clean in batches: each ``warcclean run`` already ends with the stage (unless
``--site-repeats 0``), and this command runs it again over whatever the output holds now, with the
same options, on a local cluster or an existing one (``--scheduler``). The options shared with
``warcclean run`` are defined here once (`site_options`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from pipeline.job.cluster_options import cluster_options, storage_option
from pipeline.job.schedule import make_client
from pipeline.jobconfig import parse_pairs
from pipeline.site.keys import SITE_KEYS
from pipeline.site.rule import (
    DEFAULT_LONG_PAGES,
    DEFAULT_MAX_CHARS,
    DEFAULT_MAX_SHARE,
    DEFAULT_MIN_PAGES,
    SiteSettings,
)


def _repeats(ctx: click.Context, param: click.Parameter, value: int) -> int:
    try:
        SiteSettings(min_pages=value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    return value


def _long_repeats(ctx: click.Context, param: click.Parameter, value: int) -> int:
    try:
        SiteSettings(long_pages=value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    return value


def site_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The site stage's options, as ``warcclean run`` and ``warcclean site`` both take them."""
    command = click.option(
        "--site-max-chars",
        type=click.IntRange(min=0),
        default=DEFAULT_MAX_CHARS,
        show_default=True,
        metavar="N",
        help="Blocks of N or more characters need --site-long-repeats pages, not K (0: no "
        "length rule).",
    )(command)
    command = click.option(
        "--site-long-repeats",
        type=click.IntRange(min=0),
        default=DEFAULT_LONG_PAGES,
        show_default=True,
        callback=_long_repeats,
        metavar="K2",
        help="Pages a block of --site-max-chars or more characters must be on to be marked "
        "repeat (0: such blocks are never marked).",
    )(command)
    command = click.option(
        "--site-max-share",
        type=click.FloatRange(min=0, min_open=True, max=1),
        default=DEFAULT_MAX_SHARE,
        show_default=True,
        metavar="S",
        help="A page whose repeated blocks hold more than this share of its kept characters "
        "keeps them all (1: no such guard).",
    )(command)
    command = click.option(
        "--site-key",
        type=click.Choice(SITE_KEYS),
        default="host",
        show_default=True,
        help="What a site is: the URL's host, or its registered domain (Public Suffix List).",
    )(command)
    return click.option(
        "--site-repeats",
        type=click.IntRange(min=0),
        default=DEFAULT_MIN_PAGES,
        show_default=True,
        callback=_repeats,
        metavar="K",
        help="Label 'repeat' the kept blocks found on K or more pages of their site, and take "
        "them out of the text and Markdown (0: no site stage).",
    )(command)


def print_site_result(result: Any, echo: Callable[[str], None]) -> None:
    """One line on what the stage did."""
    if result.published_earlier:
        echo("site stage: finished publishing a stage that was stopped")
    if result.skipped:
        echo(f"site stage: {result.skipped}")
        return
    totals = result.report.get("totals", {})
    echo(
        f"site stage: {_counted(result.files, 'file')}, "
        f"{_counted(totals.get('repeat_blocks', 0), 'block')} "
        f"({_counted(totals.get('repeat_chars', 0), 'character')}) marked repeat in "
        f"{totals.get('docs_changed', 0):,} of {_counted(totals.get('docs', 0), 'document')}"
        f"{_emptied(totals.get('docs_emptied', 0))}, "
        f"{_counted(totals.get('duplicates', 0), 'duplicate')}, {result.seconds:.1f} s"
    )


def _emptied(n: int) -> str:
    """The documents left without text, when there are any: they stay rows (n_chars 0)."""
    return f" ({n:,} left with no text)" if n else ""


def _counted(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


@click.command("site", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("output")
@site_options
@cluster_options
@storage_option
@click.option(
    "--force",
    is_flag=True,
    help="Take over the output's lock when the job that holds it is gone (as `warcclean run "
    "--force`).",
)
def main(
    output: str,
    site_repeats: int,
    site_key: str,
    site_max_chars: int,
    site_long_repeats: int,
    site_max_share: float,
    scheduler: str | None,
    workers: int | None,
    memory_limit: str | int | None,
    storage: tuple[str, ...],
    force: bool,
) -> None:
    """Run the site stage over OUTPUT, an output of `warcclean run` (see its --site-repeats)."""
    from pipeline.job.site_stage import quiet_shuffle_logs, run_site_stage
    from pipeline.output.layout import OutputError, check_output, written_schema_version

    try:
        options = parse_pairs(storage, "--storage-option")
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    settings = SiteSettings(
        min_pages=site_repeats,
        site_key=site_key,
        max_chars=site_max_chars,
        long_pages=site_long_repeats,
        max_share=site_max_share,
    )
    try:
        check_output(output, options)
    except OutputError as exc:
        raise click.UsageError(str(exc)) from exc
    from fsspec.core import url_to_fs

    fs, root = url_to_fs(output, **options if "://" in output else {})
    if written_schema_version(fs, root.rstrip("/")) is None:
        raise click.UsageError(f"{output} holds no warcclean documents: nothing to count")
    from pipeline.output import lock

    try:
        # The stage rewrites the documents' files: never beside a job writing the same output.
        held = lock.acquire(output, options, cleaner="(site stage)", force=force)
    except lock.OutputLocked as exc:
        raise click.UsageError(str(exc)) from exc
    click.get_current_context().call_on_close(lambda: lock.release(held))
    quiet_shuffle_logs()
    with make_client(scheduler, workers, 1, memory_limit) as client:
        result = run_site_stage(client, output, settings, storage_options=options)
    print_site_result(result, click.echo)
    sys.exit(0)
