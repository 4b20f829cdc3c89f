"""Read an output directory back into the numbers a run report shows.

Everything comes from the output alone, so a report can be rebuilt at any time, also for an
output that several resumed runs wrote:

- ``_done/<stem>.json`` (one per finished input): records, skips by record type, reader issues,
  seconds, bytes, and when the input finished;
- ``_runs/*.json`` (one per run): when each run started, its cleaner and parameters, and the
  inputs that failed with their errors;
- the Parquet files, read column by column through their own schemas: documents per language,
  text length and the share of blocks kept, the cleaner and version that wrote each row, rejects
  by reason, and the values of page-level columns this module does not know by name (so a column
  added later, such as a cleaner's fallback, is counted without a change here).

Files are read one at a time in batches of a few columns, never ``text``, ``markdown`` or
``blocks``, so memory stays flat whatever the size of the corpus. Outputs of schema 1 (before the
``structure`` and ``markdown`` columns) report everything but those counts, and outputs before
schema 3 everything but the page metadata's fill rates.

What no warcclean run wrote (a stray file at the top, a Parquet file of another dataset, a JSON
file that is not a marker) is skipped and named in `OutputSummary.problems`: a report is still
written, and it says what it left out.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import fsspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec.core import url_to_fs

from pipeline.output.layout import LANGUAGE_PREFIX, describe, foreign_entries
from pipeline.output.schema import METADATA_COLUMNS
from pipeline.report.plural import agree, count

# Text length bins: four per decade from 1 character to 10 million (the body cap's order), so
# a 300-character stub and a 30,000-character article are as far apart as they look in a list.
LENGTH_EDGES: tuple[float, ...] = (0.0, *(10 ** (k / 4) for k in range(29)))
# Share of a page's blocks kept, in twentieths; the last bin holds 1.0 (every block kept).
SHARE_EDGES: tuple[float, ...] = tuple(k / 20 for k in range(21))

# Columns the report reads or shows by name; any other scalar page-level column is counted
# generically (`OutputSummary.other_columns`).
KNOWN_DOC_COLUMNS = frozenset(
    {
        "record_id",
        "url",
        "warc_path",
        "warc_offset",
        "warc_length",
        "warc_date",
        "http_status",
        "content_type",
        "encoding",
        "encoding_source",
        "language",
        "language_prob",
        "stoplist",
        "cleaner",
        "cleaner_version",
        "cleaner_params",
        "text",
        "n_blocks",
        "n_good",
        "n_chars",
        "n_words",
        "truncated",
        "notes",
        "blocks",
        "markdown",
        "structure",
        *METADATA_COLUMNS,
        "page_type",
        "page_type_prob",
    }
)
_READ_COLUMNS = (
    *("n_chars", "n_words", "n_blocks", "n_good", "truncated", "notes", "structure"),
    "page_type",
)
_REQUIRED_DOC_COLUMNS = ("record_id", "n_chars")
_DICT_COLUMNS = ("cleaner", "cleaner_version", "cleaner_params")
# A generic column with more distinct values than this is an identifier, not a category.
MAX_CATEGORY_VALUES = 50
# Rejected records listed per reason, the first in file order: enough to look at a few with
# the viewer, few enough that a reason with millions of rows costs one more read of one file.
MAX_REJECT_EXAMPLES = 10
_REJECT_EXAMPLE_COLUMNS = ("record_id", "url", "detail")
_BATCH_ROWS = 65_536


class ReportError(ValueError):
    """The output directory cannot be read as a warcclean output (message says why)."""


@dataclass
class Histogram:
    """Counts of values in ``[edges[i], edges[i + 1])``; the last bin is closed on the right
    for shares and open-ended for lengths (see `bin_index`)."""

    edges: tuple[float, ...]
    counts: list[int]
    open_ended: bool

    @classmethod
    def empty(cls, edges: Sequence[float], *, open_ended: bool) -> Histogram:
        n = len(edges) if open_ended else len(edges) - 1
        return cls(tuple(edges), [0] * n, open_ended)

    def bin_index(self, value: float) -> int:
        i = bisect_right(self.edges, value) - 1
        return max(0, min(i, len(self.counts) - 1))

    def add_array(self, values: np.ndarray) -> None:
        if not len(values):
            return
        idx = np.searchsorted(np.asarray(self.edges), values, side="right") - 1
        idx = np.clip(idx, 0, len(self.counts) - 1)
        for i, n in enumerate(np.bincount(idx, minlength=len(self.counts)).tolist()):
            self.counts[i] += n

    @property
    def total(self) -> int:
        return sum(self.counts)

    def quantile(self, q: float) -> float | None:
        """The lower edge of the bin holding the ``q`` quantile (what the bins can tell)."""
        total = self.total
        if not total:
            return None
        seen = 0
        for i, n in enumerate(self.counts):
            seen += n
            if seen >= q * total:
                return self.edges[i]
        return self.edges[len(self.counts) - 1]


@dataclass
class InputSummary:
    """One finished input, from its marker."""

    warc_path: str
    stem: str
    records: int
    docs: int
    rejects: int
    skipped: int
    seconds: float
    input_bytes: int
    finished_at: datetime | None
    balanced: bool
    # The job's --limit when the input was cut there (its marker is <stem>.limited.json).
    limit: int | None = None

    @property
    def records_per_second(self) -> float | None:
        return self.records / self.seconds if self.seconds > 0 else None

    @property
    def started_at(self) -> datetime | None:
        if self.finished_at is None:
            return None
        from datetime import timedelta

        return self.finished_at - timedelta(seconds=self.seconds)


@dataclass
class RunInfo:
    """One run of the job, from its ``_runs/*.json`` report."""

    name: str
    started_at: str
    seconds: float
    processed: int
    failed: int
    skipped_done: int
    records: int
    docs: int
    cleaner: str | None
    cleaner_params: dict[str, Any]
    records_per_second: float | None


@dataclass
class FailedInput:
    input: str
    error: str
    run: str  # the started_at of the last run it failed in
    stem: str = ""  # its output name (`pipeline.warc.inputs.input_stem` of its real path)


@dataclass(frozen=True)
class RejectExample:
    """One rejected record, as `OutputSummary.reject_examples` lists it."""

    record_id: str
    url: str
    detail: str


@dataclass
class CleanerUse:
    cleaner: str
    version: str
    params: str
    docs: int


@dataclass
class OutputSummary:
    """Everything a run report shows, counted from one output directory."""

    output: str
    inputs: list[InputSummary] = field(default_factory=list)
    runs: list[RunInfo] = field(default_factory=list)
    failed: list[FailedInput] = field(default_factory=list)
    # from the Parquet files
    docs: int = 0
    docs_by_language: Counter[str] = field(default_factory=Counter)
    rejects_by_reason: Counter[str] = field(default_factory=Counter)
    # The first `MAX_REJECT_EXAMPLES` rejected records of each reason, in file order.
    reject_examples: dict[str, list[RejectExample]] = field(default_factory=dict)
    text_chars: int = 0
    text_words: int = 0
    truncated: int = 0
    notes: Counter[str] = field(default_factory=Counter)
    cleaners: list[CleanerUse] = field(default_factory=list)
    length: Histogram = field(
        default_factory=lambda: Histogram.empty(LENGTH_EDGES, open_ended=True)
    )
    kept_share: Histogram = field(
        default_factory=lambda: Histogram.empty(SHARE_EDGES, open_ended=False)
    )
    # Schema 2 (`structure`, `markdown`): documents holding code, math or tables, and those
    # with Markdown written, counted over the files that have the columns (None: none has).
    structure: Counter[str] | None = None
    structure_docs: int = 0  # documents in files with a `structure` column
    markdown_docs: int | None = None  # non-null `markdown` values, from the files' statistics
    # Schema 3 (`title` ... `canonical_url`): documents with each page metadata column filled,
    # from the files' statistics, over the files that have the columns (None: none has).
    metadata_filled: Counter[str] | None = None
    metadata_docs: int = 0  # documents in files with the metadata columns
    # Schema 3 (`page_type`): documents per kind of page, over the files that have the column
    # (None: none has); documents without a type count under "".
    page_types: Counter[str] | None = None
    # page-level columns not known by name: column -> value -> pages (None: too many values)
    other_columns: dict[str, Counter[str] | None] = field(default_factory=dict)
    # rows per input stem (a file is named <stem>.parquet), to check them against the markers
    docs_by_stem: Counter[str] = field(default_factory=Counter)
    rejects_by_stem: Counter[str] = field(default_factory=Counter)
    # from the markers
    records: int = 0
    skipped_by_type: Counter[str] = field(default_factory=Counter)
    issues_by_kind: Counter[str] = field(default_factory=Counter)
    issue_log: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what could not be read, or disagrees
    # The last site stage published over the output (`_site/state.json`: its settings and
    # report, `pipeline.job.site_stage`); None when no stage ran.
    site_stage: dict[str, Any] | None = None

    @property
    def n_rejects(self) -> int:
        return sum(self.rejects_by_reason.values())

    @property
    def n_skipped(self) -> int:
        return sum(self.skipped_by_type.values())


def collect(
    output: str,
    *,
    storage_options: dict[str, Any] | None = None,
    extra_runs: Iterable[tuple[str, dict[str, Any]]] = (),
) -> OutputSummary:
    """Count everything under ``output`` (a directory or fsspec URL).

    ``extra_runs`` are ``(name, run report)`` pairs not stored under ``_runs/`` (the job passes
    its own when ``--report`` wrote it elsewhere); a run already there is not counted twice.
    Raises `ReportError` when ``output`` holds no warcclean output at all.
    """
    fs, root = url_to_fs(output, **(storage_options or {}) if "://" in output else {})
    root = root.rstrip("/")
    if not fs.isdir(root):
        raise ReportError(f"{output} is not a directory")
    summary = OutputSummary(output=output)
    foreign = foreign_entries(fs, root)
    if foreign:
        summary.problems.append(
            f"not part of a warcclean output, ignored: {describe(foreign)} "
            f"({len(foreign)} entr{'y' if len(foreign) == 1 else 'ies'})"
        )
    markers = _read_markers(fs, root, summary)
    runs = _read_runs(fs, root, summary, list(extra_runs))
    if not markers and not runs and not fs.exists(f"{root}/docs"):
        raise ReportError(
            f"{output} holds no warcclean output (no _done/, _runs/ or docs/ under it)"
        )
    _add_markers(summary, markers)
    _add_runs(summary, runs, {m["stem"] for m in markers if "stem" in m})
    _read_docs(fs, root, summary)
    _read_rejects(fs, root, summary)
    _read_site_stage(fs, root, summary)
    _cross_check(summary)
    return summary


def _read_site_stage(fs: fsspec.AbstractFileSystem, root: str, summary: OutputSummary) -> None:
    path = f"{root}/_site/state.json"
    if not fs.exists(path):
        return
    state = _load_json(fs, [path], summary).get(path)
    if isinstance(state, dict) and isinstance(state.get("report"), dict):
        summary.site_stage = state
    elif state is not None:
        summary.problems.append(f"{path} is not a site stage's state, ignored")


def _load_json(fs: fsspec.AbstractFileSystem, paths: list[str], summary: OutputSummary) -> dict:
    if not paths:
        return {}
    out = {}
    # One call: async file systems (S3, GCS) fetch the files concurrently.
    for path, data in fs.cat(paths, on_error="return").items():
        if isinstance(data, BaseException):
            summary.problems.append(f"{path}: {type(data).__name__}: {data}")
            continue
        try:
            out[path] = json.loads(data)
        except ValueError as exc:
            summary.problems.append(f"{path} is not valid JSON: {exc}")
    return out


def _mtime(info: dict[str, Any]) -> datetime | None:
    value = info.get("mtime", info.get("LastModified", info.get("created")))
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, tz=timezone.utc)
    return None


def parse_time(value: Any) -> datetime | None:
    """An ISO time as the job writes it (``2024-01-02T03:04:05Z``), in UTC; None if it is not."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def _read_markers(
    fs: fsspec.AbstractFileSystem, root: str, summary: OutputSummary
) -> list[dict[str, Any]]:
    done = f"{root}/_done"
    if not fs.isdir(done):
        return []
    infos = [
        i
        for i in fs.ls(done, detail=True)
        if i["name"].endswith(".json") and not i["name"].rpartition("/")[2].startswith(".")
    ]
    data = _load_json(fs, sorted(i["name"] for i in infos), summary)
    markers = []
    for info in infos:
        marker = data.get(info["name"])
        if marker is None:
            continue  # unreadable: `_load_json` said why
        if not isinstance(marker, dict):
            summary.problems.append(f"{info['name']} is not a completion marker, ignored")
            continue
        # Markers written before `finished_at` existed: the file's own time says the same.
        marker.setdefault("_mtime", _mtime(info))
        markers.append(marker)
    return sorted(markers, key=lambda m: str(m.get("warc_path", "")))


def _add_markers(summary: OutputSummary, markers: list[dict[str, Any]]) -> None:
    for m in markers:
        try:
            rejects = Counter({str(k): int(v) for k, v in (m.get("rejects") or {}).items()})
            skipped = Counter({str(k): int(v) for k, v in (m.get("skipped") or {}).items()})
            issues = Counter({str(k): int(v) for k, v in (m.get("issues") or {}).items()})
            records, docs = int(m["records"]), int(m["docs"])
            item = InputSummary(
                warc_path=str(m["warc_path"]),
                stem=str(m.get("stem", "")),
                records=records,
                docs=docs,
                rejects=sum(rejects.values()),
                skipped=sum(skipped.values()),
                seconds=float(m.get("seconds", 0.0)),
                input_bytes=int(m.get("input_bytes", 0)),
                finished_at=parse_time(m.get("finished_at")) or m.get("_mtime"),
                balanced=records == docs + sum(rejects.values()) + sum(skipped.values()),
                limit=None if m.get("limit") is None else int(m["limit"]),
            )
            log = [i for i in m.get("issue_log") or () if isinstance(i, dict)]
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            summary.problems.append(f"marker of {m.get('warc_path', '?')} is incomplete: {exc}")
            continue
        summary.inputs.append(item)
        summary.records += item.records
        summary.skipped_by_type += skipped
        summary.issues_by_kind += issues
        summary.issue_log += [(item.warc_path, issue) for issue in log]


def _read_runs(
    fs: fsspec.AbstractFileSystem,
    root: str,
    summary: OutputSummary,
    extra: list[tuple[str, dict[str, Any]]],
) -> list[tuple[str, dict[str, Any]]]:
    runs_dir = f"{root}/_runs"
    found: list[tuple[str, dict[str, Any]]] = []
    if fs.isdir(runs_dir):
        names = sorted(p for p in fs.ls(runs_dir, detail=False) if p.endswith(".json"))
        for path, data in _load_json(fs, names, summary).items():
            if isinstance(data, dict) and "started_at" in data:
                found.append((path.rpartition("/")[2], data))
    seen = {(d.get("started_at"), d.get("seconds")) for _, d in found}
    found += [(n, d) for n, d in extra if (d.get("started_at"), d.get("seconds")) not in seen]
    return sorted(found, key=lambda nd: str(nd[1].get("started_at")))


def _add_runs(
    summary: OutputSummary, runs: list[tuple[str, dict[str, Any]]], done_stems: set[str]
) -> None:
    failed: dict[str, FailedInput] = {}
    for name, data in runs:
        try:
            info, run_failed = _run_info(name, data)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            summary.problems.append(f"run report {name} is not one the job writes, ignored: {exc}")
            continue
        summary.runs.append(info)
        failed.update(run_failed)
    # An input that failed once and finished in a later run is no longer a failure.
    summary.failed = [f for p, f in sorted(failed.items()) if f.stem not in done_stems]


def _run_info(name: str, data: dict[str, Any]) -> tuple[RunInfo, dict[str, FailedInput]]:
    inputs = data.get("inputs") or {}
    totals = data.get("totals") or {}
    # Reports before records_per_second named the records' rate pages_per_second.
    rate = data.get("records_per_second", data.get("pages_per_second"))
    info = RunInfo(
        name=name,
        started_at=str(data.get("started_at", "")),
        seconds=float(data.get("seconds") or 0.0),
        processed=int(inputs.get("processed", 0)),
        failed=int(inputs.get("failed", 0)),
        skipped_done=int(inputs.get("skipped_done", 0)),
        records=int(totals.get("records", 0)),
        docs=int(totals.get("docs", 0)),
        cleaner=None if data.get("cleaner") is None else str(data["cleaner"]),
        cleaner_params=dict(data.get("cleaner_params") or {}),
        records_per_second=None if rate is None else float(rate),
    )
    from pipeline.warc.inputs import input_stem

    failed = {}
    for entry in data.get("failed") or ():
        path = str(entry.get("input", ""))
        # (reports name the stem since issue 48: a name shown with \xNN escapes has another)
        stem = str(entry.get("stem") or input_stem(path))
        failed[path] = FailedInput(path, str(entry.get("error", "")), str(data["started_at"]), stem)
    return info, failed


def _parquet_files(fs: fsspec.AbstractFileSystem, pattern: str) -> list[str]:
    # Temporary files of a write in progress are hidden (".name.tmp"): never counted.
    return sorted(p for p in fs.glob(pattern) if not p.rpartition("/")[2].startswith((".", "_")))


def _read_docs(fs: fsspec.AbstractFileSystem, root: str, summary: OutputSummary) -> None:
    cleaners: Counter[tuple[str, str, str]] = Counter()
    for path in _parquet_files(fs, f"{root}/docs/{LANGUAGE_PREFIX}*/*.parquet"):
        language = path.rsplit("/", 2)[-2].removeprefix(LANGUAGE_PREFIX)
        before = summary.docs
        try:
            with fs.open(path, "rb") as handle:
                _read_docs_file(handle, language, summary, cleaners)
        except _ForeignFile as exc:
            summary.problems.append(f"{path} is not a warcclean documents file, ignored: {exc}")
            continue
        except (OSError, KeyError, ValueError, pa.ArrowException) as exc:
            summary.problems.append(f"{path}: {type(exc).__name__}: {exc}")
            continue
        summary.docs_by_stem[_stem(path)] += summary.docs - before
    summary.cleaners = [
        CleanerUse(c, v, p, n) for (c, v, p), n in sorted(cleaners.items(), key=lambda x: -x[1])
    ]


