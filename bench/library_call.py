"""What a plain library call costs: ``pipeline.clean_html(page)`` in a process with no thread
variables set, as in a notebook or a Spark or Ray task.

Usage: python bench/library_call.py [--pages 400] [--out FILE]
       python bench/library_call.py --against OTHER_PYTHON [--pages 1358] [--rounds 3] [--out FILE]

Each setting runs in a fresh interpreter that imports only `pipeline` (no entry point ran
`single_threaded_blas`), cleaning the same wcxb-dev pages with the default cleaner and with
jusText interleaved page by page, after a warm-up. Settings: the environment without
``OMP/MKL/OPENBLAS_NUM_THREADS`` (BLAS pools at the machine's default size), and with them set
to 1 (as a Dask worker has them). Per page CPU time of the process (`time.process_time`, so the
BLAS pool's spinning threads count), medians; the target is the default cleaner at most 2x
jusText with no variables set.

``--against OTHER_PYTHON``: this install's default cleaner against another install's (an earlier
commit: ``git worktree add /tmp/base <commit>``, a venv with ``pip install -e /tmp/base``), side
by side. Two interpreters, one per install, each with the pages loaded and warmed up, are handed
the same page in turn, the order alternating page by page and round by round, and each times its
own ``clean_html(page)`` (its defaults, with the thread variables set to 1) by its process's CPU
time: a shared machine's load swings in seconds, and pages interleaved one by one see the same
swings, where runs minutes apart do not. Reports the median CPU ms per page of each and their
ratio, the ratio of the total CPU over all pages and rounds, and the median per-page ratio.
Results: ``bench/results/library_call_against.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

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


# One install's side of --against: reads page numbers on stdin, answers with the CPU ms of
# cleaning that page.
SERVER = textwrap.dedent(
    """
    import gzip, sys, time
    from pathlib import Path
    import pipeline

    files = sorted(Path(sys.argv[1]).glob("*.html.gz"))[: int(sys.argv[2])]
    pages = [gzip.open(f).read() for f in files]
    for page in pages[:20]:
        pipeline.clean_html(page)
    print("ready", flush=True)
    for line in sys.stdin:
        page = pages[int(line)]
        start = time.process_time()
        pipeline.clean_html(page)
        print(1000 * (time.process_time() - start), flush=True)
    """
)


def against(other: str, pages: int, rounds: int) -> dict:
    """Median CPU ms per page of this install's and ``other``'s default cleaner, interleaved."""
    env = {**os.environ, **dict.fromkeys(VARIABLES, "1")}
    env.pop("PYTHONPATH", None)
    servers = {}
    for name, python in (("new", sys.executable), ("base", other)):
        servers[name] = subprocess.Popen(
            [python, "-c", SERVER, str(DATA), str(pages)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd="/",  # neither checkout's directory on the path: each imports its own install
        )
    for server in servers.values():
        assert server.stdout.readline().strip() == "ready"
    times: dict[str, list[float]] = {"new": [], "base": []}
    for r in range(rounds):
        for i in range(pages):
            order = ("new", "base") if (i + r) % 2 == 0 else ("base", "new")
            for name in order:
                servers[name].stdin.write(f"{i}\n")
                servers[name].stdin.flush()
                times[name].append(float(servers[name].stdout.readline()))
        print(
            f"round {r + 1}/{rounds}: new {sum(times['new']) / len(times['new']):.2f}, "
            f"base {sum(times['base']) / len(times['base']):.2f} ms per page so far",
            file=sys.stderr,
        )
    for server in servers.values():
        server.stdin.close()
        server.wait(timeout=60)
    med = {name: statistics.median(v) for name, v in times.items()}
    ratios = [a / b for a, b in zip(times["new"], times["base"], strict=True) if b > 0]
    return {
        "median_ms": med,
        "ratio_of_medians": med["new"] / med["base"],
        "ratio_of_totals": sum(times["new"]) / sum(times["base"]),
        "median_page_ratio": statistics.median(ratios),
        "samples_per_install": len(times["new"]),
    }


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
    parser.add_argument("--pages", type=int, default=None, help="400; 1358 with --against")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--against", metavar="PYTHON", help="another install's interpreter")
    parser.add_argument("--rounds", type=int, default=3, help="--against: passes over the pages")
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"needs the wcxb-dev pages in {DATA}")
    load_start = os.getloadavg()
    commit = results_file.git_commit(short=False)
    if args.against:
        pages = args.pages or 1358
        row = against(args.against, pages, args.rounds)
        med = row["median_ms"]
        print(
            f"median CPU ms per page: new {med['new']:.3f}, base {med['base']:.3f}, ratio "
            f"{row['ratio_of_medians']:.3f}; ratio of totals {row['ratio_of_totals']:.3f}, "
            f"median per-page ratio {row['median_page_ratio']:.3f}"
        )
        out = args.out or DEFAULT_OUT.with_name("library_call_against.json")
        result = {
            "date": results_file.utc_now(),
            "command": results_file.command_line(__file__),
            "git_commit": commit,
            "base_python": args.against,
            "pages": pages,
            "rounds": args.rounds,
            "cpus": os.cpu_count(),
            "load_average_at_start": load_start,
            "load_average_at_end": os.getloadavg(),
            "python": platform.python_version(),
            **row,
        }
        results_file.write_results(out, result, indent=2)
        print(f"wrote {out}")
        return
    args.pages = args.pages or 400
    args.out = args.out or DEFAULT_OUT
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
    result = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "git_commit": commit,
        "pages": args.pages,
        "cpus": os.cpu_count(),
        "load_average_at_start": load_start,
        "load_average_at_end": os.getloadavg(),
        "python": platform.python_version(),
        "settings": rows,
        "target_ratio": TARGET_RATIO,
    }
    results_file.write_results(args.out, result, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
