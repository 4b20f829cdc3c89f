"""What schema 3's new columns cost the cleaning pass's writer (issue 52).

    python bench/schema3_write.py [--data ../shared/data/wcxb-dev] [--rounds 7]
                                  [--out bench/results/schema3_write.json]

Cleans the data set's pages once with the default cleaner, then, ``--rounds`` times and
alternating which goes first, on the same documents:

* **schema 3**: the sink's columns as the job builds them (`DocColumns.add` and `to_batch`: the
  blocks' ``shape`` and ``site_pages``, the documents' ``duplicate_of``) and written to memory with
  the job's writer options;
* **schema 2**: the same batches without those three (removed after building, so the build
  differs only by the shape array, timed on its own below) and written the same way. (On WCXB
  65% of the blocks have a shape, so building only those and placing the nulls by a take was
  tried and was 4.6x slower than pyarrow's conversion of the whole list.)

Prints CPU ms per document (medians) for the build, the shape array alone, and the two writes,
and the bytes of each file.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pipeline.clean import clean_html  # noqa: E402
from pipeline.evaluate.datasets import load_dataset  # noqa: E402
from pipeline.output.columns import DocColumns  # noqa: E402
from pipeline.output.schema import BLOCK_TYPE, SHAPE_TYPE, writer_options  # noqa: E402
from pipeline.types import RawPage  # noqa: E402

BATCH = 500


def _page(n: int, url: str) -> RawPage:
    return RawPage("a.warc.gz", f"<urn:{n}>", "response", n, 1, url, "2024-01-01T00:00:00Z",
                   200, "text/html", (), b"", False)  # fmt: skip


def _schema2(batch: pa.RecordBatch) -> pa.RecordBatch:
    blocks = batch.column("blocks")
    keep = [f for f in BLOCK_TYPE if f.name not in ("shape", "site_pages")]
    flat = blocks.flatten()
    struct = pa.StructArray.from_arrays([flat.field(f.name) for f in keep], fields=keep)
    lists = pa.ListArray.from_arrays(blocks.offsets, struct)
    columns = {n: batch.column(n) for n in batch.schema.names if n != "duplicate_of"}
    columns["blocks"] = lists
    return pa.RecordBatch.from_pydict(columns)


def _write(batches: list[pa.RecordBatch]) -> tuple[float, int]:
    sink = io.BytesIO()
    started = time.process_time()
    with pq.ParquetWriter(sink, batches[0].schema, **writer_options(batches[0].schema)) as w:
        for b in batches:
            w.write_batch(b)
    return time.process_time() - started, sink.tell()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/wcxb-dev")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", type=Path, default=REPO / "bench/results/schema3_write.json")
    args = parser.parse_args()
    docs = []
    for n, page in enumerate(load_dataset(args.data)):
        result = clean_html(page.read_html(), url=page.url)
        if result.text:
            docs.append((_page(n, page.url or ""), result))
    rounds = []
    for r in range(args.rounds):
        started = time.process_time()
        batches = []
        for i in range(0, len(docs), BATCH):
            columns = DocColumns()
            for page, result in docs[i : i + BATCH]:
                columns.add(page, result, cleaner_version="v", cleaner_params="{}")
            batches.append(columns.to_batch())
        build = time.process_time() - started
        shapes = [lb.block.shape for _, res in docs for lb in res.blocks]
        started = time.process_time()
        pa.array(shapes, type=SHAPE_TYPE)
        shape = time.process_time() - started
        old = [_schema2(b) for b in batches]
        order = ("3", "2") if r % 2 == 0 else ("2", "3")
        got = {}
        for which in order:
            got[which] = _write(batches if which == "3" else old)
        rounds.append(
            {
                "build": build,
                "shape": shape,
                "write3": got["3"][0],
                "write2": got["2"][0],
                "bytes3": got["3"][1],
                "bytes2": got["2"][1],
            }
        )
    n = len(docs)

    def ms(key: str) -> float:
        return round(1000 * statistics.median(r[key] for r in rounds) / n, 4)

    out = {
        "docs": n,
        "rounds": args.rounds,
        "ms_per_doc": {k: ms(k) for k in ("build", "shape", "write3", "write2")},
        "bytes_per_doc": {"3": rounds[0]["bytes3"] // n, "2": rounds[0]["bytes2"] // n},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
