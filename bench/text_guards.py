"""What the guards over a page's short kept blocks cost: JavaScript notices and support appeals.

Usage: python bench/text_guards.py [--data DIR] [--every N] [--rounds 20] [--out FILE]

For every N-th page of a dev set (default: every second WCXB dev page), in one process: the whole
`clean_html` (best of 3), then on the blocks the default cleaner kept, each arm best of
``--rounds``, the arms alternating from page to page:

- ``notices``: `pipeline.rules.script_notice.guard` alone, the page's cost before the appeals
  guard existed;
- ``both``: what `pipeline.rules.sequence.guarded` runs now, the short kept blocks listed once
  (`pipeline.rules.short_kept`) and read by `script_notice.drop_notices` then
  `support_appeal.drop_appeals` for the page's language
  (`pipeline.rules.sequence.notices_and_appeals`);
- the same two with every block kept, the worst case.

Prints a table of the medians and means (ms a page) and the added cost as a share of the median
page and of the total, and writes them to ``bench/results/text_guards.json``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pipeline.clean import clean_html  # noqa: E402
from pipeline.rules import script_notice  # noqa: E402
from pipeline.rules.sequence import notices_and_appeals  # noqa: E402
from pipeline.types import Block, Verdict  # noqa: E402

Guard = Callable[[np.ndarray, Sequence[Block], str | None], object]


def notices(keep: np.ndarray, blocks: Sequence[Block], language: str | None) -> object:
    return script_notice.guard(keep, blocks)


def both(keep: np.ndarray, blocks: Sequence[Block], language: str | None) -> object:
    return notices_and_appeals(keep, blocks, language)


def best_of(rounds: int, guard: Guard, keep: np.ndarray, blocks: list[Block], lang: str) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        guard(keep, blocks, lang)
        best = min(best, time.perf_counter() - started)
    return best * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "wcxb-dev"))
    parser.add_argument("--every", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "text_guards.json"))
    args = parser.parse_args()
    files = sorted(Path(args.data, "html").glob("*.html.gz"))[:: args.every]
    if not files:
        parser.error(f"no html/*.html.gz under {args.data}")
    times: dict[str, list[float]] = {
        "page": [],
        "notices": [],
        "both": [],
        "notices_all_kept": [],
        "both_all_kept": [],
    }
    for n, path in enumerate(files):
        html = gzip.decompress(path.read_bytes())
        page = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            result = clean_html(html)
            page = min(page, time.perf_counter() - started)
        times["page"].append(page * 1e3)
        blocks = [labelled.block for labelled in result.blocks]
        language = result.language.code
        kept = np.array([lb.verdict is Verdict.GOOD for lb in result.blocks], bool)
        every = np.ones(len(blocks), bool)
        arms = [("notices", notices), ("both", both)]
        for name, guard in arms if n % 2 == 0 else arms[::-1]:
            times[name].append(best_of(args.rounds, guard, kept, blocks, language))
            times[f"{name}_all_kept"].append(best_of(args.rounds, guard, every, blocks, language))
    added = [b - a for a, b in zip(times["notices"], times["both"], strict=True)]
    median_page = statistics.median(times["page"])
    summary = {
        "pages": len(files),
        "data": args.data,
        "rounds": args.rounds,
        "median_ms": {k: round(statistics.median(v), 4) for k, v in times.items()},
        "mean_ms": {k: round(statistics.fmean(v), 4) for k, v in times.items()},
        "added_median_ms": round(statistics.median(added), 4),
        "added_share_of_median_page": round(statistics.median(added) / median_page, 4),
        "added_share_of_total": round(sum(added) / sum(times["page"]), 4),
    }
    print(f"{len(files)} pages of {args.data}, clean_html median {median_page:.3f} ms")
    print(f"{'arm':<20}{'median ms':>12}{'mean ms':>12}")
    for key in times:
        print(f"{key:<20}{summary['median_ms'][key]:>12.4f}{summary['mean_ms'][key]:>12.4f}")
    print(
        f"added by the appeals guard: {summary['added_median_ms']:.4f} ms median, "
        f"{summary['added_share_of_median_page']:.2%} of the median page, "
        f"{summary['added_share_of_total']:.2%} of the total"
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(summary, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()
