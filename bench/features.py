"""Feature extraction speed: `page_features` and `stack_features`, old against new.

Usage: python bench/features.py [--old PATH] [--data DIR] [--limit N] [--out FILE]

"old" is a features module loaded from a file (``--old``: another checkout's
``pipeline/learned/features.py``, run uncompiled, or an extension compiled from one as a top-level
``features`` module; default: this checkout's own source through `pipeline.compiled.load_source`,
i.e. the numpy implementation); "new" is the installed `pipeline.learned.features`, compiled when
the build could. Every wcxb-dev page is decoded, parsed and segmented once (``record_runs=True``, as
the default cleaner does) and its stoplist is the one the cleaner would use (language detected over
the blocks). Then, page by page with the order alternating, each module computes ``page_features``
and ``stack_features`` (the latter on the shipped model's first-pass probabilities) once, as a job
would; both must give identical matrices (`numpy.array_equal`) or the run stops with an error. A job
calls ``stack_features`` only for a model with a stacked second pass; the shipped single-pass model
has none. Times are CPU time (`time.process_time_ns`) of one call."""

from __future__ import annotations

import argparse
import gc
import gzip
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline.threads import single_threaded_blas  # noqa: E402

single_threaded_blas()  # as in a Dask worker; before numpy is imported

import numpy as np  # noqa: E402

import pipeline.learned.features as installed  # noqa: E402
import pipeline.learned.stacked as installed_stacked  # noqa: E402
from pipeline.compiled import compiled_modules, load_source  # noqa: E402
from pipeline.html.decode import decode_html  # noqa: E402
from pipeline.html.segment import parse, segment  # noqa: E402
from pipeline.lang import langid, stoplists  # noqa: E402
from pipeline.learned.model import load_model, sigmoid  # noqa: E402
from pipeline.types import Block  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data" / "wcxb-dev"
DEFAULT_OUT = REPO / "bench" / "results" / "features.json"
TARGET_MEDIAN_MS = 0.8  # page_features + stack_features per page, issue 5's budget for them
FUNCTIONS = ("page_features", "stack_features", "both")


def load_old(path: Path | None) -> ModuleType:
    if path is None:
        return load_source("pipeline.learned.features")
    # A compiled module must be loaded under the name it was built as ("features").
    name = path.name.partition(".")[0] if path.suffix != ".py" else "_bench_old_features"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"error: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_pages(
    data: Path, limit: int | None
) -> list[tuple[str, list[Block], frozenset[str] | None, np.ndarray]]:
    """(name, blocks, stoplist, first-pass probabilities) of every page with blocks."""
    paths = sorted((data / "html").glob("*.html.gz"))[:limit]
    if not paths:
        raise SystemExit(f"error: no *.html.gz pages under {data / 'html'}")
    model = load_model()
    pages = []
    for path in paths:
        decoded = decode_html(gzip.decompress(path.read_bytes()))
        blocks = segment(parse(decoded.html), record_runs=True)
        if not blocks:
            continue
        stoplist = stoplists.stoplist(langid.detect_blocks(blocks).code)
        probs = sigmoid(model.scorer.raw(installed.page_features(blocks, stoplist)))
        pages.append((path.name.removesuffix(".html.gz"), blocks, stoplist, probs))
    return pages


def summarize(ns: list[int]) -> dict[str, float]:
    ms = [t / 1e6 for t in ns]
    return {
        "median_ms": statistics.median(ms),
        "p90_ms": statistics.quantiles(ms, n=10)[8],
        "total_s": sum(ms) / 1e3,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--old", type=Path, default=None, help="old features.py, or a features*.so built from one"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="wcxb-dev folder")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON path")
    args = parser.parse_args(argv)
    old = load_old(args.old)
    # Before the stacked pass had a module of its own, features.py held it.
    old_stack = getattr(old, "stack_features", None) or (
        load_source("pipeline.learned.stacked").stack_features
    )
    compiled = compiled_modules()["pipeline.learned.features"]
    pages = load_pages(args.data, args.limit)
    # A job holds one page's blocks at a time, not every page's: keep the loaded pages out of the
    # collector's way, or a full collection of them lands in some timed call.
    gc.collect()
    gc.freeze()
    clock = time.process_time_ns
    times: dict[str, dict[str, list[int]]] = {
        tag: {name: [] for name in FUNCTIONS} for tag in ("old", "new")
    }
    started = results_file.utc_now()
    load_start = os.getloadavg()
    for i, (name, blocks, stoplist, probs) in enumerate(pages):
        order = (
            ("old", old.page_features, old_stack),
            ("new", installed.page_features, installed_stacked.stack_features),
        )
        results = []
        for tag, features, stacked in order if i % 2 == 0 else order[::-1]:
            t0 = clock()
            x = features(blocks, stoplist)
            t1 = clock()
            s = stacked(blocks, probs)
            t2 = clock()
            times[tag]["page_features"].append(t1 - t0)
            times[tag]["stack_features"].append(t2 - t1)
            times[tag]["both"].append(t2 - t0)
            results.append((x, s))
        (x0, s0), (x1, s1) = results
        if not (np.array_equal(x0, x1) and np.array_equal(s0, s1)):
            raise SystemExit(f"error: old and new features differ on {name}")
    summary = {
        tag: {function: summarize(ns) for function, ns in by_function.items()}
        for tag, by_function in times.items()
    }
    speedup = {
        function: summary["old"][function]["median_ms"] / summary["new"][function]["median_ms"]
        for function in FUNCTIONS
    }
    blocks_median = statistics.median(len(page[1]) for page in pages)
    print(
        f"{len(pages)} pages (median {blocks_median:.0f} blocks), identical features on every "
        f"page; new compiled: {compiled}; old: {old.__file__}"
    )
    print(f"{'':15} {'old median':>10} {'old p90':>8} {'new median':>10} {'new p90':>8} {'x':>6}")
    for function in FUNCTIONS:
        o, n = summary["old"][function], summary["new"][function]
        print(
            f"{function:15} {o['median_ms']:10.3f} {o['p90_ms']:8.3f} {n['median_ms']:10.3f} "
            f"{n['p90_ms']:8.3f} {speedup[function]:6.2f}"
        )
    both = summary["new"]["both"]["median_ms"]
    print(f"new page + stack median {both:.3f} ms (target {TARGET_MEDIAN_MS} ms)")
    result = {
        "date": started,
        "command": results_file.command_line(__file__, argv),
        "pages": len(pages),
        "blocks_median": blocks_median,
        "old_module": str(old.__file__),
        "new_compiled": compiled,
        "load_average": {"start": load_start, "end": os.getloadavg()},
        "summary_ms": summary,
        "speedup_median": speedup,
        "target_median_ms": TARGET_MEDIAN_MS,
    }
    results_file.write_results(args.out, result)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
