"""The output dataset: its Parquet schema and a writer that makes files appear atomically.

Layout under the output root (one set of files per input, named by the input's stem)::

    docs/language=<code>/<stem>.parquet   cleaned documents, hive-partitioned by language
    rejects/<stem>.parquet                records that produced no document, with the reason
    _done/<stem>.json                     completion marker, written last (see `write_marker`)

Atomicity. On a local (POSIX) file system each file is written under a hidden temporary name
(``.<stem>.parquet.<token>.tmp``) in its final directory, then renamed, which is atomic and
replaces an older file of the same name. Readers never see the temporary names: pyarrow skips
names starting with ``.``; the ``*.parquet`` globs of DuckDB, Polars and `datasets` do not match
``.tmp``. On object stores (s3://, gs://, ...) there is no rename (``mv`` is copy + delete), but a
PUT, or a multipart upload, becomes visible only once complete and then replaces the old object
whole; so files are written to their final key directly, and a failed write is discarded
(multipart upload aborted) rather than closed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from collections.abc import Iterator
from typing import Any

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.types import CleanResult, RawPage, Rejected, Verdict

SCHEMA_VERSION = "1"
_META = {b"warcclean.schema_version": SCHEMA_VERSION.encode()}

BLOCK_TYPE = pa.struct(
    [
        pa.field("text", pa.string(), nullable=False),
        pa.field("tag", pa.string(), nullable=False),
        pa.field("dom_path", pa.string(), nullable=False),
        pa.field("label", pa.string(), nullable=False),  # "good" | "bad"
        pa.field("cf_class", pa.string()),  # jusText's context-free class; null for other cleaners
        pa.field("is_heading", pa.bool_(), nullable=False),
        pa.field("n_chars", pa.int32(), nullable=False),
        pa.field("n_words", pa.int32(), nullable=False),
        pa.field("n_link_chars", pa.int32(), nullable=False),
        pa.field("n_tags", pa.int32(), nullable=False),
        pa.field("n_markup_chars", pa.int32(), nullable=False),
        pa.field("link_density", pa.float32(), nullable=False),
        pa.field("stopword_density", pa.float32()),
        pa.field("score", pa.float32()),
    ]
)

DOCS_SCHEMA = pa.schema(
    [
        pa.field("record_id", pa.string(), nullable=False),
        pa.field("url", pa.string(), nullable=False),
        pa.field("warc_path", pa.string(), nullable=False),
        pa.field("warc_offset", pa.int64(), nullable=False),
        pa.field("warc_length", pa.int64(), nullable=False),
        pa.field("warc_date", pa.string(), nullable=False),
        pa.field("http_status", pa.int16()),
        pa.field("content_type", pa.string()),
        pa.field("encoding", pa.string(), nullable=False),
        pa.field("encoding_source", pa.string(), nullable=False),
        pa.field("language", pa.string(), nullable=False),
        pa.field("language_prob", pa.float32(), nullable=False),
        pa.field("stoplist", pa.string()),
        pa.field("cleaner", pa.string(), nullable=False),
        pa.field("cleaner_version", pa.string(), nullable=False),
        pa.field("cleaner_params", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("n_blocks", pa.int32(), nullable=False),
        pa.field("n_good", pa.int32(), nullable=False),
        pa.field("n_chars", pa.int64(), nullable=False),
        pa.field("n_words", pa.int64(), nullable=False),
        pa.field("truncated", pa.bool_(), nullable=False),
        pa.field("notes", pa.list_(pa.string()), nullable=False),
        pa.field("blocks", pa.list_(pa.field("item", BLOCK_TYPE, nullable=False)), nullable=False),
    ],
    metadata={**_META, b"warcclean.table": b"docs"},
)

REJECTS_SCHEMA = pa.schema(
    [
        pa.field("warc_path", pa.string(), nullable=False),
        pa.field("record_id", pa.string()),
        pa.field("record_type", pa.string(), nullable=False),
        pa.field("warc_offset", pa.int64()),
        pa.field("warc_length", pa.int64()),
        pa.field("url", pa.string()),
        pa.field("reason", pa.string(), nullable=False),
        pa.field("detail", pa.string(), nullable=False),
    ],
    metadata={**_META, b"warcclean.table": b"rejects"},
)

_SAFE_LANGUAGE = re.compile(r"[a-z]{2,3}|und")


def partition_language(code: str) -> str:
    """A detected language code as a safe hive partition value: ``[a-z]{2,3}`` or ``und``.

    The value becomes a directory name, so anything else (``zh-cn``, ``../x``) is reduced to its
    primary subtag when that is safe, else ``und``.
    """
    code = code.strip().lower()
    if _SAFE_LANGUAGE.fullmatch(code):
        return code
    primary = re.split(r"[-_]", code, maxsplit=1)[0]
    return primary if _SAFE_LANGUAGE.fullmatch(primary) else "und"


def doc_row(
    page: RawPage, result: CleanResult, *, cleaner_version: str, cleaner_params: str
) -> dict[str, Any]:
    """One DOCS_SCHEMA row. ``language`` is the partition value (see `partition_language`)."""
    blocks = []
    n_words = 0
    for lb in result.blocks:
        b = lb.block
        good = lb.verdict is Verdict.GOOD
        if good:
            n_words += b.n_words
        blocks.append(
            {
                "text": b.text,
                "tag": b.tag,
                "dom_path": b.dom_path,
                "label": str(lb.verdict),
                "cf_class": None if lb.cf_class is None else str(lb.cf_class),
                "is_heading": b.is_heading,
                "n_chars": b.n_chars,
                "n_words": b.n_words,
                "n_link_chars": b.n_link_chars,
                "n_tags": b.n_tags,
                "n_markup_chars": b.n_markup_chars,
                "link_density": b.link_density,
                "stopword_density": lb.stopword_density,
                "score": lb.score,
            }
        )
    return {
        "record_id": page.record_id,
        "url": page.url,
        "warc_path": page.warc_path,
        "warc_offset": page.warc_offset,
        "warc_length": page.warc_length,
        "warc_date": page.warc_date,
        "http_status": page.http_status,
        "content_type": page.content_type,
        "encoding": result.encoding,
        "encoding_source": result.encoding_source,
        "language": partition_language(result.language.code),
        "language_prob": result.language.prob,
        "stoplist": result.stoplist,
        "cleaner": result.cleaner,
        "cleaner_version": cleaner_version,
        "cleaner_params": cleaner_params,
        "text": result.text,
        "n_blocks": len(result.blocks),
        "n_good": result.n_good,
        "n_chars": len(result.text),
        "n_words": n_words,
        "truncated": page.truncated,
        "notes": list(page.notes),
        "blocks": blocks,
    }


def reject_row(rejected: Rejected) -> dict[str, Any]:
    return {
        "warc_path": rejected.warc_path,
        "record_id": rejected.record_id,
        "record_type": rejected.record_type,
        "warc_offset": rejected.warc_offset,
        "warc_length": rejected.warc_length,
        "url": rejected.url,
        "reason": rejected.reason,
        "detail": rejected.detail,
    }


# Measured with tracemalloc on WCXB pages: a block's dict with its 14 values costs about 900 bytes
# beyond its strings; a row about 1.5 kB beyond its text and blocks.
_BLOCK_OVERHEAD = 900
_ROW_OVERHEAD = 1500


def _row_bytes(row: dict[str, Any]) -> int:
    """Approximate Python memory held by a buffered row (strings counted once per character)."""
    blocks = row.get("blocks") or ()
    size = _ROW_OVERHEAD + len(row.get("text") or "") + len(row.get("detail") or "")
    for b in blocks:
        size += _BLOCK_OVERHEAD + len(b["text"]) + len(b["dom_path"])
    return size


def is_local(fs: fsspec.AbstractFileSystem) -> bool:
    protocols = (fs.protocol,) if isinstance(fs.protocol, str) else fs.protocol
    return "file" in protocols or "local" in protocols


class OutputPaths:
    """Where each file of one input goes, in the file system's own path form."""

    def __init__(self, root: str, stem: str) -> None:
        self.root = root.rstrip("/")
        self.stem = stem

    @property
    def docs_dir(self) -> str:
        return f"{self.root}/docs"

    def docs(self, language: str) -> str:
        return f"{self.root}/docs/language={language}/{self.stem}.parquet"

    @property
    def rejects(self) -> str:
        return f"{self.root}/rejects/{self.stem}.parquet"

    @property
    def marker(self) -> str:
        return f"{self.root}/_done/{self.stem}.json"


