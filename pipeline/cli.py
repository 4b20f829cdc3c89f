"""Command-line entry points: ``warcclean`` (clean, eval, report, show) and ``dask submit``.

Commands are thin: each parses options and calls the library; nothing here decides anything a
library caller could not decide the same way.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

from pipeline.threads import single_threaded_blas

single_threaded_blas()  # before anything imports numpy; see pipeline.threads

import click  # noqa: E402

from pipeline.cleaners.params import PARAM_HELP  # noqa: E402
from pipeline.cleaners.registry import DEFAULT_CLEANER  # noqa: E402
from pipeline.html.class_cues import ancestor_cue_names  # noqa: E402
from pipeline.types import CleanResult  # noqa: E402


class _Commands(click.Group):
    """The group, with commands that import Dask loaded only when they are asked for: every
    other command (and ``--help``) starts without Dask's half second of imports."""

    LAZY: ClassVar[dict[str, tuple[str, str]]] = {
        "run": ("pipeline.job.command", "main"),
        "site": ("pipeline.job.site_command", "main"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.LAZY])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.LAZY:
            import importlib

            module, attr = self.LAZY[name]
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)


@click.group(cls=_Commands)
@click.version_option(package_name="warcclean")
def main() -> None:
    """warcclean: clean web pages and WARC crawls into a labelled text corpus."""


def program() -> None:
    """The ``warcclean`` program: `main`, in a process that is the job's own when it runs one."""
    from pipeline.job import OWN_PROCESS

    main(obj=OWN_PROCESS)


# The commands below are defined by their owners' modules:
#   run    -> pipeline.job.command (the Dask job; also jobs/clean_warcs.py)
#   site   -> pipeline.job.site_command (the site stage alone, over an earlier output)
#   clean  -> this file (debug one page)
#   eval   -> pipeline.evaluate
#   report, show -> pipeline.report (the run report and the page viewer)
#   submit -> this file (the `dask submit` entry point)


# --- clean (owner: cleaners / BTE) ---------------------------------------------------------------
def _read_page(path: Path) -> bytes:
    """The page's bytes; a ``.gz`` file is gunzipped (the dev sets store pages that way)."""
    import gzip

    data = path.read_bytes()
    if path.name.endswith(".gz"):
        try:
            return gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise click.ClickException(f"{path} is not a valid gzip file: {exc}") from None
    return data


def _cleaner_options(name: str, items: tuple[str, ...]) -> dict[str, Any]:
    """``--cleaner``/``--param`` checked (`pipeline.cleaners.params`): a usage error, exit 2."""
    from pipeline.cleaners.params import OptionError, cleaner_options

    try:
        return cleaner_options(name, items)
    except OptionError as exc:
        raise click.BadParameter(str(exc), param_hint=exc.option) from None


