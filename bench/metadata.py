"""Page metadata (`pipeline.html.metadata`): fill rate and accuracy of every field on the dev
sets, and what the one pass over the head costs against the page cues' pass it replaced.

Usage: python bench/metadata.py [--limit N] [--base 765cfcf] [--out bench/results/metadata.json]

Per set (wcxb-dev, multilingual-dev, daniel), every page is decoded and parsed as the cleaner
does and its head read with `read_head` (the page's URL from the ground truth where it has one).
Checked, where the data allows:

- ``title`` against the page's own ``og:title``, else its ``<title>``, as lxml (another parser)
  reads them, white space collapsed: "exact", and "same after entities" (the field decodes
  entities a page escaped twice); on WCXB also against the benchmark's title (its annotators'
  headline): the same words, or its words a run of ours (``Headline | Site``);
- ``author`` and ``published`` against WCXB's ``author`` and ``publish_date`` (same words; same
  day), on the pages that have them, and the share filled where WCXB has none;
- ``published`` against a date in the page's URL (``/2024/05/17/``, ``/2024/05/``,
  ``2024-05-17``): same day, or same month where the URL gives only the month;
- ``canonical_url`` against the dataset's URL: the same address (scheme and host case, default
  port, fragment and a trailing slash aside), or the same host;
- ``site_name``: the share whose letters name the host (``The Verge`` / theverge.com), a
  plausibility check only.

Cost: on the WCXB pages, parsed once each, per page alternately the base commit's
`pipeline.html.page_cues.declared_types` (read with ``git show``) and this tree's `read_head`,
CPU time (`time.process_time_ns`) over ``--repeat`` rounds; medians per page, and the median and
mean of the per-page differences, the mean also as a share of the whole default cleaner's median
page (run here, the title heading on and off alternately). The title heading rule alone is timed
on the answer the cleaner gives without it.
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import platform
import re
import statistics
import subprocess
import sys
import time
import types
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline.evaluate.datasets import load_dataset  # noqa: E402
from pipeline.html.decode import decode_html  # noqa: E402
from pipeline.html.metadata import read_head  # noqa: E402
from pipeline.html.segment import parse  # noqa: E402
from pipeline.output.schema import METADATA_COLUMNS  # noqa: E402
from pipeline.rules.title_heading import keep_title, words  # noqa: E402
from pipeline.types import Verdict  # noqa: E402

DATA = REPO.parent / "shared" / "data"
SETS = ("wcxb-dev", "multilingual-dev", "daniel")
DEFAULT_OUT = REPO / "bench" / "results" / "metadata.json"
_URL_DATE = re.compile(
    r"/((?:19|20)\d\d)[/-](0[1-9]|1[0-2])(?:[/-](0[1-9]|[12]\d|3[01]))?(?:[/._-]|$)"
)


def _line(value: str | None) -> str | None:
    value = " ".join((value or "").split())
    return value or None


def _reference_title(page_html: str) -> str | None:
    """The page's og:title, else its <title>, as lxml reads them."""
    import lxml.html

    try:
        doc = lxml.html.document_fromstring(page_html)
    except (ValueError, lxml.etree.ParserError):
        return None
    for meta in doc.iter("meta"):
        key = meta.get("property") or meta.get("name") or ""
        if key.strip().lower() == "og:title":
            value = _line(meta.get("content"))
            if value:
                return value
    for title in doc.iter("title"):
        if not any(a.tag == "svg" for a in title.iterancestors()):
            return _line(title.text_content())
    return None


def _url_date(url: str | None) -> tuple[str, str | None] | None:
    match = _URL_DATE.search(urlsplit(url).path) if url else None
    if match is None:
        return None
    year, month, day = match.groups()
    return f"{year}-{month}", day


def _same_address(a: str, b: str) -> bool:
    def norm(u: str) -> tuple[str, str, str, str]:
        p = urlsplit(u.strip())
        host = (p.hostname or "").lower()
        if p.port and p.port not in (80, 443):
            host += f":{p.port}"
        return p.scheme.lower(), host, p.path.rstrip("/") or "/", p.query

    try:
        return norm(a) == norm(b)
    except ValueError:
        return False


