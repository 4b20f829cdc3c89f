"""What the page-type classifier (`pipeline.html.page_type`) adds to a library call.

Usage: python bench/page_type_cost.py [--pages 400] [--out FILE]

One process cleans the first ``--pages`` wcxb-dev pages with the default cleaner
(``pipeline.clean_html``, which classifies every page) and, page by page right after, runs the
classification alone on the same page (its schema.org scan of the markup, URL and title words,
block shapes and the model), after a warm-up. CPU time per page (`time.process_time`), medians;
the cost bound of issue 49 is the library call at most 1.1x what it was, so the table prints the
call's median over the median of the call without the classification (each page's call minus its
classification).
"""

from __future__ import annotations

import argparse
import gzip
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

DATA = REPO.parent / "shared" / "data" / "wcxb-dev" / "html"
DEFAULT_OUT = REPO / "bench" / "results" / "page_type_cost.json"
TARGET_RATIO = 1.1


def measure(pages: int) -> dict:
    from pipeline import clean_html
    from pipeline.html import page_type
    from pipeline.html.decode import decode_html
    from pipeline.html.metadata import read_head
    from pipeline.html.page_cues import page_cues
    from pipeline.html.segment import parse, segment

    files = sorted(DATA.glob("*.html.gz"))[:pages]
    raw = [gzip.decompress(f.read_bytes()) for f in files]

    def classify(page: bytes) -> float:
        html = decode_html(page, None).html
        tree = parse(html)
        blocks = segment(tree, record_runs=True)
        cues = page_cues(tree, None, read_head(tree, None))
        start = time.process_time()
        page_type.classify(blocks, cues, html, None, tree)
        return time.process_time() - start

    for page in raw[:20]:
        clean_html(page)
        classify(page)
    calls, types = [], []
    for page in raw:
        start = time.process_time()
        clean_html(page)
        calls.append(time.process_time() - start)
        types.append(classify(page))
    without = [c - t for c, t in zip(calls, types, strict=True)]
    call_ms = 1000 * statistics.median(calls)
    type_ms = 1000 * statistics.median(types)
    without_ms = 1000 * statistics.median(without)
    return {
        "pages": len(raw),
        "median_call_ms": round(call_ms, 3),
        "median_classify_ms": round(type_ms, 3),
        "median_call_without_classify_ms": round(without_ms, 3),
        "ratio": round(call_ms / without_ms, 4),
        "share_of_total_cpu": round(sum(types) / sum(calls), 4),
        "target_ratio": TARGET_RATIO,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    result = measure(args.pages)
    print(f"{'pages':<40} {result['pages']}")
    print(f"{'library call, median ms':<40} {result['median_call_ms']:.3f}")
    print(f"{'page-type classification, median ms':<40} {result['median_classify_ms']:.3f}")
    print(f"{'call without it, median ms':<40} {result['median_call_without_classify_ms']:.3f}")
    print(f"{'ratio (target <= 1.1)':<40} {result['ratio']:.4f}")
    print(f"{'share of all CPU':<40} {result['share_of_total_cpu']:.4f}")
    doc = {
        "bench": "page_type_cost",
        "date": results_file.utc_now(),
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "result": result,
    }
    results_file.write_results(args.out, doc, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
