"""Score a cleaner against a labelled dev set (`pipeline.evaluate.datasets`).

Metrics per page (see `pipeline.evaluate.metrics`): word precision/recall/F1 against
``main_content`` (characters for zh, ja, th, my), the share of ``with`` snippets the output contains
and the share of ``without`` snippets it still contains. Snippet-only pages get only the snippet
metrics. A page whose cleaner raises is recorded with the exception type and scored as an empty
output, so a crashing cleaner cannot look better than an honest one that returns nothing.

``combined`` puts both kinds of page into one mean: F1 on a full-text page, and on a snippet page
the share of ``with`` snippets found times one minus the share of ``without`` snippets present. It
is our reconstruction of the "multilingual combined" score our held-out targets are stated in:
trafilatura 2.3.1 (``extract(include_comments=False)``) scores 0.845 on multilingual-dev with it,
where the target's table says 0.847; the nearest alternatives (``with`` share alone, their mean,
their harmonic mean, one accuracy over all snippets) give 0.864-0.895.

Library use (the CLI's ``warcclean eval`` is a thin wrapper)::

    pages = load_dataset(path)                      # or load_dataset(path, ids=[...])
    report = evaluate(pages, "density-fixed", {"threshold": 0.4})
    report.summary()["overall"]["f1"]
"""

from __future__ import annotations

import gzip
import json
import math
import re
import statistics
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from pipeline.evaluate.datasets import Page
from pipeline.evaluate.metrics import CHARACTER_SCORED_LANGUAGES, text_f1, tokens_for

__all__ = [
    "PageScore",
    "Report",
    "evaluate",
    "normalize_snippet_text",
    "score_text",
]

# Zero-width space/non-joiner/joiner and the BOM: some extractors drop them (the multilingual
# README's advice, e.g. ZWNJ in Persian), and they are invisible, so they never decide a match.
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\ufeff"))
_SPACE_RUN = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class PageScore:
    """Scores of one page; ``None`` marks a metric the page's ground truth cannot give."""

    id: str
    language: str
    page_type: str | None
    metric: str | None  # "word" or "char" when F1 was scored
    precision: float | None
    recall: float | None
    f1: float | None
    with_found: int
    with_total: int
    without_present: int
    without_total: int
    output_chars: int
    empty: bool  # the output is empty although the page has content to find
    error: str | None = None  # "ExceptionType: message" when the cleaner raised
    ms: float | None = None  # CPU milliseconds of the cleaning call
    detected_language: str | None = None
    source: str | None = None  # the page's source dataset and site (`Page.source`, `Page.site`)
    site: str | None = None

    @property
    def with_share(self) -> float | None:
        return self.with_found / self.with_total if self.with_total else None

    @property
    def without_share(self) -> float | None:
        return self.without_present / self.without_total if self.without_total else None

    @property
    def combined(self) -> float | None:
        """One score for every page (see the module's docstring): F1 where the page has a full
        reference, else the share of ``with`` snippets found times one minus the share of
        ``without`` snippets present; None for a page with neither."""
        if self.f1 is not None:
            return self.f1
        if not self.with_total:
            return None
        return self.with_found / self.with_total * (1.0 - (self.without_share or 0.0))


def normalize_snippet_text(text: str, language: str | None = None) -> str:
    """The form snippets and outputs are compared in: NFKC, casefolded, zero-width characters
    removed, whitespace runs collapsed to one space; for unspaced scripts (zh, ja, th, my) all
    whitespace removed, because segmentation may put a line break where the page had none."""
    text = unicodedata.normalize("NFKC", text).translate(_ZERO_WIDTH).casefold()
    if language in CHARACTER_SCORED_LANGUAGES:
        return _SPACE_RUN.sub("", text)
    return _SPACE_RUN.sub(" ", text).strip()


