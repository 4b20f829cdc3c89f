"""What writing the HTML run report adds to a job's wall time (target: under 2% on 4,000 pages).

    python bench/report.py [--pages 4000] [--shards 8] [--workers 2] [--cleaner neighbours]
                           [--pairs 2]

Packs WCXB dev pages into Common-Crawl-shaped WARCs as bench/pipeline.py does (its helpers;
pages repeated with distinct URLs up to ``--pages``), then runs the job ``--pairs`` times with the
HTML report and as many times without (``--no-html-report``), alternating, each run in a fresh
process doing what ``jobs/clean_warcs.py`` does: start matplotlib's warm-up thread (with the
report), start the LocalCluster, run, write the JSON report, then, timed on its own, join the
warm-up and write the HTML report. Two measures of the overhead:

1. in the job: the HTML step's seconds over the job's seconds before it (the target's measure;
   on a machine shared with other work the least noisy one);
2. end to end: the mean wall time of the runs with the report over those without (includes the
   warm-up thread's CPU, which competes with the workers; noisy at the 2% level on 2 cores).

Also times ``warcclean report OUT`` as a fresh command (imports included) and, warm, the
report's parts: counting the output (`collect`) and rendering (`render_report`). Prints a table
and writes bench/results/report.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

RESULTS = REPO / "bench" / "results" / "report.json"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def build_inputs(directory: Path, pages: int, shards: int) -> list[str]:
    packer = _load("bench_pipeline", REPO / "bench" / "pipeline.py")
    base = packer.load_pages(1358)
    repeated = [
        (url if k == 0 else f"{url}?copy={k}", body)
        for k in range(pages // len(base) + 1)
        for url, body in base
    ][:pages]
    paths = []
    for s in range(shards):
        path = directory / f"shard-{s:02d}.warc.gz"
        packer.write_warc(path, repeated[s::shards])
        paths.append(str(path))
    return paths


def one_run(out: Path, inputs: list[str], workers: int, cleaner: str, html: bool) -> dict:
    """One job run, as the job's command does it (called in a fresh process)."""
    from pipeline.job import reports, schedule
    from pipeline.jobconfig import JobConfig

    cfg = JobConfig(output=str(out), cleaner=cleaner)
    started_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    t0 = time.perf_counter()
    warming = reports.warm_up_report() if html else None
    with schedule.make_client(None, workers, 1, "auto") as client:
        result = schedule.run_job(client, inputs, cfg)
    report = reports.run_report(result, cfg, started_at)
    json_path = reports.write_run_report(report, cfg, None)
    t1 = time.perf_counter()
    run = {"html": html, "job_seconds": round(t1 - t0, 3), "records": result.totals.records}
    if html:
        if warming is not None:
            warming.join()
        joined = time.perf_counter()
        path = reports.write_html_report(report, cfg, json_path)
        t2 = time.perf_counter()
        run.update(
            report_seconds=round(t2 - t1, 3),
            waited_for_warm_up_seconds=round(joined - t1, 3),
            overhead=round((t2 - t1) / (t1 - t0), 5),
            charts=Path(path).read_text().count("<svg"),
        )
    run["total_seconds"] = round(time.perf_counter() - t0, 3)
    return run


def child(out: Path, inputs: list[str], workers: int, cleaner: str, html: bool) -> dict:
    proc = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            str(out),
            "--workers",
            str(workers),
            "--cleaner",
            cleaner,
            *(["--html"] if html else []),
            *inputs,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        sys.exit(f"a job run failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=4000)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cleaner", default="neighbours")
    ap.add_argument("--pairs", type=int, default=2, help="runs with and without the report")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--html", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("inputs", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(one_run(args.child, args.inputs, args.workers, args.cleaner, args.html)))
        return
    wcxb = REPO.parent / "shared" / "data" / "wcxb-dev"
    if not wcxb.exists():
        sys.exit(f"{wcxb} is absent: the benchmark needs ../shared/data/wcxb-dev")
    load_start = os.getloadavg()
    runs = []
    with tempfile.TemporaryDirectory(prefix="warcclean-bench-report-") as tmp:
        tmp_path = Path(tmp)
        inputs = build_inputs(tmp_path, args.pages, args.shards)
        for k in range(2 * args.pairs):
            html = k % 2 == 0
            run = child(tmp_path / f"out-{k}", inputs, args.workers, args.cleaner, html)
            print(f"run {k + 1}: {run}", flush=True)
            runs.append(run)
        out = tmp_path / "out-0"
        t0 = time.perf_counter()
        subprocess.run(
            [
                str(Path(sys.executable).with_name("warcclean")),
                "report",
                str(out),
                "-o",
                str(tmp_path / "cli.html"),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        cli_seconds = time.perf_counter() - t0
        from pipeline.report.collect import collect
        from pipeline.report.run_report import render_report

        render_report(collect(str(out)))  # imports and font cache, as a job's warm-up does
        t0 = time.perf_counter()
        summary = collect(str(out))
        t1 = time.perf_counter()
        render_report(summary)
        t2 = time.perf_counter()
        warm = {"collect_seconds": round(t1 - t0, 3), "render_seconds": round(t2 - t1, 3)}
    with_html = [r for r in runs if r["html"]]
    without = [r for r in runs if not r["html"]]
    mean_with = statistics.mean(r["total_seconds"] for r in with_html)
    mean_without = statistics.mean(r["total_seconds"] for r in without)
    worst = max(r["overhead"] for r in with_html)
    result = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average_at_start": load_start,
            "load_average_at_end": os.getloadavg(),
        },
        "pages": args.pages,
        "shards": args.shards,
        "workers": args.workers,
        "cleaner": args.cleaner,
        "runs": runs,
        "in_job_overhead_worst": worst,
        "end_to_end_mean_seconds_with": round(mean_with, 3),
        "end_to_end_mean_seconds_without": round(mean_without, 3),
        "end_to_end_overhead": round(mean_with / mean_without - 1, 4),
        "cli_report_seconds_cold": round(cli_seconds, 3),
        "warm": warm,
        "target_overhead_max": 0.02,
    }
    results_file.write_results(RESULTS, result, indent=2)
    print()
    print(f"{'measure':<52} {'value':>9}  target")
    for k, run in enumerate(with_html, 1):
        name = f"job with report {k}"
        print(f"{name + ': seconds before the HTML step':<52} {run['job_seconds']:>9.2f}")
        print(f"{name + ': HTML step seconds':<52} {run['report_seconds']:>9.2f}")
        print(f"{name + ': HTML step / job':<52} {100 * run['overhead']:>8.2f}%  < 2%")
    print(f"{'end to end: mean wall s with report':<52} {mean_with:>9.2f}")
    print(f"{'end to end: mean wall s without (--no-html-report)':<52} {mean_without:>9.2f}")
    print(f"{'end to end: difference':<52} {100 * (mean_with / mean_without - 1):>8.2f}%")
    print(f"{'warcclean report OUT, fresh process':<52} {cli_seconds:>9.2f}")
    print(f"{'warm: counting the output (collect)':<52} {warm['collect_seconds']:>9.3f}")
    print(f"{'warm: rendering (charts + tables)':<52} {warm['render_seconds']:>9.3f}")
    print(f"charts per report: {with_html[0]['charts']}; wrote {RESULTS.relative_to(REPO)}")


if __name__ == "__main__":
    main()