def _abbreviate(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _short_path(dom_path: str, keep: int = 3) -> str:
    """The innermost ``keep`` elements of a dotted DOM path: where a block sits, briefly."""
    parts = dom_path.split(".")
    return dom_path if len(parts) <= keep else "…." + ".".join(parts[-keep:])


def _stopword_densities(result: CleanResult) -> list[float | None]:
    """Each block's stopword density: the cleaner's own when it recorded one, else computed."""
    from pipeline.lang.stoplists import stoplist
    from pipeline.lang.words import count_words

    words = stoplist(result.stoplist) if result.stoplist else None
    out: list[float | None] = []
    for lb in result.blocks:
        if lb.stopword_density is not None:
            out.append(lb.stopword_density)
        elif words is None:
            out.append(None)
        else:
            n, stop = count_words(lb.block.text, words)
            out.append(stop / n if n else 0.0)
    return out


def _result_json(result: CleanResult, path: Path) -> dict[str, Any]:
    densities = _stopword_densities(result)
    blocks = []
    for lb, stop in zip(result.blocks, densities, strict=True):
        features = lb.block._asdict()
        features["runs"] = list(features["runs"]) if features["runs"] is not None else None
        features["ancestor_cues"] = ancestor_cue_names(lb.block.ancestor_cues)
        blocks.append(
            {
                **features,
                "link_density": lb.block.link_density,
                "text_density": lb.block.text_density,
                "stopword_density": stop,
                "verdict": str(lb.verdict),
                "cf_class": str(lb.cf_class) if lb.cf_class is not None else None,
                "score": lb.score,
            }
        )
    return {
        "file": str(path),
        "cleaner": result.cleaner,
        "params": dict(result.params),
        "encoding": result.encoding,
        "encoding_source": result.encoding_source,
        "language": {"code": result.language.code, "prob": result.language.prob},
        "stoplist": result.stoplist,
        "n_blocks": len(result.blocks),
        "n_good": result.n_good,
        "notes": list(result.notes),
        "text": result.text,
        "markdown": result.markdown,
        "structure": list(result.structure),
        "metadata": dataclasses.asdict(result.metadata),
        "page_type": result.page_type,
        "page_type_prob": result.page_type_prob,
        "blocks": blocks,
    }


def _print_result(result: CleanResult, path: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        # Piped output (less, a file) gets a width that fits every column instead of rich's 80.
        console.width = 180
    params = ", ".join(f"{k}={v}" for k, v in result.params) or "defaults"
    console.print(f"[bold]{path}[/bold]  cleaner={result.cleaner} ({params})")
    console.print(f"encoding   {result.encoding}  (from {result.encoding_source})")
    console.print(f"language   {result.language.code}  p={result.language.prob:.3f}")
    console.print(f"stoplist   {result.stoplist or 'none: language-independent mode'}")
    for name, value in dataclasses.asdict(result.metadata).items():
        if value is not None:
            console.print(f"{name:<10} {_abbreviate(value, 150)}", markup=False, highlight=False)
    if result.page_type is not None:
        console.print(f"page type  {result.page_type}  p={result.page_type_prob:.3f}")
    console.print(f"blocks     {len(result.blocks)}, good {result.n_good}")
    if result.notes:
        console.print(f"notes      {', '.join(result.notes)}")
    table = Table(show_lines=False, pad_edge=False)
    for name, justify in (
        ("#", "right"),
        ("label", "left"),
        ("cf", "left"),
        ("score", "right"),
        ("chars", "right"),
        ("words", "right"),
        ("link", "right"),
        ("stop", "right"),
        ("tag", "left"),
        ("path", "left"),
        ("text", "left"),
    ):
        table.add_column(
            name,
            justify=justify,  # type: ignore[arg-type]
            no_wrap=True,
            min_width=30 if name == "text" else None,
            max_width=28 if name == "path" else None,
            overflow="ellipsis",
        )
    for lb, stop in zip(result.blocks, _stopword_densities(result), strict=True):
        b = lb.block
        colour = {"good": "green", "comment": "yellow"}.get(lb.verdict.value, "red")
        table.add_row(
            str(b.index),
            f"[{colour}]{lb.verdict}[/{colour}]",
            str(lb.cf_class) if lb.cf_class is not None else "-",
            f"{lb.score:.2f}" if lb.score is not None else "-",
            str(b.n_chars),
            str(b.n_words),
            f"{b.link_density:.2f}",
            f"{stop:.2f}" if stop is not None else "-",
            b.tag + (" (h)" if b.is_heading else ""),
            _short_path(b.dom_path),
            _abbreviate(b.text, 60),
        )
    console.print(table)


@main.command("clean")
@click.argument("page", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--cleaner",
    "cleaner_name",
    default=DEFAULT_CLEANER,
    show_default=True,
    help="Registered cleaner name.",
)
@click.option("--language", help="ISO 639 code to use instead of detecting the language.")
@click.option(
    "--url", help="The page's address: the default cleaner reads its shape (/products/, /t/, ...)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the whole result as JSON.")
@click.option(
    "--markdown",
    "as_markdown",
    is_flag=True,
    help="Print the kept content as Markdown (headings, lists, tables, code, math) instead.",
)
@click.option(
    "--include-comments",
    is_flag=True,
    help="Keep reader comments (blocks labelled 'comment') in the text and Markdown.",
)
@click.option(
    "--page-type",
    "classify_page",
    is_flag=True,
    help="Name the page's type (page_type: article, product, listing, ...).",
)
@click.option("--param", "param_items", multiple=True, metavar="K=V", help=PARAM_HELP)
def clean_command(
    page: Path,
    cleaner_name: str,
    language: str | None,
    url: str | None,
    as_json: bool,
    as_markdown: bool,
    include_comments: bool,
    classify_page: bool,
    param_items: tuple[str, ...],
) -> None:
    """Clean one HTML PAGE (gunzipped if it ends in .gz) and show each block's label and why."""
    import json

    from pipeline.clean import clean_html
    from pipeline.errors import PageTooComplex
    from pipeline.lang.langid import normalize_code

    if as_json and as_markdown:
        raise click.UsageError("--json and --markdown are exclusive (the JSON holds the Markdown)")
    params = _cleaner_options(cleaner_name, param_items)
    if language is not None and normalize_code(language) == "und" and language.lower() != "und":
        raise click.BadParameter(f"{language!r} is not an ISO 639 code", param_hint="--language")
    html = _read_page(page)
    try:
        result = clean_html(
            html,
            url=url,
            cleaner=cleaner_name,
            language=language,
            include_comments=include_comments,
            classify_page=classify_page,
            **params,
        )
    except PageTooComplex as exc:
        raise click.ClickException(f"{page}: {exc}") from None
    if as_json:
        click.echo(json.dumps(_result_json(result, page), ensure_ascii=False, indent=2))
    elif as_markdown:
        # As it is, for a pipe or a file: no table, no colours.
        click.echo(result.markdown, nl=not result.markdown.endswith("\n"))
    else:
        _print_result(result, page)


# --- eval (owner: evaluation) -------------------------------------------------------------------
@main.command("eval")
@click.argument("dataset_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--cleaner", "cleaner_name", required=True, help="Registered cleaner name.")
@click.option("--param", "param_items", multiple=True, metavar="K=V", help=PARAM_HELP)
@click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write per-page rows and aggregates here.",
)
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N pages (by id).")
@click.option(
    "--pages",
    "pages_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="File of page ids to evaluate, one per line.",
)
@click.option(
    "--language-from-truth",
    is_flag=True,
    help="Pass the ground-truth language instead of detecting it.",
)
@click.option(
    "--group-by",
    "group_by",
    multiple=True,
    type=click.Choice(["source", "language", "site"]),
    help="Also score per source dataset, language or site (repeatable). The learned cleaners "
    "saw most of the dev sites: refitted with whole groups held out, see jobs/grouped_cv.py.",
)
def eval_command(
    dataset_dir: Path,
    cleaner_name: str,
    param_items: tuple[str, ...],
    json_out: Path | None,
    limit: int | None,
    pages_file: Path | None,
    language_from_truth: bool,
    group_by: tuple[str, ...],
) -> None:
    """Score a cleaner on a labelled dev set (WCXB layout or multilingual-dev)."""
    import sys

    from rich.console import Console
    from rich.progress import Progress

    from pipeline.evaluate import datasets as ds
    from pipeline.evaluate import scoring as ev

    params = _cleaner_options(cleaner_name, param_items)
    try:
        ids = ds.read_ids(pages_file) if pages_file is not None else None
        pages = ds.load_dataset(dataset_dir, ids)
    except (ds.DatasetError, OSError, UnicodeDecodeError) as exc:
        raise click.ClickException(str(exc)) from None
    if limit is not None:
        pages = pages[:limit]
    console = Console(stderr=True)
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"{cleaner_name} on {dataset_dir.name}", total=len(pages))
        report = ev.evaluate(
            pages,
            cleaner_name,
            params,
            language_from_truth=language_from_truth,
            on_page=lambda _row: progress.advance(task),
        )
    report.dataset = str(dataset_dir)
    report.group_by = tuple(dict.fromkeys(group_by))
    # Piped output (files, CI logs) gets wide tables instead of rich's 80-column default.
    ev.print_report(report, Console(width=None if sys.stdout.isatty() else 150))
    if json_out is not None:
        report.write_json(json_out)
        console.print(f"wrote {json_out}")


