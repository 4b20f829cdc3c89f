"""The output dataset's writer: Parquet files that appear atomically, and completion markers.

The schema is `pipeline.output.schema`; rows are buffered column by column
(`pipeline.output.columns`).

Layout under the output root (one set of files per input, named by the input's stem)::

    docs/language=<code>/<stem>.parquet   cleaned documents, hive-partitioned by language
    rejects/<stem>.parquet                records that produced no document, with the reason
    _done/<stem>.json                     completion marker, written last (see `write_marker`)
    _done/<stem>.limited.json             the marker of an input cut at the job's --limit

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
import secrets
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.output.columns import DocColumns, RejectColumns
from pipeline.output.schema import (
    REJECTS_SCHEMA,
    docs_file_schema,
    partition_language,
    writer_options,
)
from pipeline.output.spool import Spool, SpoolStream
from pipeline.types import CleanResult, RawPage, Rejected


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

    @property
    def limited_marker(self) -> str:
        """The marker of an input read only up to the job's ``--limit``: not "done", so that a
        run without the limit processes the input again (and replaces this marker)."""
        return f"{self.root}/_done/{self.stem}.limited.json"


def _temp_name(final: str) -> str:
    directory, _, name = final.rpartition("/")
    return f"{directory}/.{name}.{secrets.token_hex(6)}.tmp"


class AtomicFile:
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
    """One output file and the rows buffered for it (`pipeline.output.columns`).

    With a spool stream (`pipeline.output.spool`) its batches go there as they are flushed, and
    the Parquet file is written from them at `commit`; else straight into the Parquet file.
    """

    def __init__(
        self,
        fs: fsspec.AbstractFileSystem,
        final: str,
        schema: pa.Schema,
        buffer: Callable[[], DocColumns | RejectColumns],
        spool: SpoolStream | None = None,
        group_rows: int = 0,
        group_bytes: int = 0,
    ) -> None:
        self.new_buffer = buffer
        self.rows: Any = buffer()
        self.fs = fs
        self.final = final
        self.schema = schema
        self.spool = spool
        # Row groups written from the spool: spooled batches (each a flush, or what a checkpoint
        # cut) gathered until they hold ``group_rows`` rows or ``group_bytes`` Arrow bytes. Under
        # the row bound that is the direct path's groups; under the byte bound they differ, as the
        # direct path flushes on its buffers' estimate, summed over every partition.
        self.group_rows = group_rows
        self.group_bytes = group_bytes
        self.file: AtomicFile | None = None
        self.writer: Any = None
        if spool is None:
            self._open()

    def _open(self) -> None:
        self.file = AtomicFile(self.fs, self.final)
        try:
            self.writer = pq.ParquetWriter(
                self.file.handle, self.schema, **writer_options(self.schema)
            )
        except BaseException:
            self.file.abort()  # the temp file exists already: never leave it behind
            raise

    @property
    def nbytes(self) -> int:
        return int(self.rows.nbytes)

    def flush(self) -> None:
        if len(self.rows):
            batch = self.rows.to_batch()
            if self.spool is not None:
                self.spool.write(batch)
            else:
                self.writer.write_batch(batch)
            self.rows = self.new_buffer()

    def commit(self) -> None:
        self.flush()
        if self.spool is not None:
            self._open()
            self._write_spooled()
        assert self.file is not None
        self.writer.close()
        self.file.commit()

    def _write_spooled(self) -> None:
        assert self.spool is not None
        group: list[pa.RecordBatch] = []
        rows = size = 0
        for batch in self.spool.batches():
            group.append(batch)
            rows += batch.num_rows
            size += batch.nbytes
            if rows >= self.group_rows or size >= self.group_bytes:
                self.writer.write_table(pa.Table.from_batches(group, self.schema))
                group, rows, size = [], 0, 0
        if group:
            self.writer.write_table(pa.Table.from_batches(group, self.schema))

    def abort(self) -> None:
        self.rows = self.new_buffer()
        if self.spool is not None:
            self.spool.close()
        if self.file is None:
            return
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
        text: bool = True,
        markdown: bool = True,
        include_comments: bool = False,
        spool: Spool | None = None,
    ) -> None:
        self.fs = fs
        # Which of the documents' text and Markdown columns are filled (`DocColumns`).
        self._doc_buffer = partial(DocColumns, text=text, markdown=markdown)
        # The footer says how the text was rendered, for the site stage to render it again.
        formats = "both" if text and markdown else "text" if text else "markdown"
        self._docs_schema = docs_file_schema(formats, include_comments)
        self.paths = paths
        self.batch_rows = batch_rows
        self.batch_bytes = batch_bytes
        self.spool = spool
        self._docs: dict[str, _Partition] = {}
        self._rejects: _Partition | None = None
        self._buffered_bytes = 0
        self._closed = False
        if spool is not None:
            # The files an earlier attempt of this input began (`pipeline.output.spool`).
            for key in spool.earlier:
                if key == _REJECTS_KEY:
                    self._rejects_partition()
                else:
                    self._docs_partition(key.removeprefix(_DOCS_KEY))

    def __enter__(self) -> PartitionedParquetSink:
        if self.spool is None or self.spool.state is None:
            # (An attempt resuming from a checkpoint follows one killed while cleaning a page,
            # before it opened any output file: there is nothing to remove, and the listing
            # costs more the larger the output.)
            remove_leftover_temps(self.fs, self.paths)
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self._closed:
            self.abort()

    def write_doc(
        self, page: RawPage, result: CleanResult, *, cleaner_version: str, cleaner_params: str
    ) -> str:
        """Buffer one document in its language's file; return that partition value."""
        # A safe directory name whatever the detector said (tests/output/test_sink.py).
        language = partition_language(result.language.code)
        part = self._docs.get(language) or self._docs_partition(language)
        size = part.rows.add(
            page, result, cleaner_version=cleaner_version, cleaner_params=cleaner_params
        )
        self._added(part, size)
        return language

    def write_reject(self, rejected: Rejected) -> None:
        part = self._rejects_partition()
        self._added(part, part.rows.add(rejected))

    def _docs_partition(self, language: str) -> _Partition:
        part = self._docs[language] = self._partition(
            self.paths.docs(language), self._docs_schema, self._doc_buffer, _DOCS_KEY + language
        )
        return part

    def _rejects_partition(self) -> _Partition:
        if self._rejects is None:
            self._rejects = self._partition(
                self.paths.rejects, REJECTS_SCHEMA, RejectColumns, _REJECTS_KEY
            )
        return self._rejects

    def _partition(
        self,
        final: str,
        schema: pa.Schema,
        buffer: Callable[[], DocColumns | RejectColumns],
        key: str,
    ) -> _Partition:
        stream = None if self.spool is None else SpoolStream(self.spool, key, schema)
        return _Partition(self.fs, final, schema, buffer, stream, self.batch_rows, self.batch_bytes)

    def checkpoint(self, payload: dict[str, Any]) -> None:
        """Make every row so far durable in the spool, with ``payload`` (the counts, and where
        to resume reading) beside them (`pipeline.output.spool`)."""
        assert self.spool is not None
        files = {}
        for part in self._partitions():
            part.flush()
            assert part.spool is not None
            files[part.spool.key] = part.spool.segments()
        self._buffered_bytes = 0
        self.spool.save(files, payload)

    def _added(self, part: _Partition, size: int) -> None:
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
        written = {p.final for p in self._partitions()}
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


