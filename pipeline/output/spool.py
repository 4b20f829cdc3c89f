"""A task's rows kept where the death of its process cannot take them: the supervised job's
checkpoints, so that a page that kills its cleaning process costs that page, not the input.

The supervised child (`pipeline.supervise`) runs a whole input, and a page it must kill (past
its time cap, over its memory budget, or killed from outside) would otherwise take every row of
the input with it: the rows buffered in memory and the Parquet files, which are readable only
once closed. Instead, in a supervised run the sink writes its batches to Arrow IPC streams in a
spool directory (`pyarrow.OSFile`: every batch reaches the kernel when written, so a killed
process leaves it whole), and twice a second, between two pages, it writes a checkpoint:
the counts so far, the size of each stream, and where reading is to resume (the next page's
record). A fresh child given the same directory truncates the streams to the checkpoint, reads
on from that record (`pipeline.warc.reader.iter_records` ``resume``), and appends. Only the
pages since the last checkpoint are cleaned twice. The Parquet files are written from the
streams when the input is done (`PartitionedParquetSink.commit`), so an input never killed
costs one more write and read of its batches in the kernel's page cache, lz4-compressed.

Layout of a spool directory (created and removed by the parent, `pipeline.supervise`)::

    state.json                      the last checkpoint (written atomically)
    <key>.<attempt>.arrows          the batches of one output file from one attempt

where ``key`` is ``rejects`` or ``docs-<language>``.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

STATE = "state.json"
# How often (seconds, between pages) a spooling task makes its rows and counts durable: what a
# kill can cost beyond its page is the pages cleaned since.
CHECKPOINT_SECONDS = 0.5
_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4")


class Spool:
    """One input's spool directory, as one attempt of the input sees it."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        state = read_state(directory)
        self.state: dict[str, Any] | None = state
        self.attempt = 0 if state is None else int(state["attempt"]) + 1
        self.last = time.monotonic()
        # Each key's streams from earlier attempts, cut to what their last checkpoint covered.
        self.earlier: dict[str, list[tuple[str, int]]] = {}
        if state is not None:
            self._restore(state)

    def _restore(self, state: dict[str, Any]) -> None:
        kept = set()
        for key, segments in state["files"].items():
            self.earlier[key] = [(name, int(size)) for name, size in segments]
            for name, size in self.earlier[key]:
                kept.add(name)
                path = os.path.join(self.directory, name)
                if os.path.getsize(path) > size:
                    os.truncate(path, size)  # batches written after the checkpoint
        for name in os.listdir(self.directory):
            if name.endswith(".arrows") and name not in kept:
                os.unlink(os.path.join(self.directory, name))  # streams begun after it

    def due(self) -> bool:
        """Whether a checkpoint is due (one clock read: it is asked before every page)."""
        return time.monotonic() - self.last >= CHECKPOINT_SECONDS

    def stream_name(self, key: str) -> str:
        return f"{key}.{self.attempt}.arrows"

    def save(self, files: dict[str, list[tuple[str, int]]], payload: dict[str, Any]) -> None:
        """Write a checkpoint: every key's streams and their sizes, and ``payload`` (the counts
        and where to resume), replacing the last one whole."""
        state = {"attempt": self.attempt, "files": files, **payload}
        path = os.path.join(self.directory, STATE)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(state, handle)
        os.replace(tmp, path)
        self.last = time.monotonic()


def read_state(directory: str) -> dict[str, Any] | None:
    try:
        with open(os.path.join(directory, STATE), encoding="utf-8") as handle:
            return dict(json.load(handle))
    except FileNotFoundError:
        return None


class SpoolStream:
    """One output file's batches of this attempt, in an Arrow IPC stream (opened with the first
    batch); with the streams of earlier attempts, its rows in order."""

    def __init__(self, spool: Spool, key: str, schema: pa.Schema) -> None:
        self.spool = spool
        self.key = key
        self.schema = schema
        self.name = spool.stream_name(key)
        self.file: Any = None
        self.writer: Any = None

    def write(self, batch: pa.RecordBatch) -> None:
        if self.writer is None:
            path = os.path.join(self.spool.directory, self.name)
            self.file = pa.OSFile(path, "wb")
            self.writer = pa.ipc.new_stream(self.file, self.schema, options=_OPTIONS)
        self.writer.write_batch(batch)

    def segments(self) -> list[tuple[str, int]]:
        """The streams holding this file's rows so far, with their sizes."""
        out = list(self.spool.earlier.get(self.key, ()))
        if self.file is not None:
            out.append((self.name, self.file.tell()))
        return out

    def close(self) -> None:
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.writer.close()
            self.file.close()
            self.writer = None

    def batches(self) -> Iterator[pa.RecordBatch]:
        """Every batch of every attempt, in order (this attempt's stream closed first)."""
        segments = self.segments()
        self.close()
        for name, size in segments:
            with pa.memory_map(os.path.join(self.spool.directory, name)) as source:
                reader = pa.ipc.open_stream(source.read_buffer(size))
                yield from reader
