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
    (``python bench/page_type_cost.py``, bench/results/page_type_cost.json)."""
    result = _result("page_type_cost.json")
    cost = result["result"]
    verdict = "over" if cost["ratio"] > cost["target_ratio"] else "within"
    return (
        f"The classification costs {cost['median_classify_ms']:.2f} ms of a "
        f"{cost['median_call_ms']:.2f} ms median library call, {cost['ratio']:.2f}x the call "
        f"without it ({cost['share_of_total_cpu']:.0%} of the call), {verdict} the issue's bound "
        f"of {cost['target_ratio']:g}x for a default (`python bench/page_type_cost.py --pages "
        f"{cost['pages']}`, {_day(result)}).\n"
    )


def page_type_accuracy() -> str:
    """docs/output.md's accuracy of the page-type classifier and what it calls other sets' pages,
    as the model file records them (pipeline/models/page-type.json)."""
    meta = _model_metadata(REPO / "pipeline" / "models" / "page-type.json")
    elsewhere = meta["predicted_elsewhere"]
    ml, daniel = elsewhere["multilingual-dev"], elsewhere["daniel"]
    return (
        f"On the {meta['test_pages']} pages of the held-out test sites it names the type right on "
        f"{meta['test_accuracy']:.3f}, and on {meta['test_accuracy_without_urls']:.3f} of them "
        f"when no URL is given; of multilingual-dev's {sum(ml.values())} pages, mostly news, it "
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
    # The run before this one, kept beside it: a p2p shuffle's buffers peak differently per run.
    before = _result("site_cost-pairs3.json")["rss_growth_x4"]
    return (
        f"Shuffled, peak worker RSS over daniel's output ({small['docs']:,} documents, "
        f"{small['files']} files) was {peak('shuffled_x1')}, and {peak('shuffled_x4')} over one "
        f"{large['docs'] / small['docs']:.0f} times larger ({large['docs']:,} documents, "
        f"{large['files']} files), {result['rss_growth_x4']:+.1%}; gathered, "
        f"{peak('gathered_x1')} and {peak('gathered_x4')} ({_day(result)}, `python "
        "bench/site_cost.py`; the shuffled growth moves between runs: the run before, "
        f"`site_cost-pairs3.json`, gave {before:+.1%}).\n"
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
