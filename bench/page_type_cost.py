"""What the page-type classifier (`pipeline.html.page_type`) adds to a library call.

Usage: python bench/page_type_cost.py [--pages 400] [--rounds 3] [--out FILE]

One process cleans the first ``--pages`` wcxb-dev pages with the default cleaner twice in turn,
``pipeline.clean_html(page, classify_page=True)`` and ``pipeline.clean_html(page)`` (the order
alternating page by page and round by round, so a shared machine's swings fall on both alike),
after a warm-up, and times the classification alone on each page as the call runs it (its
schema.org scan of the page's UTF-8 bytes, URL and title words, block shapes and the model). CPU
time per page (`time.process_time`), medians over pages and rounds; the cost bound of issue 49 is
the library call at most 1.1x, so the table prints the call's median with the classification over
its median without, and the ratio of their totals.
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


def measure(pages: int, rounds: int) -> dict:
    from pipeline import clean_html
    from pipeline.html import page_type
    from pipeline.html.decode import decode_html
    from pipeline.html.metadata import read_head
    from pipeline.html.page_cues import page_cues
    from pipeline.html.segment import parse, segment
    from pipeline.lang.langid import detect_blocks

    files = sorted(DATA.glob("*.html.gz"))[:pages]
    raw = [gzip.decompress(f.read_bytes()) for f in files]

    def classify(page: bytes) -> float:
        # What `pipeline.clean.clean_decoded` hands the classifier: the page's own UTF-8 bytes
        # where they are valid, else its decoded text.
        decoded = decode_html(page, None)
        markup = decoded.html if decoded.utf8 is None else decoded.utf8
        tree = parse(markup)
        blocks = segment(tree, record_runs=True)
        cues = page_cues(tree, None, read_head(tree, None))
        language = detect_blocks(blocks).code
        start = time.process_time()
        page_type.classify(blocks, cues, markup, None, tree, language)
        return time.process_time() - start

    def call(page: bytes, classify_page: bool) -> float:
        start = time.process_time()
        clean_html(page, classify_page=classify_page)
        return time.process_time() - start

    for page in raw[:20]:
        call(page, True)
        call(page, False)
        classify(page)
    with_type, without, alone = [], [], []
    for r in range(rounds):
        for i, page in enumerate(raw):
            if (i + r) % 2:
                without.append(call(page, False))
                with_type.append(call(page, True))
            else:
                with_type.append(call(page, True))
                without.append(call(page, False))
            alone.append(classify(page))
    with_ms = 1000 * statistics.median(with_type)
    without_ms = 1000 * statistics.median(without)
    return {
        "pages": len(raw),
        "rounds": rounds,
        "median_call_ms": round(with_ms, 3),
        "median_call_without_classify_ms": round(without_ms, 3),
        "median_classify_ms": round(1000 * statistics.median(alone), 3),
        "ratio": round(with_ms / without_ms, 4),
        "ratio_of_totals": round(sum(with_type) / sum(without), 4),
        "share_of_total_cpu": round(sum(alone) / sum(with_type), 4),
        "target_ratio": TARGET_RATIO,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    result = measure(args.pages, args.rounds)
    print(f"{'pages':<40} {result['pages']}")
    print(f"{'library call with it, median ms':<40} {result['median_call_ms']:.3f}")
    without = result["median_call_without_classify_ms"]
    print(f"{'library call without it, median ms':<40} {without:.3f}")
    print(f"{'page-type classification, median ms':<40} {result['median_classify_ms']:.3f}")
    print(f"{'ratio of medians (target <= 1.1)':<40} {result['ratio']:.4f}")
    print(f"{'ratio of totals':<40} {result['ratio_of_totals']:.4f}")
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
