"""The measurement behind `pipeline.lang.degenerate`'s thresholds, on real pages.

    python bench/degenerate_text.py [FILE...]

Cleans each page (``.html``, ``.html.gz``, or every page of a ``.warc``/``.warc.gz``) with the
default cleaner and prints the pages whose text carries the fewest bits per character and the
most control characters. Without arguments: every page of ../shared/data and
samples/sample.warc.gz.
"""

from __future__ import annotations

import glob
import gzip
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package

from pipeline.clean import clean_html  # noqa: E402
from pipeline.lang.degenerate import MIN_CHARS, bits_per_char, control_share  # noqa: E402
from pipeline.types import RawPage  # noqa: E402
from pipeline.warc.reader import iter_file  # noqa: E402


def texts(path: str) -> Iterator[tuple[str, str]]:
    if path.endswith((".warc", ".warc.gz")):
        for item in iter_file(path):
            if isinstance(item, RawPage):
                yield item.url or path, clean_html(item.body, url=item.url).text
        return
    data = Path(path).read_bytes()
    yield path, clean_html(gzip.decompress(data) if path.endswith(".gz") else data).text


def survey(paths: list[str]) -> None:
    found: list[tuple[float, int, float, str]] = []
    for path in paths:
        for name, text in texts(path):
            if text:
                found.append((*bits_per_char(text), control_share(text), name))
    found.sort()
    print(f"{len(found)} pages with text; the lowest bits per character:")
    for bits, n, _, name in found[:8]:
        print(f"  {bits:.2f}  {n:>7,} characters  {name}")
    bits, n, _, name = min(f for f in found if f[1] >= MIN_CHARS)
    print(f"lowest from {MIN_CHARS} characters on: {bits:.2f} ({n:,} characters, {name})")
    share, name = max((f[2], f[3]) for f in found if f[1] >= MIN_CHARS)
    print(f"most control characters from {MIN_CHARS} characters on: {share:.2%} ({name})")


if __name__ == "__main__":
    pages = sorted(glob.glob(str(REPO.parent / "shared" / "data" / "*" / "html" / "*")))
    survey(sys.argv[1:] or [*pages, str(REPO / "samples" / "sample.warc.gz")])
