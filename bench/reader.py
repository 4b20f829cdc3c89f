"""The record reader's and the decode stage's CPU per page: variants side by side in one run.

    python bench/reader.py [--pages 1358] [--rounds 5] [--out bench/results/reader.json]

Packs WCXB dev pages into one Common-Crawl-shaped WARC as `bench/pipeline.py` does (request,
response and metadata record per page, one gzip member each), then reads it, alternating, with:

- **shipped**: `pipeline.warc.reader.iter_records` as it is: plain gzip members read whole by
  `pipeline.warc.members`, anything else by the segment reader (warcio);
- **segment reader**: the same reader with that fast path off, every record through warcio (the
  reader as it was before issue 36);
- **warcio loop**: a bare warcio ``ArchiveIterator`` reading each response's body, with none of
  the reader's accounting;
- **fastwarc loop** (only when installed; not used by warcclean): its iterator reading each
  response's body;
- **fastwarc accounted** (only when installed): the other design issue 36 weighed, a prototype:
  FastWARC's iterator with each record turned into our `RawPage`/`Rejected` by the same helpers,
  offsets from its stream positions. The run says whether its items equal shipped's on this
  (undamaged) file; on damaged files FastWARC's own recovery differs from ours (SOURCES.md).

and then decodes every page's body, alternating: **decode** (`decode_html`, which for a valid
UTF-8 page checks the bytes and leaves the text undecoded: the parser reads the bytes), **decode
before** (the same with the double-UTF-8 repair's gate searching the text, as before issue 36,
rather than the bytes), and **strict utf-8** (`bytes.decode`, what building the text costs).

Every round runs each variant once, in an order that rotates per round; the tables give the
median CPU milliseconds per page over the rounds and the ratio to **segment reader** and
**decode before**. It checks
that shipped and segment reader yield the same items and exits 1 if not. Writes
bench/results/reader.json.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# bench/ is first on the path when this runs as a script, and bench/pipeline.py would shadow the
# package of the same name.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import pipeline.html.decode as html_decode  # noqa: E402
import pipeline.warc.reader as reader  # noqa: E402
from pipeline.types import RawPage, Rejected  # noqa: E402
from pipeline.warc.payload import classify_type, decode_payload, media_type  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

RESULTS = REPO / "bench" / "results" / "reader.json"


def _bench_script(name: str) -> Any:
    """Another benchmark script of bench/, loaded by path (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _hand_over_at_once(stream: Any, start: int, *args: Any) -> Iterator[Any]:
    return start
    yield  # a generator: the segment reader reads from ``start``


@contextlib.contextmanager
def _segment_reader_only() -> Iterator[None]:
    saved = reader.read_members
    reader.read_members = _hand_over_at_once
    try:
        yield
    finally:
        reader.read_members = saved


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


def segment_reader(path: str) -> int:
    with _segment_reader_only():
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


def fastwarc_items(path: str) -> list[RawPage | Rejected]:
    """The prototype of a reader over FastWARC: our items from its records (no resync).

    A record's length is where the next one starts, so each item is finished one record late.
    """
    from fastwarc.warc import ArchiveIterator

    items: list[RawPage | Rejected] = []
    last: tuple[dict[str, Any], int] | None = None
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream, parse_http=False):
            pos = record.stream_pos
            if last is not None:
                items.append(_finish(*last, pos))
            last = (_fastwarc_fields(path, record), pos)
        if last is not None:
            items.append(_finish(*last, stream.seek(0, 2)))
    return items


def _fastwarc_fields(path: str, record: Any) -> dict[str, Any]:
    headers = record.headers
    rec_type = (headers.get("WARC-Type") or "").strip().lower()[:40] or "missing"
    fields: dict[str, Any] = {
        "warc_path": path,
        "record_id": (headers.get("WARC-Record-ID") or "").strip()[:200],
        "record_type": rec_type,
        "url": (headers.get("WARC-Target-URI") or "").strip(),
    }

    def rejected(reason: str, detail: str) -> dict[str, Any]:
        return {**fields, "url": fields["url"] or None, "reason": reason, "detail": detail}

    if rec_type not in reader.PAGE_TYPES:
        return rejected(f"record_type:{rec_type}", "")
    record.parse_http()
    http = record.http_headers
    status = http.status_code
    if status not in reader.ACCEPTED_STATUS:
        return rejected("http_status", str(status))
    content_type = http.get("Content-Type")
    content_type = content_type.strip()[:300] if content_type is not None else None
    if classify_type(media_type(content_type)) != "html":
        return rejected("not_html", media_type(content_type)[:100])
    payload = decode_payload(
        record.reader.read(), http.get("Transfer-Encoding"), http.get("Content-Encoding")
    )
    return {
        **fields,
        "warc_date": (headers.get("WARC-Date") or "").strip(),
        "http_status": status,
        "content_type": content_type,
        "http_headers": tuple((k[:200], v[:4096]) for k, v in http.items()[:200]),
        "body": payload.body,
        "truncated": not payload.complete,
        "notes": payload.notes,
    }


