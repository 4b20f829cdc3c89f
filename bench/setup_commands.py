"""Time the README's two set-up commands as a new user meets them: each in a fresh clone.

    python bench/setup_commands.py [--repo .] [--keep DIR]

Clones the repository's HEAD twice into a scratch directory (no ``../shared`` beside the clones,
as on a user's machine: the tests that need it skip with their reason), runs the README's first
command (install, then clean the sample) in one and its second (editable install with the test
extra, then the test suite) in the other, one after the other, and prints and writes
``bench/results/setup_commands.json``: the wall seconds of each, the test summary line and the
machine. The README's times are read from that file (``bench/doc_figures.py``).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

# The README's commands, word for word; tests/test_doc_figures.py checks that they still are.
COMMANDS = {
    "run": "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/dask submit "
    "jobs/clean_warcs.py samples/sample.warc.gz --output out",
    "test": "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && "
    ".venv/bin/python -m pytest",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--keep", type=Path, help="clone here and keep the clones")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="setup-commands-"))
    root.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WARCCLEAN_", "VIRTUAL_ENV"))}
    seconds: dict[str, float] = {}
    exits: dict[str, int] = {}
    summary = ""
    for name, command in COMMANDS.items():
        clone = root / name / "warcclean"
        subprocess.run(["git", "clone", "-q", str(args.repo), str(clone)], check=True)
        t0 = time.monotonic()
        done = subprocess.run(
            ["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True
        )
        seconds[name] = round(time.monotonic() - t0, 1)
        exits[name] = done.returncode
        if done.returncode != 0:
            # Recorded, not hidden: the times of a failed command are written with its status.
            print(f"{name}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        if name == "test":
            found = re.findall(r"^=+ (.*\b(?:passed|failed)\b.*) =+$", done.stdout, re.M)
            summary = found[-1] if found else ""
        print(f"{name}: {seconds[name]:.1f} s  {command}")
    result = {
        "date": results_file.utc_now()[:10],
        "commit": results_file.git_commit(repo=args.repo),
        "machine": f"{os.cpu_count()}-core {platform.machine()} machine",
        "commands": COMMANDS,
        "seconds": seconds,
        "exit_codes": exits,
        "test_summary": summary,
        "load_average": os.getloadavg(),
    }
    print(summary)
    out = REPO / "bench" / "results" / "setup_commands.json"
    results_file.write_results(out, result)
    print(f"wrote {out}")
    if any(exits.values()):
        sys.exit(f"a command failed: {exits}")


if __name__ == "__main__":
    main()
