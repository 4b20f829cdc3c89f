"""The run report as one self-contained HTML file: charts inline, no script, nothing fetched.

`build_report(OUT)` counts an output directory (`pipeline.report.collect`) and renders it;
`write_report` also writes the file (local path or fsspec URL). The job calls it after each run
(``OUT/_runs/<time>.html`` beside the JSON) and ``warcclean report OUT`` rebuilds it at any time.
Without matplotlib the report has every table and a line saying how to get the charts.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import shlex
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from fsspec.core import url_to_fs

from pipeline.output.schema import METADATA_COLUMNS
from pipeline.output.sink import write_atomic
from pipeline.report import charts
from pipeline.report.collect import (
    MAX_CATEGORY_VALUES,
    MAX_REJECT_EXAMPLES,
    Histogram,
    OutputSummary,
    collect,
    sessions,
)
from pipeline.report.markup import Child, Safe, document, el, fmt_float, fmt_int
from pipeline.report.plural import agree, count

# Tables list at most this many rows (the rest is summed in one row) so that a report over
# 100,000 inputs stays a readable page.
MAX_ROWS = 40


def build_report(
    output: str,
    *,
    storage_options: dict[str, Any] | None = None,
    extra_runs: Iterable[tuple[str, dict[str, Any]]] = (),
    with_charts: bool | None = None,
) -> str:
    """The HTML report of everything under ``output`` (see `collect` for what it reads).

    ``with_charts`` None draws the charts when matplotlib is installed.
    """
    summary = collect(output, storage_options=storage_options, extra_runs=extra_runs)
    return render_report(summary, with_charts=with_charts)


def write_report(
    output: str,
    path: str,
    *,
    storage_options: dict[str, Any] | None = None,
    extra_runs: Iterable[tuple[str, dict[str, Any]]] = (),
    with_charts: bool | None = None,
) -> str:
    """Build the report of ``output`` and write it to ``path`` (atomically); return ``path``."""
    page = build_report(
        output,
        storage_options=storage_options,
        extra_runs=extra_runs,
        with_charts=with_charts,
    )
    fs, fs_path = url_to_fs(path, **(storage_options or {}) if "://" in path else {})
    # Like every other file of the output: a full disk must not leave half a report behind.
    write_atomic(fs, fs_path, page.encode("utf-8"))
    return path


def warm_up() -> threading.Thread | None:
    """Import matplotlib's figure and SVG modules in a background thread.

    A job's client waits idle while the workers run, so the job starts this first and joins it
    before writing the report: the imports and matplotlib's font cache (most of a cold report's
    time, bench/report.py) then cost no wall time. Nothing is drawn: once these are loaded, the
    first drawing of the charts costs what a second one does (0.21 s of CPU each on a 4,000-page
    output), so a warm-up drawing only added its CPU. None without matplotlib.
    """
    if importlib.util.find_spec("matplotlib") is None:
        return None

    def load() -> None:
        # A failure here shows again, with its reason, when the job draws the real report.
        with contextlib.suppress(Exception):
            charts.load()

    thread = threading.Thread(target=load, name="warcclean-report-warm-up", daemon=True)
    thread.start()
    return thread


def render_report(summary: OutputSummary, *, with_charts: bool | None = None) -> str:
    if with_charts is None:
        with_charts = charts.available()
    title = "warcclean run report"
    body = [
        el("h1", title),
        el("p", "Output ", el("code", summary.output), class_="sub"),
        _problems(summary),
        _limited(summary),
        _cards(summary),
        _charts(summary) if with_charts else _no_charts(),
        _languages(summary),
        _page_types(summary),
        _reasons(summary),
        _reject_examples(summary),
        _distributions(summary),
        _structure(summary),
        _metadata(summary),
        _site_stage(summary),
        _cleaners(summary),
        _page_columns(summary),
        _failed(summary),
        _issues(summary),
        _throughput(summary),
        _runs(summary),
    ]
    return document(title, body)


def _section(title: str, *content: Child, id_: str | None = None) -> Safe:
    return el("section", el("h2", title), *content, id=id_)


def _table(
    heads: Sequence[str], rows: Sequence[Safe], numeric: Iterable[str] = (), **attrs: object
) -> Safe:
    """A table with a header row; the ``numeric`` columns' headers align right like their cells."""
    right = set(numeric)
    head = el("tr", [el("th", h, class_="n") if h in right else el("th", h) for h in heads])
    return el("table", el("thead", head), el("tbody", rows), **attrs)


