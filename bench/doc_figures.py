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


def _slow_pages() -> tuple[dict, str]:
    """The slow-pages run (bench/results/hostile_input_slow_pages.json) and its headline."""
    result = json.loads((RESULTS / "hostile_input_slow_pages.json").read_text(encoding="utf-8"))
    slow = result["slow_pages"]
    n, cap = slow["slow_pages"], slow["cap_seconds"]
    good_s, mixed_s = slow["good_seconds_median"], slow["mixed_seconds_median"]
    per_kill = (mixed_s - good_s) / n
    verdict = "within" if slow["within_target"] else "over"
    if slow["mixed_docs"] != slow["good_docs"] or slow["mixed_rejects"].get("timeout") != n:
        raise ValueError(f"the slow-pages run lost good records or timeouts: {slow}")
    return result, (
        f"{n} such pages among {slow['good_pages']:,} at `--max-seconds {cap:g}`: every good "
        f"record written as without them, in {mixed_s:.1f} s against {good_s:.1f} s for the "
        f"good pages alone, {per_kill:.2f} s per killed page, {verdict} the good pages plus "
        f"{n} caps"
    )


def slow_pages_sentence(indent: str = "") -> str:
    """docs/running.md's figure for pages killed at the time cap, from ``python
    bench/hostile_input.py --only slow_pages``."""
    result, headline = _slow_pages()
    slow = result["slow_pages"]
    return (
        f"{indent}{headline} ({slow['target_seconds']:.1f} s; median of "
        f"{len(slow['seconds']['good'])} runs, {result['date'][:10]}, "
        "`python bench/hostile_input.py --only slow_pages`).\n"
    )


def _result(name: str) -> dict:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


def _day(result: dict) -> str:
    return str(result.get("date", "undated"))[:10]


def _front_end_run() -> tuple[str, dict]:
    """The newest `bench/pipeline.py` run of the default cleaner beside the resiliparse front
    end."""
    runs = []
    for path in RESULTS.glob("pipeline*.json"):
        result = json.loads(path.read_text(encoding="utf-8"))
        if result.get("cleaner") == "neighbours" and "job/resiliparse" in result.get(
            "ratios_median", {}
        ):
            runs.append((result["date"], path.name, result))
    _, name, result = max(runs)
    return name, result


def _speed_rows() -> list[tuple[str, str, str, str]]:
    cleaner = _result("cleaner.json")
    s = cleaner["summary"]
    ours, pkg, floor = s["ours justext"], s["justext pkg"], s["parse floor"]
    default = _result("default_cleaner.json")
    ends = default["end_to_end"]
    library = _result("library_call.json")["settings"]["no thread variables"]["median_ms"]
    job_file, job = _front_end_run()
    med, ratios = job["medians"], job["ratios_median"]
    speedup = ours["pages_per_s"] / pkg["pages_per_s"]
    floor_x = floor["pages_per_s"] / ours["pages_per_s"]
    default_x = default["ratio_to_justext_median"]["neighbours (detect language)"]
    return [
        (
            "Cleaners, one page at a time",
            "`python bench/cleaner.py`",
            f"our jusText {ours['pages_per_s']:.0f} pages/s, {speedup:.2f}x the justext "
            f"package; {floor_x:.2f}x the bare parse's CPU; language detection "
            f"{cleaner['langid_share_of_page_cost']:.0%} of a page",
            f"`cleaner.json`, {_day(cleaner)}",
        ),
        (
            "The default cleaner",
            "`python bench/default_cleaner.py`",
            f"{ends['neighbours (detect language)']['median_ms']:.2f} ms median a page with "
            f"language detection, {default_x:.2f}x jusText's median in the same run",
            f"`default_cleaner.json`, {_day(default)}",
        ),
        (
            "The library call",
            "`python bench/library_call.py`",
            f"`clean_html` {library['neighbours']:.2f} ms median CPU a page against jusText's "
            f"{library['justext']:.2f} ({library['neighbours'] / library['justext']:.2f}x)",
            f"`library_call.json`, {_day(_result('library_call.json'))}",
        ),
        (
            "The job against the front ends",
            "`python bench/pipeline.py`",
            f"{med['job']['pages_per_cpu_s']:.1f} pages per CPU-second on {job['pages']:,} pages: "
            f"{ratios['job/resiliparse']:.2f}x the resiliparse front end"
            + (
                f", {ratios['job/trafilatura']:.1f}x trafilatura's"
                if "job/trafilatura" in ratios
                else ""
            )
            + "; a task's peak memory "
            f"{job['peak_rss_mb_1x']:.0f} MB, {job['peak_rss_mb_4x']:.0f} MB for a WARC 4 times "
            "larger",
            f"`{job_file}`, {_day(job)}",
        ),
    ]