def _scalar_column(schema: pa.Schema, name: str) -> bool:
    t = schema.field(name).type
    return (
        pa.types.is_null(t)
        or pa.types.is_boolean(t)
        or pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_integer(t)
        or pa.types.is_dictionary(t)
    )


class _ForeignFile(ValueError):
    """A Parquet file in the output's layout that no warcclean run wrote."""


def _require(schema: pa.Schema, columns: Sequence[str]) -> None:
    # Every file a run writes has the full schema; these are the columns the report cannot do
    # without, so a file lacking one is another dataset's.
    missing = [c for c in columns if c not in schema.names]
    if missing:
        raise _ForeignFile(f"no column {', '.join(missing)}")


def _read_docs_file(
    handle: Any, language: str, summary: OutputSummary, cleaners: Counter[tuple[str, str, str]]
) -> None:
    # Asking for a column the file lacks as a dictionary raises KeyError: ask only for those it
    # has, reusing the footer already read (one request fewer per file on an object store).
    footer = pq.ParquetFile(handle).metadata
    names = set(footer.schema.to_arrow_schema().names)
    parquet = pq.ParquetFile(
        handle, metadata=footer, read_dictionary=[c for c in _DICT_COLUMNS if c in names]
    )
    schema = parquet.schema_arrow
    _require(schema, _REQUIRED_DOC_COLUMNS)
    other = [n for n in schema.names if n not in KNOWN_DOC_COLUMNS and _scalar_column(schema, n)]
    columns = [c for c in (*_READ_COLUMNS, *_DICT_COLUMNS) if c in names] + other
    if "markdown" in names:
        _count_markdown(footer, summary)
    if all(c in names for c in METADATA_COLUMNS):
        _count_metadata(parquet, footer, summary)
    for batch in parquet.iter_batches(batch_size=_BATCH_ROWS, columns=columns):
        n = batch.num_rows
        summary.docs += n
        summary.docs_by_language[language] += n
        col = batch.column
        if "n_chars" in names:
            chars = col("n_chars").to_numpy(zero_copy_only=False)
            summary.text_chars += int(chars.sum())
            summary.length.add_array(chars.astype(np.float64))
        if "n_words" in names:
            summary.text_words += int(pc.sum(col("n_words")).as_py() or 0)
        if "n_blocks" in names and "n_good" in names:
            blocks = col("n_blocks").to_numpy(zero_copy_only=False).astype(np.float64)
            good = col("n_good").to_numpy(zero_copy_only=False).astype(np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):
                share = np.where(blocks > 0, good / blocks, 0.0)
            summary.kept_share.add_array(share)
        if "truncated" in names:
            summary.truncated += int(pc.sum(col("truncated")).as_py() or 0)
        if "notes" in names:
            flat = pc.list_flatten(col("notes"))
            for item in pc.value_counts(flat).to_pylist():
                summary.notes[item["values"]] += item["counts"]
        if "structure" in names:
            if summary.structure is None:
                summary.structure = Counter()
            summary.structure_docs += n
            flat = pc.list_flatten(col("structure"))
            for item in pc.value_counts(flat).to_pylist():
                summary.structure[item["values"]] += item["counts"]
        if "page_type" in names:
            if summary.page_types is None:
                summary.page_types = Counter()
            # Null: a document of a run without --page-type.
            for item in pc.value_counts(col("page_type")).to_pylist():
                if item["values"] is not None:
                    summary.page_types[item["values"]] += item["counts"]
        if all(c in names for c in _DICT_COLUMNS):
            table = pa.table({c: col(c) for c in _DICT_COLUMNS})
            grouped = table.group_by(list(_DICT_COLUMNS)).aggregate([([], "count_all")])
            for row in grouped.to_pylist():
                key = tuple(str(row[c]) for c in _DICT_COLUMNS)
                cleaners[key] += row["count_all"]  # type: ignore[index]
        for name in other:
            _count_values(summary, name, col(name))


