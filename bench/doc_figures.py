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
    name -> cell, as `_benchmark_rows` reads it, keyed by the first cell with the † of trained
    cleaners taken off. Where a first cell repeats, the last such row is kept."""
    table = {}
    for row in _benchmark_rows(heading, path):
        name = next(iter(row.values()))
        table[name.replace("†", "").strip()] = row
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
    # The cost column comes from the interleaved run, not from the eval runs' ms columns, which
    # time one cleaner after another and move by a factor of two between runs.
    speed = _result("choice_speed.json")
    out = [
        "",
        f"On {held_out_pages()}; the cost is CPU per page on all {speed['pages']:,} WCXB dev "
        f"pages, every cleaner side by side in one run, language detection included "
        f"({_day(speed)}, `python bench/choice_speed.py`):",
        "",
        "| cleaner | when | WCXB word F1 | multilingual F1 / combined | ms per page (x jusText) |",
        "|---|---|---:|---:|---:|",
    ]
    for name, when in CHOICES:
        w, m, cost = wcxb[name], multi[name], speed["summary"][name]
        out.append(
            f"| `{name}` | {when} | {w['word F1']} | {m['full-text F1']} / {m['combined']} "
            f"| {cost['median_ms']:.1f} ({cost['x_justext']:.2f}x) |"
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
            "output 4 times larger"
            + (
                f", {site['rss_growth_x16']:+.1%} for one 16 times larger"
                if "rss_growth_x16" in site
                else ""
            ),
            f"`site_cost.json`, {_day(site)}",
        ),
    ]


def benchmark_summary() -> str:
    """docs/benchmarks.md's table: each benchmark's headline, from its last results file."""
    out = ["", "| benchmark | command | last result | results, date |", "|---|---|---|---|"]
    for row in (*_speed_rows(), *_output_rows(), *_robustness_rows()):
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n\n"


# bench/site_cost.py's last run before the site stage's latest changes, kept beside the
# newest: its shares move by several points between runs of the same code.
_SITE_COST_BEFORE = "site_cost-before.json"


def site_cost_sentence() -> str:
    """docs/running.md's figure for the site stage's cost, from ``python bench/site_cost.py``
    (bench/results/site_cost.json)."""
    site = _result("site_cost.json")
    in_job = site["stage_cpu_share_in_job"]
    shares = [g["on"]["cpu_s"] / g["off"]["cpu_s"] - 1 for g in site["rounds"]]
    verdict = "within" if in_job <= 0.10 else "over"
    text = (
        f"\nOn daniel's pages in one WARC the stage adds **{in_job:+.1%}** to the job's CPU "
        f"(median of {len(shares)} alternating rounds, {min(shares):+.1%} to {max(shares):+.1%}; "
        f"{site['cleaning_ms_per_page']:.1f} ms a page for the cleaning pass), {verdict} the "
        f"target of at most 10%"
    )
    own = site.get("stage_own_processes_share")
    if own is not None:
        rounds = site["stage_own_processes_share_rounds"]
        moved = site["cleaning_children_cpu_moved_s"]
        text += (
            f". Counted in the job's own processes only (client, scheduler, workers), which the "
            f"stage runs in, it adds {own:+.1%} ({min(rounds):+.1%} to {max(rounds):+.1%}); the "
            f"processes that clean the pages, the same work in both arms, moved by "
            f"{min(moved):+.1f} to {max(moved):+.1f} s between the arms of a round"
        )
    text += (
        f"; alone, against the same command doing no stage, it costs "
        f"{site['stage_alone_share_of_cleaning']:.1%} of the cleaning pass"
    )
    marginal = site.get("marginal_ms_per_document")
    if marginal is not None:
        share = site["marginal_share_of_cleaning"]
        text += (
            f". Through the shuffles, which every output above the one-task bound takes, the "
            f"stage alone costs {site['stage_alone_shuffled_share_of_cleaning']:.0%} of the "
            f"cleaning pass on this output, most of it Dask's fixed costs; each more document "
            f"costs {marginal['shuffled']:.2f} ms of CPU shuffled and {marginal['gathered']:.2f} "
            f"ms gathered (over the output and one 4 times larger), {share['shuffled']:.0%} and "
            f"{share['gathered']:.0%} of the cleaning pass's CPU per page"
        )
        dense = marginal.get("shuffled_same_files")
        if dense is None:
            text += (
                f": a large crawl pays the first, "
                f"{'within' if share['shuffled'] <= 0.10 else 'over'} the target"
            )
        else:
            dense_share = share["shuffled_same_files"]
            text += (
                f", with the larger output's documents in 4 times the files; in the same 5 files "
                f"(4 times the documents each, so each file's own costs are spread as over a "
                f"crawl's larger files), {dense:.2f} ms shuffled and "
                f"{marginal['gathered_same_files']:.2f} ms gathered, {dense_share:.1%} and "
                f"{share['gathered_same_files']:.1%}. A large crawl's output is shuffled: per "
                f"page it pays the shuffled figure of a layout between the two, "
                f"{'within' if share['shuffled'] <= 0.10 else 'over'} the target with small "
                f"files and {'within' if dense_share <= 0.10 else 'over'} it with large ones"
            )
    # The run before, kept beside it: the in-job share moves by several points between runs.
    before = _result(_SITE_COST_BEFORE)
    text += (
        f" ({_day(site)}, `python bench/site_cost.py`). The last run before the stage's latest "
        f"changes (`{_SITE_COST_BEFORE}`, {len(before['rounds'])} rounds) gave "
        f"{before['stage_cpu_share_in_job']:+.1%} in the job, "
        f"{before['stage_alone_share_of_cleaning']:.1%} alone, and per further document "
        f"{before['marginal_share_of_cleaning']['shuffled']:.1%} shuffled and "
        f"{before['marginal_share_of_cleaning']['gathered']:.1%} gathered"
    )
    return text + ".\n"


# docs/cleaners.md and docs/seeds.md

# The starts of the headings of BENCHMARKS.md's tables that bench/benchmark_tables.py writes.
_HELD_OUT_WCXB = "wcxb-dev test pages ("
_HELD_OUT_ML = "multilingual-dev test pages ("
_FULL_WCXB = "wcxb-dev ("
_FULL_ML = "multilingual-dev ("
_FULL_ML_LANGUAGES = "multilingual-dev per language"
# Issue 37's runs of the seed systems left no results file: their table, typed into BENCHMARKS.md
# from the `warcclean eval` reports, is the only record, so the docs read it there rather than
# keep a second copy.
_ISSUE37 = "Seed systems as published"
_ISSUE37_SOURCE = "BENCHMARKS.md (issue 37)"
# The project's quality target for the default cleaner: held-out WCXB word F1.
_DEFAULT_F1_TARGET = 0.85
_MODELS = REPO / "pipeline" / "models"
_HELD = "trees + nets, group held out"


def _benchmark_rows(heading: str, path: Path = BENCHMARKS) -> list[dict[str, str]]:
    """The Markdown table under the first heading starting with ``heading``: its rows in order
    (a first cell may repeat), each column name -> cell, with bold marks taken off."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip("#").strip().startswith(heading))
    cells: list[list[str]] = []
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            cells.append([c.strip().replace("**", "") for c in line.strip().strip("|").split("|")])
        # A heading before any table ends the search, so a section without a table fails here
        # instead of silently reading the next section's.
        elif cells or line.startswith("#"):
            break
    header, body = cells[0], cells[2:]
    return [dict(zip(header, row, strict=True)) for row in body]