def _temp_name(final: str) -> str:
    directory, _, name = final.rpartition("/")
    return f"{directory}/.{name}.{secrets.token_hex(6)}.tmp"


class _AtomicFile:
    """One output file: a temp name + rename locally, the final key directly elsewhere."""

    def __init__(self, fs: fsspec.AbstractFileSystem, final: str) -> None:
        self.fs = fs
        self.final = final
        self.local = is_local(fs)
        self.path = _temp_name(final) if self.local else final
        fs.makedirs(final.rpartition("/")[0], exist_ok=True)
        self.handle = fs.open(self.path, "wb")

    def commit(self) -> None:
        self.handle.close()
        if self.local:
            os.replace(self.path, self.final)

    def abort(self) -> None:
        if self.local:
            try:
                self.handle.close()
            finally:
                if self.fs.exists(self.path):
                    self.fs.rm(self.path)
            return
        discard = getattr(self.handle, "discard", None)
        if discard is not None:
            discard()  # buffered/multipart upload dropped: an S3 key never appears
        else:
            self.handle.close()
        # Stores that create the key at open (fsspec's memory fs) or had an older version.
        if self.fs.exists(self.path):
            self.fs.rm(self.path)


class _Partition:
    def __init__(self, fs: fsspec.AbstractFileSystem, final: str, schema: pa.Schema) -> None:
        self.schema = schema
        self.file = _AtomicFile(fs, final)
        try:
            self.writer = pq.ParquetWriter(self.file.handle, schema, compression="zstd")
        except BaseException:
            self.file.abort()  # the temp file exists already: never leave it behind
            raise
        self.rows: list[dict[str, Any]] = []
        self.nbytes = 0
        self.written = 0

    def flush(self) -> None:
        if self.rows:
            self.writer.write_batch(pa.RecordBatch.from_pylist(self.rows, schema=self.schema))
            self.written += len(self.rows)
            self.rows = []
            self.nbytes = 0

    def commit(self) -> None:
        self.flush()
        self.writer.close()
        self.file.commit()

    def abort(self) -> None:
        self.rows = []
        try:
            self.writer.close()
        finally:
            self.file.abort()


