"""One WARC in, its Parquet files and completion marker out: the body of one Dask task.

`process_warc` streams records (one page in memory at a time), cleans each page, and hands rows to
the sink, which holds bounded buffers. A page that breaks the cleaner becomes a rejection with a
reason; failing to read the input or write the output fails the whole input, loudly, so Dask's
``retries`` apply and the client reports it.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime, timezone
from typing import Any

import fsspec
from fsspec.core import url_to_fs

import pipeline
from pipeline.clean import clean_html, get_cleaner
from pipeline.errors import (
    PageTimeout,
    PageTooComplex,
    PermanentInputError,
    UnreadableInput,
    WarcTaskError,
)
from pipeline.jobconfig import JobConfig
from pipeline.lang.degenerate import degenerate_reason
from pipeline.output.sink import (
    OutputPaths,
    PartitionedParquetSink,
    is_local,
    remove_marker,
    write_marker,
)
from pipeline.output.spool import Spool
from pipeline.output.stats import Stats, WarcReport
from pipeline.types import RawPage, Rejected
from pipeline.warc.inputs import display_path, input_stem
from pipeline.warc.reader import CUT_BY_FILE, NotAnArchive, iter_records, resume_point

# The reader's reason for a record type that never holds a page (pipeline.warc.reader).
SKIP_PREFIX = "record_type:"
# The marker lists the first reader issues in full (counts are always complete).
MAX_ISSUES_LOGGED = 20


def _storage_options(url: str, cfg: JobConfig) -> dict[str, Any]:
    # Storage options (endpoint, credentials) are for the remote store; a local path takes none.
    protocol = url.split("://", 1)[0] if "://" in url else "file"
    return {} if protocol in ("file", "local") else cfg.storage_dict


def clean_page(page: RawPage, cfg: JobConfig) -> Any:
    """A page's `CleanResult`, or a `Rejected` saying why it produced no document."""
    try:
        result = clean_html(
            page.body,
            url=page.url,
            http_headers=dict(page.http_headers),
            cleaner=cfg.cleaner,
            limits=cfg.limits,
            markdown=cfg.writes_markdown,
            include_comments=cfg.include_comments,
            classify_page=cfg.classify_page,
            **cfg.params_dict,
        )
    except PageTooComplex as exc:
        return reject_page(page, "too_complex", str(exc))
    except PageTimeout as exc:
        return reject_page(page, "timeout", str(exc))
    except Exception as exc:  # one bad page must not kill the WARC: recorded with its type
        return reject_page(page, f"error:{type(exc).__name__}", str(exc)[:500])
    if not result.blocks:
        return reject_page(page, "no_text", "the page has no text blocks")
    if not result.text:
        detail = f"all {len(result.blocks)} blocks are boilerplate"
        if result.notes:
            # Why, where a rule emptied the page (`fragments_dropped`: only a frame was left).
            detail += f" (cleaner notes: {', '.join(result.notes)})"
        return reject_page(page, "no_good_blocks", detail)
    degenerate = degenerate_reason(result.text, page.body, result.encoding)
    if degenerate is not None:
        # A decompression bomb of one letter is not language, whatever the detector answers.
        return reject_page(page, "degenerate_text", degenerate)
    return result


def reject_page(page: RawPage, reason: str, detail: str) -> Rejected:
    """The rejection of ``page`` for ``reason``, placed where the page's record is.

    A page whose record was cut short (by the end of the file, the body cap, or a broken
    content coding) says so in the detail: its rejection may be the cut's doing (an empty page
    cut after its headers is ``no_text``)."""
    cut = [note for note in page.notes if note in _TRUNCATION_NOTES]
    if cut:
        detail = f"{detail}; {', '.join(_TRUNCATION_NOTES[note] for note in cut)}"
    return Rejected(
        warc_path=page.warc_path,
        record_id=page.record_id,
        record_type=page.record_type,
        warc_offset=page.warc_offset,
        url=page.url,
        reason=reason,
        detail=detail,
        warc_length=page.warc_length,
    )


# The reader's notes for a page cut short (`pipeline.warc.reader`), as a rejection says them.
_TRUNCATION_NOTES = {
    "truncated_by_file": CUT_BY_FILE,
    "truncated_by_cap": "the body was cut at --max-body-bytes",
    "truncated_body_encoding": "the body's content coding breaks off",
}


def warm_up(cfg: JobConfig) -> None:
    """Load what every page of a job needs, once per process: the cleaner (a learned one reads its
    model), the language profiles, and the parser and compiled kernels (by cleaning one small
    page). Workers run it when they start (`pipeline.job.workers.WarmUp`); without it the first task
    of each process pays the same cost on its first page."""
    from pipeline.lang import profiles

    get_cleaner(cfg.cleaner, cfg.params_dict)
    profiles.model()
    clean_html(
        _WARM_PAGE,
        cleaner=cfg.cleaner,
        limits=cfg.limits,
        markdown=cfg.writes_markdown,
        include_comments=cfg.include_comments,
        classify_page=cfg.classify_page,
        **cfg.params_dict,
    )