# --- report, show (owner: pipeline.report) -----------------------------------------------------
@main.command("report")
@click.argument("output")
@click.option(
    "-o",
    "--out",
    "out_path",
    help="Where to write the HTML report [default: OUTPUT/_runs/report.html].",
)
@click.option(
    "--storage-option", "storage", multiple=True, metavar="K=V", help="fsspec option (repeatable)."
)
@click.option("--no-charts", is_flag=True, help="Tables only, even when matplotlib is installed.")
def report_command(
    output: str, out_path: str | None, storage: tuple[str, ...], no_charts: bool
) -> None:
    """Write the HTML run report of an OUTPUT directory (rebuilt from _done/, _runs/, Parquet)."""
    from pipeline.jobconfig import parse_pairs
    from pipeline.report import charts
    from pipeline.report.collect import ReportError
    from pipeline.report.run_report import write_report

    try:
        options = parse_pairs(storage, "--storage-option")
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--storage-option") from None
    path = out_path or f"{output.rstrip('/')}/_runs/report.html"
    try:
        write_report(
            output, path, storage_options=options, with_charts=False if no_charts else None
        )
    except (ReportError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    except Exception as exc:
        # What the report cannot read it skips and names; anything left is still the output's
        # fault more likely than ours, and a message says more to the user than a traceback.
        raise click.ClickException(
            f"cannot build the report of {output}: {type(exc).__name__}: {exc}"
        ) from None
    click.echo(f"wrote {path}")
    if not no_charts and not charts.available():
        click.echo(f"tables only: {charts.INSTALL_HINT} adds the charts", err=True)


@main.command("show")
@click.argument("source")
@click.option(
    "-o",
    "--out",
    "out_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The HTML file to write.",
)
@click.option("--record-id", help="SOURCE is an output directory: show this record of the run.")
@click.option("--compare", "compare_name", help="A second cleaner, shown side by side.")
@click.option("--cleaner", "cleaner_name", help=f"For a PAGE file [default: {DEFAULT_CLEANER}].")
@click.option(
    "--param", "param_items", multiple=True, metavar="K=V", help=f"{PARAM_HELP} (PAGE file)"
)
@click.option("--language", help="ISO 639 code instead of detecting it (PAGE file).")
@click.option("--url", help="The page's address (PAGE file): the default cleaner reads it.")
@click.option(
    "--storage-option", "storage", multiple=True, metavar="K=V", help="fsspec option (repeatable)."
)
def show_command(
    source: str,
    out_path: Path,
    record_id: str | None,
    compare_name: str | None,
    cleaner_name: str | None,
    param_items: tuple[str, ...],
    language: str | None,
    url: str | None,
    storage: tuple[str, ...],
) -> None:
    """Show one page's blocks, kept and removed, with why, as an HTML file.

    SOURCE is an HTML page file (.gz too), or with --record-id an output directory (local or
    fsspec URL): the record is read back from its WARC and shown as the run labelled it. A
    rejected record is always shown with its reason, cleaned again when it can be.
    """
    from pipeline.cleaners.params import OptionError, cleaner_options
    from pipeline.jobconfig import parse_pairs
    from pipeline.report.fetch import RecordError
    from pipeline.report.show import show_html, show_record

    if compare_name is not None:
        try:
            cleaner_options(compare_name, ())
        except OptionError as exc:
            raise click.BadParameter(str(exc), param_hint="--compare") from None
    try:
        if record_id is not None:
            if cleaner_name or param_items or language or url:
                raise click.UsageError(
                    "--cleaner, --param, --language and --url are for a PAGE file; a record is "
                    "shown as its run cleaned it (add --compare NAME for another cleaner)"
                )
            options = parse_pairs(storage, "--storage-option")
            page = show_record(source, record_id, compare=compare_name, storage_options=options)
        else:
            path = Path(source)
            if path.is_dir():
                raise click.UsageError(f"{source} is a directory: add --record-id ID")
            if not path.is_file():
                raise click.UsageError(f"{source} is not a file")
            cleaner = cleaner_name or DEFAULT_CLEANER
            params = _cleaner_options(cleaner, param_items)
            page = show_html(
                _read_page(path),
                title=str(path),
                cleaner=cleaner,
                params=params,
                url=url,
                language=language,
                compare=compare_name,
            )
    except ValueError as exc:  # --param / --storage-option syntax
        raise click.UsageError(str(exc)) from None
    except RecordError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        out_path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(f"cannot write {out_path}: {exc}") from None
    click.echo(f"wrote {out_path}")


@click.command(
    name="submit",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("script", type=click.Path(exists=True, dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--scheduler",
    default=None,
    envvar="DASK_SCHEDULER_ADDRESS",
    help="Scheduler address (tcp://host:8786); sets Dask's scheduler-address for the script.",
)
def submit(script: str, args: tuple[str, ...], scheduler: str | None) -> None:
    """Run SCRIPT with ARGS against a Dask cluster.

    The script runs here (the client side) as ``__main__``; any ``Client()`` it creates without
    an address connects to --scheduler (or DASK_SCHEDULER_ADDRESS). Without one, the script's
    own defaults apply (jobs/clean_warcs.py then starts a LocalCluster).
    """
    import os
    import runpy
    import sys

    import dask

    argv = [script, *args]
    if scheduler:
        os.environ["DASK_SCHEDULER_ADDRESS"] = scheduler
        dask.config.set({"scheduler-address": scheduler})
    saved = sys.argv
    sys.argv = argv
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        sys.argv = saved