class PartitionedParquetSink:
    """Writes one input's documents (one file per language) and rejects.

    Memory is bounded: at most ``batch_rows`` rows per partition, and at most about
    ``batch_bytes`` over all partitions, are held before being written as a row group.
    Nothing is visible under the final names until `commit`; `abort` (or leaving the ``with``
    block on an exception) removes what was written. The marker is not this class's job: the
    caller writes it after `commit` returns (see `write_marker`).
    """

    def __init__(
        self,
        fs: fsspec.AbstractFileSystem,
        paths: OutputPaths,
        *,
        batch_rows: int,
        batch_bytes: int,
    ) -> None:
        self.fs = fs
        self.paths = paths
        self.batch_rows = batch_rows
        self.batch_bytes = batch_bytes
        self._docs: dict[str, _Partition] = {}
        self._rejects: _Partition | None = None
        self._buffered_bytes = 0
        self._closed = False

    def __enter__(self) -> PartitionedParquetSink:
        remove_leftover_temps(self.fs, self.paths)
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self._closed:
            self.abort()

    def write_doc(self, row: dict[str, Any]) -> None:
        language = row["language"]
        if not _SAFE_LANGUAGE.fullmatch(language):
            raise ValueError(f"unsafe language partition value {language!r}")
        part = self._docs.get(language)
        if part is None:
            part = self._docs[language] = _Partition(
                self.fs, self.paths.docs(language), DOCS_SCHEMA
            )
        self._add(part, row)

    def write_reject(self, row: dict[str, Any]) -> None:
        self._add(self._rejects_partition(), row)

    def _rejects_partition(self) -> _Partition:
        if self._rejects is None:
            self._rejects = _Partition(self.fs, self.paths.rejects, REJECTS_SCHEMA)
        return self._rejects

    def _add(self, part: _Partition, row: dict[str, Any]) -> None:
        size = _row_bytes(row)
        part.rows.append(row)
        part.nbytes += size
        self._buffered_bytes += size
        if len(part.rows) >= self.batch_rows:
            self._buffered_bytes -= part.nbytes
            part.flush()
        if self._buffered_bytes >= self.batch_bytes:
            for p in self._partitions():
                p.flush()
            self._buffered_bytes = 0

    def _partitions(self) -> Iterator[_Partition]:
        yield from self._docs.values()
        if self._rejects is not None:
            yield self._rejects

    def commit(self) -> tuple[str, ...]:
        """Make every file visible under its final name; return them (fs paths), sorted.

        A rejects file is always written, empty if need be, so a re-run replaces an older one.
        Files of this stem in language partitions that this run did not produce (left by an
        earlier run of the same input) are deleted, so a re-run never leaves stale rows.
        """
        self._rejects_partition()
        for part in self._partitions():
            part.commit()
        self._closed = True
        written = {p.file.final for p in self._partitions()}
        for stale in _existing_docs_files(self.fs, self.paths):
            if stale not in written:
                self.fs.rm(stale)
        return tuple(sorted(written))

    def abort(self) -> None:
        self._closed = True
        for part in self._partitions():
            # Best effort while another error is already on its way up; that one matters.
            with contextlib.suppress(Exception):
                part.abort()
        self._docs.clear()
        self._rejects = None