_WARM_PAGE = (
    b"<html><head><title>Warm-up</title></head><body><nav><a href='/'>Home</a></nav>"
    b"<h1>A page to load the parser</h1><p>The detector, the stoplists and the model are loaded "
    b"once, when the worker starts, instead of on the first page of its first task.</p></body>"
    b"</html>"
)


def _cleaner_version(cfg: JobConfig) -> str:
    # Validates the cleaner name and params before any input is read; the instance is the one
    # clean_html then uses for every page (cached per process), so a model loads once.
    impl = get_cleaner(cfg.cleaner, cfg.params_dict)
    return str(getattr(impl, "version", None) or f"warcclean-{pipeline.__version__}")


class TaskWatch:
    """What `process_warc` tells a supervisor watching it from another process.

    `pipeline.supervise`'s child passes one to report progress (every record read, every page
    started and finished) and to turn pages that killed an earlier attempt into rejections.
    The default does nothing; `process_warc` without a watch skips even the calls.
    """

    def record(self, item: object) -> None:
        """Called with each item the reader yields, before it is handled."""

    def clean(self, page: RawPage, cfg: JobConfig) -> Any:
        """The page's `CleanResult` or `Rejected`, as `clean_page` gives it."""
        return clean_page(page, cfg)

    def offer_checkpoint(self, write: Callable[[RawPage], None]) -> None:
        """Given, in a spooling run, the function that makes every row and count so far durable
        with reading to resume at the page it is passed. While `clean` runs on a page, nothing
        else touches those rows and counts: a watch may call ``write`` with that page from
        another thread, and must keep `clean` from returning until it is done."""


def process_warc(
    warc_path: str,
    cfg: JobConfig,
    *,
    watch: TaskWatch | None = None,
    spool_dir: str | None = None,
) -> WarcReport:
    """Clean every record of ``warc_path`` into ``cfg.output``; return what happened.

    Idempotent: the input's old marker is removed first, its files are replaced, and the new
    marker is written last, so a crash at any point leaves the input "not done". With
    ``cfg.record_limit`` the input is read up to that many records; cut there, its marker is
    ``_done/<stem>.limited.json`` (`pipeline.output.sink.write_marker`), which is not "done".

    This runs in the calling process, where a page's parse cannot be stopped: the job runs it
    under `pipeline.supervise.process_warc_supervised`, which enforces the time caps from outside.
    There, with ``spool_dir``, the rows and counts are made durable in that directory twice
    a second (`pipeline.output.spool`), and a run given a directory that holds a checkpoint goes
    on from it: a killed process costs the pages since its last checkpoint, not the input.
    """
    started = time.perf_counter()
    stem = input_stem(warc_path)
    # The name its rows and report carry: a file name's bytes that are not UTF-8 escaped.
    shown = display_path(warc_path)
    cleaner_version = _cleaner_version(cfg)
    params_json = cfg.params_json()
    fs, root = url_to_fs(cfg.output, **_storage_options(cfg.output, cfg))
    paths = OutputPaths(root, stem)
    spool = None if spool_dir is None else Spool(spool_dir)
    state = None if spool is None else spool.state
    stats = Stats() if state is None else Stats.from_dict(state["stats"])
    issues: list[dict[str, Any]] = [] if state is None else list(state["issues"])
    limit = cfg.record_limit
    cut = False
    try:
        remove_marker(fs, paths)
        with ExitStack() as stack:
            stream = stack.enter_context(_InputFile(warc_path, cfg))
            sink = stack.enter_context(
                PartitionedParquetSink(
                    fs,
                    paths,
                    batch_rows=cfg.batch_rows,
                    batch_bytes=cfg.batch_bytes,
                    text=cfg.writes_text,
                    markdown=cfg.writes_markdown,
                    include_comments=cfg.include_comments,
                    spool=spool,
                )
            )
            input_bytes = _size(stream)

            def checkpoint_at(page: RawPage) -> None:
                # Everything before this page is durable; a new attempt starts at it.
                sink.checkpoint(
                    {"stats": stats.to_dict(), "issues": issues, "resume": resume_point(page)}
                )

            if watch is not None and spool is not None:
                watch.offer_checkpoint(checkpoint_at)
            try:
                items = iter_records(
                    stream,
                    shown,
                    max_body_bytes=cfg.limits.max_body_bytes,
                    resume=None if state is None else state["resume"],
                )
                first = next(items, None)
            except NotAnArchive as exc:
                raise UnreadableInput(str(exc)) from None
            for item in itertools.chain(() if first is None else (first,), items):
                if watch is not None:
                    watch.record(item)
                if isinstance(item, RawPage):
                    if spool is not None and spool.due():
                        checkpoint_at(item)
                    outcome = clean_page(item, cfg) if watch is None else watch.clean(item, cfg)
                    # Counted once cleaned: a checkpoint taken while it cleans excludes it.
                    stats.records += 1
                    stats.body_bytes += len(item.body)
                    if isinstance(outcome, Rejected):
                        stats.rejects[outcome.reason] += 1
                        sink.write_reject(outcome)
                    else:
                        language = sink.write_doc(
                            item,
                            outcome,
                            cleaner_version=cleaner_version,
                            cleaner_params=params_json,
                        )
                        stats.docs += 1
                        stats.languages[language] += 1
                        stats.text_chars += len(outcome.text)
                        stats.structure.update(outcome.structure)
                        if outcome.page_type is not None:
                            stats.page_types[outcome.page_type] += 1
                elif isinstance(item, Rejected):
                    stats.records += 1
                    if item.reason.startswith(SKIP_PREFIX):
                        # request/metadata/warcinfo records: counted, not rows of rejects/
                        stats.skipped[item.reason.removeprefix(SKIP_PREFIX)] += 1
                    else:
                        stats.rejects[item.reason] += 1
                        sink.write_reject(item)
                else:
                    stats.issues[_issue_kind(item)] += 1
                    if len(issues) < MAX_ISSUES_LOGGED:
                        issues.append(_issue_dict(item))
                if limit is not None and stats.records >= limit:
                    # A trial run: no record past the limit is read. Whether the input had more
                    # is not known, so it counts as cut (its marker says so).
                    cut = True
                    break
            # Before the commit, so that the sink drops its (empty) files with the input.
            _check_input_readable(stats, issues)
            files = sink.commit()
        report = WarcReport(
            warc_path=shown,
            stem=stem,
            stats=stats,
            files=tuple(fs.unstrip_protocol(f) if not is_local(fs) else f for f in files),
            seconds=time.perf_counter() - started,
            input_bytes=input_bytes,
            issues=tuple(issues),
            limit=limit if cut else None,
        )
        # When it finished, so that a report rebuilt from the output can place it in time.
        write_marker(fs, paths, {**report.to_dict(), "finished_at": _utc_now()})
    except Exception as exc:
        # The message names the input, the output and the cause; the reason is the cause alone.
        # A failure that every attempt repeats keeps its type, so that the job does not retry it.
        kind = type(exc) if isinstance(exc, PermanentInputError) else WarcTaskError
        reason = f"{type(exc).__name__}: {exc}"
        raise kind(f"input {shown!r} failed (output {cfg.output!r}): {reason}", reason) from exc
    return report