def _problems(summary: OutputSummary) -> Safe:
    if not summary.problems:
        return Safe("")
    return el(
        "div",
        el("b", "Check the output: "),
        el("ul", [el("li", p) for p in summary.problems]),
        class_="warn",
        id="problems",
    )


def _limited(summary: OutputSummary) -> Safe:
    limited = [i for i in summary.inputs if i.limit is not None]
    if not limited:
        return Safe("")
    limits = sorted({i.limit for i in limited if i.limit is not None})
    return el(
        "p",
        f"{count(len(limited), 'input')} {agree(len(limited), 'was', 'were')} read only up to "
        f"--limit {', '.join(f'{n:,}' for n in limits)} (a trial run: the first records of "
        "each, their markers named _done/<stem>.limited.json). A run without --limit reads "
        f"{agree(len(limited), 'it', 'them')} whole and replaces their files.",
        class_="note",
        id="limited",
    )


def _card(value: str, label: str) -> Safe:
    return el("div", el("b", value), el("span", label), class_="card")


def _cards(summary: OutputSummary) -> Safe:
    seconds = sum(r.seconds for r in summary.runs)
    done, failed, runs = len(summary.inputs), len(summary.failed), len(summary.runs)
    chars = summary.text_chars
    return el(
        "div",
        _card(fmt_int(done), agree(done, "input done", "inputs done")),
        _card(fmt_int(failed), agree(failed, "input failed", "inputs failed")),
        _card(fmt_int(summary.records), agree(summary.records, "record read", "records read")),
        _card(fmt_int(summary.docs), agree(summary.docs, "document", "documents")),
        _card(fmt_int(summary.n_rejects), "rejected"),
        _card(fmt_int(summary.n_skipped), "skipped (not pages)"),
        # Millions only where they read as such: a small output shows its exact count.
        _card(
            fmt_int(chars) if chars < 1_000_000 else f"{chars / 1e6:,.1f} M",
            agree(chars, "character of text", "characters of text"),
        ),
        _card(fmt_int(runs), f"{agree(runs, 'run', 'runs')}, {seconds:,.0f} s"),
        class_="cards",
        id="totals",
    )


def _no_charts() -> Safe:
    if charts.available():
        return el("p", "Charts left out on request.", class_="note", id="no-charts")
    return el(
        "p",
        "Charts need matplotlib, which is not installed: ",
        el("code", charts.INSTALL_HINT),
        " adds them; the tables below hold the same numbers.",
        class_="note",
        id="no-charts",
    )


def _top(counter: Counter[str], limit: int = 20) -> list[tuple[str, int]]:
    items = counter.most_common()
    if len(items) <= limit:
        return items
    rest = sum(n for _, n in items[limit - 1 :])
    return [*items[: limit - 1], (f"{len(items) - limit + 1} others", rest)]


