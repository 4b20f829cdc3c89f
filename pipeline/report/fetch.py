"""Find a record's row in an output directory and read the record back from its WARC.

A row's ``warc_offset`` and ``warc_length`` are byte positions in the stored (compressed) file,
so one range read fetches exactly the record, locally or from any fsspec store; the project's
own reader (`pipeline.warc.reader.iter_records`) then decodes it as the job did. Every failure is a
`RecordError` whose message says what is wrong with which input, never a traceback.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import re
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec.core import url_to_fs

from pipeline.types import RawPage, Rejected

# The reader's note for a file gzipped whole: offsets count in the gunzipped stream.
_GUNZIP_NOTE = re.compile(r"offset_space:gunzip@(\d+)")
_SKIP_CHUNK = 1 << 20


class RecordError(Exception):
    """A record that cannot be found, fetched or shown; the message says why."""


@dataclass(frozen=True)
class FoundRecord:
    """A record's row: from ``docs/`` (``table == "docs"``) or from ``rejects/``."""

    table: str
    row: dict[str, Any]
    path: str  # the Parquet file it is in
    duplicates: int = 0  # further rows with the same record id (a crawl can repeat a record)


def _options(url: str, storage_options: dict[str, Any] | None) -> dict[str, Any]:
    return dict(storage_options or {}) if "://" in url else {}


def find_record(
    output: str, record_id: str, *, storage_options: dict[str, Any] | None = None
) -> FoundRecord:
    """The row of ``record_id`` under ``output``: its document, else its rejection."""
    try:
        fs, root = url_to_fs(output, **_options(output, storage_options))
    except (ValueError, ImportError) as exc:
        raise RecordError(f"cannot open {output}: {exc}") from None
    root = root.rstrip("/")
    if not fs.isdir(root):
        raise RecordError(f"{output} is not a directory")
    if not fs.isdir(f"{root}/docs") and not fs.isdir(f"{root}/rejects"):
        raise RecordError(f"{output} holds no warcclean output (no docs/ or rejects/)")
    for table, pattern in (("docs", "docs/*/*.parquet"), ("rejects", "rejects/*.parquet")):
        matches: list[tuple[str, dict[str, Any]]] = []
        for path in sorted(fs.glob(f"{root}/{pattern}")):
            if path.rpartition("/")[2].startswith("."):
                continue
            with fs.open(path, "rb") as handle:
                try:
                    found = pq.read_table(handle, filters=pc.field("record_id") == record_id)
                except pa.ArrowException as exc:
                    raise RecordError(f"{path} is not a readable Parquet file: {exc}") from None
            for row in found.to_pylist():
                if table == "docs" and "language" not in row:
                    row["language"] = path.rsplit("/", 2)[-2].partition("=")[2]
                matches.append((path, row))
        if matches:
            path, row = matches[0]
            return FoundRecord(table, row, path, duplicates=len(matches) - 1)
    raise RecordError(f"no record {record_id!r} in {output} (neither in docs/ nor in rejects/)")