def _count_markdown(footer: pq.FileMetaData, summary: OutputSummary) -> None:
    """Add the file's documents with Markdown to ``summary.markdown_docs``, read from the
    row groups' null counts (the column itself, the largest but one, is never read)."""
    # A leaf column's index: `blocks` before it is many leaves, so not the field's index.
    paths = [footer.schema.column(j).path for j in range(len(footer.schema))]
    if "markdown" not in paths:
        return
    index = paths.index("markdown")
    written = 0
    for i in range(footer.num_row_groups):
        group = footer.row_group(i)
        stats = group.column(index).statistics
        if stats is None or not stats.has_null_count:
            return  # a writer without statistics: unknown, left out
        written += group.num_rows - stats.null_count
    summary.markdown_docs = (summary.markdown_docs or 0) + written


def _count_metadata(
    parquet: pq.ParquetFile, footer: pq.FileMetaData, summary: OutputSummary
) -> None:
    """Add the file's documents with each page metadata column filled to
    ``summary.metadata_filled``: from the row groups' null counts, or, for a column written
    without statistics, from the column itself (short strings, read once)."""
    paths = [footer.schema.column(j).path for j in range(len(footer.schema))]
    if summary.metadata_filled is None:
        summary.metadata_filled = Counter()
    summary.metadata_docs += footer.num_rows
    for name in METADATA_COLUMNS:
        index = paths.index(name)
        filled = 0
        for i in range(footer.num_row_groups):
            group = footer.row_group(i)
            stats = group.column(index).statistics
            if stats is None or not stats.has_null_count:
                table = parquet.read(columns=[name])
                filled = table.num_rows - table.column(name).null_count
                break
            filled += group.num_rows - stats.null_count
        summary.metadata_filled[name] += filled


