"""What the hard time bound costs: today's in-process task against the supervised one.

    python bench/time_bound.py [--runs 3] [--out bench/results/time_bound.json]

The same inputs through `pipeline.run.process_warc` (in this process, as a task ran before
`pipeline.supervise`; pages nested deeper than ``isolate_depth`` are forked into the sandbox) and
through `pipeline.supervise.process_warc_supervised` (in a warm, reused child; no per-page
fork), alternating, ``--runs`` times each. Inputs: samples/sample.warc.gz, every WARC/ARC in
../shared/warcs/real, and one WARC built from the 1,358 WCXB dev pages
(../shared/data/wcxb-dev/html) when present. Default cleaner and `Limits`.

CPU seconds count every process that does the work: for the in-process path this process and
its finished children (the sandbox), for the supervised path this process (the parent, which
only watches) and the child (read with psutil, as the child lives on between runs). Pages are
records that could hold one (documents and rejects). Quoted: the median over the runs.
"""

from __future__ import annotations

import argparse
import gzip
import platform
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline import supervise  # noqa: E402
from pipeline.jobconfig import JobConfig  # noqa: E402
from pipeline.output.stats import WarcReport  # noqa: E402
from pipeline.run import process_warc, warm_up  # noqa: E402
from tests.warc_builders import build_warc, html_response  # noqa: E402

SHARED = REPO.parent / "shared"


def build_wcxb_warc(directory: Path) -> Path | None:
    pages = sorted((SHARED / "data" / "wcxb-dev" / "html").glob("*.html.gz"))
    if not pages:
        return None
    records = [
        html_response(
            f"https://wcxb.example/{p.name.removesuffix('.html.gz')}",
            gzip.decompress(p.read_bytes()),
            content_type="text/html",
        )
        for p in pages
    ]
    path = directory / "wcxb-dev.warc.gz"
    path.write_bytes(build_warc(records))
    return path


def inputs(directory: Path) -> list[Path]:
    found = [REPO / "samples" / "sample.warc.gz"]
    real = SHARED / "warcs" / "real"
    if real.is_dir():
        found += sorted(p for p in real.iterdir() if ".warc" in p.name or ".arc" in p.name)
    wcxb = build_wcxb_warc(directory)
    if wcxb is not None:
        found.append(wcxb)
    return found


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _supervised_child_cpu() -> float:
    total = 0.0
    for child in supervise._IDLE:
        try:
            times = psutil.Process(child.proc.pid).cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def run_once(
    name: str, task: Callable[[str, JobConfig], WarcReport], paths: list[Path], out: Path
) -> dict[str, Any]:
    cpu0, kids0, sup0 = time.process_time(), _children_cpu(), _supervised_child_cpu()
    wall0 = time.perf_counter()
    pages = docs = 0
    rejects: dict[str, int] = {}
    for i, path in enumerate(paths):
        report = task(str(path), JobConfig(output=str(out / f"{name}-{i}")))
        pages += report.stats.records - report.stats.n_skipped
        docs += report.stats.docs
        for reason, n in report.stats.rejects.items():
            rejects[reason] = rejects.get(reason, 0) + n
    wall = time.perf_counter() - wall0
    cpu = (
        (time.process_time() - cpu0) + (_children_cpu() - kids0) + (_supervised_child_cpu() - sup0)
    )
    return {
        "path": name,
        "pages": pages,
        "docs": docs,
        "rejects": dict(sorted(rejects.items())),
        "wall_seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "pages_per_cpu_second": round(pages / cpu, 2),
        "pages_per_wall_second": round(pages / wall, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "time_bound.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="warcclean-time-bound-") as tmp:
        root = Path(tmp)
        paths = inputs(root)
        cfg = JobConfig(output=str(root / "warm"))
        # Both paths warm before timing: this process as a Dask worker's warm-up does, the
        # supervised child by a first, untimed run over the first input.
        warm_up(cfg)
        supervise.process_warc_supervised(str(paths[0]), cfg)
        tasks = {"in-process": process_warc, "supervised": supervise.process_warc_supervised}
        runs: list[dict[str, Any]] = []
        for r in range(args.runs):
            # Alternate which goes first, so drift (other load, thermals) hits both alike.
            order = list(tasks) if r % 2 == 0 else list(reversed(tasks))
            for name in order:
                result = run_once(name, tasks[name], paths, root / f"run{r}")
                result["run"] = r
                runs.append(result)
                print(
                    f"run {r} {name:<11} {result['pages']} pages "
                    f"{result['cpu_seconds']:.2f} CPU s {result['wall_seconds']:.2f} wall s",
                    file=sys.stderr,
                )
        supervise.shutdown()
    summary = {}
    for name in tasks:
        mine = [r for r in runs if r["path"] == name]
        summary[name] = {
            "pages": mine[0]["pages"],
            "docs": mine[0]["docs"],
            "rejects": mine[0]["rejects"],
            "median_cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in mine), 3),
            "median_wall_seconds": round(statistics.median(r["wall_seconds"] for r in mine), 3),
            "median_pages_per_cpu_second": round(
                statistics.median(r["pages_per_cpu_second"] for r in mine), 2
            ),
            "median_pages_per_wall_second": round(
                statistics.median(r["pages_per_wall_second"] for r in mine), 2
            ),
        }
    base, sup = summary["in-process"], summary["supervised"]
    ratio = sup["median_pages_per_cpu_second"] / base["median_pages_per_cpu_second"]
    print(
        f"{'path':<12} {'pages':>6} {'CPU s':>8} {'wall s':>8} {'pages/CPU s':>12} {'pages/s':>9}"
    )
    for name, s in summary.items():
        print(
            f"{name:<12} {s['pages']:>6} {s['median_cpu_seconds']:>8.2f} "
            f"{s['median_wall_seconds']:>8.2f} {s['median_pages_per_cpu_second']:>12.1f} "
            f"{s['median_pages_per_wall_second']:>9.1f}"
        )
    print(f"supervised / in-process, pages per CPU second: {ratio:.3f}")
    result = {
        "date": results_file.utc_now(),
        "machine": {"python": platform.python_version(), "cpus": psutil.cpu_count()},
        "inputs": [p.name for p in paths],
        "runs_per_path": args.runs,
        "summary": summary,
        "supervised_over_in_process_pages_per_cpu_second": round(ratio, 3),
        "runs": runs,
    }
    results_file.write_results(args.out, result, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