def _host(url: str | None) -> str:
    try:
        return (urlsplit(url).hostname or "").lower() if url else ""
    except ValueError:
        return ""


def _names_host(site: str, host: str) -> bool:
    squeezed = "".join(words(site))
    labels = [x for x in host.split(".") if x and x != "www"]
    if not squeezed or not labels:
        return False
    return any(label in squeezed or squeezed in label for label in labels[:-1] or labels)


def _share(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def measure_set(name: str, limit: int | None) -> dict[str, Any]:
    directory = DATA / name
    pages = load_dataset(directory)
    if limit:
        pages = pages[:limit]
    truths = {}
    if name == "wcxb-dev":
        for page in pages:
            data = json.loads((directory / "ground-truth" / f"{page.id}.json").read_text())
            truths[page.id] = data.get("ground_truth") or {}
    filled: Counter[str] = Counter()
    c: Counter[str] = Counter()
    examples: dict[str, list[dict[str, Any]]] = {}

    def example(kind: str, **values: Any) -> None:
        found = examples.setdefault(kind, [])
        if len(found) < 5:
            found.append(values)

    for page in pages:
        decoded = decode_html(page.read_html(), None)
        tree = parse(decoded.utf8 if decoded.utf8 is not None else decoded.html)
        meta = read_head(tree, page.url).metadata
        for field in METADATA_COLUMNS:
            if getattr(meta, field) is not None:
                filled[field] += 1
        # title against the page's own og:title / <title>
        reference = _reference_title(decoded.html)
        if reference is not None:
            c["title_ref"] += 1
            if meta.title == reference:
                c["title_exact"] += 1
            if meta.title is not None and _line(html.unescape(meta.title)) == _line(
                html.unescape(reference)
            ):
                c["title_same"] += 1
            else:
                example("title_differs", id=page.id, ours=meta.title, page=reference)
        # WCXB's own fields
        truth = truths.get(page.id)
        if truth is not None:
            headline = truth.get("title")
            if headline:
                c["gt_title"] += 1
                ours = words(meta.title or "")
                theirs = words(headline)
                if ours == theirs:
                    c["gt_title_equal"] += 1
                if theirs and any(
                    ours[i : i + len(theirs)] == theirs for i in range(len(ours) - len(theirs) + 1)
                ):
                    c["gt_title_within"] += 1
            author = truth.get("author")
            if author:
                c["gt_author"] += 1
                if meta.author:
                    c["gt_author_filled"] += 1
                    if words(meta.author) == words(author):
                        c["gt_author_equal"] += 1
                    else:
                        example("author_differs", id=page.id, ours=meta.author, truth=author)
            else:
                c["gt_no_author"] += 1
                c["gt_no_author_filled"] += meta.author is not None
            day = truth.get("publish_date")
            if day:
                c["gt_date"] += 1
                if meta.published:
                    c["gt_date_filled"] += 1
                    if meta.published[:10] == str(day)[:10]:
                        c["gt_date_equal"] += 1
                    else:
                        example("date_differs", id=page.id, ours=meta.published, truth=day)
            else:
                c["gt_no_date"] += 1
                c["gt_no_date_filled"] += meta.published is not None
        # published against the URL's date
        in_url = _url_date(page.url)
        if in_url is not None:
            month, day = in_url
            c["url_date"] += 1
            if meta.published:
                c["url_date_filled"] += 1
                same = meta.published[:7] == month and (day is None or meta.published[8:10] == day)
                c["url_date_equal"] += same
                if not same:
                    example("url_date_differs", id=page.id, ours=meta.published, url=page.url)
        # canonical_url against the dataset's URL
        if page.url:
            c["url"] += 1
            if meta.canonical_url:
                c["canonical_filled_with_url"] += 1
                if _same_address(meta.canonical_url, page.url):
                    c["canonical_same"] += 1
                else:
                    example("canonical_differs", id=page.id, ours=meta.canonical_url, url=page.url)
                if _host(meta.canonical_url) == _host(page.url):
                    c["canonical_same_host"] += 1
            if meta.site_name:
                c["site_with_url"] += 1
                c["site_names_host"] += _names_host(meta.site_name, _host(page.url))
    n = len(pages)
    out: dict[str, Any] = {
        "pages": n,
        "fill": {f: _share(filled[f], n) for f in METADATA_COLUMNS},
        "filled": {f: filled[f] for f in METADATA_COLUMNS},
        "title": {
            "pages_with_og_title_or_title": c["title_ref"],
            "exact": _share(c["title_exact"], c["title_ref"]),
            "same_after_entities": _share(c["title_same"], c["title_ref"]),
        },
        "published_vs_url": {
            "pages_with_url_date": c["url_date"],
            "filled": _share(c["url_date_filled"], c["url_date"]),
            "agree_where_filled": _share(c["url_date_equal"], c["url_date_filled"]),
        },
        "canonical_url_vs_dataset_url": {
            "pages_with_url": c["url"],
            "filled": _share(c["canonical_filled_with_url"], c["url"]),
            "same_address_where_filled": _share(
                c["canonical_same"], c["canonical_filled_with_url"]
            ),
            "same_host_where_filled": _share(
                c["canonical_same_host"], c["canonical_filled_with_url"]
            ),
        },
        "site_name_names_host": _share(c["site_names_host"], c["site_with_url"]),
        "examples": examples,
    }
    if truths:
        out["vs_wcxb_truth"] = {
            "title_pages": c["gt_title"],
            "title_same_words": _share(c["gt_title_equal"], c["gt_title"]),
            "title_contains_theirs": _share(c["gt_title_within"], c["gt_title"]),
            "author_pages": c["gt_author"],
            "author_filled": _share(c["gt_author_filled"], c["gt_author"]),
            "author_same_words_where_filled": _share(c["gt_author_equal"], c["gt_author_filled"]),
            "author_filled_where_truth_has_none": _share(
                c["gt_no_author_filled"], c["gt_no_author"]
            ),
            "date_pages": c["gt_date"],
            "date_filled": _share(c["gt_date_filled"], c["gt_date"]),
            "date_same_day_where_filled": _share(c["gt_date_equal"], c["gt_date_filled"]),
            "date_filled_where_truth_has_none": _share(c["gt_no_date_filled"], c["gt_no_date"]),
        }
    return out


def _base_page_cues(base: str) -> types.ModuleType:
    """The base commit's `pipeline.html.page_cues`, as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{base}:pipeline/html/page_cues.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("base_page_cues")
    exec(compile(source, f"{base}:pipeline/html/page_cues.py", "exec"), module.__dict__)
    return module


def measure_cost(base: str, limit: int | None, repeat: int) -> dict[str, Any]:
    import pipeline

    old = _base_page_cues(base)
    files = sorted((DATA / "wcxb-dev" / "html").glob("*.html.gz"))
    if limit:
        files = files[:limit]
    bodies = [gzip.decompress(f.read_bytes()) for f in files]
    trees = []
    for body in bodies:
        decoded = decode_html(body, None)
        trees.append(parse(decoded.utf8 if decoded.utf8 is not None else decoded.html))
    # The new pass gives the old one's values on every page (the test suite checks it too).
    differ = sum(
        old.declared_types(t) != read_head(t)[:2]
        for t in trees  # type: ignore[operator]
    )
    clock = time.process_time_ns
    before = [[] for _ in trees]
    after = [[] for _ in trees]
    for round_ in range(repeat):
        for i, tree in enumerate(trees):
            pair = ((old.declared_types, before), (read_head, after))
            for fn, into in pair if (i + round_) % 2 == 0 else pair[::-1]:
                t = clock()
                fn(tree)
                into[i].append(clock() - t)
    old_us = [statistics.median(x) / 1000 for x in before]
    new_us = [statistics.median(x) / 1000 for x in after]
    added = [b - a for a, b in zip(old_us, new_us, strict=True)]
    # The title heading rule inside the whole default cleaner: on and off, alternately.
    on: list[float] = []
    off: list[float] = []
    for body in bodies[:20]:  # warm both cleaners
        pipeline.clean_html(body)
        pipeline.clean_html(body, title_heading=False)
    for i, body in enumerate(bodies):
        pair = (({}, on), ({"title_heading": False}, off))
        for params, into in pair if i % 2 == 0 else pair[::-1]:
            t = clock()
            pipeline.clean_html(body, **params)
            into.append((clock() - t) / 1e6)
    # The rule alone, on the answer the cleaner gives without it.
    rule_us: list[float] = []
    for body, tree in zip(bodies, trees, strict=True):
        result = pipeline.clean_html(body, title_heading=False)
        blocks = [lb.block for lb in result.blocks]
        keep = np.array([lb.verdict is Verdict.GOOD for lb in result.blocks], dtype=bool)
        head = read_head(tree)
        site = (head.metadata.site_name,)
        times = []
        for _ in range(repeat):
            t = clock()
            keep_title(keep, blocks, head.titles, site, head.metadata.canonical_url)
            times.append(clock() - t)
        rule_us.append(statistics.median(times) / 1000)
    page_ms = statistics.median(off)
    return {
        "pages": len(trees),
        "rounds": repeat,
        "pages_where_cues_differ": differ,
        "head_pass_us": {
            "base_declared_types_median": round(statistics.median(old_us), 1),
            "read_head_median": round(statistics.median(new_us), 1),
            "added_median": round(statistics.median(added), 1),
            "added_mean": round(statistics.fmean(added), 1),
            "added_p90": round(sorted(added)[int(0.9 * len(added))], 1),
            "added_mean_share_of_page": round(statistics.fmean(added) / 1000 / page_ms, 4),
        },
        "title_rule_us": {
            "median": round(statistics.median(rule_us), 1),
            "mean": round(statistics.fmean(rule_us), 1),
            "p99": round(sorted(rule_us)[int(0.99 * len(rule_us))], 1),
        },
        "cleaner_ms": {
            "median_title_heading_on": round(statistics.median(on), 3),
            "median_title_heading_off": round(page_ms, 3),
            "ratio_of_medians_on_off": round(statistics.median(on) / page_ms, 4),
        },
    }


def _table(results: dict[str, Any]) -> str:
    lines = ["| set | pages | " + " | ".join(METADATA_COLUMNS) + " |"]
    lines.append("|---|---:|" + "---:|" * len(METADATA_COLUMNS))
    for name, r in results["sets"].items():
        cells = [f"{100 * (r['fill'][f] or 0):.1f} %" for f in METADATA_COLUMNS]
        lines.append(f"| {name} | {r['pages']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="pages per set (all by default)")
    parser.add_argument("--base", default="765cfcf", help="commit whose head pass is compared")
    parser.add_argument("--repeat", type=int, default=5, help="timing rounds per page")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"{DATA} is absent: this benchmark reads the dev sets")
    results: dict[str, Any] = {
        "when": results_file.utc_now(),
        "commit": results_file.git_commit(),
        "python": platform.python_version(),
        "command": results_file.command_line(__file__),
        "sets": {name: measure_set(name, args.limit) for name in SETS if (DATA / name).is_dir()},
    }
    results["cost"] = measure_cost(args.base, args.limit, args.repeat)
    print(_table(results))
    for name, r in results["sets"].items():
        print(f"\n{name}: title {r['title']}")
        print(f"  published vs URL {r['published_vs_url']}")
        print(f"  canonical_url vs dataset URL {r['canonical_url_vs_dataset_url']}")
        print(f"  site_name names the host: {r['site_name_names_host']}")
        if "vs_wcxb_truth" in r:
            print(f"  against WCXB's fields: {r['vs_wcxb_truth']}")
    print(f"\ncost: {json.dumps(results['cost'], indent=1)}")
    results_file.write_results(args.out, results, ensure_ascii=False)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
