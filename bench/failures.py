"""What a run over unreadable inputs prints: lines on stderr, Dask's failure blocks, exit code.

    python bench/failures.py [--old DIR] [--workers 1]

Writes four inputs no attempt can read (an empty ``.warc.gz``, an HTML page saved as ``.warc``,
3,000 bytes of noise as ``.warc``, a text file as ``.arc``) and runs the job on them as a user
does, with default options (``python jobs/clean_warcs.py IN... -o OUT --workers N``: a local
cluster of worker processes, the default 2 retries, the progress bar, the HTML report), from
this checkout and, with ``--old DIR``, from the code in ``DIR`` (``DIR/pipeline`` and
``DIR/jobs``, run with ``PYTHONPATH=DIR``, e.g. ``git archive 765cfcf | tar -x -C DIR``).
Counts stderr's lines, Dask's ``Compute Failed`` blocks and the lines naming each input.
Target (issue 50): at most 8 lines on stderr and exit 1. Writes bench/results/failures.json.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

RESULTS = REPO / "bench" / "results" / "failures.json"
MAX_LINES = 8


def unreadable_inputs(directory: Path) -> list[Path]:
    files = {
        "empty.warc.gz": b"",
        "page.warc": b"<!DOCTYPE html>\n<html><body><p>Not a WARC.</p></body></html>\n",
        "noise.warc": bytes((i * 7919 + 13) % 256 for i in range(3000)),
        "notes.arc": b"<html><head><title>x</title></head><body>\n" * 3,
    }
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (directory / name).write_bytes(data)
    return [directory / name for name in files]


def run(code: Path, inputs: list[Path], out: Path, workers: int) -> dict[str, Any]:
    env = dict(os.environ)
    if code != REPO:
        env["PYTHONPATH"] = str(code)
    argv = [
        sys.executable,
        str(code / "jobs" / "clean_warcs.py"),
        *map(str, inputs),
        "-o",
        str(out),
        "--workers",
        str(workers),
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, check=False)
    lines = proc.stderr.splitlines()
    return {
        "code": str(code),
        "exit_code": proc.returncode,
        "stderr_lines": len(lines),
        "compute_failed_blocks": proc.stderr.count("Compute Failed"),
        "tracebacks": proc.stderr.count("Traceback"),
        "lines_per_input": {p.name: sum(str(p) in line for line in lines) for p in inputs},
        "stderr_head": lines[:12],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, help="the code before, as DIR/pipeline, DIR/jobs")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    results: dict[str, Any] = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__, argv),
        "machine": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "load_average_at_start": os.getloadavg(),
            "git_commit": results_file.git_commit(short=False),
        },
        "target": f"at most {MAX_LINES} lines on stderr, exit 1",
        "runs": {},
    }
    with tempfile.TemporaryDirectory(prefix="warcclean-failures-") as tmp:
        inputs = unreadable_inputs(Path(tmp) / "in")
        codes = {"after": REPO, **({"before": args.old.resolve()} if args.old else {})}
        for name, code in codes.items():
            results["runs"][name] = run(code, inputs, Path(tmp) / f"out-{name}", args.workers)
    print(f"{'code':<8}{'exit':>6}{'stderr lines':>14}{'Compute Failed':>16}{'tracebacks':>12}")
    for name, r in results["runs"].items():
        print(
            f"{name:<8}{r['exit_code']:>6}{r['stderr_lines']:>14}"
            f"{r['compute_failed_blocks']:>16}{r['tracebacks']:>12}"
        )
    after = results["runs"]["after"]
    met = after["exit_code"] == 1 and after["stderr_lines"] <= MAX_LINES
    results["met"] = met
    print(f"target ({results['target']}): {'met' if met else 'NOT met'}")
    results_file.write_results(RESULTS, results, indent=2)
    print(f"wrote {RESULTS}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
