"""The reference front ends bench/pipeline.py measures the job against, one per fresh process.

    python bench/frontends.py resiliparse|trafilatura WARC... --output DIR
    python bench/frontends.py resiliparse --check      # are its modules importable?

Each is written the way its own documentation suggests, doing what the job's docs rows need and
no more (no language identification):

- **resiliparse**: FastWARC reads the WARC (response records only, HTTP headers parsed); each HTML
  response's body is decoded with the encoding Resiliparse detects
  (``HTMLTree.parse_from_bytes(body, detect_encoding(body))``) and reduced to its main content with
  ``resiliparse.extract.html2text.extract_plain_text(tree, main_content=True)``.
- **trafilatura**: warcio reads the WARC; ``trafilatura.extract(body, favor_precision=True)`` on
  each HTML response (it decodes the bytes itself).

Both write one Parquet file (zstd) per input WARC with a row (url, text) per page that gave text,
and print ``{"pages": N, "docs": M}`` as the last line of standard output: N HTML responses read,
M rows written. This script needs neither warcclean nor anything of this checkout, so that it can
run under a bench-only interpreter (``pip install resiliparse trafilatura lxml_html_clean pyarrow
warcio``); a missing module exits with status 3 and the ``pip install`` line that fixes it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

# Modules each front end imports, with the distribution that provides each.
REQUIRES: dict[str, dict[str, str]] = {
    "resiliparse": {"fastwarc": "fastwarc", "resiliparse": "resiliparse", "pyarrow": "pyarrow"},
    "trafilatura": {
        "warcio": "warcio",
        "trafilatura": "trafilatura",
        "lxml_html_clean": "lxml_html_clean",  # jusText, which trafilatura imports, needs it
        "pyarrow": "pyarrow",
    },
}
MISSING_MODULES = 3


def check(name: str) -> None:
    """Exit with the pip line that installs what ``name`` lacks, if it lacks anything."""
    missing = []
    for module, dist in REQUIRES[name].items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(dist)
    if missing:
        print(
            f"the {name} front end needs modules this interpreter ({sys.executable}) lacks: "
            f"pip install {' '.join(missing)}",
            file=sys.stderr,
        )
        sys.exit(MISSING_MODULES)


def resiliparse_pages(path: str) -> Iterator[tuple[str, str | None]]:
    from fastwarc.warc import ArchiveIterator, WarcRecordType
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import detect_encoding
    from resiliparse.parse.html import HTMLTree

    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream, record_types=WarcRecordType.response):
            if "html" not in (record.http_content_type or ""):
                continue
            body = record.reader.read()
            tree = HTMLTree.parse_from_bytes(body, detect_encoding(body))
            url = record.headers.get("WARC-Target-URI", "")
            yield url, extract_plain_text(tree, main_content=True)


def trafilatura_pages(path: str) -> Iterator[tuple[str, str | None]]:
    import trafilatura
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type != "response":
                continue
            content_type = record.http_headers.get_header("Content-Type") or ""
            if "html" not in content_type:
                continue
            body = record.content_stream().read()
            url = record.rec_headers.get_header("WARC-Target-URI") or ""
            yield url, trafilatura.extract(body, favor_precision=True)


FRONT_ENDS: dict[str, Callable[[str], Iterator[tuple[str, str | None]]]] = {
    "resiliparse": resiliparse_pages,
    "trafilatura": trafilatura_pages,
}


def run(name: str, inputs: list[str], output: Path) -> dict[str, int]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("url", pa.string()), ("text", pa.string())])
    output.mkdir(parents=True, exist_ok=True)
    pages = docs = 0
    for i, path in enumerate(inputs):
        urls, texts = [], []
        for url, text in FRONT_ENDS[name](path):
            pages += 1
            if text:
                urls.append(url)
                texts.append(text)
        docs += len(texts)
        table = pa.table({"url": urls, "text": texts}, schema=schema)
        pq.write_table(table, output / f"{i:05d}.parquet", compression="zstd")
    return {"pages": pages, "docs": docs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("front_end", choices=sorted(FRONT_ENDS))
    ap.add_argument("inputs", nargs="*", metavar="WARC")
    ap.add_argument("--output", type=Path, help="folder for the Parquet files")
    ap.add_argument("--check", action="store_true", help="only check that its modules import")
    args = ap.parse_args()
    check(args.front_end)
    if args.check:
        return
    if not args.inputs or args.output is None:
        ap.error("give at least one WARC and --output")
    print(json.dumps(run(args.front_end, args.inputs, args.output)))


if __name__ == "__main__":
    main()
