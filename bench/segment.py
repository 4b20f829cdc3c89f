"""Segmentation speed: the C walk over lexbor's structs, the compiled walk through selectolax's
Python API, and the Python source of that walk (`pipeline.html.walk`), side by side.

Usage: python bench/segment.py [--data DIR] [--limit N] [--out FILE]

All three run on every page, interleaved page by page (order rotating), each on a fresh parse
made just before it, and must give identical blocks on every page, with and without BTE runs; a
difference is an error, not a timing. Times are CPU time (`time.process_time_ns`) of one call
per page, for both ``record_runs`` settings (the default cleaner records runs); the parse itself
is timed once per page as the floor for comparison. Pages the C walk handed to the Python walk
are counted.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

import pipeline.html.segment as installed  # noqa: E402
import pipeline.html.walk as installed_walk  # noqa: E402
from pipeline.compiled import compiled_modules, load_source  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data" / "wcxb-dev"
DEFAULT_OUT = REPO / "bench" / "results" / "segment.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="wcxb-dev folder")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON path")
    args = parser.parse_args(argv)
    if not compiled_modules()["pipeline.html.walk"]:
        raise SystemExit("error: pipeline.html.walk is not compiled here; nothing to compare")
    status = installed.c_walk_status()
    if status != "active":
        raise SystemExit(f"error: the C walk is not in use ({status})")
    from pipeline.html import lexbor_walk

    source = load_source("pipeline.html.walk")
    paths = sorted((args.data / "html").glob("*.html.gz"))[: args.limit]
    if not paths:
        raise SystemExit(f"error: no *.html.gz pages under {args.data / 'html'}")
    walks: dict[str, Callable[..., list]] = {
        "c walk": lambda tree, runs: installed.segment(tree, record_runs=runs),
        "python api walk": lambda tree, runs: installed_walk.walk(tree.root, None, runs, None),
        "python source": lambda tree, runs: source.walk(tree.root, None, runs, None),
    }
    clock = time.process_time_ns
    times: dict[str, list[int]] = {"parse": []}
    for name in walks:
        for runs in (False, True):
            times[f"{name}{' +runs' if runs else ''}"] = []
    lexbor_walk.reset_fallback_counts()
    started = results_file.utc_now()
    load_start = os.getloadavg()
    names = list(walks)
    for i, path in enumerate(paths):
        html = gzip.decompress(path.read_bytes())
        for runs in (False, True):
            results = []
            for k in range(len(names)):
                name = names[(i + k) % len(names)]
                # Each walk gets a parse of its own, just before it, as in the pipeline: a walk
                # right after another over the same tree would find it in the CPU's caches.
                t0 = clock()
                tree = installed.parse(html)
                t1 = clock()
                blocks = walks[name](tree, runs)
                times[f"{name}{' +runs' if runs else ''}"].append(clock() - t1)
                if not runs and not k:
                    times["parse"].append(t1 - t0)
                results.append(blocks)
            if any(r != results[0] for r in results[1:]):
                raise SystemExit(f"error: the walks differ on {path.name} (record_runs={runs})")
    parse_median = statistics.median(times["parse"])
    summary = {
        name: {
            "median_ms": statistics.median(ns) / 1e6,
            "total_s": sum(ns) / 1e9,
            "median_x_parse": statistics.median(ns) / parse_median,
        }
        for name, ns in times.items()
    }
    fallbacks = lexbor_walk.fallback_counts()
    print(f"{len(paths)} pages, identical blocks on every page; C walk fallbacks: {fallbacks}")
    print(f"{'':22} {'median ms':>10} {'total s':>9} {'x parse':>8}")
    for name, row in summary.items():
        print(
            f"{name:22} {row['median_ms']:10.3f} {row['total_s']:9.2f} {row['median_x_parse']:8.2f}"
        )
    speedups = {
        f"c walk vs python api walk{suffix}": summary[f"python api walk{suffix}"]["median_ms"]
        / summary[f"c walk{suffix}"]["median_ms"]
        for suffix in ("", " +runs")
    }
    for name, value in speedups.items():
        print(f"{name}: {value:.2f}x (medians)")
    result = {
        "date": started,
        "command": results_file.command_line(__file__, argv),
        "pages": len(paths),
        "load_average": {"start": load_start, "end": os.getloadavg()},
        "c_walk_fallbacks": fallbacks,
        "summary": summary,
        "speedup_median": speedups,
    }
    results_file.write_results(args.out, result)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
