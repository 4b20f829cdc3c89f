"""Per-page cleaning speed (and word F1) of our cleaners against the parse floor and jusText.

Usage: python bench/cleaner.py [--data DIR] [--limit N] [--no-langid] [--out FILE]

Every contender cleans every page in ONE run, interleaved page by page (the order rotates per
page), so all of them share the same machine noise: on a shared box a slow minute hurts all
contenders equally instead of whichever happened to run then.

Fairness: each contender starts from the page's raw bytes. The justext package takes bytes and
decodes them itself, so ours get bytes too and pay for our decoding (BOM, HTTP, meta, detection);
the parse floor is `LexborHTMLParser(bytes)`, which decodes as UTF-8 inside lexbor. Reading and
gunzipping the files happens before timing. Times are CPU time of this process
(`time.process_time_ns`), not wall time, because other jobs on the machine steal wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import platform
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# `python bench/cleaner.py` puts bench/ first on sys.path, where bench/pipeline.py (the pipeline
# benchmark) would shadow the `pipeline` package; the package is what this script measures.
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline.threads import single_threaded_blas  # noqa: E402

single_threaded_blas()  # as in a Dask worker; before numpy is imported
DEFAULT_DATA = REPO.parent / "shared" / "data" / "wcxb-dev"
DEFAULT_OUT = REPO / "bench" / "results" / "cleaner.json"
FLOOR = "parse floor"
JUSTEXT_PKG = "justext pkg"
# The targets, checked in the printed summary.
TARGET_SPEEDUP_VS_JUSTEXT = 5.0
TARGET_RATIO_VS_FLOOR = 4.0
TARGET_LANGID_SHARE = 1 / 3
WITH_LANGID = "ours justext+langid"


@dataclass(frozen=True, slots=True)
class Page:
    id: str
    html: bytes
    reference: str | None  # main_content; None on pages that only have snippets


@dataclass(slots=True)
class Tally:
    """One contender's per-page CPU times, F1 scores and failures."""

    ns: list[int] = field(default_factory=list)
    f1: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)


# A contender takes the page bytes and returns the extracted text (None: it extracts nothing).
Contender = Callable[[bytes], "str | None"]


def load_pages(data: Path, limit: int | None) -> list[Page]:
    html_dir = data / "html"
    if not html_dir.is_dir():
        raise SystemExit(f"error: {html_dir} not found (give --data the wcxb-dev folder)")
    paths = sorted(html_dir.glob("*.html.gz"))[:limit]
    pages = []
    for path in paths:
        page_id = path.name.removesuffix(".html.gz")
        truth = json.loads((data / "ground-truth" / f"{page_id}.json").read_text("utf-8"))
        reference = truth.get("ground_truth", {}).get("main_content")
        pages.append(Page(page_id, gzip.decompress(path.read_bytes()), reference))
    return pages


def contenders(with_langid: bool) -> dict[str, Contender]:
    import justext
    from selectolax.lexbor import LexborHTMLParser

    from pipeline.clean import clean_html

    english = justext.get_stoplist("English")

    def floor(html: bytes) -> None:
        LexborHTMLParser(html)

    def ours_justext(html: bytes) -> str:
        return clean_html(html, cleaner="justext", language="en").text

    def ours_bte(html: bytes) -> str:
        return clean_html(html, cleaner="bte", language="en").text

    def ours_density_lm(html: bytes) -> str:
        return clean_html(html, cleaner="density-lm", language="en").text

    def ours_density_mlp(html: bytes) -> str:
        return clean_html(html, cleaner="density-mlp", language="en").text

    def ours_langid(html: bytes) -> str:
        return clean_html(html, cleaner="justext").text

    def justext_pkg(html: bytes) -> str:
        paragraphs = justext.justext(html, english)
        return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    out: dict[str, Contender] = {
        FLOOR: floor,
        "ours justext": ours_justext,
        "ours bte": ours_bte,
        "ours density-lm": ours_density_lm,
        "ours density-mlp": ours_density_mlp,
        JUSTEXT_PKG: justext_pkg,
    }
    if with_langid:
        out[WITH_LANGID] = ours_langid
    return out


