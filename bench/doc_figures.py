"""Figures for the docs, read from generated tables and results files (never typed by hand).

README.md and docs/*.md call these from cog blocks (``[[[cog ... ]]]`` inside HTML comments);
``cog -r -I bench README.md docs/*.md`` rewrites what they print, and
``tests/test_doc_figures.py`` fails when a doc's generated part differs from what they print now
(``cog --check``). The sources: BENCHMARKS.md's tables, which ``bench/benchmark_tables.py``
writes from ``warcclean eval`` runs, and ``bench/results/*.json``, which the bench scripts write.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "BENCHMARKS.md"
RESULTS = REPO / "bench" / "results"


def benchmark_table(heading: str, path: Path = BENCHMARKS) -> dict[str, dict[str, str]]:
    """The Markdown table under the first heading starting with ``heading``: row name -> column
    name -> cell, with bold marks and the † of trained cleaners taken off."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip("#").strip().startswith(heading))
    rows: list[str] = []
    seen_table = False
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            rows.append(line)
            seen_table = True
        elif seen_table or line.startswith("#"):
            break
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    header, body = cells[0], cells[2:]
    table = {}
    for row in body:
        name = row[0].replace("†", "").strip()
        table[name] = {h: c.replace("**", "") for h, c in zip(header, row, strict=True)}
    return table


# The cleaners a newcomer chooses between, and when each is the choice.
CHOICES = [
    ("neighbours", "the default: best text in every language measured"),
    ("neighbours-fast", "cost first, still learned: no nets, cheap features only"),
    ("kimatu", "rules only, good outside English, precise"),
    ("bte", "rules only and cheap, high recall"),
    ("justext", "rules only, precise, empties short pages; pass `language=` when known"),
]


def cleaner_table() -> str:
    """The README's "choosing a cleaner" table, from BENCHMARKS.md's held-out tables."""
    wcxb = benchmark_table("wcxb-dev test pages (")
    multi = benchmark_table("multilingual-dev test pages (")
    out = [
        "",
        f"On {held_out_pages()}:",
        "",
        "| cleaner | when | WCXB word F1 | multilingual F1 / combined | median ms per page |",
        "|---|---|---:|---:|---:|",
    ]
    for name, when in CHOICES:
        w, m = wcxb[name], multi[name]
        out.append(
            f"| `{name}` | {when} | {w['word F1']} | {m['full-text F1']} / {m['combined']} "
            f"| {w['median ms']} |"
        )
    return "\n".join(out) + "\n\n"


def held_out_pages() -> str:
    """How many held-out pages each of BENCHMARKS.md's held-out tables covers, as words."""
    lines = BENCHMARKS.read_text(encoding="utf-8")
    wcxb = re.search(r"### wcxb-dev test pages \((\d+) pages\)", lines)
    multi = re.search(r"### multilingual-dev test pages \((\d+) pages, (\d+) languages\)", lines)
    assert wcxb and multi, "BENCHMARKS.md has no held-out tables"
    return (
        f"{wcxb.group(1)} held-out WCXB pages and {multi.group(1)} held-out multilingual pages "
        f"in {multi.group(2)} languages"
    )


def setup_times() -> dict[str, str]:
    """The two set-up commands' wall times, as ``bench/setup_commands.py`` last measured them."""
    result = json.loads((RESULTS / "setup_commands.json").read_text(encoding="utf-8"))
    return {name: f"{seconds / 60:.1f} minutes" for name, seconds in result["seconds"].items()}


def setup_sentence() -> str:
    result = json.loads((RESULTS / "setup_commands.json").read_text(encoding="utf-8"))
    if any(result.get("exit_codes", {}).values()):
        raise ValueError(f"bench/results/setup_commands.json records a failed command: {result}")
    times = setup_times()
    return (
        f"\nOn a {result['machine']} ({result['date']}, `python bench/setup_commands.py`) "
        "the first "
        f"took {times['run']} and the second {times['test']}, most of it the install's compile "
        "and, for the second, the test suite.\n"
    )


def _model_metadata(path: Path) -> dict:
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))["metadata"]
    import numpy as np

    with np.load(path, allow_pickle=False) as z:
        return json.loads(str(z["metadata"]))


def model_table() -> str:
    """docs/models.md's table: each shipped model file, its size, what it was trained on and the
    licences of that data, as the file itself records them."""
    models = REPO / "pipeline" / "models"
    out = ["", "| model file | size | trained on | data licences |", "|---|---:|---|---|"]
    for path in sorted(models.glob("*.json")) + sorted(models.glob("*.npz")):
        meta = _model_metadata(path)
        licences = "; ".join(meta.get("licences", [])) or "none recorded"
        trained = meta.get("trained_on") or ", ".join(
            entry.split(":")[0] for entry in meta.get("licences", [])
        )
        size = f"{path.stat().st_size / 1000:,.0f} kB"
        out.append(f"| `{path.name}` | {size} | {trained} | {licences} |")
    return "\n".join(out) + "\n\n"


def memory_sentences() -> str:
    """The README's memory figures: a task process's peak (bench/pipeline.py), the cleaning
    child's address-space cap (its default), and the site stage's workers (bench/site_cost.py)."""
    pipeline = json.loads((RESULTS / "pipeline.json").read_text(encoding="utf-8"))
    site = json.loads((RESULTS / "site_cost.json").read_text(encoding="utf-8"))
    from pipeline.config import Limits

    task_mb = max(pipeline["peak_rss_mb_1x"], pipeline["peak_rss_mb_4x"])
    site_mib = max(max(run["worker_peak_rss_mib"]) for run in site["memory"].values())
    cap_gb = Limits().isolate_memory_bytes / 1e9
    return (
        f"A task's own process peaked at {task_mb:.0f} MB (`python bench/pipeline.py`); each "
        "worker thread keeps a child process that cleans the pages and can be killed on a slow "
        f"one, whose address space is capped by `--isolate-memory` ({cap_gb:g} GB; most of what "
        "a warm child maps is shared libraries and the language profiles, which all children "
        "share); a page needing more is rejected `too_complex`. The site stage's workers peaked "
        f"at {site_mib:.0f} MiB on the benchmarks' outputs (`python bench/site_cost.py`).\n"
    )


def slow_pages_sentence(indent: str = "") -> str:
    """docs/running.md's figure for pages killed at the time cap, from ``python
    bench/hostile_input.py --only slow_pages`` (bench/results/hostile_input_slow_pages.json)."""
    result = json.loads((RESULTS / "hostile_input_slow_pages.json").read_text(encoding="utf-8"))
    slow = result["slow_pages"]
    n, cap = slow["slow_pages"], slow["cap_seconds"]
    good_s, mixed_s = slow["good_seconds_median"], slow["mixed_seconds_median"]
    per_kill = (mixed_s - good_s) / n
    verdict = "within" if slow["within_target"] else "over"
    if slow["mixed_docs"] != slow["good_docs"] or slow["mixed_rejects"].get("timeout") != n:
        raise ValueError(f"the slow-pages run lost good records or timeouts: {slow}")
    return indent + (
        f"{n} such pages among {slow['good_pages']:,} at `--max-seconds {cap:g}`: every good "
        f"record written as without them, in {mixed_s:.1f} s against {good_s:.1f} s for the "
        f"good pages alone, {per_kill:.2f} s per killed page, {verdict} the good pages plus "
        f"{n} caps ({slow['target_seconds']:.1f} s; median of {len(slow['seconds']['good'])} "
        f"runs, {result['date'][:10]}, `python bench/hostile_input.py --only slow_pages`).\n"
    )