def _learned() -> set[str]:
    """The cleaners BENCHMARKS.md's held-out tables mark † (trained on other sites)."""
    return set(re.findall(r"^\| ([\w-]+) †", BENCHMARKS.read_text(encoding="utf-8"), re.M))


def _num(value: float | None) -> str:
    """A figure to three places, or a dash where the run did not measure it."""
    return "–" if value is None else f"{value:.3f}"


def _pair(value: float | None, held_out: float | None) -> str:
    """A figure on every page, its held-out pages' figure in brackets."""
    if value is None or held_out is None:
        return _num(value if value is not None else held_out)
    return f"{value:.3f} ({held_out:.3f})"


def _change(before: float | None, after: float | None, digits: int = 3) -> str:
    """A figure before and after a change."""
    if before is None or after is None:
        return "–"
    return f"{before:.{digits}f} → {after:.{digits}f}"


def cleaner_quality_table() -> str:
    """docs/cleaners.md: every cleaner on the held-out pages, from BENCHMARKS.md's tables."""
    wcxb, multi = benchmark_table(_HELD_OUT_WCXB), benchmark_table(_HELD_OUT_ML)
    learned = _learned()
    out = [
        "",
        f"On {held_out_pages()} (BENCHMARKS.md's held-out tables; † learned, trained on other "
        "sites of the same sets):",
        "",
        "| cleaner | WCXB word F1 | WCXB pages emptied | multilingual F1 | multilingual combined "
        "| median ms (WCXB) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in sorted(wcxb, key=lambda n: -float(wcxb[n]["word F1"])):
        w, m = wcxb[name], multi[name]
        mark = " †" if name in learned else ""
        out.append(
            f"| `{name}`{mark} | {w['word F1']} | {w['emptied']} | {m['full-text F1']} "
            f"| {m['combined']} | {w['median ms']} |"
        )
    return "\n".join(out) + "\n\n"


def default_cleaner_sentence() -> str:
    """Why `neighbours` is the default and which of the targets for one it meets."""
    wcxb, multi = benchmark_table(_HELD_OUT_WCXB), benchmark_table(_HELD_OUT_ML)
    others = [n for n in wcxb if not n.startswith("neighbours")]
    best_w = max(others, key=lambda n: float(wcxb[n]["word F1"]))
    best_m = max(others, key=lambda n: float(multi[n]["combined"]))
    ours_w, ours_m = wcxb["neighbours"], multi["neighbours"]
    quality = "meets" if float(ours_w["word F1"]) >= _DEFAULT_F1_TARGET else "misses"
    leads_w = float(ours_w["word F1"]) > float(wcxb[best_w]["word F1"])
    leads_m = float(ours_m["combined"]) > float(multi[best_m]["combined"])
    cost, cost_ml = _result("default_cleaner.json"), _result("default_cleaner_multilingual.json")
    ours, rule = "neighbours (detect language)", "justext (detect language)"

    def timed(run: dict) -> str:
        ends = run["end_to_end"]
        return (
            f"{ends[ours]['median_ms']:.2f} ms a page against jusText's "
            f"{ends[rule]['median_ms']:.2f} ({run['ratio_to_justext_median'][ours]:.2f}x) on the "
            f"{run['pages']:,} pages of {Path(run['data']).name}"
        )

    ratio_met = cost["target_ratio_met"][ours] and cost_ml["target_ratio_met"][ours]
    return (
        f"\n**The default is `neighbours`**, "
        f"{'the best' if leads_w and leads_m else 'not the best'} on both held-out sets: WCXB "
        f"word F1 {ours_w['word F1']} (the best other cleaner, `{best_w}`, "
        f"{wcxb[best_w]['word F1']}; "
        f"jusText {wcxb['justext']['word F1']}), multilingual full-text F1 "
        f"{ours_m['full-text F1']} and combined score {ours_m['combined']} (the best other, "
        f"`{best_m}`, {multi[best_m]['full-text F1']} and {multi[best_m]['combined']}), with "
        f"{ours_w['emptied']} WCXB pages emptied (jusText {wcxb['justext']['emptied']}). It "
        f"{quality} the project's quality target for a default, held-out WCXB word F1 of at "
        f"least {_DEFAULT_F1_TARGET:.2f}, at the point estimate: on so few pages the sampling "
        "error is large (BENCHMARKS.md's [Observations](../BENCHMARKS.md#observations) give the "
        f"interval). Its cost, language detection included ({_day(cost)}, `python "
        "bench/default_cleaner.py`, which also breaks it down by stage): "
        f"{timed(cost)}, and {timed(cost_ml)}, where the page rules outside English run. That "
        f"is {'within' if ratio_met else 'over'} the target of at most "
        f"{cost['target_ratio']:g}x jusText's median, and "
        f"{'within' if cost['target_met'][ours] else 'over'} the "
        f"{cost['target_median_ms']:g} ms median target on that machine; on a busy machine "
        "every cleaner slows alike, so the ratio is the figure to compare.\n"
    )


def _neighbours_model() -> dict:
    """The shipped `neighbours` model file, parsed."""
    return json.loads((_MODELS / "neighbours.json").read_text(encoding="utf-8"))


def neighbours_model_sentence() -> str:
    """The shipped `neighbours` model's shape and scores, from its file and daniel's run."""
    model = _neighbours_model()
    meta, nets, trees = model["metadata"], model["sequence"]["models"], model["model"]
    blend = model["sequence"]["blend"]
    dilations = [conv["dilation"] for conv in nets[0]["convs"]]
    daniel = _result("field_daniel.json")
    on_daniel = daniel["systems"]["warcclean default"]["by_language"]["all"]["f1"]
    return (
        f"\nThe shipped model (`pipeline/models/neighbours.json`, trained on {meta['trained_on']}) "
        f"has {len(trees['feature'])} gradient-boosted trees of depth {trees['depth']} over "
        f"{len(model['features'])} features per block, and {len(nets)} nets over the first "
        f"{nets[0]['columns']} of them (a block's own, page cues included), whose dilations "
        f"{', '.join(map(str, dilations))} let a block see {sum(dilations)} blocks either side. "
        f"A block's probability is {1 - blend:.1f} of the trees' and {blend:.1f} of the nets' "
        f"mean: cross-validated F1 {meta['cv_f1']:.4f} over the training pages, against "
        f"{meta['cv_f1_trees_alone']:.4f} for its trees alone. On daniel's "
        f"{daniel['pages']:,} news pages, which no model was fitted or chosen on, the cleaner "
        f"scores word F1 {on_daniel:.3f} (`python bench/field_daniel.py`, {_day(daniel)}).\n"
    )


def _cv_tables(run: str, row: str) -> dict:
    """A grouped_cv.py results row: its held-out groups and language groups in one mapping."""
    table = _result(run)["tables"][row]
    return {**table["held-out group"], **table["language group"]}


def whole_sources_table() -> str:
    """docs/cleaners.md: the default refitted without whole sources or languages."""
    blend = _neighbours_model()["sequence"]["blend"]
    runs = [
        ("source datasets", "grouped_cv_dataset_nets_mh.json",
         f"{_HELD} + guards, p^2 outside English"),
        ("languages", "grouped_cv_language_net_shares.json",
         f"{_HELD}, net share {blend:g}, as the shipped cleaner"),
    ]  # fmt: skip
    systems = ["shipped cleaner (p^2 outside English, guards)", "justext", "kimatu"]
    groups = [
        ("multilingual", "multilingual (all)"),
        ("English (WCXB)", "en (wcxb)"),
        ("Japanese", "ja"),
    ]
    out = [
        "",
        "| held out | group | pages | `neighbours` refitted without the group | the shipped "
        "cleaner (saw most sites) | jusText | Kimatu |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for held_out, run, refitted in runs:
        rows = [_cv_tables(run, row) for row in (refitted, *systems)]
        for label, group in groups:
            if group not in rows[0]:
                continue  # Japanese is a language, not a source dataset
            cells = [row[group] for row in rows]
            if group.startswith("multilingual"):
                text = [f"{c['combined']:.3f} · {c['f1']:.3f}" for c in cells]
            else:
                text = [f"{c['f1']:.3f}" for c in cells]
            out.append(f"| {held_out} | {label} | {cells[0]['pages']:,} | {' | '.join(text)} |")
    dates = "; ".join(f"`{run}`, {_day(_result(run))}" for _, run, _ in runs)
    out += [
        "",
        "Multilingual: combined score · full-text F1; the others: full-text F1. Decided as the "
        "shipped cleaner decides (squared probabilities outside English, the page rules); "
        f"`python jobs/grouped_cv.py --nets` ({dates}).",
    ]
    return "\n".join(out) + "\n\n"


# Each page rule of `neighbours` as `jobs/grouped_cv.py` measured it when it came in: the results
# file (grouped_cv_{by}_<suffix>.json) and row before the rule, and after it.
_PAGE_RULES = [
    ("link guard", ("nets", _HELD), ("nets", f"{_HELD} + link guard")),
    ("markup guard", ("nets", f"{_HELD} + link guard"), ("nets_guards", f"{_HELD} + guards")),
    ("standfirst rescue", ("nets_lead", f"{_HELD} + guards without the lead rescue"),
     ("nets_lead", f"{_HELD} + guards")),
    ("squared probabilities outside English", ("nets_strict", f"{_HELD} + guards"),
     ("nets_strict", f"{_HELD} + guards, p^2 outside English")),
]  # fmt: skip


def page_rules_table() -> str:
    """docs/cleaners.md: what each page rule of `neighbours` changed, groups held out."""
    out = [
        "",
        "| page rule | held out | multilingual combined | multilingual F1 | `with` found "
        "| `without` present | Japanese F1 | English F1 | results files |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for rule, before, after in _PAGE_RULES:
        for by, label in (("language", "languages"), ("dataset", "source datasets")):
            runs = [(f"grouped_cv_{by}_{suffix}.json", row) for suffix, row in (before, after)]
            a, b = (_cv_tables(run, row) for run, row in runs)
            ml_a, ml_b = a["multilingual (all)"], b["multilingual (all)"]
            cells = [
                _change(ml_a.get(key), ml_b.get(key))
                for key in ("combined", "f1", "with_share", "without_share")
            ]
            ja = _change(a["ja"]["f1"], b["ja"]["f1"]) if "ja" in a else "–"
            files = ", ".join(dict.fromkeys(f"`{run}`" for run, _ in runs))
            out.append(
                f"| {rule} | {label} | {' | '.join(cells)} | {ja} "
                f"| {_change(a['en (wcxb)']['f1'], b['en (wcxb)']['f1'])} | {files} |"
            )
    out += [
        "",
        "Trees and nets refitted per fold, scored on the held-out group, before → after the rule "
        "as it was then; – where that run did not print the figure.",
    ]
    return "\n".join(out) + "\n\n"


def code_rescue_sentence(indent: str = "") -> str:
    """The code rescue on the WCXB dev pages, from ``python bench/code_rescue.py``."""
    result = _result("code_rescue.json")
    wcxb = result["wcxb-dev"]
    rescued = wcxb["rescued"]
    every, test = wcxb["all"], wcxb["test"]
    return (
        f"{indent}On the {wcxb['pages']:,} WCXB dev pages it keeps {rescued['blocks']} blocks on "
        f"{wcxb['pages_changed']} pages, {rescued['blocks_outside']} of those blocks code the "
        f"references leave out: word F1 {_change(every['off']['f1'], every['on']['f1'], 4)}, on "
        f"the held-out pages {_change(test['off']['f1'], test['on']['f1'], 4)} ({_day(result)}, "
        "`python bench/code_rescue.py`).\n"
    )


def neighbours_fast_sentence() -> str:
    """`neighbours-fast` against the default: its columns, quality and job speed."""
    from pipeline.learned.columns import CHEAP_COLUMNS, N_FEATURES

    wcxb, multi = benchmark_table(_HELD_OUT_WCXB), benchmark_table(_HELD_OUT_ML)
    name = "pipeline_issue36_fast.json"
    run = _result(name)
    if run["cleaner"] != "neighbours-fast" or run["base"]["cleaner"] != "neighbours":
        raise ValueError(f"bench/results/{name} is not neighbours-fast beside neighbours")
    ratios = run["ratios_median"]
    fast, default = "neighbours-fast", "neighbours"
    return (
        f"\nIts {len(CHEAP_COLUMNS)} of the {N_FEATURES} columns are "
        "`pipeline.learned.columns.CHEAP_COLUMNS`. Held out, against the default: WCXB word F1 "
        f"{wcxb[fast]['word F1']} against {wcxb[default]['word F1']}, multilingual combined "
        f"{multi[fast]['combined']} against {multi[default]['combined']} (the held-out table "
        "near the top of this page). "
        f"Its job does {ratios['job/job_base']:.2f}x the default's pages per CPU-second and "
        f"{ratios['job/resiliparse']:.2f}x the resiliparse front end's, the three run side by "
        f"side on {run['pages']:,} pages (`python bench/pipeline.py --cleaner neighbours-fast "
        f"--base-cleaner neighbours`, `{name}`, {_day(run)}).\n"
    )


def _bracketed(cell: str) -> tuple[float, float | None]:
    """``0.766 (0.750)`` -> (0.766, 0.750); ``0.741`` -> (0.741, None)."""
    match = re.fullmatch(r"([\d.]+)(?: \(([\d.]+)\))?", cell)
    if not match:
        raise ValueError(f"not a figure: {cell!r}")
    return float(match[1]), float(match[2]) if match[2] else None


def _seed_issue37(label: str, cleaner: str, variant: str) -> dict:
    """A row of BENCHMARKS.md's issue-37 table of the seed systems."""
    row = next(
        r
        for r in _benchmark_rows(_ISSUE37)
        if r["cleaner"] == f"`{cleaner}`" and r["variant"] == variant
    )
    wcxb, wcxb_held_out = _bracketed(row["wcxb F1 (held-out)"])
    ml, ml_held_out = _bracketed(row["ml F1 (held-out)"])
    combined, _ = _bracketed(row["ml combined (held-out)"])
    return dict(
        label=label, source=_ISSUE37_SOURCE, wcxb=wcxb, wcxb_held_out=wcxb_held_out, ml=ml,
        ml_held_out=ml_held_out, ml_combined=combined, daniel=float(row["daniel F1"]),
        empty=int(row["wcxb empty"]),
    )  # fmt: skip


def _seed_system(label: str, key: str, name: str = "seed_systems.json") -> dict:
    """A system of ``bench/seed_systems.py``'s results (or a file of the same form)."""
    s = _result(name)["systems"][key]
    return dict(
        label=label, source=f"`{name}`", wcxb=s["wcxb"]["f1"],
        wcxb_held_out=s["wcxb_held_out"]["f1"], ml=s["ml"]["f1"],
        ml_held_out=s["ml_held_out"]["f1"], ml_combined=s["ml"]["combined"],
        daniel=s["daniel"]["f1"], empty=s["wcxb"]["empty"],
    )  # fmt: skip


def _seed_step(label: str, key: str) -> dict:
    """A system of ``bench/seed_steps.py``'s results."""
    s = _result("seed_steps.json")["systems"][key]
    return dict(
        label=label, source="`seed_steps.json`", wcxb=s["wcxb"],
        wcxb_held_out=s["wcxb_held_out"], ml=s["ml"], ml_held_out=s["ml_held_out"],
        ml_combined=s["ml_combined"], daniel=s["daniel"], empty=s["empty"]["wcxb"],
    )  # fmt: skip


def _seed_eval(label: str, key: str) -> dict:
    """A wcxb-dev ``warcclean eval`` summary in ``seed_density_papers_wcxb.json``."""
    name = "seed_density_papers_wcxb.json"
    s = _result(name)["systems"][key]
    return dict(
        label=label, source=f"`{name}`", wcxb=s["overall"]["f1"],
        wcxb_held_out=s["held_out_f1"], ml=None, ml_held_out=None, ml_combined=None,
        daniel=None, empty=s["overall"]["empty"],
    )  # fmt: skip


def _seed_default(label: str, cleaner: str) -> dict:
    """A rule cleaner's default as BENCHMARKS.md's generated tables have it (daniel not run)."""
    full_w, full_m = benchmark_table(_FULL_WCXB), benchmark_table(_FULL_ML)
    held_w, held_m = benchmark_table(_HELD_OUT_WCXB), benchmark_table(_HELD_OUT_ML)
    return dict(
        label=label, source="BENCHMARKS.md's tables", wcxb=float(full_w[cleaner]["word F1"]),
        wcxb_held_out=float(held_w[cleaner]["word F1"]),
        ml=float(full_m[cleaner]["full-text F1"]),
        ml_held_out=float(held_m[cleaner]["full-text F1"]),
        ml_combined=float(full_m[cleaner]["combined"]), daniel=None,
        empty=int(full_w[cleaner]["emptied"]),
    )  # fmt: skip


def _seed_rows_table(rows: list[dict]) -> str:
    """The Markdown table of seed systems' rows."""
    out = [
        "",
        "| system | wcxb F1 (held out) | ml F1 (held out) | ml combined | daniel F1 "
        "| wcxb pages emptied | from |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        empty = "–" if r["empty"] is None else str(r["empty"])
        out.append(
            f"| {r['label']} | {_pair(r['wcxb'], r['wcxb_held_out'])} "
            f"| {_pair(r['ml'], r['ml_held_out'])} | {_num(r['ml_combined'])} "
            f"| {_num(r['daniel'])} | {empty} | {r['source']} |"
        )
    return "\n".join(out) + "\n"


def seed_variants_table() -> str:
    """docs/cleaners.md: each seed cleaner's default beside its seed's method as written."""
    rows = [
        _seed_step("`bte` default (`tag_weight=0.75`)", "bte 0.75, blocks by majority (ours)"),
        _seed_step("`bte` `tag_weight=1` (the message's)", "bte 1.0, blocks by majority"),
        _seed_default("`density-fixed` default", "density-fixed"),
        _seed_step("`density-fixed` `variant=paper`", "density-fixed paper (ours)"),
        _seed_default("`density-mean` default", "density-mean"),
        _seed_step("`density-mean` `variant=paper`", "density-mean paper (ours)"),
        _seed_issue37("`density-stddev` default", "density-stddev", "project (default)"),
        _seed_eval("`density-stddev` `variant=paper`", "density-stddev-paper"),
        _seed_issue37("`density-lm` default", "density-lm", "project (default)"),
        _seed_system("`density-lm` `variant=paper`", "density-lm-paper"),
        _seed_issue37("`density-mlp` default (the article's method)", "density-mlp",
                      "paper (default)"),
        _seed_issue37("`density-mlp` `variant=project`", "density-mlp", "project"),
        _seed_system("`kimatu` default", "kimatu"),
        _seed_system("`kimatu` `variant=paper`", "kimatu-paper"),
    ]  # fmt: skip
    return (
        _seed_rows_table(rows)
        + "\nWord F1 on every page of each set, its held-out test pages in brackets; ml is "
        "multilingual-dev, – where that run did not cover the set.\n\n"
    )


def seed_sets_sentence() -> str:
    """docs/seeds.md: the pages its figures are measured on."""
    s = _result("seed_systems.json")["systems"]["kimatu"]
    languages = ", ".join(sorted(s["daniel_by_language"]))
    return (
        "\nAll figures are word F1 (characters for zh, ja, th, my) as `warcclean eval` scores "
        f"it: on every page of wcxb-dev ({s['wcxb']['pages']:,} pages), multilingual-dev "
        f'({s["ml"]["pages"]:,}, "ml") and daniel ({s["daniel"]["pages"]:,} news pages in '
        f"{languages}, evaluation only), and in brackets on the held-out test sites of "
        f"`jobs/train_cleaner.py`'s split ({s['wcxb_held_out']['pages']} wcxb and "
        f"{s['ml_held_out']['pages']} ml pages), on which no model was fitted and no constant "
        "chosen.\n"
    )


def _seed_section_rows(seed: str) -> list[dict]:
    """The measured systems of one seed text (docs/seeds.md's sections 000 to 003)."""
    if seed == "000":
        return [
            _seed_issue37("`density-stddev` default: population σ over every block",
                          "density-stddev", "project (default)"),
            _seed_issue37("`density-stddev` paper: sample σ of the kept chunks, on our blocks",
                          "density-stddev", "paper"),
            _seed_eval("`density-stddev` paper, on Pal's source lines as now counted",
                       "density-stddev-paper"),
            _seed_issue37("`density-lm` default: our blocks, our filter and models",
                          "density-lm", "project (default)"),
            _seed_issue37("`density-lm` paper, on our blocks", "density-lm",
                          "paper, `unit=blocks`"),
            _seed_issue37("`density-lm` paper, on source lines as first counted", "density-lm",
                          "paper (source lines)"),
            _seed_system("`density-lm` paper, on Pal's lines as now counted, kept lines mapped "
                         "onto blocks", "density-lm-paper"),
            _seed_step("the same, the kept lines' own text (as written)",
                       "density-lm paper, kept lines' text (as written)"),
            _seed_system("the same, the models retrained on those lines (not shipped)",
                         "density-lm-paper-retrained", "seed_density_lm_paper_retrained.json"),
        ]  # fmt: skip
    if seed == "001":
        return [
            _seed_default("`density-fixed` default: our blocks", "density-fixed"),
            _seed_step("`density-fixed` paper: the article's paragraphs",
                       "density-fixed paper (ours)"),
            _seed_step("the same, two bytes per written break (as written)",
                       "density-fixed paper, two bytes per break (as written)"),
            _seed_default("`density-mean` default: our blocks", "density-mean"),
            _seed_step("`density-mean` paper: the article's paragraphs",
                       "density-mean paper (ours)"),
            _seed_step("the same, two bytes per written break (as written)",
                       "density-mean paper, two bytes per break (as written)"),
            _seed_issue37("`density-mlp` paper (default): the network on every paragraph",
                          "density-mlp", "paper (default)"),
            _seed_issue37("`density-mlp` project: the mean filter, then the network on blocks",
                          "density-mlp", "project"),
            _seed_issue37("`density-mlp` paper's network on our blocks (no parsed page)",
                          "density-mlp", "paper, without the page"),
        ]  # fmt: skip
    if seed == "002":
        return [
            _seed_step("tag weight 1 (the message's), the stretch's tokens (as written)",
                       "bte 1.0, tokens of the stretch (as written)"),
            _seed_step("tag weight 1, blocks by majority", "bte 1.0, blocks by majority"),
            _seed_step("tag weight 0.75, the stretch's tokens", "bte 0.75, tokens of the stretch"),
            _seed_step("tag weight 0.75, blocks by majority (`bte`'s default)",
                       "bte 0.75, blocks by majority (ours)"),
        ]  # fmt: skip
    if seed == "003":
        return [
            _seed_step("`justext` default (the package's rules)", "justext"),
            _seed_step("`<header>` contents removed (as written)", "justext, <header> dropped"),
            _seed_step("`<select>` contents bad blocks (as written)",
                       "justext, <select> contents bad (as written)"),
            _seed_system("stopword densities compared with `>` (as written)", "justext-strict"),
            _seed_system("heading pre-pass run (as written, `fix_heading_bug=true`)",
                         "justext-heading-pass"),
        ]  # fmt: skip
    raise ValueError(f"no measured systems for seed {seed}")


def seed_table(seed: str) -> str:
    """docs/seeds.md's table of one seed text's systems, as written and as we run them."""
    out = _seed_rows_table(_seed_section_rows(seed))
    if seed == "003":
        pages = _result("seed_steps.json")["pages_with_header_blocks"]
        out += (
            f"\nPages with a block inside `<header>`: {pages['wcxb']:,} wcxb, {pages['ml']:,} ml "
            f"and {pages['daniel']:,} daniel pages.\n"
        )
    return out + "\n"


def kimatu_table() -> str:
    """docs/seeds.md: Kimatu's two variants from seed_systems.json, and their differences."""
    systems = _result("seed_systems.json")["systems"]
    project, paper = systems["kimatu"], systems["kimatu-paper"]
    languages = sorted(project["daniel_by_language"])
    sets = ("wcxb", "wcxb_held_out", "ml", "ml_held_out", "daniel")
    out = [
        "",
        "| variant | wcxb F1 (held out) | wcxb empty | ml F1 (held out) | ml combined (held out) "
        f"| daniel F1 | daniel {' / '.join(languages)} | daniel empty | failures "
        "| median ms (wcxb) |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for label, s in (("project (default)", project), ("paper", paper)):
        by_language = " / ".join(f"{s['daniel_by_language'][k]:.3f}" for k in languages)
        out.append(
            f"| {label} | {_pair(s['wcxb']['f1'], s['wcxb_held_out']['f1'])} "
            f"| {s['wcxb']['empty']} | {_pair(s['ml']['f1'], s['ml_held_out']['f1'])} "
            f"| {_pair(s['ml']['combined'], s['ml_held_out']['combined'])} "
            f"| {s['daniel']['f1']:.3f} | {by_language} | {s['daniel']['empty']} "
            f"| {sum(s[k]['failures'] for k in sets)} | {s['wcxb']['median_ms']:.1f} |"
        )

    def gain(key: str, field: str = "f1") -> str:
        return f"{paper[key][field] - project[key][field]:+.3f}"

    worst = min(
        languages, key=lambda k: paper["daniel_by_language"][k] - project["daniel_by_language"][k]
    )
    worst_gain = paper["daniel_by_language"][worst] - project["daniel_by_language"][worst]
    slower = paper["wcxb"]["median_ms"] / project["wcxb"]["median_ms"]
    out += [
        "",
        f"The paper's variant against the project's: wcxb {gain('wcxb')} (held out "
        f"{gain('wcxb_held_out')}), ml F1 {gain('ml')} (held out {gain('ml_held_out')}, combined "
        f"{gain('ml_held_out', 'combined')}), daniel {gain('daniel')} ({worst} {worst_gain:+.3f}); "
        f"its median time {slower:.1f}x the project's, from runs one after the other on a shared "
        f"machine, not side by side ({_day({'date': paper['when']})}).",
    ]
    return "\n".join(out) + "\n\n"


_TRIAL = re.compile(
    r"round (\d+) (\w+)=(\S+): wcxb \S+ ml \S+ objective ([\d.]+) \(best ([\d.]+)\)"
)


def _search_log(name: str) -> tuple[float, list[tuple[int, str, str, float, float]]]:
    """A Kimatu constants search log: the start objective, then each trial's figures."""
    lines = (RESULTS / name).read_text(encoding="utf-8").splitlines()
    start = next(line for line in lines if line.startswith("start "))
    match = re.search(r"'objective': ([\d.]+)", start)
    if not match:
        raise ValueError(f"bench/results/{name} has no starting objective")
    trials = [
        (int(m[1]), m[2], m[3], float(m[4]), float(m[5])) for m in map(_TRIAL.fullmatch, lines) if m
    ]
    return float(match[1]), trials


def kimatu_constants_sentence() -> str:
    """How the Kimatu constants the paper leaves open were chosen, from the search's logs."""
    start, trials = _search_log("kimatu_paper_constants_search.log")
    shipped, confirm = _search_log("kimatu_paper_constants_confirm.log")
    stopped = max(start, *(t[3] for t in trials))
    element = next(t for t in trials if t[1] == "aspect" and t[2] == "'element'")
    better = sum(t[3] > shipped for t in confirm)
    return (
        "\nThe constants the paper leaves open are ours: each was chosen by coordinate search on "
        "the train and selection sites of wcxb-dev and multilingual-dev "
        "(`bench/kimatu_paper_constants.py`; the held-out test sites never read), objective the "
        "mean of wcxb word F1 and the multilingual combined score. The search was interrupted "
        f"by an environment restart in round {trials[-1][0]} (its log: "
        f"`bench/results/kimatu_paper_constants_search.log`): objective {start:.3f} at the "
        f"first guesses, {stopped:.3f} when stopped; the values are where it stood then, except "
        "`min_relevance` (step 13), which the search had raised to a bound no header passes: "
        f'the shipped values score {shipped:.3f}. In round {element[0]}, `aspect="element"` scored '
        f"{element[3]:.3f} against {element[4]:.3f} for the path (step 2). A confirming pass "
        f"from the shipped values (`bench/results/kimatu_paper_constants_confirm.log`) was "
        f"stopped for time after {len(confirm)} trials, {better or 'none'} of which did better.\n"
    )


def justext_package_sentence() -> str:
    """Our jusText against the package on the WCXB dev pages, from ``python bench/cleaner.py``."""
    result = _result("cleaner.json")
    ours, pkg = result["summary"]["ours justext"], result["summary"]["justext pkg"]
    return (
        f"\n`python bench/cleaner.py`, which runs both on the {result['pages']:,} WCXB dev pages "
        f"(English stoplist), scores ours word F1 {ours['word_f1']:.3f} against the package's "
        f"{pkg['word_f1']:.3f}, at {ours['speedup_vs_justext_pkg']:.1f}x its pages per second "
        f"({_day(result)}).\n"
    )


def justext_han_kana_sentence(indent: str = "") -> str:
    """jusText's zh and ja full-text F1 with Han and kana counted twice."""
    table = benchmark_table(_FULL_ML_LANGUAGES)["justext"]

    def f1(language: str) -> str:
        column = next(c for c in table if c.startswith(f"{language} ("))
        return table[column].split(" / ")[0]

    return (
        f"{indent}With `han_kana_weight=2` jusText's full-text F1 on multilingual-dev is "
        f"{f1('zh')} on Chinese and {f1('ja')} on Japanese pages (BENCHMARKS.md's per-language "
        "table). The package's count, `han_kana_weight=1`, is measured by `python "
        "bench/seed_systems.py --only justext-han-kana-1`, whose row is not in "
        "`bench/results/seed_systems.json` yet.\n"
    )


# README.md and the other docs
#
# docs/library.md, output.md, report.md, running.md and development.md print their measured
# figures from here, each from the results file its bench script writes or from a shipped file.


def _span(values: list[float], spec: str) -> str:
    """``values`` as ``low-high`` in the format ``spec``; one value when both ends print alike."""
    low, high = format(min(values), spec), format(max(values), spec)
    return low if low == high else f"{low}-{high}"


def language_profiles_size() -> str:
    """docs/library.md's size of the language profiles' arrays, as ``pipeline.lang.profiles``
    builds them from langdetect's data."""
    import dataclasses

    import numpy as np

    from pipeline.lang import profiles

    model = profiles.model()
    arrays = [getattr(model, f.name) for f in dataclasses.fields(model)]
    total = sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))
    grams, languages = model.scores.shape[0] - 1, len(model.languages)
    return (
        f"The arrays take {total / 1e6:.0f} MB: the scores of {grams:,} n-grams in "
        f"{languages} language profiles and the tables that find a gram's row.\n"
    )


def langid_sentence(indent: str = "") -> str:
    """docs/library.md's accuracy and cost of language detection beside langdetect's own detector
    (``python bench/langid.py``, bench/results/langid_scripts.json)."""
    result = _result("langid_scripts.json")
    sets = result["results"]
    right, ratios, medians = [], [], []
    for name, run in sets.items():
        ours, theirs = run["new (langid)"], run["old (langdetect)"]
        pages = run["pages_with_text"]
        right.append(
            f"{name.split(' (')[0]} {ours['right'] / pages:.3f} against "
            f"{theirs['right'] / pages:.3f}"
        )
        ratios.append(theirs["median_ms"] / ours["median_ms"])
        medians.append(ours["median_ms"])
    daniel = sets["daniel"]
    chinese = daniel["per_language_pages_old_new"]["zh"][0]
    as_korean = daniel["old (langdetect)"]["wrong"].get("zh->ko", 0)
    return (
        f"{indent}Pages right among those with text, ours against langdetect's own detector: "
        f"{', '.join(right)} (langdetect calls {as_korean} of daniel's {chinese} Chinese pages "
        f"Korean); {_span(medians, '.2f')} ms a page at the median, {_span(ratios, '.1f')}x "
        f"less than langdetect ({_day(result)}, `{result['command']}`).\n"
    )


def metadata_sentence() -> str:
    """docs/output.md's title agreement and cost of the head's metadata pass
    (``python bench/metadata.py``, bench/results/metadata.json)."""
    result = _result("metadata.json")
    wcxb, cost = result["sets"]["wcxb-dev"], result["cost"]
    title, head = wcxb["title"], cost["head_pass_us"]
    pages = title["pages_with_og_title_or_title"]
    exact, decoded = (round(title[k] * pages) for k in ("exact", "same_after_entities"))
    return (
        f"On the {wcxb['pages']:,} WCXB dev pages `title` is filled on "
        f"{wcxb['filled']['title']:,} and equals the page's `og:title`, else its `<title>`, on "
        f"{exact:,}, and on {decoded:,} once entities are decoded. The pass adds "
        f"{head['added_median'] / 1000:.2f} ms to a page at the median, "
        f"{head['added_mean_share_of_page']:.1%} of a page's cleaning on average "
        f"({str(result['when'])[:10]}, `{result['command']}`).\n"
    )


def title_heading_sentence() -> str:
    """docs/output.md's word F1 with the title heading rule off and on
    (bench/results/title_heading_eval.json) and the rule's cost (bench/results/metadata.json)."""
    sets = _result("title_heading_eval.json")["sets"]
    moves = ", ".join(
        f"{name.replace(' test part', '')} {s['title_heading_off']['f1']:.4f} → "
        f"{s['title_heading_on']['f1']:.4f}"
        for name, s in sets.items()
    )
    rule_ms = _result("metadata.json")["cost"]["title_rule_us"]["median"] / 1000
    return (
        f"Word F1 off → on: {moves} (`warcclean eval DIR --cleaner neighbours --param "
        f"title_heading=false|true`, bench/results/title_heading_eval.json); the rule takes "
        f"{rule_ms:.2f} ms a page at the median (`python bench/metadata.py`).\n"
    )


def page_type_cost_sentence() -> str:
    """docs/output.md's cost of the page-type classifier in a library call
    (``python bench/page_type_cost.py``, bench/results/page_type_cost.json, and the same bench
    run on the code before its scans were compiled, page_type_cost_before_stop72.json)."""
    result = _result("page_type_cost.json")
    cost = result["result"]
    before = _result("page_type_cost_before_stop72.json")["result"]
    target = cost["target_ratio"]
    if cost["ratio"] <= target:
        verdict = "within"
    elif cost["ratio"] <= target + 0.02:
        verdict = "just over"
    else:
        verdict = "over"
    return (
        f"The classification costs {cost['median_classify_ms']:.2f} ms a page at the median: "
        f"the library call with it is {cost['ratio']:.2f}x the call without it by medians, "
        f"{cost['ratio_of_totals']:.2f}x by totals ({cost['share_of_total_cpu']:.0%} of its CPU), "
        f"{verdict} the issue's bound of {target:g}x for a default (it was "
        f"{before['ratio']:.2f}x before its scans of the markup and the phrases became C loops; "
        f"`python bench/page_type_cost.py --pages {cost['pages']} --rounds {cost['rounds']}`, "
        f"{_day(result)}).\n"
    )


def page_type_accuracy() -> str:
    """docs/output.md's accuracy of the page-type classifier and what it calls other sets' pages,
    as the model file records them (pipeline/models/page-type.json)."""
    meta = _model_metadata(REPO / "pipeline" / "models" / "page-type.json")
    elsewhere = meta["predicted_elsewhere"]
    ml, daniel = elsewhere["multilingual-dev"], elsewhere["daniel"]
    mh = meta["magic_html"]
    return (
        f"On the {meta['test_pages']} WCXB pages of the held-out test sites it names the type "
        f"right on {meta['test_accuracy']:.3f}, and on {meta['test_accuracy_without_urls']:.3f} "
        f"of them when no URL is given; on magic-html's {mh['test_pages']} held-out articles and "
        f"forum threads in several languages, {mh['test_accuracy']:.3f} "
        f"({mh['test_accuracy_without_urls']:.3f} without URLs); "
        f"of multilingual-dev's {sum(ml.values())} pages, mostly news, it "
        f"calls {ml['article']} `article`, and of daniel's {sum(daniel.values()):,} news pages, "
        f"which have no URL, {daniel['article']} `article` and {daniel['listing']} `listing` "
        "(the model file's metadata, `pipeline/models/page-type.json`).\n"
    )


def report_cost_sentence() -> str:
    """docs/report.md's cost of writing the HTML report at the end of a job
    (``python bench/report.py``, bench/results/report.json)."""
    result = _result("report.json")
    runs = [run for run in result["runs"] if run["html"]]
    seconds = _span([run["report_seconds"] for run in runs], ".1f")
    shares = _span([run["overhead"] for run in runs], ".1%")
    return (
        f"On {result['pages']:,} pages that step took {seconds} s, {shares} of the job's wall "
        f"time (target: under {result['target_overhead_max']:.0%}; {len(runs)} runs, "
        f"{_day(result)}, `{result['command']}`).\n"
    )


def failures_sentence(indent: str = "") -> str:
    """docs/running.md's lines on stderr for inputs that cannot be read, before and after
    (``python bench/failures.py``, bench/results/failures.json)."""
    result = _result("failures.json")
    after, before = result["runs"]["after"], result["runs"]["before"]
    return (
        f"{indent}With {len(after['lines_per_input'])} unreadable inputs the job prints "
        f"{after['stderr_lines']} lines on stderr and exits {after['exit_code']} "
        f"({_day(result)}, `python bench/failures.py`; before this, {before['stderr_lines']} lines "
        f"with {before['compute_failed_blocks']} of Dask's `Compute Failed` blocks, one per "
        "attempt).\n"
    )


# The gain in word F1 that issue 52 asked of the site stage's defaults on daniel's test half.
SITE_STAGE_TARGET = 0.01


def site_stage_sentence() -> str:
    """docs/running.md's word F1 of the site stage's defaults on daniel's two halves, and what the
    other rules of its grid gave (``python bench/site_stage.py``, bench/results/site_stage.json)."""
    result = _result("site_stage.json")
    off, on = result["scores"]["off"], result["scores"]["on"]
    chosen = result["chosen"]

    def setting(**changes: int) -> dict:
        wanted = {**chosen, **changes}
        return next(g for g in result["grid"] if all(g[k] == v for k, v in wanted.items()))

    languages = [k for k in on["test"] if k != "all"]
    test = {k: on["test"][k] - off["test"][k] for k in on["test"]}
    dev = {k: on["dev"][k] - off["dev"][k] for k in on["dev"]}
    worst_dev = min(languages, key=lambda k: dev[k])
    falls = [k for k in languages if test[k] < 0]
    spare_long = setting(long_pages=0)["test"]["all"] - off["test"]["all"]
    count_all = setting(max_chars=0, long_pages=0)
    count_all_dev = count_all["dev"][worst_dev] - off["dev"][worst_dev]
    verdict = "meeting" if test["all"] >= SITE_STAGE_TARGET else "short of"
    identical = result["identical"]
    return (
        f"\nOn the test half's {result['sites']['test']} sites word F1 goes from "
        f"{off['test']['all']:.4f} to {on['test']['all']:.4f} ({test['all']:+.4f}; "
        + ", ".join(f"{k} {test[k]:+.4f}" for k in languages)
        + (f": {', '.join(falls)} falls" if falls else ": no language falls")
        + f"), {verdict} the {SITE_STAGE_TARGET:+g} the issue asks (sparing every block of "
        f"{chosen['max_chars']} characters or more, the earlier default, gave {spare_long:+.4f}); "
        f"on the dev half {dev['all']:+.4f}, {worst_dev} {dev[worst_dev]:+.4f}, where counting "
        f"every block alike at K {chosen['k']} gave {worst_dev} {count_all_dev:+.4f}. "
        f"{result['duplicates']} documents are marked duplicates, and the "
        f"{identical['single_page_site_docs']:,} documents of single-page sites and the "
        f"{identical['docs_without_repeat']:,} with no `repeat` block are byte-identical to a run "
        f"without the stage ({identical['differ']} differ; `python bench/site_stage.py`).\n"
    )


def site_memory_sentence() -> str:
    """docs/running.md's peak worker memory of the site stage, shuffled and gathered, over
    daniel's output and one 4 times larger (``python bench/site_cost.py``)."""
    result = _result("site_cost.json")
    memory = result["memory"]

    def peak(run: str) -> str:
        return f"{max(memory[run]['worker_peak_rss_mib']):.0f} MiB"

    small, large = memory["shuffled_x1"], memory["shuffled_x4"]
    return (
        f"Shuffled, peak worker RSS over daniel's output ({small['docs']:,} documents, "
        f"{small['files']} files) was {peak('shuffled_x1')}, and {peak('shuffled_x4')} over one "
        f"{large['docs'] / small['docs']:.0f} times larger ({large['docs']:,} documents, "
        f"{large['files']} files), {result['rss_growth_x4']:+.1%}"
        + (
            f", and {peak('shuffled_x16')} over one 16 times larger "
            f"({memory['shuffled_x16']['docs']:,} documents, {memory['shuffled_x16']['files']} "
            f"files), {result['rss_growth_x16']:+.1%}"
            if "shuffled_x16" in memory
            else ""
        )
        + "; gathered, "
        + f"{peak('gathered_x1')} and {peak('gathered_x4')} ({_day(result)}, `python "
        "bench/site_cost.py`, each worker's VmHWM; runs before 2026-11-30 23:40 UTC read "
        "`ru_maxrss`, which on Linux keeps the spawning process's peak across the exec, so "
        "their figures were mostly the bench's own memory).\n"
    )


def schema3_cost_sentence() -> str:
    """docs/running.md's cost of schema 3's columns to the cleaning pass's writer
    (``python bench/schema3_write.py``, bench/results/schema3_write.json)."""
    result = _result("schema3_write.json")
    ms = result["ms_per_doc"]
    extra = ms["shape"] + ms["write3"] - ms["write2"]
    return (
        f"The schema-3 columns cost the cleaning pass's writer {extra:.2f} ms per document "
        f"(the blocks' `shape` built and the three columns written, medians of "
        f"{result['rounds']} rounds over {result['docs']:,} WCXB documents, "
        "`python bench/schema3_write.py`).\n"
    )


def compiled_speedups_table() -> str:
    """docs/development.md's table of what compiling the hot modules saved, from the bench
    scripts' results (guard_overhead.json, segment.json, features.json)."""
    guard = _result("guard_overhead.json")
    segment = _result("segment.json")
    walks = segment["summary"]
    features = _result("features.json")
    both = features["summary_ms"]

    def ms(run: str) -> float:
        return walks[run]["median_ms"]

    source = (
        f"`python bench/segment.py`, `segment.json`, {segment['pages']:,} pages, {_day(segment)}"
    )

    rows = [
        (
            "`pipeline/html/markup_scan.pyx`",
            f"the guard's scans {guard['guard_ms_mean_python_code']:.2f} → "
            f"{guard['guard_ms_mean']:.2f} ms a page on average (median "
            f"{guard['guard_ms_median_python_code']:.2f} → {guard['guard_ms_median']:.2f}), "
            "against guard.py's numpy and regex code",
            f"`python bench/guard_overhead.py`, `guard_overhead.json`, {guard['pages']:,} pages",
        ),
        (
            "`pipeline/html/walk.py`",
            f"{ms('python source') / ms('python api walk'):.1f}x faster than its source "
            f"interpreted ({ms('python api walk'):.2f} against {ms('python source'):.2f} ms), "
            f"{ms('python source +runs') / ms('python api walk +runs'):.1f}x with BTE runs",
            source,
        ),
        (
            "`pipeline/html/lexbor_walk.pyx`",
            f"{ms('python api walk') / ms('c walk'):.1f}x faster again ({ms('c walk'):.2f} "
            f"against {ms('python api walk'):.2f} ms), "
            f"{ms('python api walk +runs') / ms('c walk +runs'):.1f}x with BTE runs "
            f"({ms('c walk +runs'):.2f} against {ms('python api walk +runs'):.2f}); the parse "
            f"itself {ms('parse'):.2f} ms",
            source,
        ),
        (
            "`pipeline/learned/features.py`",
            f"the block features {both['old']['both']['median_ms']:.2f} → "
            f"{both['new']['both']['median_ms']:.2f} ms a page "
            f"({features['speedup_median']['both']:.1f}x) against the module it replaced",
            f"`python bench/features.py`, `features.json`, {features['pages']:,} pages, "
            f"{_day(features)}",
        ),
    ]
    out = [
        "",
        "Measured on the WCXB dev pages, medians per page unless said:",
        "",
        "| module | compiled against before | command, results |",
        "|---|---|---|",
    ]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out) + "\n\n"


def list_rescue_sentence(indent: str = "") -> str:
    """The list rescue and the edge rules not shipped, from ``python bench/edge_recall.py``."""
    result = _result("edge_recall.json")
    rows = result["rows"]
    base = rows["guards without the list rescue"]["scores"]

    def added(name: str) -> tuple[int, int]:
        chars = rows[name]["added"].values()
        return sum(c.get("content", 0) for c in chars), sum(c.get("boilerplate", 0) for c in chars)

    shipped = rows["both (shipped)"]["scores"]

    def f1(group: str) -> str:
        return _change(base[group]["f1"], shipped[group]["f1"], 4)

    inside, outside = added("both (shipped)")
    cap_in, cap_out = added("captions")
    head_in, head_out = added("section headings")
    return (
        f"{indent}On answers for sites the model was not fitted on ({result['pages']:,} training "
        f"pages, 5 folds of whole sites) it adds {inside:,} characters of reference text and "
        f"{outside:,} outside it: WCXB word F1 {f1('wcxb')} (collection {f1('wcxb collection')}, "
        f"product {f1('wcxb product')}). "
        f"Not shipped, on the same answers: figure captions between kept blocks ({cap_in:,} "
        f"characters in the references, {cap_out:,} outside) and headings above kept prose "
        f"({head_in:,} against {head_out:,}) ({_day(result)}, `python bench/edge_recall.py`).\n"
    )
