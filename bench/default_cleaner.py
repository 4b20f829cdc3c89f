"""What one page costs with the default cleaner, end to end and stage by stage.

Usage: python bench/default_cleaner.py [--data DIR] [--pages IDS] [--limit N] [--out FILE]
                                     [--compare-model MODEL.json]

``--data`` is wcxb-dev (the default) or multilingual-dev: the guards of the default cleaner run on
pages outside English only, so its cost against jusText's is measured on both.

End to end, three contenders clean every page in one run, interleaved page by page (the order
rotates), so machine noise hits all of them alike: the default cleaner with language detection
(what a job runs), the default cleaner told the language (the cleaner's own cost, as extraction
tools are usually quoted), and jusText with detection (the classic baseline). Then the default
cleaner's path is re-run one stage at a time on the same pages: decoding, parsing, segmentation,
language detection, page cues (the head's declarations and the URL), block features, the
model's first pass and, for a model with a second pass, the stacked features and second pass,
and for one with sequence nets, the nets. Times are CPU time of this process
(`time.process_time_ns`) per page, from raw bytes; gunzipping happens before timing. "Language
given" passes the dataset's language of the page (``en`` for every wcxb page). Every contender
gets the page's URL from the dataset, as a job passes each record's target URI.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline.threads import single_threaded_blas  # noqa: E402

single_threaded_blas()  # as in a Dask worker; before numpy is imported

import numpy as np  # noqa: E402

from pipeline.clean import clean_html  # noqa: E402
from pipeline.cleaners.registry import DEFAULT_CLEANER, make_cleaner  # noqa: E402
from pipeline.compiled import compiled_modules  # noqa: E402
from pipeline.evaluate.datasets import load_dataset  # noqa: E402
from pipeline.html.decode import decode_html  # noqa: E402
from pipeline.html.page_cues import page_cues  # noqa: E402
from pipeline.html.segment import parse, segment  # noqa: E402
from pipeline.lang import langid, stoplists  # noqa: E402
from pipeline.learned.features import page_features  # noqa: E402
from pipeline.learned.model import sigmoid  # noqa: E402
from pipeline.learned.neighbours import NeighboursCleaner  # noqa: E402
from pipeline.learned.stacked import stack_features  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data" / "wcxb-dev"
DEFAULT_OUT = REPO / "bench" / "results" / "default_cleaner.json"
TARGET_MEDIAN_MS = 5.0  # issue 5's target for the default cleaner, per page
TARGET_RATIO = 2.0  # issue 19's: the default cleaner's median at most twice jusText's
STAGES = ("decode", "parse", "segment", "langid", "cues", "features", "pass 1")
STACKED_STAGES = ("stack", "pass 2")  # only a model with a second pass has these
SEQUENCE_STAGES = ("nets",)  # only a model with sequence nets has this (all of them)


Pages = list[tuple[str, bytes, str | None, str]]  # id, raw bytes, URL, language


def load_pages(data: Path, ids_file: Path | None, limit: int | None) -> Pages:
    html_dir = data / "html"
    if not html_dir.is_dir():
        raise SystemExit(f"error: {html_dir} not found (give --data a dev set's folder)")
    if ids_file is not None:
        ids = [line.strip() for line in ids_file.read_text().splitlines() if line.strip()]
        paths = [html_dir / f"{page_id}.html.gz" for page_id in ids]
    else:
        paths = sorted(html_dir.glob("*.html.gz"))
    known = {page.id: (page.url, page.language) for page in load_dataset(data)}
    pages = []
    for path in paths[:limit]:
        page_id = path.name.removesuffix(".html.gz")
        if page_id not in known:
            raise SystemExit(f"error: page {page_id} is not in {data}'s ground truth")
        url, language = known[page_id]
        pages.append((page_id, gzip.decompress(path.read_bytes()), url, language))
    return pages


def end_to_end(pages: Pages, other_model: Path | None = None) -> dict[str, list[int]]:
    contenders: dict[str, Callable[[bytes, str | None, str], object]] = {
        f"{DEFAULT_CLEANER} (detect language)": lambda html, url, _: clean_html(html, url=url),
        f"{DEFAULT_CLEANER} (language given)": lambda html, url, language: clean_html(
            html, url=url, language=language
        ),
        "justext (detect language)": lambda html, url, _: clean_html(
            html, url=url, cleaner="justext"
        ),
    }
    if other_model is not None:
        contenders[f"neighbours ({other_model.name})"] = lambda html, url, _: clean_html(
            html, url=url, cleaner="neighbours", model=str(other_model)
        )
    names = list(contenders)
    for name in names:  # warm-up: model, stoplists and langdetect's profiles load on first use
        contenders[name](*pages[0][1:])
    times: dict[str, list[int]] = {name: [] for name in names}
    clock = time.process_time_ns
    for i, (_, html, url, language) in enumerate(pages):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            start = clock()
            contenders[name](html, url, language)
            times[name].append(clock() - start)
    return times


def stages(pages: Pages) -> dict[str, list[int]]:
    cleaner = make_cleaner(DEFAULT_CLEANER)
    if not isinstance(cleaner, NeighboursCleaner):
        raise SystemExit("error: the stage breakdown is written for the neighbours model")
    model = cleaner.model
    stacked = model.stacked is not None
    sequence = bool(model.nets)
    names = STAGES + (STACKED_STAGES if stacked else ()) + (SEQUENCE_STAGES if sequence else ())
    times: dict[str, list[int]] = {stage: [] for stage in names}
    clock = time.process_time_ns
    for _, html, url, _ in pages:
        t0 = clock()
        decoded = decode_html(html, None)
        t1 = clock()
        tree = parse(html if decoded.encoding == "utf-8" else decoded.html)
        t2 = clock()
        blocks = segment(tree, record_runs=True)
        t3 = clock()
        stoplist = stoplists.stoplist(langid.detect_blocks(blocks).code)
        t4 = clock()
        cues = page_cues(tree, url)
        t5 = clock()
        x = page_features(blocks, stoplist, cues)
        t6 = clock()
        first = model.scorer.raw(x) if blocks else np.zeros(0)
        t7 = clock()
        marks = [t0, t1, t2, t3, t4, t5, t6, t7]
        if stacked:
            extra = stack_features(blocks, sigmoid(first)) if blocks else None
            marks.append(clock())
            if extra is not None:
                model.stacked.raw(np.hstack((x, extra)))
            marks.append(clock())
        if sequence:
            model.net_probabilities(x)
            marks.append(clock())
        for stage, start, end in zip(names, marks[:-1], marks[1:], strict=True):
            times[stage].append(end - start)
    return times


def _row(ns: list[int]) -> dict[str, float]:
    ms = sorted(v / 1e6 for v in ns)
    return {
        "median_ms": statistics.median(ms),
        "mean_ms": statistics.fmean(ms),
        "p90_ms": ms[min(len(ms) - 1, int(0.9 * len(ms)))],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="a dev set folder (wcxb-dev, multilingual-dev)",
    )
    parser.add_argument("--pages", type=Path, default=None, help="file of page ids, one a line")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON path")
    parser.add_argument(
        "--compare-model",
        type=Path,
        default=None,
        help="another neighbours model file, timed end to end beside the others (an older "
        "model, say, to measure what a change costs in the same run)",
    )
    args = parser.parse_args(argv)
    pages = load_pages(args.data, args.pages, args.limit)
    if not pages:
        raise SystemExit("error: no pages to measure")
    started = results_file.utc_now()
    load_start = os.getloadavg()
    print(f"{len(pages)} pages; compiled: {compiled_modules()}", file=sys.stderr)
    e2e = {name: _row(ns) for name, ns in end_to_end(pages, args.compare_model).items()}
    breakdown = {name: _row(ns) for name, ns in stages(pages).items()}
    total_median = sum(r["median_ms"] for r in breakdown.values())
    total_mean = sum(r["mean_ms"] for r in breakdown.values())

    print(f"\nend to end (clean_html from bytes), {len(pages)} pages, CPU ms per page")
    print(f"{'contender':36} {'median':>8} {'mean':>8} {'p90':>8}")
    for name, r in e2e.items():
        print(f"{name:36} {r['median_ms']:8.2f} {r['mean_ms']:8.2f} {r['p90_ms']:8.2f}")
    justext_median = e2e["justext (detect language)"]["median_ms"]
    ratios = {name: r["median_ms"] / justext_median for name, r in e2e.items()}
    for name, ratio in ratios.items():
        print(f"  {name}: {ratio:.2f}x jusText's median")
    print(f"\n{DEFAULT_CLEANER} stage by stage, CPU ms per page")
    print(f"{'stage':12} {'median':>8} {'mean':>8} {'share of mean':>14}")
    for name, r in breakdown.items():
        share = r["mean_ms"] / total_mean
        print(f"{name:12} {r['median_ms']:8.2f} {r['mean_ms']:8.2f} {share:14.2f}")
    print(f"{'(sum)':12} {total_median:8.2f} {total_mean:8.2f}")
    verdicts = {
        name: r["median_ms"] <= TARGET_MEDIAN_MS
        for name, r in e2e.items()
        if name.startswith(DEFAULT_CLEANER)
    }
    for name, ok in verdicts.items():
        print(f"target median <= {TARGET_MEDIAN_MS} ms, {name}: {'met' if ok else 'NOT met'}")
    ratio_met = {name: ratio <= TARGET_RATIO for name, ratio in ratios.items() if name in verdicts}
    for name, ok in ratio_met.items():
        print(f"target <= {TARGET_RATIO}x jusText's median, {name}: {'met' if ok else 'NOT met'}")

    result = {
        "date": started,
        "command": results_file.command_line(__file__, argv),
        "data": str(args.data),
        "pages": len(pages),
        "clock": "time.process_time_ns per page",
        "load_average": {"start": load_start, "end": os.getloadavg()},
        "compiled_modules": compiled_modules(),
        "end_to_end": e2e,
        "stages": breakdown,
        "target_median_ms": TARGET_MEDIAN_MS,
        "target_met": verdicts,
        "ratio_to_justext_median": ratios,
        "target_ratio": TARGET_RATIO,
        "target_ratio_met": ratio_met,
    }
    results_file.write_results(args.out, result)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
