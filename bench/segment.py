"""Segmentation speed: the compiled `pipeline.segment` against its own Python source.

Usage: python bench/segment.py [--data DIR] [--limit N] [--out FILE]

Both run on the same parsed trees, interleaved page by page (order alternating), and must give
identical blocks on every page, with and without BTE runs; a difference is an error, not a
timing. Times are CPU time (`time.process_time_ns`) of one `segment(tree)` call; the parse
itself is timed once per page as the floor for comparison.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package

import pipeline.segment as installed  # noqa: E402
from pipeline.compiled import compiled_modules, load_source  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data" / "wcxb-dev"
DEFAULT_OUT = REPO / "bench" / "results" / "segment.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="wcxb-dev folder")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON path")
    args = parser.parse_args(argv)
    compiled = compiled_modules()["pipeline.segment"]
    if not compiled:
        raise SystemExit("error: pipeline.segment is not compiled here; nothing to compare")
    source = load_source("pipeline.segment")
    paths = sorted((args.data / "html").glob("*.html.gz"))[: args.limit]
    if not paths:
        raise SystemExit(f"error: no *.html.gz pages under {args.data / 'html'}")
    clock = time.process_time_ns
    times: dict[str, list[int]] = {"parse": [], "compiled": [], "python": []}
    started = dt.datetime.now(dt.timezone.utc)
    load_start = os.getloadavg()
    for i, path in enumerate(paths):
        html = gzip.decompress(path.read_bytes())
        t0 = clock()
        tree = installed.parse(html)
        times["parse"].append(clock() - t0)
        order = (installed, source) if i % 2 == 0 else (source, installed)
        results = []
        for module in order:
            t0 = clock()
            blocks = module.segment(tree)
            times["compiled" if module is installed else "python"].append(clock() - t0)
            results.append(blocks)
        if results[0] != results[1] or installed.segment(tree, record_runs=True) != (
            source.segment(tree, record_runs=True)
        ):
            raise SystemExit(f"error: compiled and Python segmentation differ on {path.name}")
    summary = {
        name: {
            "median_ms": statistics.median(ns) / 1e6,
            "total_s": sum(ns) / 1e9,
            "median_x_parse": statistics.median(ns) / statistics.median(times["parse"]),
        }
        for name, ns in times.items()
    }
    speedup_median = summary["python"]["median_ms"] / summary["compiled"]["median_ms"]
    speedup_total = summary["python"]["total_s"] / summary["compiled"]["total_s"]
    print(f"{len(paths)} pages, identical blocks on every page")
    print(f"{'':10} {'median ms':>10} {'total s':>9} {'x parse':>8}")
    for name, row in summary.items():
        print(
            f"{name:10} {row['median_ms']:10.3f} {row['total_s']:9.2f} {row['median_x_parse']:8.2f}"
        )
    print(f"compiled speed-up: {speedup_median:.2f}x (medians), {speedup_total:.2f}x (totals)")
    result = {
        "date": started.isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "pages": len(paths),
        "load_average": {"start": load_start, "end": os.getloadavg()},
        "summary": summary,
        "speedup_median": speedup_median,
        "speedup_total": speedup_total,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
