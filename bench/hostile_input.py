"""Issue 48's targets, measured: hostile input against the supervised job's task.

    python bench/hostile_input.py [--good 1000] [--slow 50] [--cap 5]
                                  [--only bad_length,slow_pages,ragged_table,markdown]
                                  [--out bench/results/hostile_input.json]

Each part builds its inputs in a temporary folder and runs them through
`pipeline.supervise.process_warc_supervised` (the job's task: a warm child, killed from outside
when a page overruns), default cleaner and `Limits` unless said:

- ``bad_length``: a WARC and an ARC gzipped as one stream, holding a good record, one whose
  length is -5, abc or 1e3, then 101 good ones. Good records written, of 102.
- ``slow_pages``: ``--good`` pages (the WCXB dev pages, repeated if need be; generated articles
  without ../shared) with ``--slow`` pages that no cap in the parser can stop (100,000 nested
  <div>, about 40 s to parse) placed at random among them, ``--max-seconds --cap``. The same
  input without the slow pages gives the good pages' time; the target is at most that plus one
  cap per slow page. Wall seconds, alternating the two inputs, median of ``--runs``.
- ``ragged_table``: a page holding a table whose first row has 12,000 cells and whose 6,000
  rows after it have 2. Its Markdown's bytes against the page's, and the peak resident memory
  of a fresh child that cleaned it (VmHWM).
- ``markdown``: every page of ../shared/data/wcxb-dev and multilingual-dev, and generated
  hostile pages (characters of markup shown as text in every place a page holds text),
  cleaned; each page's Markdown rendered by markdown-it-py with its defaults (raw HTML on).
  Pages that render to an element the renderer does not make (a <script>, <img>, <iframe>,
  <a>, an on* attribute, ...), with this renderer and with the one before issue 48 (765cfcf's
  pipeline/render/blocks.py, given the same kept blocks).

Prints a table per part and writes the JSON.
"""

from __future__ import annotations

import argparse
import gzip
import html as html_module
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline import supervise  # noqa: E402
from pipeline.config import Limits  # noqa: E402
from pipeline.jobconfig import JobConfig  # noqa: E402
from pipeline.supervise import process_warc_supervised  # noqa: E402
from tests.warc_builders import build_arc, build_warc, html_response  # noqa: E402

SHARED = REPO.parent / "shared"
BEFORE = "765cfcf"
ARTICLE = (
    "<html><head><title>{t}</title></head><body><nav><a href='/'>Home</a></nav><h1>{t}</h1>"
    "<p>The river runs through the old town of {t}, and the people who live along its banks have "
    "always said that it is the reason the town exists at all. They tell the story to anyone who "
    "will listen, and most visitors have heard it by the time they leave.</p>"
    "<p>In the spring the water rises, and the bridges of {t} close one after another.</p>"
    "</body></html>"
)


def _page(i: int) -> bytes:
    return ARTICLE.format(t=f"Town {i}").encode()


# --- bad lengths in a file gzipped as one stream ---