def run(pages: list[Page], funcs: dict[str, Contender]) -> dict[str, Tally]:
    from pipeline.evaluate.metrics import text_f1

    names = list(funcs)
    tallies = {name: Tally() for name in names}
    # Warm-up outside the timings: imports, stoplists and langdetect's profiles load on first use.
    # A failure here is not lost: the timed run meets the same page and records it with its type.
    for name in names:
        with contextlib.suppress(Exception):
            funcs[name](pages[0].html)
    clock = time.process_time_ns
    for i, page in enumerate(pages):
        order = names[i % len(names) :] + names[: i % len(names)]
        for name in order:
            tally = tallies[name]
            text: str | None = None
            start = clock()
            try:
                text = funcs[name](page.html)
            except Exception as exc:  # recorded per contender, with its type, never hidden
                tally.errors[type(exc).__name__] += 1
            tally.ns.append(clock() - start)
            if name != FLOOR and page.reference is not None:
                tally.f1.append(text_f1(text or "", page.reference).f1)
        if (i + 1) % 100 == 0:
            print(f"  {i + 1}/{len(pages)} pages", file=sys.stderr, flush=True)
    return tallies


def _percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))])


def summarise(tallies: dict[str, Tally]) -> dict[str, dict[str, float | int | None]]:
    floor_total = sum(tallies[FLOOR].ns)
    floor_median = statistics.median(tallies[FLOOR].ns)
    justext_total = sum(tallies[JUSTEXT_PKG].ns) if JUSTEXT_PKG in tallies else None
    rows: dict[str, dict[str, float | int | None]] = {}
    for name, tally in tallies.items():
        total = sum(tally.ns)
        rows[name] = {
            "pages": len(tally.ns),
            "pages_per_s": len(tally.ns) / (total / 1e9) if total else None,
            "median_ms": statistics.median(tally.ns) / 1e6,
            "p99_ms": _percentile(tally.ns, 0.99) / 1e6,
            "max_ms": max(tally.ns) / 1e6,
            "total_s": total / 1e9,
            # Throughput ratio (total CPU over all pages), and the typical page's ratio.
            "x_parse_floor": total / floor_total if floor_total else None,
            "median_x_parse_floor": statistics.median(tally.ns) / floor_median
            if floor_median
            else None,
            "speedup_vs_justext_pkg": justext_total / total if justext_total and total else None,
            "word_f1": statistics.mean(tally.f1) if tally.f1 else None,
            "f1_pages": len(tally.f1),
            "errors": sum(tally.errors.values()),
        }
    return rows


def print_table(rows: dict[str, dict[str, float | int | None]]) -> None:
    from rich.console import Console
    from rich.table import Table

    def fmt(value: float | int | None, spec: str) -> str:
        return "–" if value is None else format(value, spec)

    table = Table(title="Cleaner speed per page (CPU time), wcxb-dev")
    for col in (
        "contender",
        "pages/s",
        "median ms",
        "p99 ms",
        "x parse",
        "x parse (median)",
        "vs justext",
        "F1",
        "err",
    ):
        table.add_column(col, justify="left" if col == "contender" else "right")
    for name, r in rows.items():
        table.add_row(
            name,
            fmt(r["pages_per_s"], ".1f"),
            fmt(r["median_ms"], ".2f"),
            fmt(r["p99_ms"], ".1f"),
            fmt(r["x_parse_floor"], ".2f"),
            fmt(r["median_x_parse_floor"], ".2f"),
            fmt(r["speedup_vs_justext_pkg"], ".2f"),
            fmt(r["word_f1"], ".3f"),
            str(r["errors"]),
        )
    console = Console()
    if not console.is_terminal:
        console.width = 120
    console.print(table)
    ours = rows.get("ours justext")
    if ours:
        speedup, ratio = ours["speedup_vs_justext_pkg"], ours["x_parse_floor"]
        median_ratio = ours["median_x_parse_floor"]
        console.print(
            f"targets: ours justext >= {TARGET_SPEEDUP_VS_JUSTEXT:g}x faster than justext pkg: "
            f"{fmt(speedup, '.2f')}x ({_verdict(speedup, TARGET_SPEEDUP_VS_JUSTEXT, True)}); "
            f"within {TARGET_RATIO_VS_FLOOR:g}x of bare parse: {fmt(ratio, '.2f')}x in total CPU "
            f"({_verdict(ratio, TARGET_RATIO_VS_FLOOR, False)}), "
            f"{fmt(median_ratio, '.2f')}x in medians "
            f"({_verdict(median_ratio, TARGET_RATIO_VS_FLOOR, False)})"
        )
    share = langid_share(rows)
    if share is not None:
        console.print(
            f"language detection: {share:.2f} of the per-page cost with it (total CPU; target "
            f"< {TARGET_LANGID_SHARE:.2f}: {_verdict(share, TARGET_LANGID_SHARE, False)})"
        )


