"""The record reader's CPU per page: as shipped, as it was, and plain warcio, side by side.

    python bench/reader.py [--pages 1358] [--rounds 5] [--out bench/results/reader.json]

Packs WCXB dev pages into one Common-Crawl-shaped WARC as `bench/pipeline.py` does (request,
response and metadata record per page, one gzip member each), then reads it, alternating, with:

- **shipped**: `pipeline.warc.reader.iter_records` as it is (zlib-ng inflate, 128 KiB reads,
  requests' HTTP headers drained unparsed);
- **before**: the same reader with the standard library's zlib, warcio's 16 KiB reads and every
  HTTP header block parsed (what it did up to bf6538e);
- **warcio loop**: a bare warcio ``ArchiveIterator`` reading each response's body, with none of
  the reader's accounting (the floor a plain loop starts from);
- **fastwarc** (only when installed; not used by warcclean): its iterator reading each
  response's body, for reference.

Every round reads the whole file once per variant; the table gives the median CPU milliseconds
per page over the rounds and the ratio to **before**. It also checks that shipped and before
yield the same items. Writes bench/results/reader.json.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

# bench/ is first on the path when this runs as a script, and bench/pipeline.py would shadow the
# package of the same name.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import pipeline.warc.reader as reader  # noqa: E402
from pipeline.types import RawPage  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results" / "reader.json"
BEFORE = {"_inflate_lib": zlib, "_READ_BLOCK": 1 << 14, "_UNPARSED_HTTP": frozenset()}


def _bench_script(name: str) -> Any:
    """Another benchmark script of bench/, loaded by path (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _as_before() -> Iterator[None]:
    saved = {name: getattr(reader, name) for name in BEFORE}
    for name, value in BEFORE.items():
        setattr(reader, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(reader, name, value)


def _machine() -> dict[str, Any]:
    """bench/cleaner.py's machine record, with the reader's packages."""
    cleaner = _bench_script("cleaner")
    info = cleaner.machine_info()
    names = ("warcio", "zlib-ng", "fastwarc")
    info["packages"].update({name: cleaner._package_version(name) for name in names})
    return info


def _items(path: str) -> list:
    with open(path, "rb") as stream:
        return list(reader.iter_records(stream, path))


def shipped(path: str) -> int:
    return sum(isinstance(item, RawPage) for item in _items(path))


def before(path: str) -> int:
    with _as_before():
        return shipped(path)


def warcio_loop(path: str) -> int:
    from warcio.archiveiterator import ArchiveIterator

    pages = 0
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type == "response":
                record.content_stream().read()
                pages += 1
    return pages


def fastwarc_loop(path: str) -> int:
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    pages = 0
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream, record_types=WarcRecordType.response):
            record.reader.read()
            pages += 1
    return pages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=1358, help="WCXB pages to pack (max 1358)")
    ap.add_argument("--rounds", type=int, default=5, help="reads of the file per variant")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    if args.pages < 1 or args.rounds < 1:
        ap.error("--pages and --rounds must be at least 1")
    machine = _machine()
    bench = _bench_script("pipeline")
    if not bench.WCXB.exists():
        sys.exit(f"{bench.WCXB} is absent: the benchmark needs ../shared/data/wcxb-dev")
    variants: dict[str, Callable[[str], int]] = {
        "shipped": shipped,
        "before": before,
        "warcio loop": warcio_loop,
    }
    if importlib.util.find_spec("fastwarc") is not None:
        variants["fastwarc"] = fastwarc_loop
    with tempfile.TemporaryDirectory(prefix="warcclean-reader-") as tmp:
        path = str(Path(tmp) / "pages.warc.gz")
        pages = bench.load_pages(args.pages)
        bench.write_warc(Path(path), pages)
        with _as_before():
            old_items = _items(path)
        same = _items(path) == old_items
        spent: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, read in variants.items():
                t = time.process_time()
                n = read(path)
                spent[name].append(1000 * (time.process_time() - t) / n)
                if n != len(pages):
                    sys.exit(f"{name} read {n} pages, expected {len(pages)}")
    medians = {name: statistics.median(ms) for name, ms in spent.items()}
    print(
        f"{len(pages)} pages, {args.rounds} rounds; shipped and before give the same items: "
        f"{'yes' if same else 'NO'}"
    )
    print(f"\n{'variant':<14} {'median ms/page':>15} {'vs before':>10}")
    for name, ms in medians.items():
        print(f"{name:<14} {ms:>15.3f} {ms / medians['before']:>9.2f}x")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "command": " ".join(["python", "bench/reader.py", *sys.argv[1:]]),
                "machine": {**machine, "load_average_at_end": os.getloadavg()},
                "pages": len(pages),
                "rounds": args.rounds,
                "same_items_as_before": same,
                "ms_per_page": spent,
                "median_ms_per_page": medians,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"written: {args.out}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