def bad_length(work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for fmt in ("warc", "arc"):
        for length in ("-5", "abc", "1e3"):
            n = 103
            if fmt == "warc":
                records = [
                    build_warc([html_response(f"https://e.example/{i}", _page(i))], gzip=False)
                    for i in range(n)
                ]
                records[1] = re.sub(
                    rb"Content-Length: \d+\r\n",
                    b"Content-Length: " + length.encode() + b"\r\n",
                    records[1],
                    count=1,
                )
                plain = b"".join(records)
            else:
                pages = [
                    (
                        f"https://e.example/{i}",
                        "text/html",
                        b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n" + _page(i),
                    )
                    for i in range(n)
                ]
                plain = build_arc(pages, gzip=False)
                line = re.search(rb"(https://e\.example/1 \S+ \d{14} \S+ )(\d+)\n", plain)
                assert line is not None
                plain = plain[: line.start(2)] + length.encode() + plain[line.end(2) :]
            path = work / f"whole-{fmt}-{length}.{fmt}.gz"
            path.write_bytes(gzip.compress(plain, mtime=0))
            report = process_warc_supervised(str(path), JobConfig(output=str(work / path.stem)))
            out[f"{fmt} {length}"] = {
                "good_written": report.stats.docs,
                "good": n - 1,
                "records": report.stats.records,
                "rejects": dict(report.stats.rejects),
                "issues": dict(report.stats.issues),
            }
    print("bad length in a file gzipped whole: good records written")
    for key, row in out.items():
        print(f"  {key:10s} {row['good_written']} of {row['good']}  (records {row['records']})")
    return out


# --- slow pages ---


def _good_pages(n: int) -> list[bytes]:
    pages = sorted((SHARED / "data" / "wcxb-dev" / "html").glob("*.html.gz"))
    if pages:
        return [gzip.decompress(pages[i % len(pages)].read_bytes()) for i in range(n)]
    return [_page(i) for i in range(n)]


SLOW_PAGE = ("<html><body>" + "<div>" * 100_000 + "text" + "</div>" * 100_000).encode()


def slow_pages(work: Path, good: int, slow: int, cap: float, runs: int) -> dict[str, Any]:
    rng = random.Random(48)
    pages = _good_pages(good)
    records = [html_response(f"https://good.example/{i}", p) for i, p in enumerate(pages)]
    mixed = list(records)
    for k in sorted(rng.sample(range(good), slow), reverse=True):
        mixed.insert(k, html_response(f"https://slow.example/{k}", SLOW_PAGE))
    plain_path, mixed_path = work / "good.warc.gz", work / "mixed.warc.gz"
    plain_path.write_bytes(build_warc(records))
    mixed_path.write_bytes(build_warc(mixed))
    limits = Limits(max_seconds=cap)
    times: dict[str, list[float]] = {"good": [], "mixed": []}
    reports: dict[str, Any] = {}
    supervise.start_children(JobConfig(output=str(work / "warm"), limits=limits), 1)
    for run in range(runs):
        for name, path in (("good", plain_path), ("mixed", mixed_path)):
            cfg = JobConfig(output=str(work / f"out-{name}-{run}"), limits=limits)
            t0 = time.perf_counter()
            report = process_warc_supervised(str(path), cfg)
            times[name].append(time.perf_counter() - t0)
            reports[name] = report.stats.to_dict()
    good_s = statistics.median(times["good"])
    mixed_s = statistics.median(times["mixed"])
    bound = good_s + slow * cap
    out = {
        "good_pages": good,
        "slow_pages": slow,
        "cap_seconds": cap,
        "seconds": times,
        "good_seconds_median": round(good_s, 2),
        "mixed_seconds_median": round(mixed_s, 2),
        "target_seconds": round(bound, 2),
        "within_target": mixed_s <= bound,
        "over_target_per_slow_page": round((mixed_s - bound) / slow, 3),
        "mixed_docs": reports["mixed"]["docs"],
        "good_docs": reports["good"]["docs"],
        "mixed_rejects": reports["mixed"]["rejects"],
    }
    print(f"{slow} slow pages among {good} good ones, --max-seconds {cap:g}")
    print(f"  good input alone     {good_s:8.1f} s  ({reports['good']['docs']} documents)")
    print(
        f"  with the slow pages  {mixed_s:8.1f} s  ({reports['mixed']['docs']} documents, "
        f"rejects {reports['mixed']['rejects']})"
    )
    verdict = "met" if out["within_target"] else "NOT met"
    print(f"  target (good + {slow} caps) {bound:.1f} s: {verdict}")
    return out


# --- the ragged table ---


def ragged_table(work: Path) -> dict[str, Any]:
    first = "<tr>" + "".join(f"<td>c{c}</td>" for c in range(12_000)) + "</tr>"
    rest = "".join(f"<tr><td>r{r}</td><td>value {r}</td></tr>" for r in range(6_000))
    page = (
        "<html><body><h1>Measurements</h1><p>The table below holds every value we measured "
        f"this year.</p><table>{first}{rest}</table></body></html>"
    ).encode()
    path = work / "ragged.warc.gz"
    path.write_bytes(build_warc([html_response("https://ragged.example/", page)]))
    supervise.shutdown()  # a fresh child: its peak resident memory is this page's
    report = process_warc_supervised(str(path), JobConfig(output=str(work / "ragged")))
    (child,) = supervise._IDLE
    peak = psutil.Process(child.proc.pid).memory_full_info()
    hwm_kb = _vm_hwm(child.proc.pid)
    supervise.shutdown()
    import pyarrow.dataset as ds

    rows = ds.dataset(work / "ragged" / "docs", format="parquet", partitioning="hive").to_table()
    markdown = rows.column("markdown").to_pylist()[0] or ""
    out = {
        "page_bytes": len(page),
        "warc_gz_bytes": path.stat().st_size,
        "markdown_bytes": len(markdown.encode()),
        "markdown_over_page": round(len(markdown.encode()) / len(page), 3),
        "truncated": rows.column("truncated").to_pylist()[0],
        "child_peak_rss_mb": round(hwm_kb / 1024, 1) if hwm_kb else None,
        "child_rss_after_mb": round(peak.rss / 2**20, 1),
        "docs": report.stats.docs,
    }
    print("ragged table (12,000 cells, then 6,000 rows of 2)")
    print(
        f"  page {out['page_bytes']:,} B ({out['warc_gz_bytes']:,} B gzipped), Markdown "
        f"{out['markdown_bytes']:,} B = {out['markdown_over_page']}x the page; "
        f"child peak RSS {out['child_peak_rss_mb']} MB"
    )
    return out


def _vm_hwm(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


# --- Markdown that renders to elements ---


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)


RENDERER_ELEMENTS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code"}
    | {"table", "thead", "tbody", "tr", "th", "td", "br", "em", "strong"}
)


