"""What one of the default cleaner's page rules does to the scores: every dev set cleaned with the
rule and without it (``--param NAME=false``), page by page.

Usage: python bench/rule_eval.py NAME [--sets wcxb-dev,multilingual-dev,magic-html,daniel]
       [--out FILE] [--keep DIR]

Runs ``warcclean eval DIR --cleaner neighbours [--param NAME=false] --json F`` on each set in
../shared/data, both runs at once (two processes), and reports per set the mean score (word or
character F1 where the page has a full reference, else the combined snippet score, as
``warcclean eval`` gives it) without and with the rule, the pages it changed, up and down, the
``with`` snippets found and ``without`` present, the same on the held-out test pages of the
models' split (WCXB and multilingual-dev), by WCXB page type and by language. Results:
``bench/results/NAME_eval.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

DATA = REPO.parent / "shared" / "data"
SETS = ("wcxb-dev", "multilingual-dev", "magic-html", "daniel")
MODEL = REPO / "pipeline" / "models" / "neighbours.json"
# The split's dataset names for the sets that have held-out pages.
SPLIT_NAMES = {"wcxb-dev": "wcxb", "multilingual-dev": "ml"}


def test_ids() -> dict[str, set[str]]:
    """The held-out test pages of the learned models' split, as {dataset: page ids}."""
    out: dict[str, set[str]] = defaultdict(set)
    for full_id in json.loads(MODEL.read_text("utf-8"))["metadata"]["split"]["test_ids"]:
        dataset, page_id = full_id.split("/", 1)
        out[dataset].add(page_id)
    return out


def score(row: Mapping[str, Any]) -> float | None:
    """A page's score as ``warcclean eval`` ranks it: combined where given, else F1."""
    combined = row.get("combined")
    return combined if combined is not None else row.get("f1")


def compare(off: Mapping[str, Mapping], on: Mapping[str, Mapping], ids: Iterable[str]) -> dict:
    """Means without and with the rule over ``ids``, and the pages it moved."""
    pairs = [(score(off[i]), score(on[i])) for i in ids if score(off[i]) is not None]
    if not pairs:
        return {"pages": 0}
    return {
        "pages": len(pairs),
        "off": round(sum(a for a, _ in pairs) / len(pairs), 4),
        "on": round(sum(b for _, b in pairs) / len(pairs), 4),
        "up": sum(b > a + 1e-9 for a, b in pairs),
        "down": sum(b < a - 1e-9 for a, b in pairs),
    }


def grouped(off: Mapping, on: Mapping, key: str) -> dict[str, dict]:
    groups: dict[str, list[str]] = defaultdict(list)
    for page_id, row in off.items():
        groups[str(row.get(key))].append(page_id)
    return {name: compare(off, on, ids) for name, ids in sorted(groups.items())}


def run_set(name: str, param: str, work: Path) -> tuple[dict, dict]:
    warcclean = shutil.which("warcclean") or str(Path(sys.executable).with_name("warcclean"))
    runs = []
    for arm, extra in (("off", ["--param", f"{param}=false"]), ("on", [])):
        out = work / f"{name}_{arm}.json"
        command = [warcclean, "eval", str(DATA / name), "--cleaner", "neighbours", *extra]
        command += ["--json", str(out)]
        child = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        runs.append((out, child))
    for out, child in runs:
        _, errors = child.communicate()
        if child.returncode != 0:
            raise SystemExit(f"warcclean eval failed for {out.name}:\n{errors}")
    off, on = (
        {row["id"]: row for row in json.loads(out.read_text("utf-8"))["pages"]} for out, _ in runs
    )
    return off, on


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("param", help="the default cleaner's option that turns the rule off")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--out", type=Path)
    parser.add_argument("--keep", type=Path, help="keep the eval JSON files in this folder")
    args = parser.parse_args(argv)
    held_out = test_ids()
    payload: dict[str, Any] = {
        "command": results_file.command_line(__file__, argv),
        "commit": results_file.git_commit(),
        "date": results_file.utc_now(),
        "rule_option": args.param,
        "sets": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for name in args.sets.split(","):
            off, on = run_set(name, args.param, work)
            entry = compare(off, on, off)
            for count in ("with_found", "without_present"):
                entry[count] = [sum(r[count] for r in rows.values()) for rows in (off, on)]
            test = held_out.get(SPLIT_NAMES.get(name, ""))
            if test:
                entry["held_out"] = compare(off, on, sorted(test & off.keys()))
            if any(r.get("page_type") for r in off.values()):
                entry["by_page_type"] = grouped(off, on, "page_type")
            entry["by_language"] = grouped(off, on, "language")
            moved = sorted(
                ((score(on[i]) - score(off[i]), i) for i in off if score(off[i]) is not None),
            )
            entry["most_down"] = [[i, round(d, 3)] for d, i in moved[:10] if d < -1e-9]
            entry["most_up"] = [[i, round(d, 3)] for d, i in moved[::-1][:10] if d > 1e-9]
            payload["sets"][name] = entry
            held = entry.get("held_out", {})
            print(
                f"{name:18s} {entry['off']:.4f} -> {entry['on']:.4f}  "
                f"up {entry['up']:3d} down {entry['down']:3d}"
                + (f"  held out {held['off']:.4f} -> {held['on']:.4f}" if held.get("pages") else "")
            )
    out = args.out or REPO / "bench" / "results" / f"{args.param}_eval.json"
    results_file.write_results(out, payload)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