def score_text(page: Page, text: str) -> PageScore:
    """Score one cleaner output against the page's ground truth (no timing, no error)."""
    metric = precision = recall = f1 = None
    if page.main_content is not None:
        prf = text_f1(text, page.main_content, page.language)
        precision, recall, f1 = prf
        metric = "char" if page.language in CHARACTER_SCORED_LANGUAGES else "word"
    haystack = normalize_snippet_text(text, page.language)

    def present(snippet: str) -> bool:
        needle = normalize_snippet_text(snippet, page.language)
        return bool(needle) and needle in haystack

    return PageScore(
        id=page.id,
        language=page.language,
        page_type=page.page_type,
        metric=metric,
        precision=precision,
        recall=recall,
        f1=f1,
        with_found=sum(map(present, page.with_snippets)),
        with_total=len(page.with_snippets),
        without_present=sum(map(present, page.without_snippets)),
        without_total=len(page.without_snippets),
        output_chars=len(text),
        empty=page.has_reference and not tokens_for(text, page.language),
        source=page.source,
        site=page.site,
    )


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def _percentile(sorted_values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (the value at rank ceil(q·n)), so p99 is an observed time."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def aggregate(rows: Sequence[PageScore]) -> dict[str, Any]:
    """Per-page means over ``rows``. Snippet shares are means of per-page shares (pages with at
    least one snippet of that kind), as in the multilingual README's reference table."""
    times = sorted(r.ms for r in rows if r.ms is not None)
    errors = Counter(r.error.split(":", 1)[0] for r in rows if r.error)
    return {
        "pages": len(rows),
        "f1_pages": sum(1 for r in rows if r.f1 is not None),
        "combined": _mean(r.combined for r in rows),
        "f1": _mean(r.f1 for r in rows),
        "precision": _mean(r.precision for r in rows),
        "recall": _mean(r.recall for r in rows),
        "with_pages": sum(1 for r in rows if r.with_total),
        "with_share": _mean(r.with_share for r in rows),
        "without_pages": sum(1 for r in rows if r.without_total),
        "without_share": _mean(r.without_share for r in rows),
        "empty": sum(1 for r in rows if r.empty and not r.error),
        "failures": sum(errors.values()),
        "failure_types": dict(sorted(errors.items())),
        "median_ms": statistics.median(times) if times else None,
        "p99_ms": _percentile(times, 0.99),
    }


# What `Report.group_by` may name: the page's source dataset, its language, its site.
GROUP_KEYS: dict[str, Callable[[PageScore], str | None]] = {
    "source": lambda r: r.source,
    "language": lambda r: r.language,
    "site": lambda r: r.site,
}


def _grouped(rows: Sequence[PageScore], key: Callable[[PageScore], str | None]) -> dict:
    groups: dict[str, list[PageScore]] = defaultdict(list)
    for r in rows:
        groups[key(r) or "unknown"].append(r)
    return {k: aggregate(v) for k, v in sorted(groups.items())}


@dataclass(slots=True)
class Report:
    """Per-page scores of one cleaner run plus what produced them."""

    cleaner: str
    params: dict[str, Any]
    rows: list[PageScore]
    language_from_truth: bool = False
    dataset: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    # Extra per-group tables (`GROUP_KEYS`), e.g. ("source", "site"): a score per held-out group
    # shows whether a cleaner holds up across sources or rides on a few large ones.
    group_by: tuple[str, ...] = ()

    def summary(self) -> dict[str, Any]:
        rows = self.rows
        out: dict[str, Any] = {"overall": aggregate(rows)}
        if any(r.page_type for r in rows):
            out["by_page_type"] = _grouped(rows, lambda r: r.page_type)
        if len({r.language for r in rows}) > 1:
            out["by_language"] = _grouped(rows, lambda r: r.language)
            out["by_script_scoring"] = _grouped(rows, lambda r: r.metric or "snippets-only")
        for key in self.group_by:
            if key not in GROUP_KEYS:
                raise ValueError(f"cannot group by {key!r}; one of {', '.join(GROUP_KEYS)}")
            out[f"by_{key}"] = _grouped(rows, GROUP_KEYS[key])
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "cleaner": self.cleaner,
            "params": self.params,
            "dataset": self.dataset,
            "language_from_truth": self.language_from_truth,
            **self.meta,
            "summary": self.summary(),
            "pages": [{**asdict(r), "combined": r.combined} for r in self.rows],
        }

    def write_json(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n")


def _clean_text(
    page: Page, html: bytes, cleaner: str, params: Mapping[str, Any], use_truth: bool
) -> tuple[str, str]:
    from pipeline.clean import clean_html  # the parser/langid stack loads only when evaluating

    result = clean_html(
        html,
        url=page.url,
        cleaner=cleaner,
        language=page.language if use_truth else None,
        **params,
    )
    return result.text, result.language.code


def evaluate(
    pages: Iterable[Page],
    cleaner: str,
    params: Mapping[str, Any] | None = None,
    *,
    language_from_truth: bool = False,
    on_page: Callable[[PageScore], None] | None = None,
) -> Report:
    """Run ``cleaner`` (a registered name) on every page through `pipeline.clean_html` and score it.

    Language detection runs as in production unless ``language_from_truth``. The cleaner is built
    once up front, so bad parameters raise here rather than being recorded on every page. A page
    that raises is recorded (``error``) and scored as empty output. ``on_page`` is called after
    each page (progress display).
    """
    from pipeline.cleaners.registry import make_cleaner

    params = dict(params or {})
    canonical = make_cleaner(cleaner, **params).params()
    rows: list[PageScore] = []
    for page in pages:
        error = detected = None
        ms: float | None = None
        try:
            html = page.read_html()
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            text, error = "", f"{type(exc).__name__}: unreadable HTML: {exc}"
        else:
            start = time.process_time()
            try:
                text, detected = _clean_text(page, html, cleaner, params, language_from_truth)
            except Exception as exc:  # recorded per page: one bad page must not end the run
                text, error = "", f"{type(exc).__name__}: {exc}"
            ms = (time.process_time() - start) * 1000
        row = replace(score_text(page, text), error=error, ms=ms, detected_language=detected)
        rows.append(row)
        if on_page is not None:
            on_page(row)
    return Report(cleaner, canonical, rows, language_from_truth)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def summary_table(title: str, groups: Mapping[str, Mapping[str, Any]]) -> Any:
    """A rich Table of aggregates, one row per group."""
    from rich.table import Table

    table = Table(title=title)
    columns = ("group", "pages", "combined", "F1", "P", "R", "with", "without", "empty", "fail")
    for col in (*columns, "med ms"):
        table.add_column(col, justify="left" if col == "group" else "right")
    for name, agg in groups.items():
        table.add_row(
            name,
            str(agg["pages"]),
            _fmt(agg["combined"]),
            f"{_fmt(agg['f1'])} ({agg['f1_pages']})" if agg["f1_pages"] else "–",
            _fmt(agg["precision"]),
            _fmt(agg["recall"]),
            f"{_fmt(agg['with_share'], 2)} ({agg['with_pages']})" if agg["with_pages"] else "–",
            f"{_fmt(agg['without_share'], 2)} ({agg['without_pages']})"
            if agg["without_pages"]
            else "–",
            str(agg["empty"]),
            str(agg["failures"]),
            _fmt(agg["median_ms"], 1),
        )
    return table


def print_report(report: Report, console: Any = None, min_language_pages: int = 5) -> None:
    """Print the overall row and per page type / per language tables with rich.

    Languages with fewer than ``min_language_pages`` pages are pooled into one "other" row (the
    JSON keeps every language).
    """
    from rich.console import Console

    console = console or Console()
    summary = report.summary()
    params = ", ".join(f"{k}={v}" for k, v in report.params.items()) or "defaults"
    head = f"{report.cleaner} ({params})" + (
        " [truth language]" if report.language_from_truth else ""
    )
    overall = summary["overall"]
    console.print(summary_table(head, {"overall": overall}))
    if overall["failure_types"]:
        console.print(f"failures: {overall['failure_types']}")
    console.print(f"p99 ms: {_fmt(overall['p99_ms'], 1)}")
    if "by_page_type" in summary:
        console.print(summary_table("by page type", summary["by_page_type"]))
    if "by_language" in summary:
        big = {k: v for k, v in summary["by_language"].items() if v["pages"] >= min_language_pages}
        small = [r for r in report.rows if r.language not in big]
        if small:
            big[f"other ({len({r.language for r in small})} langs)"] = aggregate(small)
        console.print(summary_table("by language", big))
        # Only a set of several languages is scored by script as well (one language asked for
        # with --group-by has a by_language table and nothing more).
        if "by_script_scoring" in summary:
            console.print(summary_table("by scoring", summary["by_script_scoring"]))
    for key in report.group_by:
        if key != "language" or "by_language" not in summary:
            console.print(summary_table(f"by {key}", summary[f"by_{key}"]))