def _foreign(md: Any, markdown: str) -> list[str]:
    found = _Elements()
    found.feed(md.render(markdown))
    found.close()
    bad = sorted(found.tags - RENDERER_ELEMENTS)
    bad += sorted(a for a in found.attributes if a.lower().startswith("on") or a in ("src", "href"))
    return bad


_SHOWN = [
    "<script>alert(document.cookie)</script>",
    "<img src=x onerror=alert(1)>",
    "<iframe src=https://e.example/></iframe>",
    "[click](javascript:alert(1))",
    "![x](https://e.example/x.png)",
    "<a href=https://e.example/>x</a>",
]


def _hostile_pages(n: int) -> list[bytes]:
    rng = random.Random(4848)
    words = "The river runs through the old town and the people along its banks tell its story."
    out = []
    for _ in range(n):
        parts = ["<html><body><h1>A page</h1>"]
        for _ in range(rng.randint(2, 8)):
            shown = html_module.escape(rng.choice(_SHOWN), quote=False)
            where = rng.choice(["p", "h2", "li", "quote", "td"])
            parts.append(
                {
                    "p": f"<p>{words} {shown} {words}</p>",
                    "h2": f"<h2>{shown} {words}</h2>",
                    "li": f"<ul><li>{words} {shown}</li><li>{words}</li></ul>",
                    "quote": f"<blockquote><p>{words} {shown}</p></blockquote>",
                    "td": f"<table><tr><th>a</th><th>b</th></tr><tr><td>{shown}</td>"
                    f"<td>{words}</td></tr><tr><td>c</td><td>d</td></tr></table>",
                }[where]
            )
        out.append(("".join(parts) + "</body></html>").encode())
    return out


def markdown_safety(hostile: int) -> dict[str, Any]:
    from markdown_it import MarkdownIt

    from pipeline.clean import clean_html
    from pipeline.evaluate.datasets import load_dataset
    from pipeline.types import Verdict

    source = subprocess.run(
        ["git", "show", f"{BEFORE}:pipeline/render/blocks.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.replace("check_fresh(__name__, __file__)", "")
    before: dict[str, Any] = {}
    exec(compile(source, f"{BEFORE}:pipeline/render/blocks.py", "exec"), before)
    md = MarkdownIt()  # markdown-it-py's defaults: CommonMark, raw HTML on
    sets: dict[str, list[bytes]] = {}
    for name in ("wcxb-dev", "multilingual-dev"):
        root = SHARED / "data" / name
        if root.exists():
            sets[name] = [p.read_html() for p in load_dataset(root)]
    sets["generated hostile"] = _hostile_pages(hostile)
    out: dict[str, Any] = {}
    print("pages whose Markdown renders to an element the renderer does not make (markdown-it)")
    for name, pages in sets.items():
        now = old = 0
        examples: list[str] = []
        for page in pages:
            result = clean_html(page)
            kept = [lb.block for lb in result.blocks if lb.verdict is Verdict.GOOD]
            if _foreign(md, result.markdown):
                now += 1
            found = _foreign(md, before["render"](kept).markdown)
            if found:
                old += 1
                if len(examples) < 5:
                    examples.append(",".join(found))
        out[name] = {"pages": len(pages), "after": now, "before": old, "before_found": examples}
        print(f"  {name:18s} {len(pages):5d} pages: {now} now, {old} with the renderer at {BEFORE}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--good", type=int, default=1000)
    parser.add_argument("--slow", type=int, default=50)
    parser.add_argument("--cap", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--hostile", type=int, default=500, help="generated hostile pages")
    parser.add_argument("--only", default="bad_length,slow_pages,ragged_table,markdown")
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "hostile_input.json"))
    args = parser.parse_args()
    parts = set(args.only.split(","))
    result: dict[str, Any] = {
        "date": results_file.utc_now(),
        "commit": results_file.git_commit(),
        "machine": {"python": platform.python_version(), "cpus": psutil.cpu_count()},
        "load_average": list(psutil.getloadavg()),
    }
    with tempfile.TemporaryDirectory(prefix="warcclean-hostile-") as tmp:
        work = Path(tmp)
        if "bad_length" in parts:
            result["bad_length"] = bad_length(work)
        if "ragged_table" in parts:
            result["ragged_table"] = ragged_table(work)
        if "markdown" in parts:
            result["markdown"] = markdown_safety(args.hostile)
        if "slow_pages" in parts:
            result["slow_pages"] = slow_pages(work, args.good, args.slow, args.cap, args.runs)
    supervise.shutdown()
    results_file.write_results(args.out, result, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