def _charts(summary: OutputSummary) -> Safe:
    figures: list[tuple[Safe, str]] = []
    if summary.docs_by_language:
        figures.append(
            (
                charts.bar_chart(
                    _top(summary.docs_by_language),
                    "Documents per language",
                    "documents",
                    "c-lang-",
                ),
                "Detected language of every document (partition of docs/).",
            )
        )
    reasons = [(f"rejected: {k}", v) for k, v in summary.rejects_by_reason.most_common()]
    skips = [(f"skipped: {k}", v) for k, v in summary.skipped_by_type.most_common()]
    if reasons or skips:
        items = (reasons + skips)[:24]
        colors = [charts.ORANGE if k.startswith("rejected") else charts.GREY for k, _ in items]
        figures.append(
            (
                charts.bar_chart(items, "Rejections and skips", "records", "c-why-", colors),
                "Rejected: a page that gave no document (rejects/). Skipped: records that are "
                "not pages (requests, metadata, ...), counted in the markers.",
            )
        )
    if summary.length.total:
        figures.append(
            (
                charts.histogram_chart(
                    summary.length,
                    "Text length per document",
                    "characters of kept text (log scale)",
                    "c-len-",
                    log_x=True,
                ),
                "Characters of each document's text (n_chars), four bins per decade.",
            )
        )
    if summary.kept_share.total:
        figures.append(
            (
                charts.histogram_chart(
                    summary.kept_share,
                    "Share of blocks kept per page",
                    "kept blocks / all blocks of the page (n_good / n_blocks)",
                    "c-share-",
                    log_x=False,
                ),
                "Pages near 0 lost most of their blocks to the cleaner; near 1 kept nearly all.",
            )
        )
    if summary.inputs:
        figures.append(
            (
                charts.throughput_per_input_chart(summary.inputs, "c-tpi-"),
                "Records read per second of each input's task (from its marker).",
            )
        )
    groups = sessions(summary.inputs)
    if groups:
        figures.append(
            (
                charts.throughput_over_time_chart(groups, "c-time-"),
                "All inputs' records per second, each spread over the time its task ran; one "
                "line per stretch of work (a run, or a resumed run), the latest in blue.",
            )
        )
    return el(
        "div",
        [el("figure", svg, el("figcaption", caption)) for svg, caption in figures],
        class_="charts",
        id="charts",
    )


def _bar(value: int, largest: int) -> Safe:
    width = 0 if largest <= 0 else max(1, round(160 * value / largest))
    return el("span", class_="bar", style=f"width:{width}px")


def _count_table(
    rows: Sequence[tuple[str, int]], header: str, total: int, id_: str, unit: str = "count"
) -> Safe:
    largest = max((n for _, n in rows), default=0)
    body = [
        el(
            "tr",
            el("td", key, class_="wrap"),
            el("td", fmt_int(n), class_="n"),
            el("td", fmt_float(100 * n / total, 1) + " %" if total else "–", class_="n"),
            el("td", _bar(n, largest)),
        )
        for key, n in rows
    ]
    return _table((header, unit, "share", ""), body, numeric=(unit, "share"), id=id_)


def _languages(summary: OutputSummary) -> Safe:
    rows = _top(summary.docs_by_language, MAX_ROWS)
    return _section(
        "Documents per language",
        _count_table(rows, "language", summary.docs, "languages", "documents"),
    )


def _page_types(summary: OutputSummary) -> Safe:
    """Documents per kind of page (the page_type column), when the output records it."""
    if not summary.page_types:  # no column, or no run with --page-type
        return Safe("")
    total = sum(summary.page_types.values())
    rows = list(summary.page_types.most_common())
    older = summary.docs - total
    return _section(
        "Documents per page type",
        el(
            "p",
            "What kind of page each document is (the page_type column: WCXB's seven types, "
            "predicted from the page)"
            + (
                f"; {older:,} documents have no type (written without --page-type, or before "
                "the column existed)"
                if older
                else ""
            )
            + ".",
            class_="sub",
        ),
        _count_table(rows, "page type", total, "page-types", "documents"),
        id_="page-type",
    )


def _reasons(summary: OutputSummary) -> Safe:
    rejected = summary.rejects_by_reason.most_common()
    skipped = summary.skipped_by_type.most_common()
    total = summary.records
    return _section(
        "Rejections and skips by reason",
        el(
            "p",
            "Every record read ends as a document, a rejection with a reason (a row of "
            "rejects/) or a skip (a record type that never holds a page). Shares are of "
            f"the {count(total, 'record')} read.",
            class_="sub",
        ),
        el("h3", "Rejected"),
        _count_table(rejected, "reason", total, "rejects", "records")
        if rejected
        else el("p", "No record was rejected."),
        el("h3", "Skipped"),
        _count_table(skipped, "record type", total, "skips", "records")
        if skipped
        else el("p", "No record was skipped."),
    )