def _finish(fields: dict[str, Any], offset: int, end: int) -> RawPage | Rejected:
    if "reason" in fields:
        return Rejected(
            fields["warc_path"],
            fields["record_id"],
            fields["record_type"],
            offset,
            fields["url"],
            fields["reason"],
            fields["detail"],
            end - offset,
        )
    return RawPage(warc_offset=offset, warc_length=end - offset, **fields)


def fastwarc_accounted(path: str) -> int:
    return sum(isinstance(item, RawPage) for item in fastwarc_items(path))


def decode(pages: list[RawPage]) -> None:
    for page in pages:
        html_decode.decode_html(page.body, page.content_type)


def decode_before(pages: list[RawPage]) -> None:
    """`decode` as before issue 36: the double-UTF-8 gate searches the text for its markers."""
    saved = html_decode._marker_in_bytes
    html_decode._marker_in_bytes = lambda raw: None
    try:
        decode(pages)
    finally:
        html_decode._marker_in_bytes = saved


def strict_utf8(pages: list[RawPage]) -> None:
    for page in pages:
        page.body.decode("utf-8", "replace")


def _alternate(
    variants: dict[str, Callable[[], int]], rounds: int, expect: int
) -> dict[str, list[float]]:
    """CPU ms per page of each variant, per round; the order rotates from round to round."""
    spent: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            t = time.process_time()
            n = variants[name]()
            spent[name].append(1000 * (time.process_time() - t) / expect)
            if n != expect:
                sys.exit(f"{name} read {n} pages, expected {expect}")
    return spent


def _table(title: str, spent: dict[str, list[float]], base: str) -> dict[str, float]:
    medians = {name: statistics.median(ms) for name, ms in spent.items()}
    print(f"\n{title:<20} {'median ms/page':>15} {'vs ' + base:>18}")
    for name, ms in medians.items():
        print(f"{name:<20} {ms:>15.3f} {ms / medians[base]:>17.2f}x")
    return medians


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
    has_fastwarc = importlib.util.find_spec("fastwarc") is not None
    with tempfile.TemporaryDirectory(prefix="warcclean-reader-") as tmp:
        path = str(Path(tmp) / "pages.warc.gz")
        pages = bench.load_pages(args.pages)
        bench.write_warc(Path(path), pages)
        items = _items(path)
        with _segment_reader_only():
            same = items == _items(path)
        same_fastwarc = fastwarc_items(path) == items if has_fastwarc else None
        read: dict[str, Callable[[], int]] = {
            "shipped": lambda: shipped(path),
            "segment reader": lambda: segment_reader(path),
            "warcio loop": lambda: warcio_loop(path),
        }
        if has_fastwarc:
            read["fastwarc loop"] = lambda: fastwarc_loop(path)
            read["fastwarc accounted"] = lambda: fastwarc_accounted(path)
        read_ms = _alternate(read, args.rounds, len(pages))
    bodies = [item for item in items if isinstance(item, RawPage)]
    decoding: dict[str, Callable[[], int]] = {
        "decode": lambda: decode(bodies) or len(bodies),
        "decode before": lambda: decode_before(bodies) or len(bodies),
        "strict utf-8": lambda: strict_utf8(bodies) or len(bodies),
    }
    decode_ms = _alternate(decoding, args.rounds, len(pages))
    print(
        f"{len(pages)} pages, {args.rounds} rounds; shipped and segment reader give the same "
        f"items: {'yes' if same else 'NO'}"
        + ("" if same_fastwarc is None else f"; fastwarc accounted too: {same_fastwarc}")
    )
    read_medians = _table("read", read_ms, "segment reader")
    decode_medians = _table("decode", decode_ms, "decode before")
    results_file.write_results(
        args.out,
        {
            "date": results_file.utc_now(),
            "command": results_file.command_line(__file__),
            "machine": {**machine, "load_average_at_end": os.getloadavg()},
            "pages": len(pages),
            "rounds": args.rounds,
            "same_items_as_segment_reader": same,
            "fastwarc_accounted_same_items": same_fastwarc,
            "read_ms_per_page": read_ms,
            "read_median_ms_per_page": read_medians,
            "decode_ms_per_page": decode_ms,
            "decode_median_ms_per_page": decode_medians,
        },
        indent=2,
    )
    print(f"written: {args.out}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