def _count_values(summary: OutputSummary, name: str, values: pa.Array) -> None:
    counts = summary.other_columns.setdefault(name, Counter())
    if counts is None:
        return
    for item in pc.value_counts(values).to_pylist():
        value = item["values"]
        counts["(none)" if value is None else str(value)] += item["counts"]
    if len(counts) > MAX_CATEGORY_VALUES:
        summary.other_columns[name] = None


def _read_rejects(fs: fsspec.AbstractFileSystem, root: str, summary: OutputSummary) -> None:
    for path in _parquet_files(fs, f"{root}/rejects/*.parquet"):
        try:
            with fs.open(path, "rb") as handle:
                parquet = pq.ParquetFile(handle)
                _require(parquet.schema_arrow, ("record_id", "reason"))
                wanted: set[str] = set()
                for batch in parquet.iter_batches(batch_size=_BATCH_ROWS, columns=["reason"]):
                    for item in pc.value_counts(batch.column("reason")).to_pylist():
                        summary.rejects_by_reason[item["values"]] += item["counts"]
                        if len(summary.reject_examples.get(item["values"], ())) < (
                            MAX_REJECT_EXAMPLES
                        ):
                            wanted.add(item["values"])
                    summary.rejects_by_stem[_stem(path)] += batch.num_rows
                if wanted:
                    _add_reject_examples(parquet, wanted, summary)
        except _ForeignFile as exc:
            summary.problems.append(f"{path} is not a warcclean rejects file, ignored: {exc}")
            continue
        except (OSError, KeyError, ValueError, pa.ArrowException) as exc:
            summary.problems.append(f"{path}: {type(exc).__name__}: {exc}")
            continue
        summary.rejects_by_stem.setdefault(_stem(path), 0)


