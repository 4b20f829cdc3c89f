"""How the form of a page's address changes the default cleaner's text and the page type.

Usage: python bench/address_forms.py [--data DIR] [--every 1] [--jobs N] [--out FILE]

daniel's news pages (1,611 on 446 sites, no addresses of their own) are cleaned once for every
address form below, each page under its own site's host: none, WordPress's plain permalink
(`/?p=N`, long and short N), scripts named with an item number in the query
(`/article.php?id=N`, `/news/view.php?id=N`, `Detail.aspx?NewsID=N`) and the pretty paths they
stand for (`/N/`, `/2019/05/N/`). Each form runs twice, with the page cues' reading of such
queries (`pipeline.html.page_cues`: an address naming the page in its query read as the path it
stands for) and without it (the query read as a query), so the two columns come from one run.
Printed and written: the mean word F1 against daniel's reference (`pipeline.evaluate.scoring`)
and the share of pages `CleanResult.page_type` names ``article``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

DATA = REPO.parent / "shared" / "data" / "daniel"
DEFAULT_OUT = REPO / "bench" / "results" / "address_forms.json"

# name -> address of page number n (1000 and up) on host h
FORMS: dict[str, str | None] = {
    "none": None,
    "/?p=N": "https://{h}/?p={n}",
    "/?p=n (n < 1000)": "https://{h}/?p={short}",
    "/article.php?id=N": "https://{h}/article.php?id={n}",
    "/news/view.php?id=N": "https://{h}/news/view.php?id={n}",
    "/News/Detail.aspx?NewsID=N": "https://{h}/News/Detail.aspx?NewsID={n}",
    "/N/": "https://{h}/{n}/",
    "/2019/05/N/": "https://{h}/2019/05/{n}/",
}


def _page(args: tuple[int, object]) -> dict[str, tuple[float, float, bool, bool]]:
    """Per form: F1 with and without the query reading, and whether each was named article."""
    from pipeline import clean_html
    from pipeline.evaluate.scoring import score_text
    from pipeline.html import page_cues

    number, page = args
    html = page.read_html()  # type: ignore[attr-defined]
    host = page.site if "." in (page.site or "") else f"{page.site}.example"  # type: ignore[attr-defined]
    reading = page_cues._query_item
    out = {}
    for name, form in FORMS.items():
        url = (
            None if form is None else form.format(h=host, n=1000 + number, short=10 + number % 900)
        )
        got = []
        for query_item in (reading, lambda parts: None):
            page_cues._query_item = query_item
            try:
                result = clean_html(html, url=url, markdown=False, classify_page=True)
            finally:
                page_cues._query_item = reading
            got.append((score_text(page, result.text).f1 or 0.0, result.page_type == "article"))
        out[name] = (got[0][0], got[1][0], got[0][1], got[1][1])
    return out


def measure(data: Path, every: int, jobs: int) -> dict:
    from pipeline.evaluate.datasets import load_dataset

    pages = [p for p in load_dataset(data) if p.main_content][::every]
    with ProcessPoolExecutor(jobs) as pool:
        rows = list(pool.map(_page, enumerate(pages), chunksize=8))
    forms = {}
    for name in FORMS:
        values = [row[name] for row in rows]
        forms[name] = {
            "f1": round(statistics.fmean(v[0] for v in values), 4),
            "f1_query_as_query": round(statistics.fmean(v[1] for v in values), 4),
            "article_share": round(sum(v[2] for v in values) / len(values), 4),
            "article_share_query_as_query": round(sum(v[3] for v in values) / len(values), 4),
        }
    return {"pages": len(pages), "sites": len({p.site for p in pages}), "forms": forms}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--every", type=int, default=1, help="every k-th page only")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    result = measure(args.data, args.every, args.jobs)
    print(f"{result['pages']} pages on {result['sites']} sites")
    head = ("address", "F1 query as query", "F1", "article, as query", "article")
    print(f"{head[0]:<28} {head[1]:>18} {head[2]:>7} {head[3]:>18} {head[4]:>8}")
    for name, v in result["forms"].items():
        print(
            f"{name:<28} {v['f1_query_as_query']:>18.4f} {v['f1']:>7.4f} "
            f"{v['article_share_query_as_query']:>18.1%} {v['article_share']:>8.1%}"
        )
    doc = {
        "bench": "address_forms",
        "date": results_file.utc_now(),
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "result": result,
    }
    results_file.write_results(args.out, doc, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