def _existing_docs_files(fs: fsspec.AbstractFileSystem, paths: OutputPaths) -> list[str]:
    if not fs.exists(paths.docs_dir):
        return []
    found = []
    for entry in fs.ls(paths.docs_dir, detail=False):
        candidate = f"{entry.rstrip('/')}/{paths.stem}.parquet"
        if fs.exists(candidate):
            found.append(candidate)
    return found


def remove_leftover_temps(fs: fsspec.AbstractFileSystem, paths: OutputPaths) -> None:
    """Delete this stem's temporary files left by a killed attempt (local file systems only)."""
    if not is_local(fs):
        return
    prefix = f".{paths.stem}.parquet."
    dirs = [paths.rejects.rpartition("/")[0]]
    if fs.exists(paths.docs_dir):
        dirs += fs.ls(paths.docs_dir, detail=False)
    for directory in dirs:
        if not fs.isdir(directory):
            continue
        for name in fs.ls(directory, detail=False):
            base = name.rpartition("/")[2]
            if base.startswith(prefix) and base.endswith(".tmp"):
                fs.rm(name)


def write_marker(
    fs: fsspec.AbstractFileSystem, paths: OutputPaths, payload: dict[str, Any]
) -> None:
    """Write ``_done/<stem>.json`` atomically; call it only after the data files are committed."""
    data = json.dumps(payload, indent=2, sort_keys=True).encode()
    fs.makedirs(paths.marker.rpartition("/")[0], exist_ok=True)
    if is_local(fs):
        tmp = _temp_name(paths.marker)
        with fs.open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, paths.marker)
    else:
        fs.pipe_file(paths.marker, data)


def remove_marker(fs: fsspec.AbstractFileSystem, paths: OutputPaths) -> None:
    if fs.exists(paths.marker):
        fs.rm(paths.marker)


def read_marker(fs: fsspec.AbstractFileSystem, paths: OutputPaths) -> dict[str, Any] | None:
    try:
        return json.loads(fs.cat_file(paths.marker))
    except FileNotFoundError:
        return None