def _add_reject_examples(parquet: pq.ParquetFile, wanted: set[str], summary: OutputSummary) -> None:
    """List this file's rejected records of the ``wanted`` reasons, up to the cap of each."""
    names = set(parquet.schema_arrow.names)
    columns = ["reason", *(c for c in _REJECT_EXAMPLE_COLUMNS if c in names)]
    for batch in parquet.iter_batches(batch_size=_BATCH_ROWS, columns=columns):
        mask = pc.is_in(batch.column("reason"), value_set=pa.array(sorted(wanted)))
        for row in batch.filter(mask).to_pylist():
            listed = summary.reject_examples.setdefault(row["reason"], [])
            if len(listed) < MAX_REJECT_EXAMPLES:
                listed.append(
                    RejectExample(
                        str(row.get("record_id") or ""),
                        str(row.get("url") or ""),
                        str(row.get("detail") or ""),
                    )
                )
        wanted = {
            r for r in wanted if len(summary.reject_examples.get(r, ())) < MAX_REJECT_EXAMPLES
        }
        if not wanted:
            return


def _stem(path: str) -> str:
    return path.rpartition("/")[2].removesuffix(".parquet")


def _cross_check(summary: OutputSummary) -> None:
    """Say where the markers and the Parquet files disagree.

    Files of an input without a marker are those of a failed or unfinished input (a re-run
    replaces them); readers of the dataset see their rows, so they are counted, and named here.
    """
    marked = {i.stem: i for i in summary.inputs}
    unmarked = sorted((set(summary.docs_by_stem) | set(summary.rejects_by_stem)) - set(marked))
    if unmarked:
        rows = sum(summary.docs_by_stem[s] for s in unmarked)
        summary.problems.append(
            f"docs/ or rejects/ hold files of {count(len(unmarked), 'input')} without a "
            f"completion marker ({count(rows, 'document')}; a failed or unfinished input, which "
            f"a re-run replaces): {', '.join(unmarked[:10])}"
        )
    differ = [
        f"{item.warc_path} (marker: {item.docs:,} documents, {item.rejects:,} rejects; files: "
        f"{summary.docs_by_stem.get(stem, 0):,}, {summary.rejects_by_stem.get(stem, 0):,})"
        for stem, item in marked.items()
        if (summary.docs_by_stem.get(stem, 0), summary.rejects_by_stem.get(stem, 0))
        != (item.docs, item.rejects)
    ]
    if differ:
        whose = agree(len(differ), "input's", "inputs'")
        summary.problems.append(
            f"{len(differ):,} {whose} files do not hold what their markers count (a file "
            f"missing or replaced): {'; '.join(differ[:5])}"
        )
    unbalanced = [i.warc_path for i in summary.inputs if not i.balanced]
    if unbalanced:
        summary.problems.append(
            f"{count(len(unbalanced), 'input')} {agree(len(unbalanced), 'does', 'do')} not "
            f"account for every record (records != docs + rejects + skipped): "
            f"{', '.join(unbalanced[:5])}"
        )


