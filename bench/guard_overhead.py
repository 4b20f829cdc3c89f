"""What the per-page guards cost on normal pages (WCXB dev), and how many pages they isolate.

    python bench/guard_overhead.py [--limit N] [--out bench/results/guard_overhead.json]

For every page, interleaved in one process: the guards' own work (`pipeline.html.guard.estimate`
on the page's UTF-8 bytes with the default `Limits`' attribute cap, as `clean_html` calls it: the
tag count, the attribute scan and, on pages with >= 10,000 tags, the nesting scan), once with the
compiled scans (markup_scan.pyx) and once with guard.py's own numpy and regex code, then the
whole `clean_html(page_bytes, language="en")` with default `Limits`. Reports the guards' share of
the cleaning time (total and median per page), both implementations' mean ms per page, and the
pages that would run in the sandbox child.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pipeline.clean import clean_html  # noqa: E402
from pipeline.config import Limits  # noqa: E402
from pipeline.html import guard  # noqa: E402
from pipeline.html.decode import decode_html  # noqa: E402
from pipeline.html.guard import estimate, needs_isolation  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "wcxb-dev"))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "guard_overhead.json"))
    args = parser.parse_args()
    files = sorted(Path(args.data, "html").glob("*.html.gz"))[: args.limit]
    limits = Limits()
    guard_s: list[float] = []
    python_s: list[float] = []
    compiled = guard._compiled
    clean_s: list[float] = []
    isolated: list[str] = []
    clean_html(b"<p>warm up the cleaner and the stoplists</p>", language="en")
    for f in files:
        raw = gzip.decompress(f.read_bytes())
        data = decode_html(raw, None).html.encode("utf-8", "surrogatepass")
        t0 = time.perf_counter()
        est = estimate(data, max_attributes=limits.max_attributes)
        guard_s.append(time.perf_counter() - t0)
        guard._compiled = None
        t0 = time.perf_counter()
        estimate(data, max_attributes=limits.max_attributes)
        python_s.append(time.perf_counter() - t0)
        guard._compiled = compiled
        t1 = time.perf_counter()
        clean_html(raw, language="en", limits=limits)
        t2 = time.perf_counter()
        clean_s.append(t2 - t1)
        if needs_isolation(est, limits.isolate_depth):
            isolated.append(f"{f.name} (depth {est.max_depth}, {t2 - t1:.2f} s)")
    shares = [g / c for g, c in zip(guard_s, clean_s, strict=True) if c]
    result = {
        "pages": len(files),
        "clean_seconds_total": round(sum(clean_s), 3),
        "guard_seconds_total": round(sum(guard_s), 4),
        "guard_share_of_total": round(sum(guard_s) / sum(clean_s), 4),
        "guard_share_median_page": round(statistics.median(shares), 4),
        "guard_ms_p99": round(sorted(guard_s)[int(0.99 * len(guard_s))] * 1000, 3),
        "guard_compiled": compiled is not None,
        "guard_ms_mean": round(1000 * sum(guard_s) / len(guard_s), 4),
        "guard_ms_mean_python_code": round(1000 * sum(python_s) / len(python_s), 4),
        "guard_ms_median": round(1000 * statistics.median(guard_s), 4),
        "guard_ms_median_python_code": round(1000 * statistics.median(python_s), 4),
        "isolated_pages": isolated,
    }
    for key, value in result.items():
        print(f"{key:<28} {value}")
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
