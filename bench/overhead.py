"""The job's start-up and per-task overhead: this checkout against the code before, alternating.

    python bench/overhead.py --old DIR [--new DIR] [--pairs 3] [--pages 1358] [--copies 3]
                             [--shards 8] [--idle-seconds 10] [--workers 1]

``--old DIR`` holds the code before the change, as ``DIR/pipeline`` and ``DIR/jobs`` (for
example a copy of both taken before editing); it runs with ``PYTHONPATH=DIR`` and
``DIR/jobs/clean_warcs.py``. ``--new DIR`` the same for the code after (by default this
checkout; a copy of the old one with only the changed files replaced keeps what others edit
meanwhile out of the comparison). Both use this checkout's environment.

Packs WCXB dev pages into Common-Crawl-shaped WARCs with bench/pipeline.py's helpers (every page
``--copies`` times under distinct URLs, in ``--shards`` WARCs) and one WARC of a single page,
then, ``--pairs`` times, the order swapped every pair:

1. the job on all the WARCs (``dask submit jobs/clean_warcs.py ... --workers N``), before and
   after: the CPU seconds of the whole process tree (RUSAGE_CHILDREN), wall seconds, and pages
   per CPU-second; and how the tree's CPU splits between the client (with the scheduler and the
   nannies of a local cluster), the worker processes and the supervised cleaning children
   (polled with psutil every 50 ms, so a process's last moments are missed: approximate);
2. the same on the one-page WARC: what a job costs whatever its size (start-up, warm-up, the
   run report);
3. an idle local cluster as the job script makes it (``make_client``), for ``--idle-seconds``:
   Dask's own CPU per second of wall time (event loop ticks, monitors), paid for every second
   a job runs.

Checks that before and after wrote the same documents and rejections (exit 1 if not). Prints the
medians and writes bench/results/overhead.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

RESULTS = REPO / "bench" / "results" / "overhead.json"
DASK = Path(sys.executable).with_name("dask")

IDLE_PROBE = """
import resource, sys, time
import psutil
sys.path.insert(0, sys.argv[1])
import runpy
job = runpy.run_path(sys.argv[2], run_name="overhead_probe")
def cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = sum(sum(p.cpu_times()[:2]) for p in psutil.Process().children(recursive=True))
    return own.ru_utime + own.ru_stime + kids
if __name__ == "__main__":
    with job["make_client"](None, int(sys.argv[4]), 1, "auto") as client:
        client.wait_for_workers(int(sys.argv[4]))
        time.sleep(2)
        before, t = cpu(), time.perf_counter()
        time.sleep(float(sys.argv[3]))
        print((cpu() - before) / (time.perf_counter() - t))