def langid_share(rows: dict[str, dict[str, float | int | None]]) -> float | None:
    """Detection's share of cleaning with it: (with - without) / with, over total CPU time."""
    with_id, without = rows.get(WITH_LANGID), rows.get("ours justext")
    if not with_id or not without or not with_id["total_s"]:
        return None
    return (float(with_id["total_s"]) - float(without["total_s"] or 0)) / float(with_id["total_s"])


def _verdict(value: float | int | None, target: float, at_least: bool) -> str:
    if value is None:
        return "n/a"
    met = value >= target if at_least else value <= target
    return "met" if met else "NOT met"


def _package_version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def machine_info() -> dict[str, object]:
    from pipeline.compiled import compiled_modules

    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": os.getloadavg(),
        # Whether the hot modules ran compiled (hatch_build.py) or as pure Python.
        "compiled_modules": compiled_modules(),
        "git_commit": results_file.git_commit(short=False),
        "packages": {
            name: _package_version(name)
            for name in ("warcclean", "selectolax", "justext", "lxml", "langdetect")
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="wcxb-dev folder")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument(
        "--no-langid", action="store_true", help="skip our jusText with language detection on"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON path")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")

    info = machine_info()
    started = results_file.utc_now()
    pages = load_pages(args.data, args.limit)
    if not pages:
        raise SystemExit(f"error: no *.html.gz pages under {args.data / 'html'}")
    print(f"{len(pages)} pages from {args.data}", file=sys.stderr)
    for module, compiled in info["compiled_modules"].items():  # type: ignore[attr-defined]
        print(f"{module}: {'compiled' if compiled else 'pure Python'}", file=sys.stderr)
    tallies = run(pages, contenders(with_langid=not args.no_langid))
    rows = summarise(tallies)
    print_table(rows)

    info["load_average_at_end"] = os.getloadavg()
    result = {
        "date": started,
        "command": results_file.command_line(__file__, argv),
        "data": str(args.data),
        "pages": len(pages),
        "clock": "time.process_time_ns per page per contender",
        "input": "raw page bytes for every contender (each decodes for itself)",
        "machine": info,
        "targets": {
            "ours_justext_speedup_vs_justext_pkg_at_least": TARGET_SPEEDUP_VS_JUSTEXT,
            "ours_justext_x_parse_floor_at_most": TARGET_RATIO_VS_FLOOR,
        },
        "summary": rows,
        "langid_share_of_page_cost": langid_share(rows),
        "errors": {name: dict(t.errors) for name, t in tallies.items() if t.errors},
        "per_page_ms": {
            "ids": [p.id for p in pages],
            **{name: [round(ns / 1e6, 3) for ns in t.ns] for name, t in tallies.items()},
        },
    }
    results_file.write_results(args.out, result)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