# Spool keys of the output files (`pipeline.output.spool`).
_REJECTS_KEY = "rejects"
_DOCS_KEY = "docs-"


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
    """Delete this stem's temporary files left by a killed attempt (local file systems only):
    its Parquet files' and its marker's (that of a run with ``--limit`` too)."""
    if not is_local(fs):
        return
    parquet = (f".{paths.stem}.parquet.",)
    dirs = [(paths.rejects.rpartition("/")[0], parquet)]
    if fs.exists(paths.docs_dir):
        dirs += [(d, parquet) for d in fs.ls(paths.docs_dir, detail=False)]
    markers = tuple(f".{p.rpartition('/')[2]}." for p in (paths.marker, paths.limited_marker))
    dirs.append((paths.marker.rpartition("/")[0], markers))
    for directory, prefixes in dirs:
        if not fs.isdir(directory):
            continue
        for name in fs.ls(directory, detail=False):
            base = name.rpartition("/")[2]
            if base.startswith(prefixes) and base.endswith(".tmp"):
                fs.rm(name)


def write_marker(
    fs: fsspec.AbstractFileSystem, paths: OutputPaths, payload: dict[str, Any]
) -> None:
    """Write ``_done/<stem>.json`` atomically (``_done/<stem>.limited.json`` for a payload with a
    ``limit``); call it only after the data files are committed."""
    path = paths.marker if payload.get("limit") is None else paths.limited_marker
    write_atomic(fs, path, json.dumps(payload, indent=2, sort_keys=True).encode())


def write_atomic(fs: fsspec.AbstractFileSystem, path: str, data: bytes) -> None:
    """Write ``path`` whole or not at all, creating its directory.

    Locally under a hidden temporary name, renamed when complete and removed when the write
    fails (a full disk leaves no truncated file); on an object store one PUT, which is visible
    only once complete.
    """
    if is_local(fs):
        path = os.path.abspath(path)  # the temporary name goes beside it, never in "/"
    parent = path.rpartition("/")[0]
    if parent:
        fs.makedirs(parent, exist_ok=True)
    if not is_local(fs):
        fs.pipe_file(path, data)
        return
    tmp = _temp_name(path)
    try:
        with fs.open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def remove_marker(fs: fsspec.AbstractFileSystem, paths: OutputPaths) -> None:
    """Remove the input's marker, the one of a run with ``--limit`` too."""
    for path in (paths.marker, paths.limited_marker):
        if fs.exists(path):
            fs.rm(path)


def read_marker(fs: fsspec.AbstractFileSystem, paths: OutputPaths) -> dict[str, Any] | None:
    try:
        return json.loads(fs.cat_file(paths.marker))
    except FileNotFoundError:
        return None