def _reject_examples(summary: OutputSummary) -> Safe:
    """The first rejected records of each reason, with the command that shows each one."""
    if not summary.reject_examples:
        return Safe("")
    output = shlex.quote(summary.output)
    parts: list[Child] = [
        el(
            "p",
            f"The first {MAX_REJECT_EXAMPLES} records of each reason, in file order. The page "
            "viewer shows what the cleaner made of one: ",
            el("code", f"warcclean show {output} --record-id ID -o page.html"),
            " (the command beside each record).",
            class_="sub",
        )
    ]
    for reason, n in summary.rejects_by_reason.most_common():
        listed = summary.reject_examples.get(reason, [])
        if not listed:
            continue
        rows = [
            el(
                "tr",
                el("td", el("code", e.url or "–"), class_="wrap"),
                el("td", e.detail or "–", class_="wrap"),
                el(
                    "td",
                    el(
                        "code",
                        f"warcclean show {output} --record-id {shlex.quote(e.record_id)} "
                        "-o page.html",
                    ),
                    class_="wrap",
                ),
            )
            for e in listed
        ]
        head = f"{reason}: {count(n, 'record')}" + (
            f", the first {len(listed)} listed" if len(listed) < n else ""
        )
        parts.append(
            el(
                "details",
                el("summary", head),
                _table(("url", "detail", "page viewer"), rows, class_="rejects-listed"),
                # A rare reason is the one to look into: open when every record of it is listed.
                open=len(listed) == n,
                data_reason=reason,
            )
        )
    return _section("Rejected records", *parts, id_="rejected-records")


def _hist_table(hist: Histogram, id_: str, fmt: Any) -> Safe:
    rows = []
    last = len(hist.counts) - 1
    for i, n in enumerate(hist.counts):
        if not n:
            continue
        lo = hist.edges[i]
        if hist.open_ended and i == last:
            label = f"≥ {fmt(lo)}"
        elif not hist.open_ended and i == last:
            label = f"{fmt(lo)} – {fmt(hist.edges[i + 1])}"
        else:
            label = f"{fmt(lo)} – <{fmt(hist.edges[i + 1])}"
        rows.append((label, n))
    return _count_table(rows, "bin", hist.total, id_, "documents")