"""


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def build_inputs(directory: Path, pages: int, copies: int, shards: int) -> tuple[list[str], str]:
    packer = _load("bench_pipeline", REPO / "bench" / "pipeline.py")
    base = packer.load_pages(pages)
    paths = []
    for s in range(shards):
        path = directory / f"shard-{s:02d}.warc.gz"
        packer.write_warc(path, base[s::shards], copies=copies)
        paths.append(str(path))
    one = directory / "one-page.warc.gz"
    packer.write_warc(one, base[:1])
    return paths, str(one)


def _env(code: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(code), env.get("PYTHONPATH"))))
    return env


def _cwd(code: Path | None) -> Path:
    # The supervised child runs as `python -m pipeline.supervise`, and -m puts the working
    # directory first on sys.path, ahead of PYTHONPATH: run from the tree being measured, or
    # the children of --old would import this checkout's pipeline.
    return code or REPO


def _script(code: Path | None) -> Path:
    return (code or REPO) / "jobs" / "clean_warcs.py"


# Which process of a job's tree a command line is (`_watch_tree`).
def _role(cmdline: list[str]) -> str:
    line = " ".join(cmdline)
    if "pipeline.supervise" in line:
        return "child"
    if "spawn_main" in line:
        return "worker"
    if " submit " in line:
        return "client"
    return "other"


def _watch_tree(proc: subprocess.Popen[str], every: float = 0.1) -> dict[str, float]:
    """CPU seconds of each kind of process under ``proc`` (client, worker, child, other), by
    polling until it exits: a process's last ``every`` seconds before it exits are missed, so
    the split is approximate; RUSAGE_CHILDREN gives the exact total. A process is named by its
    latest command line (a new one shows its parent's until it has exec'd)."""
    import psutil

    root = psutil.Process(proc.pid)
    last: dict[int, tuple[str, float]] = {}
    while proc.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            break
        for p in tree:
            try:
                cmdline, times = p.cmdline(), p.cpu_times()
                # An exited process (a zombie until reaped) shows no command line: keep its role.
                role = _role(cmdline) if cmdline else last.get(p.pid, ("other", 0.0))[0]
            except psutil.Error:
                continue
            last[p.pid] = (role, times.user + times.system)
        time.sleep(every)
    split: dict[str, float] = {}
    for role, cpu in last.values():
        split[role] = split.get(role, 0.0) + cpu
    return split


def run_job(code: Path | None, inputs: list[str], out: Path, workers: int) -> dict[str, Any]:
    """One job in a fresh process; its tree's CPU seconds (and their split by process), wall
    seconds and page count."""
    cmd = [str(DASK), "submit", str(_script(code)), *inputs, "--output", str(out)]
    cmd += ["--workers", str(workers), "--no-progress"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(code),
        cwd=_cwd(code),
    ) as proc:
        # Drained by a thread: a full pipe would stop the job while the tree is watched.
        streams: dict[str, str] = {}
        reader = threading.Thread(
            target=lambda: streams.update(zip(("out", "err"), proc.communicate(), strict=True))
        )
        reader.start()
        split = _watch_tree(proc)
        reader.join()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        sys.exit(f"job failed ({proc.returncode}): {streams.get('err', '')[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    (report_path,) = sorted((out / "_runs").glob("*.json"))
    report = json.loads(report_path.read_text())
    totals = report["totals"]
    errors = {k: n for k, n in totals["rejects"].items() if k.startswith("error:")}
    if report["failed"] or errors:
        sys.exit(f"the job failed inputs or pages ({code or REPO}): {report['failed']} {errors}")
    pages = totals["records"] - sum(totals["skipped"].values())
    return {
        "cpu_s": cpu,
        "wall_s": wall,
        "pages": pages,
        "pages_per_cpu_s": pages / cpu,
        "cpu_s_by_process": {k: round(v, 3) for k, v in sorted(split.items())},
    }


def idle_cpu_per_second(code: Path | None, seconds: float, workers: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text(IDLE_PROBE)
        args = [str(code or REPO), str(_script(code)), str(seconds), str(workers)]
        proc = subprocess.run(
            [sys.executable, str(probe), *args],
            capture_output=True,
            text=True,
            env=_env(code),
            cwd=_cwd(code),
            check=False,
        )
    if proc.returncode:
        sys.exit(f"idle probe failed: {proc.stderr[-3000:]}")
    return float(proc.stdout.split()[-1])


def _rows(out: Path) -> dict[str, list[dict[str, Any]]]:
    import pyarrow.parquet as pq

    tables: dict[str, list[dict[str, Any]]] = {}
    for kind in ("docs", "rejects"):
        rows = []
        for f in sorted((out / kind).rglob("*.parquet")):
            rows += pq.read_table(f).to_pylist()
        tables[kind] = sorted(rows, key=lambda r: (r["warc_path"], r["warc_offset"]))
    return tables


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", type=Path, required=True, help="DIR with pipeline/ and jobs/ before")
    ap.add_argument("--new", type=Path, default=None, help="DIR after (default: this checkout)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--pages", type=int, default=1358)
    ap.add_argument("--copies", type=int, default=3)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--idle-seconds", type=float, default=10.0)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    variants: dict[str, Path | None] = {
        "before": args.old.resolve(),
        "after": args.new.resolve() if args.new else None,
    }
    load_start = os.getloadavg()
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        v: {"job": [], "one_page": [], "idle": []} for v in variants
    }
    with tempfile.TemporaryDirectory(prefix="warcclean-overhead-") as tmp:
        work = Path(tmp)
        inputs, one = build_inputs(work, args.pages, args.copies, args.shards)
        same = True
        for pair in range(args.pairs):
            order = list(variants) if pair % 2 == 0 else list(reversed(variants))
            outs = {}
            for name in order:
                code = variants[name]
                out = work / f"out-{name}-{pair}"
                runs[name]["job"].append(run_job(code, inputs, out, args.workers))
                outs[name] = out
                one_out = work / f"one-{name}-{pair}"
                runs[name]["one_page"].append(run_job(code, [one], one_out, args.workers))
                rate = idle_cpu_per_second(code, args.idle_seconds, args.workers)
                runs[name]["idle"].append({"cpu_s_per_s": rate})
                print(
                    f"pair {pair} {name}: job {runs[name]['job'][-1]['cpu_s']:.2f} CPU s, "
                    f"one page {runs[name]['one_page'][-1]['cpu_s']:.2f} CPU s, "
                    f"idle {rate * 1000:.1f} ms/s",
                    flush=True,
                )
            if pair == 0:
                same = _rows(outs["before"]) == _rows(outs["after"])
    summary: dict[str, dict[str, float]] = {}
    for name in variants:
        job, one_page, idle = runs[name]["job"], runs[name]["one_page"], runs[name]["idle"]
        pages = job[0]["pages"]
        summary[name] = {
            "pages": pages,
            "job_cpu_s": statistics.median(r["cpu_s"] for r in job),
            "job_wall_s": statistics.median(r["wall_s"] for r in job),
            "pages_per_cpu_s": statistics.median(r["pages_per_cpu_s"] for r in job),
            "cpu_ms_per_page": statistics.median(r["cpu_s"] for r in job) / pages * 1000,
            "one_page_cpu_s": statistics.median(r["cpu_s"] for r in one_page),
            "idle_cpu_ms_per_s": statistics.median(r["cpu_s_per_s"] for r in idle) * 1000,
        }
        for kind, runs_of in (("job", job), ("one_page", one_page)):
            for role in ("client", "worker", "child"):
                summary[name][f"{kind}_{role}_cpu_s"] = statistics.median(
                    r["cpu_s_by_process"].get(role, 0.0) for r in runs_of
                )
    before, after = summary["before"], summary["after"]
    print()
    print(f"{'':28s}{'before':>10s}{'after':>10s}{'after/before':>14s}")
    for key, label in (
        ("pages_per_cpu_s", "pages per CPU-second"),
        ("cpu_ms_per_page", "CPU ms per page"),
        ("job_cpu_s", "job CPU s"),
        ("job_wall_s", "job wall s"),
        ("job_client_cpu_s", "  client (and scheduler)"),
        ("job_worker_cpu_s", "  worker"),
        ("job_child_cpu_s", "  cleaning child"),
        ("one_page_cpu_s", "one-page job CPU s"),
        ("one_page_client_cpu_s", "  client (and scheduler)"),
        ("one_page_worker_cpu_s", "  worker"),
        ("one_page_child_cpu_s", "  cleaning child"),
        ("idle_cpu_ms_per_s", "idle cluster CPU ms/s"),
    ):
        ratio = after[key] / before[key] if before[key] else float("nan")
        print(f"{label:28s}{before[key]:10.2f}{after[key]:10.2f}{ratio:14.3f}")
    print(f"outputs identical: {same}")
    result = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_avg_start": load_start,
            "load_avg_end": os.getloadavg(),
        },
        "args": {k: str(v) for k, v in vars(args).items()},
        "summary": summary,
        "outputs_identical": same,
        "runs": runs,
    }
    results_file.write_results(args.out, result, indent=2)
    if not same:
        sys.exit("before and after wrote different documents or rejections")


if __name__ == "__main__":
    main()