def fetch_record(
    warc_path: str,
    offset: int,
    length: int,
    *,
    record_id: str | None = None,
    notes: tuple[str, ...] | list[str] = (),
    storage_options: dict[str, Any] | None = None,
    max_body_bytes: int | None = None,
) -> RawPage | Rejected:
    """Read the one record at ``offset`` (``length`` bytes, as stored) of ``warc_path``.

    Returns what the reader makes of it: a `RawPage`, or a `Rejected` for a record that holds
    no page (an image, a 404). ``record_id``, when given, must be the record found there.
    ``notes`` are the row's notes: a file gzipped whole is read through a gunzipper.
    """
    from pipeline.warc.inputs import stored_paths
    from pipeline.warc.reader import NotAnArchive, ReaderIssue, iter_records

    if offset < 0 or length <= 0:
        raise RecordError(f"offset {offset} and length {length} do not name a byte range")
    try:
        fs, path = url_to_fs(warc_path, **_options(warc_path, storage_options))
        if not fs.exists(path):
            # A row names a file whose name is not UTF-8 with \xNN escapes (`display_path`).
            path = next((p for p in stored_paths(path) if fs.exists(p)), path)
        gunzip = next((int(m.group(1)) for n in notes if (m := _GUNZIP_NOTE.match(n))), None)
        if gunzip is None:
            data = fs.cat_file(path, start=offset, end=offset + length)
        else:
            data = _read_gunzipped(fs, path, gunzip, offset, length)
    except FileNotFoundError:
        raise RecordError(f"the WARC {warc_path} does not exist (moved or deleted?)") from None
    except (OSError, ValueError, ImportError, EOFError) as exc:
        raise RecordError(f"cannot read {warc_path}: {type(exc).__name__}: {exc}") from None
    if len(data) < length:
        raise RecordError(
            f"{warc_path} ends before offset {offset} + {length} bytes (a different or cut file?)"
        )
    where = f"offset {offset} of {warc_path}"
    try:
        for item in iter_records(io.BytesIO(data), warc_path, max_body_bytes=max_body_bytes):
            if isinstance(item, ReaderIssue):
                raise RecordError(f"no WARC/ARC record starts at {where}: {item.detail}")
            return _placed(item, warc_path, offset, length, record_id, where)
    except NotAnArchive as exc:  # the bytes there start no record (a wrong offset)
        raise RecordError(f"no WARC/ARC record starts at {where}: {exc}") from None
    raise RecordError(f"no WARC/ARC record starts at {where}")


def _placed(
    item: RawPage | Rejected,
    warc_path: str,
    offset: int,
    length: int,
    record_id: str | None,
    where: str,
) -> RawPage | Rejected:
    # Read from a slice, the record's offset is 0 and an ARC record's derived id (a hash of
    # path and offset) is not the job's; put back where it really is.
    derived = (item.record_id or "").startswith("<urn:warcclean:")
    if record_id is not None and not derived and item.record_id != record_id:
        raise RecordError(f"the record at {where} is {item.record_id}, not {record_id}")
    return dataclasses.replace(
        item,
        record_id=record_id or item.record_id,
        warc_offset=offset,
        warc_length=length,
        warc_path=warc_path,
    )


def _read_gunzipped(fs: Any, path: str, member_at: int, offset: int, length: int) -> bytes:
    with fs.open(path, "rb") as handle:
        handle.seek(member_at)
        stream = gzip.GzipFile(fileobj=handle, mode="rb")
        left = offset
        while left > 0:
            chunk = stream.read(min(left, _SKIP_CHUNK))
            if not chunk:
                return b""
            left -= len(chunk)
        return stream.read(length)


def run_cleaner(
    output: str, found: FoundRecord, storage_options: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any], str]:
    """The cleaner and parameters that judged a rejected record, and how that is known.

    A rejects row does not name its cleaner: the documents of the same input do (files of the
    same stem), else the latest run report under ``_runs/``; else the default cleaner.
    """
    from pipeline.cleaners.registry import DEFAULT_CLEANER

    fs, root = url_to_fs(output, **_options(output, storage_options))
    root = root.rstrip("/")
    stem = found.path.rpartition("/")[2]
    for path in sorted(fs.glob(f"{root}/docs/*/{stem}")):
        with fs.open(path, "rb") as handle:
            parquet = pq.ParquetFile(handle)
            if parquet.metadata.num_rows:
                first = next(parquet.iter_batches(batch_size=1, columns=_CLEANER_COLUMNS))
                row = first.to_pylist()[0]
                params = json.loads(row["cleaner_params"] or "{}")
                return str(row["cleaner"]), params, "as the input's documents record"
    for path in sorted(fs.glob(f"{root}/_runs/*.json"), reverse=True):
        try:
            data = json.loads(fs.cat_file(path))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("cleaner"):
            params = dict(data.get("cleaner_params") or {})
            return str(data["cleaner"]), params, "as the latest run report records"
    return DEFAULT_CLEANER, {}, "the default: the run's cleaner is recorded nowhere"


_CLEANER_COLUMNS = ["cleaner", "cleaner_params"]