def _robustness_rows() -> list[tuple[str, str, str, str]]:
    faults = _result("faults.json")
    hostile = _result("hostile_input.json")
    ragged, markdown = hostile["ragged_table"], hostile["markdown"]
    bad = hostile["bad_length"]
    fuzz_name = "fuzz_issue48_final.json"
    if not (RESULTS / fuzz_name).exists():
        fuzz_name = "fuzz_issue48_after_fixes.json"
    fuzz = _result(fuzz_name)
    report = _result("report.json")
    slow_result, slow_headline = _slow_pages()
    lost = sum(r["good"] - r["good_written"] for r in bad.values())
    foreign = sum(m["after"] for m in markdown.values())
    pages = sum(m["pages"] for m in markdown.values())
    return [
        (
            "Real and broken WARCs",
            "`python bench/faults.py`",
            f"{faults['inputs']} inputs, {faults['records_read']:,} records: {faults['crashes']} "
            f"crashes, {faults['duplicates']} duplicates, {faults['lost']} lost; slowest page "
            f"{faults['page_seconds_max']:.1f} s",
            f"`faults.json`, {_day(faults)}",
        ),
        (
            "Fuzzed WARCs",
            "`python bench/fuzz_warcs.py --minutes 30`",
            f"{fuzz['mutated_files']:,} mutated files in {fuzz['minutes']:g} minutes, "
            f"{fuzz['job_runs']:,} through the job: {fuzz['hangs']} hangs, "
            f"{fuzz['failing_runs']} failing runs",
            f"`{fuzz_name}`, {_day(fuzz)}",
        ),
        (
            "Hostile input",
            "`python bench/hostile_input.py`",
            f"a bad length in a file gzipped whole: {lost} good records lost in {len(bad)} cases; "
            f"a ragged 12,000-cell table: Markdown {ragged['markdown_over_page']:.2f}x the page, "
            f"child peak {ragged['child_peak_rss_mb']:.0f} MB; {foreign} of {pages:,} pages' "
            "Markdown renders an element the page did not show as markup",
            f"`hostile_input.json`, {_day(hostile)}",
        ),
        (
            "Pages killed at the time cap",
            "`python bench/hostile_input.py --only slow_pages`",
            slow_headline,
            f"`hostile_input_slow_pages.json`, {_day(slow_result)}",
        ),
        (
            "The run report",
            "`python bench/report.py`",
            f"at most {report['in_job_overhead_worst']:.1%} of the job's time "
            f"(target {report['target_overhead_max']:.0%})",
            f"`report.json`, {_day(report)}",
        ),
    ]


def _output_rows() -> list[tuple[str, str, str, str]]:
    structure = _result("structure.json")
    systems = structure["systems"]
    ours = systems["warcclean markdown"]
    others = ", ".join(
        f"{name} {systems[name]['code_kept']:.3f} / {systems[name]['rows_kept']:.3f}"
        for name in ("trafilatura markdown", "resiliparse preserve_formatting",
                     "html2text whole page")
    )  # fmt: skip
    site = _result("site_cost.json")
    return [
        (
            "Code and tables",
            "`python bench/structure.py`",
            f"code blocks kept {ours['code_kept']:.3f}, table rows kept as rows "
            f"{ours['rows_kept']:.3f} on {structure['pages_selected']} WCXB dev pages "
            f"(against {others})",
            f"`structure.json`, {_day(structure)}",
        ),
        (
            "The site stage",
            "`python bench/site_cost.py`",
            f"alone {site['stage_alone_share_of_cleaning']:.1%} of the cleaning pass's CPU, "
            f"{site['stage_cpu_share_in_job']:+.1%} inside the job (median of "
            f"{len(site['rounds'])} rounds); worker memory {site['rss_growth_x4']:+.1%} for an "
            "output 4 times larger",
            f"`site_cost.json`, {_day(site)}",
        ),
    ]


def benchmark_summary() -> str:
    """docs/benchmarks.md's table: each benchmark's headline, from its last results file."""
    out = ["", "| benchmark | command | last result | results, date |", "|---|---|---|---|"]
    for row in (*_speed_rows(), *_output_rows(), *_robustness_rows()):
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n\n"


def site_cost_sentence() -> str:
    """docs/running.md's figure for the site stage's cost, from ``python bench/site_cost.py``
    (bench/results/site_cost.json)."""
    site = _result("site_cost.json")
    in_job = site["stage_cpu_share_in_job"]
    shares = [g["on"]["cpu_s"] / g["off"]["cpu_s"] - 1 for g in site["rounds"]]
    verdict = "within" if in_job <= 0.10 else "over"
    return (
        f"\nOn daniel's pages in one WARC the stage adds **{in_job:+.1%}** to the job's CPU "
        f"(median of {len(shares)} alternating rounds, {min(shares):+.1%} to {max(shares):+.1%}; "
        f"{site['cleaning_ms_per_page']:.1f} ms a page for the cleaning pass), {verdict} the "
        f"target of at most 10%; alone, against the same command doing no stage, it costs "
        f"{site['stage_alone_share_of_cleaning']:.1%} of the cleaning pass "
        f"({_day(site)}, `python bench/site_cost.py`).\n"
    )
