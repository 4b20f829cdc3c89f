"""What each cleaner of the README's "choosing a cleaner" table costs a page, side by side.

Usage: python bench/choice_speed.py [--data DIR] [--limit N] [--out FILE]

Every cleaner the README offers (`bench/doc_figures.py`'s ``CHOICES``) cleans every page of
``--data`` (wcxb-dev by default) in one run, interleaved page by page with the order rotating per
page, so that a shared machine's slow minutes hit all of them alike; `warcclean eval`'s ms
columns, one cleaner after another, move by a factor of two between runs. Each call is
`pipeline.clean_html` from the page's raw bytes with its URL, language detection included, as a
job runs it; times are this process's CPU time (`time.process_time_ns`). Each cleaner cleans the
first page once before timing (model loading). Prints and writes the median and p99 ms per page
and each median's ratio to jusText's: ``bench/results/choice_speed.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline.clean import clean_html  # noqa: E402
from pipeline.evaluate.datasets import load_dataset  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data" / "wcxb-dev"
DEFAULT_OUT = REPO / "bench" / "results" / "choice_speed.json"


def _choices() -> list[str]:
    """The cleaners the README's table offers, from bench/doc_figures.py (loaded by path: the
    bench folder on ``sys.path`` would shadow the package with bench/pipeline.py)."""
    spec = importlib.util.spec_from_file_location("doc_figures", REPO / "bench" / "doc_figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [name for name, _ in module.CHOICES]


def measure(data: Path, limit: int | None) -> dict:
    pages = [(p.read_html(), p.url) for p in load_dataset(data)][:limit]
    names = _choices()
    for name in names:  # load each cleaner's model and data before timing
        clean_html(pages[0][0], cleaner=name, url=pages[0][1])
    times: dict[str, list[float]] = {name: [] for name in names}
    for i, (html, url) in enumerate(pages):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            start = time.process_time_ns()
            clean_html(html, cleaner=name, url=url)
            times[name].append((time.process_time_ns() - start) / 1e6)
    base = statistics.median(times["justext"])
    summary = {}
    for name in names:
        ms = sorted(times[name])
        median = statistics.median(ms)
        summary[name] = {
            "median_ms": round(median, 3),
            "p99_ms": round(ms[int(0.99 * (len(ms) - 1))], 3),
            "x_justext": round(median / base, 3),
        }
    return {"pages": len(pages), "summary": summary}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        ap.error(f"{args.data} is not a dev set (needs ../shared/data beside the repository)")
    result = measure(args.data, args.limit)
    result = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__, argv),
        "commit": results_file.git_commit(),
        "load_average": list(os.getloadavg()),
        "data": str(args.data),
        **result,
    }
    print(f"{'cleaner':18} {'median ms':>10} {'p99 ms':>8} {'x jusText':>10}")
    for name, row in result["summary"].items():
        print(f"{name:18} {row['median_ms']:10.2f} {row['p99_ms']:8.1f} {row['x_justext']:10.2f}")
    results_file.write_results(args.out, result)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