def sessions(inputs: Sequence[InputSummary], gap_seconds: float = 60.0) -> list[list[InputSummary]]:
    """Inputs grouped into stretches of work: inputs whose time spans overlap, or lie within
    ``gap_seconds`` of each other, belong to one session (a run, or one stretch of it)."""
    timed = sorted((i for i in inputs if i.finished_at is not None), key=lambda i: i.started_at)
    groups: list[list[InputSummary]] = []
    end: datetime | None = None
    for item in timed:
        start = item.started_at
        assert start is not None and item.finished_at is not None
        if end is None or (start - end).total_seconds() > gap_seconds:
            groups.append([])
            end = item.finished_at
        groups[-1].append(item)
        end = max(end, item.finished_at)
    return groups


def rate_over_time(
    session: Sequence[InputSummary], bins: int = 40
) -> tuple[list[float], list[float]]:
    """Records per second over a session: bin edges (seconds since its start) and rates.

    Each input's records are spread evenly over the time it ran, so parallel inputs add up.
    """
    start = min(i.started_at for i in session if i.started_at is not None)
    end = max(i.finished_at for i in session if i.finished_at is not None)
    span = max((end - start).total_seconds(), 1.0)
    width = span / bins
    totals = [0.0] * bins
    for item in session:
        assert item.started_at is not None
        a = (item.started_at - start).total_seconds()
        b = a + item.seconds
        if b - a < 1e-3:  # the markers round seconds to milliseconds: an instant
            totals[min(int(a / width), bins - 1)] += item.records
            continue
        per_second = item.records / (b - a)
        first, last = int(a / width), min(math.ceil(b / width), bins)
        for k in range(first, last):
            overlap = min(b, (k + 1) * width) - max(a, k * width)
            if overlap > 0:
                totals[k] += per_second * overlap
    return [k * width for k in range(bins + 1)], [t / width for t in totals]
