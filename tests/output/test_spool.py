"""`pipeline.output.spool` and the sink's spool mode: the rows a killed attempt made durable come
back, cut to its last checkpoint, and the Parquet files hold exactly what the direct path
writes."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fsspec.implementations.local import LocalFileSystem

from pipeline.output import spool as spool_module
from pipeline.output.sink import OutputPaths, PartitionedParquetSink
from pipeline.output.spool import Spool, SpoolStream, read_state
from pipeline.types import Rejected


def _reject(i: int) -> Rejected:
    return Rejected("in.warc.gz", f"<urn:r{i}>", "response", i, f"https://e/{i}", "no_text", "")


def _sink(out: Path, spool: Spool | None) -> PartitionedParquetSink:
    paths = OutputPaths(str(out), "in")
    return PartitionedParquetSink(
        LocalFileSystem(), paths, batch_rows=3, batch_bytes=2**20, spool=spool
    )


def _rows(out: Path) -> list[str]:
    return [r["record_id"] for r in pq.read_table(out / "rejects" / "in.parquet").to_pylist()]


def test_a_spooled_sink_writes_what_the_direct_one_does(tmp_path: Path) -> None:
    for name, spool in (("direct", None), ("spooled", Spool(str(tmp_path / "spool")))):
        if spool is not None:
            os.makedirs(spool.directory)
            spool = Spool(spool.directory)
        with _sink(tmp_path / name, spool) as sink:
            for i in range(10):
                sink.write_reject(_reject(i))
            sink.commit()
    assert (
        _rows(tmp_path / "direct")
        == _rows(tmp_path / "spooled")
        == [f"<urn:r{i}>" for i in range(10)]
    )
    # row groups as the direct path's flushes make them (3 rows), not one per spool batch
    assert pq.ParquetFile(tmp_path / "spooled" / "rejects" / "in.parquet").num_row_groups == 4


def test_spooled_row_groups_are_cut_at_the_byte_bound(tmp_path: Path) -> None:
    # Each rejection's buffer estimate (1,500 + its 2,500-character detail) reaches the sink's
    # byte bound alone, so every flush spools one row of about 2,600 Arrow bytes; the spooled
    # batches are then gathered two to a row group, the first pair to reach 4,000 bytes.
    directory = tmp_path / "spool"
    directory.mkdir()
    paths = OutputPaths(str(tmp_path / "out"), "in")
    with PartitionedParquetSink(
        LocalFileSystem(), paths, batch_rows=1_000, batch_bytes=4_000, spool=Spool(str(directory))
    ) as sink:
        for i in range(9):
            sink.write_reject(dataclasses.replace(_reject(i), detail="x" * 2_500))
        sink.commit()
    path = tmp_path / "out" / "rejects" / "in.parquet"
    assert pq.read_table(path).column("record_id").to_pylist() == [f"<urn:r{i}>" for i in range(9)]
    meta = pq.ParquetFile(path).metadata
    assert [meta.row_group(k).num_rows for k in range(meta.num_row_groups)] == [2, 2, 2, 2, 1]


def test_a_new_attempt_goes_on_from_the_last_checkpoint(tmp_path: Path) -> None:
    directory = tmp_path / "spool"
    directory.mkdir()
    first = Spool(str(directory))
    sink = _sink(tmp_path / "out", first)
    sink.__enter__()
    for i in range(5):
        sink.write_reject(_reject(i))
    sink.checkpoint({"stats": {"records": 5}, "resume": [5, None]})
    for i in range(5, 9):  # written after the checkpoint: flushed (3 rows), then the kill
        sink.write_reject(_reject(i))
    # (the first attempt is killed here: nothing closed, nothing committed)
    assert read_state(str(directory))["stats"] == {"records": 5}
    second = Spool(str(directory))
    assert second.attempt == 1 and second.state is not None
    with _sink(tmp_path / "out", second) as again:
        for i in range(5, 7):
            again.write_reject(_reject(i))
        again.commit()
    assert _rows(tmp_path / "out") == [f"<urn:r{i}>" for i in range(7)]


def test_a_checkpoint_is_due_half_a_second_after_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [100.0]
    monkeypatch.setattr(spool_module.time, "monotonic", lambda: clock[0])
    spool = Spool(str(tmp_path))
    for elapsed, due in [(0.0, False), (0.49, False), (0.5, True), (0.7, True)]:
        clock[0] = 100.0 + elapsed
        assert spool.due() is due, elapsed
    spool.save({}, {"resume": [0, None]})  # a checkpoint at 100.7 starts the next half second
    clock[0] = 101.1
    assert not spool.due()
    clock[0] = 101.2
    assert spool.due()


def test_a_third_attempt_reads_both_earlier_ones_and_drops_a_stream_begun_after_a_checkpoint(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "spool"
    directory.mkdir()
    schema = pa.schema([pa.field("n", pa.int64())])

    def batch(*values: int) -> pa.RecordBatch:
        return pa.record_batch([pa.array(values, pa.int64())], schema=schema)

    first = Spool(str(directory))
    rows = SpoolStream(first, "docs-en", schema)
    rows.write(batch(1, 2))
    first.save({"docs-en": rows.segments()}, {})
    rows.write(batch(3))  # after the checkpoint: lost with the kill
    late = SpoolStream(first, "docs-fr", schema)
    late.write(batch(9))  # a stream begun after the checkpoint
    second = Spool(str(directory))
    assert second.attempt == 1
    assert not (directory / late.name).exists()
    rows = SpoolStream(second, "docs-en", schema)
    rows.write(batch(4))
    second.save({"docs-en": rows.segments()}, {})
    third = Spool(str(directory))
    assert third.attempt == 2
    rows = SpoolStream(third, "docs-en", schema)
    assert [name for name, _ in rows.segments()] == ["docs-en.0.arrows", "docs-en.1.arrows"]
    rows.write(batch(5, 6))
    got = [v for b in rows.batches() for v in b.column(0).to_pylist()]
    assert got == [1, 2, 4, 5, 6]
    assert rows.file.closed  # batches() closed this attempt's stream before reading it


def test_a_stream_that_never_wrote_has_no_file_and_no_batches(tmp_path: Path) -> None:
    stream = SpoolStream(Spool(str(tmp_path)), "rejects", pa.schema([pa.field("n", pa.int64())]))
    stream.close()  # nothing opened: nothing to close, no error
    assert list(stream.batches()) == [] and stream.segments() == []
    assert not any(name.endswith(".arrows") for name in os.listdir(tmp_path))
