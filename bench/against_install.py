"""This checkout against another install of warcclean (an earlier commit), side by side, in one run.

    python bench/against_install.py --base-python /tmp/basevenv/bin/python [--pages 1358]
                                    [--rounds 3] [--label issue34]

A change's cost is only visible against the code before it, measured in the same run on the same
machine: these machines are shared and noisy, so single timings are not comparable across runs.
The base is any other install (e.g. ``git worktree add /tmp/base <commit>`` and
``python -m venv /tmp/basevenv && /tmp/basevenv/bin/pip install -e /tmp/base``). Both are
measured alternately, ``--rounds`` times, on the same WCXB dev pages (../shared/data/wcxb-dev,
CC-BY-4.0):

1. **Library call**: CPU seconds per page of ``clean_html`` with the default cleaner and the
   defaults of each version (for this checkout: Markdown on), in a fresh process per round, after
   one warm-up pass (`time.process_time` over the pages, no thread variables set).
2. **The job**: ``dask submit jobs/clean_warcs.py WARC --workers 1`` of each install on one WARC
   of the pages in the Common Crawl layout (as bench/pipeline.py writes it), its whole process
   tree's CPU (client, scheduler, nanny, worker, supervised child): pages per CPU-second. Both
   installs must have the same optional extras (the script checks matplotlib, which the run
   report's charts use).

Prints medians and the new/base ratios and writes bench/results/against_<label>.json.
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
import time
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package


def _bench_pipeline() -> ModuleType:
    """bench/pipeline.py, whose WARC writer this reuses, under a name that does not shadow the
    `pipeline` package."""
    spec = importlib.util.spec_from_file_location("bench_pipeline", REPO / "bench" / "pipeline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LIBRARY_CALL = """
import gzip, json, sys, time
from pathlib import Path
from pipeline.clean import clean_html
files = sorted(Path(sys.argv[1]).glob("*.html.gz"))[: int(sys.argv[2])]
pages = [gzip.decompress(f.read_bytes()) for f in files]
for page in pages:  # warm-up: models, profiles, caches
    clean_html(page)
start = time.process_time()
for page in pages:
    clean_html(page)
print(json.dumps({"pages": len(pages), "cpu_s": time.process_time() - start}))
"""


def _tree_cpu(cmd: list[str], cwd: Path) -> tuple[float, str]:
    """Run ``cmd``; its whole process tree's CPU seconds, and its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        sys.exit(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def _checkout(python: str) -> Path:
    """The source tree an interpreter's warcclean was installed from (its jobs/ is run)."""
    out = subprocess.run(
        [python, "-c", "import pipeline; print(pipeline.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),  # not this checkout, whose `pipeline` would shadow the other
    ).stdout.strip()
    return Path(out).resolve().parents[1]


def _has_matplotlib(python: str) -> bool:
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('matplotlib') is None)"
    return subprocess.run([python, "-c", probe], cwd=tempfile.gettempdir()).returncode == 0


def library_call(python: str, pages: int) -> float:
    wcxb = REPO.parent / "shared" / "data" / "wcxb-dev" / "html"
    proc = subprocess.run(
        [python, "-c", LIBRARY_CALL, str(wcxb), str(pages)],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
        env={k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")},
    )
    if proc.returncode:
        sys.exit(f"library call with {python} failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return result["cpu_s"] / result["pages"] * 1000  # ms per page


def job(python: str, warc: Path, out: Path, pages: int) -> float:
    dask = str(Path(python).with_name("dask"))
    cmd = [dask, "submit", "jobs/clean_warcs.py", str(warc), "--output", str(out)]
    cpu, _ = _tree_cpu([*cmd, "--workers", "1", "--no-progress"], _checkout(python))
    return pages / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-python", required=True, help="interpreter of the other install")
    parser.add_argument("--new-python", default=sys.executable)
    parser.add_argument("--pages", type=int, default=1358)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--label", default="base")
    args = parser.parse_args()

    versions = {"base": args.base_python, "new": args.new_python}
    # The job's run report draws charts when matplotlib is installed, about a second of CPU per
    # run: an install without it looks cheaper by that much.
    extras = {name: _has_matplotlib(python) for name, python in versions.items()}
    if len(set(extras.values())) > 1:
        sys.exit(f"the installs differ in matplotlib (the report's charts): {extras}")
    lib: dict[str, list[float]] = {k: [] for k in versions}
    throughput: dict[str, list[float]] = {k: [] for k in versions}
    with tempfile.TemporaryDirectory() as tmp:
        warc = Path(tmp) / "wcxb.warc.gz"
        helpers = _bench_pipeline()
        helpers.write_warc(warc, helpers.load_pages(args.pages))
        for r in range(args.rounds):
            # Alternate which goes first, so that a slow spell of the machine hits both.
            order = list(versions) if r % 2 == 0 else list(reversed(versions))
            for name in order:
                lib[name].append(library_call(versions[name], args.pages))
                out = Path(tmp) / f"out-{name}-{r}"
                throughput[name].append(job(versions[name], warc, out, args.pages))
                print(
                    f"round {r + 1} {name}: library {lib[name][-1]:.2f} ms/page, "
                    f"job {throughput[name][-1]:.1f} pages/CPU-s",
                    flush=True,
                )

    med = {
        "library_ms_per_page": {k: statistics.median(v) for k, v in lib.items()},
        "job_pages_per_cpu_s": {k: statistics.median(v) for k, v in throughput.items()},
    }
    ratio_lib = med["library_ms_per_page"]["new"] / med["library_ms_per_page"]["base"]
    ratio_job = med["job_pages_per_cpu_s"]["new"] / med["job_pages_per_cpu_s"]["base"]
    print()
    print(f"{'':34} {'base':>10} {'new':>10} {'new/base':>9}")
    lm, jm = med["library_ms_per_page"], med["job_pages_per_cpu_s"]
    for name, row, ratio, fmt in (
        ("library call, CPU ms per page", lm, ratio_lib, ".2f"),
        ("job, pages per CPU-second", jm, ratio_job, ".1f"),
    ):
        print(f"{name:34} {row['base']:10{fmt}} {row['new']:10{fmt}} {ratio:9.3f}")
    result = {
        "command": results_file.command_line(__file__),
        "date": results_file.utc_now(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "base": {"python": args.base_python, "checkout": str(_checkout(args.base_python))},
        "pages": args.pages,
        "rounds": args.rounds,
        "library_ms_per_page": lib,
        "job_pages_per_cpu_s": throughput,
        "medians": med,
        "ratio_library_new_over_base": ratio_lib,
        "ratio_job_new_over_base": ratio_job,
        "time": time.strftime("%Y-%m-%d %H:%M"),
    }
    path = REPO / "bench" / "results" / f"against_{args.label}.json"
    results_file.write_results(path, result, indent=2)
    print(f"wrote {path.relative_to(REPO)}")


if __name__ == "__main__":
    main()