# The input itself cannot be opened: no attempt after this one will open it either.
_UNOPENABLE = (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)


class _InputFile:
    """``fsspec.open`` of the input, where a file that cannot be opened is `UnreadableInput`."""

    def __init__(self, warc_path: str, cfg: JobConfig) -> None:
        self._file = fsspec.open(
            warc_path, "rb", compression=None, **_storage_options(warc_path, cfg)
        )

    def __enter__(self) -> Any:
        try:
            return self._file.__enter__()
        except _UNOPENABLE as exc:
            raise UnreadableInput(f"cannot open it: {type(exc).__name__}: {exc}") from exc

    def __exit__(self, *exc_info: Any) -> None:
        self._file.__exit__(*exc_info)


def _check_input_readable(stats: Stats, issues: list[dict[str, Any]]) -> None:
    """Raise `UnreadableInput` when not one record could be read from the input.

    An empty file, or one that is no WARC/ARC at all, would otherwise count as done: its marker
    would keep every re-run from trying it again, and the run would not fail. Any record read
    (a warcinfo alone too) makes the input a WARC, however damaged the rest.
    """
    if stats.records:
        return
    if not issues:
        raise UnreadableInput("no WARC/ARC record in it: the input is empty")
    first = issues[0]
    raise UnreadableInput(
        f"no WARC/ARC record could be read ({first['kind']} at byte {first['offset']}: "
        f"{first['detail']})"
    )


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _issue_kind(issue: object) -> str:
    return str(getattr(issue, "kind", None) or type(issue).__name__)


def _issue_dict(issue: object) -> dict[str, Any]:
    return {
        "kind": _issue_kind(issue),
        "offset": getattr(issue, "offset", None),
        "detail": str(getattr(issue, "detail", ""))[:300],
        "skipped": getattr(issue, "skipped", 0),
    }


def _size(stream: Any) -> int:
    size = getattr(stream, "size", None)
    if isinstance(size, int):
        return size
    try:
        return os.fstat(stream.fileno()).st_size
    except (AttributeError, OSError, ValueError):
        return 0
