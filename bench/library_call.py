"""What a plain library call costs: ``pipeline.clean_html(page)`` in a process with no thread
variables set, as in a notebook or a Spark or Ray task.

Usage: python bench/library_call.py [--pages 400] [--out FILE]

Each setting runs in a fresh interpreter that imports only `pipeline` (no entry point ran
`single_threaded_blas`), cleaning the same wcxb-dev pages with the default cleaner and with
jusText interleaved page by page, after a warm-up. Settings: the environment without
``OMP/MKL/OPENBLAS_NUM_THREADS`` (BLAS pools at the machine's default size), and with them set
to 1 (as a Dask worker has them). Per page CPU time of the process (`time.process_time`, so the
BLAS pool's spinning threads count), medians; the target is the default cleaner at most 2x
jusText with no variables set.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "wcxb-dev" / "html"
DEFAULT_OUT = REPO / "bench" / "results" / "library_call.json"
TARGET_RATIO = 2.0
VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")

CHILD = textwrap.dedent(
    """
    import gzip, json, statistics, sys, time
    from pathlib import Path
    import pipeline
    from threadpoolctl import threadpool_info

    files = sorted(Path(sys.argv[1]).glob("*.html.gz"))[: int(sys.argv[2])]
    pages = [gzip.open(f).read() for f in files]
    cleaners = ("neighbours", "justext")
    for page in pages[:20]:
        for name in cleaners:
            pipeline.clean_html(page, cleaner=name)
    times = {name: [] for name in cleaners}
    for i, page in enumerate(pages):
        order = cleaners if i % 2 == 0 else cleaners[::-1]
        for name in order:
            start = time.process_time()
            pipeline.clean_html(page, cleaner=name)
            times[name].append(time.process_time() - start)
    blas = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    medians = {name: 1000 * statistics.median(v) for name, v in times.items()}
    print(json.dumps({"median_ms": medians, "pages": len(pages), "blas_threads_after": blas}))
    """
)


def run(pages: int, single: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    if single:
        env.update(dict.fromkeys(VARIABLES, "1"))
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(DATA), str(pages)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"needs the wcxb-dev pages in {DATA}")
    load_start = os.getloadavg()
    rows = {}
    for label, single in (("no thread variables", False), ("*_NUM_THREADS=1", True)):
        rows[label] = run(args.pages, single)
    print(f"{'setting':<22} {'default ms':>10} {'jusText ms':>10} {'ratio':>6}  BLAS threads after")
    for label, row in rows.items():
        ms = row["median_ms"]
        row["ratio"] = ms["neighbours"] / ms["justext"]
        print(
            f"{label:<22} {ms['neighbours']:>10.2f} {ms['justext']:>10.2f} {row['ratio']:>6.2f}"
            f"  {row['blas_threads_after']}"
        )
    ratio = rows["no thread variables"]["ratio"]
    verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
    print(f"target: default <= {TARGET_RATIO}x jusText with no variables set: {verdict}")
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "git_commit": commit or None,
        "pages": args.pages,
        "cpus": os.cpu_count(),
        "load_average_at_start": load_start,
        "load_average_at_end": os.getloadavg(),
        "python": platform.python_version(),
        "settings": rows,
        "target_ratio": TARGET_RATIO,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
