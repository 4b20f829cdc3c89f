"""The docs table's Parquet writing: the job's writer options against pyarrow's defaults.

    python bench/parquet_write.py [--data ../shared/data/wcxb-dev] [--copies 2] [--rounds 7]
                                  [--batch-rows 1000] [--out bench/results/parquet_write.json]

Cleans the data set's pages once with the default cleaner (`pipeline.clean.clean_html`, from the
raw bytes), buffers them ``--copies`` times in `pipeline.output.columns.DocColumns` batches of
``--batch-rows`` documents as the sink does, then writes the same Arrow batches to memory with
pyarrow's defaults (zstd, dictionary encoding and statistics on every column) and with
`pipeline.output.schema.writer_options` (dictionary encoding only for the string columns that
repeat values), ``--rounds`` times, alternating which goes first.
Prints CPU ms per document (median over rounds), the bytes written, and whether the two files
read back to the same table; writes the numbers as JSON.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline.clean import clean_html  # noqa: E402
from pipeline.evaluate.datasets import load_dataset  # noqa: E402
from pipeline.output.columns import DocColumns  # noqa: E402
from pipeline.output.schema import DOCS_SCHEMA, writer_options  # noqa: E402
from pipeline.types import RawPage  # noqa: E402


def batches(data: Path, copies: int, batch_rows: int) -> list[pa.RecordBatch]:
    """The data set's cleaned documents as the sink's batches, each page ``copies`` times."""
    docs = []
    for page in load_dataset(data):
        html = page.read_html()
        result = clean_html(html, url=page.url)
        if result.text:
            docs.append((page, html, result))
    out: list[pa.RecordBatch] = []
    columns = DocColumns()
    for copy in range(copies):
        for n, (page, html, result) in enumerate(docs):
            raw = RawPage(
                warc_path="bench.warc.gz",
                record_id=f"<urn:uuid:{copy:04d}-{n:08d}>",
                record_type="response",
                warc_offset=n,
                warc_length=len(html),
                url=f"{page.url or 'https://example.com/'}#{copy}",
                warc_date="2024-01-02T03:04:05Z",
                http_status=200,
                content_type="text/html",
                http_headers=(),
                body=html,
                truncated=False,
            )
            columns.add(raw, result, cleaner_version="bench", cleaner_params="{}")
            if len(columns) >= batch_rows:
                out.append(columns.to_batch())
                columns = DocColumns()
    if len(columns):
        out.append(columns.to_batch())
    return out


def write(batches_: list[pa.RecordBatch], options: dict) -> tuple[float, bytes]:
    sink = io.BytesIO()
    start = time.process_time()
    with pq.ParquetWriter(sink, DOCS_SCHEMA, **options) as writer:
        for batch in batches_:
            writer.write_batch(batch)
    return time.process_time() - start, sink.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "wcxb-dev")
    ap.add_argument("--copies", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--batch-rows", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "parquet_write.json")
    args = ap.parse_args()
    load_at_start = os.getloadavg()
    data = batches(args.data, args.copies, args.batch_rows)
    n_docs = sum(b.num_rows for b in data)
    contenders = {
        "pyarrow defaults": {"compression": "zstd"},
        "writer_options": writer_options(DOCS_SCHEMA),
    }
    seconds: dict[str, list[float]] = {name: [] for name in contenders}
    written: dict[str, bytes] = {}
    names = list(contenders)
    for r in range(args.rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            spent, written[name] = write(data, contenders[name])
            seconds[name].append(spent)
    tables = {name: pq.read_table(io.BytesIO(blob)) for name, blob in written.items()}
    same = tables["pyarrow defaults"].equals(tables["writer_options"])
    rows = {
        name: {
            "ms_per_doc": 1000 * statistics.median(seconds[name]) / n_docs,
            "bytes": len(written[name]),
            "rounds_s": seconds[name],
        }
        for name in names
    }
    print(f"{n_docs} documents ({args.data.name} x {args.copies}), {args.rounds} rounds")
    print(f"{'writer':<18}{'CPU ms/doc':>12}{'bytes':>14}")
    for name, row in rows.items():
        print(f"{name:<18}{row['ms_per_doc']:>12.4f}{row['bytes']:>14,}")
    base, new = rows["pyarrow defaults"], rows["writer_options"]
    print(
        f"writer_options / defaults: time {new['ms_per_doc'] / base['ms_per_doc']:.3f}x, "
        f"size {new['bytes'] / base['bytes']:.3f}x; same table read back: {same}"
    )
    report = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "documents": n_docs,
        "same_table": same,
        "results": rows,
        "machine": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "pyarrow": pa.__version__,
            "load_average_at_start": load_at_start,
            "load_average_at_end": os.getloadavg(),
        },
    }
    results_file.write_results(args.out, report, indent=2)
    print(f"written: {args.out}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