def _chars(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 else f"{x:.3g}"


def _distributions(summary: OutputSummary) -> Safe:
    if not summary.docs:
        return _section("Text length and blocks kept", el("p", "No documents."))
    mean_chars = summary.text_chars / summary.docs
    median = summary.length.quantile(0.5)
    share_median = summary.kept_share.quantile(0.5)
    return _section(
        "Text length and blocks kept",
        el(
            "p",
            f"{count(summary.docs, 'document')}, {count(summary.text_chars, 'character')} and "
            f"{count(summary.text_words, 'word')} of text: {count(mean_chars, 'character')} "
            f"per document on average, the median in the bin from {_chars(median or 0)}. Half "
            f"of the pages kept at least {100 * (share_median or 0):.0f} % of their blocks (bin "
            f"lower edge). {count(summary.truncated, 'document')} "
            f"{agree(summary.truncated, 'was', 'were')} cut at the body cap or by their file.",
            class_="sub",
        ),
        el(
            "details",
            el("summary", "Text length, by bin"),
            _hist_table(summary.length, "length-bins", _chars),
        ),
        el(
            "details",
            el("summary", "Share of blocks kept, by bin"),
            _hist_table(summary.kept_share, "share-bins", lambda x: f"{x:.2f}"),
        ),
    )


# What the `structure` column names, in the order the report lists them.
STRUCTURE_KINDS = ("code", "table", "math")


def _structure(summary: OutputSummary) -> Safe:
    """Documents whose kept content holds code, tables or math, and those with Markdown."""
    if summary.structure is None:
        if not summary.docs:
            return Safe("")
        return _section(
            "Code, tables and math",
            el(
                "p",
                "Not counted: the documents were written before warcclean recorded their "
                "structure (schema 1, without the structure and markdown columns).",
                class_="sub",
            ),
            id_="structure",
        )
    total = summary.structure_docs
    rows = [(kind, summary.structure.get(kind, 0)) for kind in STRUCTURE_KINDS]
    rows += sorted((k, n) for k, n in summary.structure.items() if k not in STRUCTURE_KINDS)
    older = summary.docs - total
    markdown = summary.markdown_docs
    parts: list[Child] = [
        el(
            "p",
            f"Documents whose kept content holds code blocks or inline code, tables, or LaTeX "
            f"math (the structure column), of the {count(total, 'document')} that record it"
            + (f" ({count(older, 'older one')} {agree(older, 'does', 'do')} not)" if older else "")
            + ". "
            + (
                f"{count(markdown, 'document')} {agree(markdown, 'has its', 'have their')} "
                "Markdown written (the markdown column; null in runs with --formats text)."
                if markdown is not None
                else ""
            ),
            class_="sub",
        ),
        _count_table(rows, "holds", total, "structure-counts", "documents"),
    ]
    return _section("Code, tables and math", *parts, id_="structure")


def _metadata(summary: OutputSummary) -> Safe:
    """How many documents have each page metadata column filled."""
    if not summary.docs:
        return Safe("")
    filled = summary.metadata_filled
    if filled is None:
        return _section(
            "Page metadata",
            el(
                "p",
                "Not counted: the documents were written before warcclean recorded their page "
                "metadata (schema 3: title, description, author, published, site_name, "
                "canonical_url).",
                class_="sub",
            ),
            id_="metadata",
        )
    total = summary.metadata_docs
    older = summary.docs - total
    rows = [(name, filled.get(name, 0)) for name in METADATA_COLUMNS]
    return _section(
        "Page metadata",
        el(
            "p",
            "Documents whose page states each field in its head (Open Graph, JSON-LD, meta "
            f"tags, <title>, <link rel=canonical>), of the {count(total, 'document')} that "
            + agree(total, "records it", "record it")
            + (f" ({count(older, 'older one')} {agree(older, 'does', 'do')} not)" if older else "")
            + ". The column is null where the page does not say.",
            class_="sub",
        ),
        _count_table(rows, "column", total, "metadata-fill", "documents"),
        id_="metadata",
    )


def _left_empty(n: int) -> str:
    """The documents whose every kept block the stage marked, when there are any."""
    if not n:
        return ""
    return f" ({count(n, 'document')} of them left with no text: n_chars 0, still a row)"


def _site_stage(summary: OutputSummary) -> Safe:
    """What the last site stage marked: per language, the sites where it took most, and the
    duplicates (`pipeline.job.site_stage`)."""
    state = summary.site_stage
    if state is None:
        return Safe("")
    report = state["report"]
    settings = state.get("settings") or {}
    totals = report.get("totals") or {}

    def share(part: int, whole: int) -> str:
        return fmt_float(100 * part / whole, 1) + " %" if whole else "–"

    heads = ("language", "documents", "changed", "blocks marked", "characters marked", "share")
    numeric = heads[1:]
    rows = [
        el(
            "tr",
            el("td", language),
            *(
                el("td", fmt_int(int(counts.get(k, 0))), class_="n")
                for k in ("docs", "docs_changed", "repeat_blocks", "repeat_chars")
            ),
            el("td", share(counts.get("repeat_chars", 0), counts.get("kept_chars", 0)), class_="n"),
        )
        for language, counts in (report.get("languages") or {}).items()
    ]
    site_rows = [
        el(
            "tr",
            el("td", entry["site"], class_="wrap"),
            el("td", entry["language"]),
            *(
                el("td", fmt_int(int(entry.get(k, 0))), class_="n")
                for k in ("docs", "repeat_blocks", "repeat_chars")
            ),
            el("td", share(entry.get("repeat_chars", 0), entry.get("kept_chars", 0)), class_="n"),
        )
        for entry in report.get("top_sites") or ()
    ]
    site_heads = ("site", "language", "documents", "blocks marked", "characters marked", "share")
    return _section(
        "Site stage: blocks repeated on a site, and duplicates",
        el(
            "p",
            f"Kept blocks whose normalized text is on {settings.get('min_pages', '?')} or more "
            f"documents of their site (by {settings.get('site_key', 'host')}) are labelled "
            "repeat and left out of the text and Markdown; each block's site_pages holds its "
            f"count. {count(int(totals.get('repeat_blocks', 0)), 'block')}, "
            f"{count(int(totals.get('repeat_chars', 0)), 'character')} "
            f"({share(totals.get('repeat_chars', 0), totals.get('kept_chars', 0))} of the kept "
            f"text) in {count(int(totals.get('docs_changed', 0)), 'document')}"
            + _left_empty(int(totals.get("docs_emptied", 0)))
            + ". "
            f"{count(int(totals.get('duplicates', 0)), 'document')} "
            + agree(
                int(totals.get("duplicates", 0)), "is an exact duplicate", "are exact duplicates"
            )
            + " of an earlier one (duplicate_of; no row is removed).",
            class_="sub",
        ),
        _table(heads, rows, numeric=numeric, id="site-languages"),
        el("h3", "Sites where it took the most text") if site_rows else Safe(""),
        _table(site_heads, site_rows, numeric=site_heads[2:], id="site-top")
        if site_rows
        else Safe(""),
        id_="site-stage",
    )


def _cleaners(summary: OutputSummary) -> Safe:
    rows = [
        el(
            "tr",
            el("td", el("code", c.cleaner)),
            el("td", el("code", c.version), class_="wrap"),
            el("td", el("code", c.params), class_="wrap"),
            el("td", fmt_int(c.docs), class_="n"),
        )
        for c in summary.cleaners
    ]
    runs = {(r.cleaner, json.dumps(r.cleaner_params, sort_keys=True)) for r in summary.runs}
    note = (
        el(
            "p",
            "The runs used different cleaners or parameters: the corpus mixes their outputs.",
            class_="warn",
        )
        if len(summary.cleaners) > 1 or len(runs) > 1
        else Safe("")
    )
    return _section(
        "Cleaner",
        el(
            "p",
            "The cleaner, its version and its parameters as every document records them.",
            class_="sub",
        ),
        note,
        _table(
            ("cleaner", "version", "parameters", "documents"),
            rows,
            numeric=("documents",),
            id="cleaners",
        )
        if rows
        else el("p", "No documents, so no cleaner recorded."),
    )


def _page_columns(summary: OutputSummary) -> Safe:
    """Notes and any page-level column this report does not know by name, counted generically."""
    parts: list[Child] = []
    if summary.notes:
        parts += [
            el("h3", "notes (how bodies were read, what the cleaner doubted)"),
            _count_table(_top(summary.notes, MAX_ROWS), "note", summary.docs, "notes", "documents"),
        ]
    for name, counts in sorted(summary.other_columns.items()):
        parts.append(el("h3", name))
        if counts is None:
            parts.append(
                el("p", f"more than {MAX_CATEGORY_VALUES} distinct values: not a category")
            )
        else:
            parts.append(
                _count_table(
                    _top(counts, MAX_ROWS), "value", summary.docs, f"col-{name}", "documents"
                )
            )
    if not parts:
        return Safe("")
    return _section("Page-level flags", *parts, id_="page-columns")


def _failed(summary: OutputSummary) -> Safe:
    if not summary.failed:
        return _section("Failed inputs", el("p", "None: every input finished."))
    rows = [
        el(
            "tr",
            el("td", el("code", f.input), class_="wrap"),
            el("td", f.error, class_="wrap"),
            el("td", f.run),
        )
        for f in summary.failed
    ]
    return _section(
        "Failed inputs",
        el(
            "p",
            f"{count(len(summary.failed), 'input')} failed and "
            f"{agree(len(summary.failed), 'has', 'have')} not finished since (a re-run of the "
            "same command retries exactly these).",
            class_="sub",
        ),
        _table(("input", "error", "last run"), rows, id="failed"),
    )


def _issues(summary: OutputSummary) -> Safe:
    if not summary.issues_by_kind:
        return _section("Reader issues", el("p", "None: every file read cleanly."))
    log_rows = [
        el(
            "tr",
            el("td", el("code", path.rpartition("/")[2] or path), class_="wrap"),
            el("td", str(issue.get("kind", ""))),
            el("td", fmt_int(issue.get("offset")), class_="n"),
            el("td", str(issue.get("detail", "")), class_="wrap"),
        )
        for path, issue in summary.issue_log[:MAX_ROWS]
    ]
    total = sum(summary.issues_by_kind.values())
    return _section(
        "Reader issues",
        el(
            "p",
            "Stretches of bytes that were not a readable record, and where reading resumed "
            "(the markers log each input's first 20).",
            class_="sub",
        ),
        _count_table(summary.issues_by_kind.most_common(), "kind", total, "issues", "issues"),
        el(
            "details",
            el("summary", f"The first {count(len(log_rows), 'logged issue')}"),
            _table(
                ("input", "kind", "offset", "detail"),
                log_rows,
                numeric=("offset",),
                id="issue-log",
            ),
        ),
    )


def _throughput(summary: OutputSummary) -> Safe:
    if not summary.inputs:
        return Safe("")
    slowest = sorted(summary.inputs, key=lambda i: i.records_per_second or 0.0)[:MAX_ROWS]
    total_seconds = sum(i.seconds for i in summary.inputs)
    rows = [
        el(
            "tr",
            el("td", el("code", i.warc_path), class_="wrap"),
            el("td", fmt_int(i.records), class_="n"),
            el("td", fmt_int(i.docs), class_="n"),
            el("td", f"{i.input_bytes / 1e6:,.1f}", class_="n"),
            el("td", f"{i.seconds:,.1f}", class_="n"),
            el("td", fmt_float(i.records_per_second, 1), class_="n"),
        )
        for i in slowest
    ]
    per_second = summary.records / total_seconds if total_seconds else 0.0
    what = "every input" if len(summary.inputs) <= MAX_ROWS else f"the {MAX_ROWS} slowest inputs"
    return _section(
        "Throughput per input",
        el(
            "p",
            f"{count(len(summary.inputs), 'input')} took {count(total_seconds, 'task second')} "
            f"for {count(summary.records, 'record')} ({per_second:,.1f} per task second). "
            f"Below: {what}, slowest first.",
            class_="sub",
        ),
        _table(
            ("input", "records", "documents", "MB", "seconds", "records/s"),
            rows,
            numeric=("records", "documents", "MB", "seconds", "records/s"),
            id="inputs",
        ),
    )


_RUN_COLUMNS = (
    "started (UTC)",
    "seconds",
    "processed",
    "already done",
    "failed",
    "records",
    "documents",
    "records/s",
    "cleaner",
)


def _runs(summary: OutputSummary) -> Safe:
    if not summary.runs:
        return _section("Runs", el("p", "No run report under _runs/."))
    rows = [
        el(
            "tr",
            el("td", r.started_at),
            el("td", f"{r.seconds:,.1f}", class_="n"),
            el("td", fmt_int(r.processed), class_="n"),
            el("td", fmt_int(r.skipped_done), class_="n"),
            el("td", fmt_int(r.failed), class_="n"),
            el("td", fmt_int(r.records), class_="n"),
            el("td", fmt_int(r.docs), class_="n"),
            el("td", fmt_float(r.records_per_second, 1), class_="n"),
            el("td", el("code", r.cleaner or "?"), " ", el("code", _params(r.cleaner_params))),
        )
        for r in summary.runs
    ]
    return _section(
        "Runs",
        el(
            "p",
            "Each run of the job over this output (a re-run processes only unfinished inputs).",
            class_="sub",
        ),
        _table(
            _RUN_COLUMNS,
            rows,
            numeric=_RUN_COLUMNS[1:-1],
            id="runs",
        ),
    )


def _params(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True) if params else "{}"
