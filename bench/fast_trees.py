"""Would a fast learned variant pay? Trees on the cheap feature columns against all of them.

Usage: python bench/fast_trees.py [--data-dir ../shared/data] [--seed 13] [--out FILE]

Needs scikit-learn (the ``train`` extra) and ``../shared/data`` (wcxb-dev, multilingual-dev,
magic-html). Issue 36 asks whether the job can match the resiliparse front end's cost; the job
with the cheapest cleaner does (``bench/pipeline.py --cleaner density-stddev``), the default does
not, and the difference is the default's labelling. This script measures the two halves of the
question for a trees-only model:

* **Quality.** Gradient-boosted trees of the shipped shape (60 of depth 4, `FINAL`, fitted by
  `fit_spec` as the shipped ones are) on the training and model-selection sites of
  `jobs/train_cleaner.py`'s site split, once on all
  `FEATURE_NAMES` and once on the "cheap" columns: those that need no per-character or stopword
  pass (`EXPENSIVE` lists the name parts left out: stopword densities, jusText's classes, BTE's
  stretch, character-class ratios, sentence ends, text repeats and what derives from them). Both
  are scored on the held-out test sites, word F1 per page (characters for unspaced scripts), with
  the page's expected-F1 threshold and with a fixed 0.5, repeats dropped as the default does. No
  nets and no guards: this is the trees' share of the question.
* **Cost.** On every wcxb-dev page (decoded, parsed and segmented as the default cleaner does,
  English stoplist), CPU time of `page_features` as installed and of the parts the cheap columns
  would skip: `_block_stats` (per-character and stopword counts), `_bte_fractions` and the text
  grouping for repeats. What remains is the cheap columns' cost as computed today.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "jobs"))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

import numpy as np  # noqa: E402

import pipeline.learned.features as features  # noqa: E402
from pipeline.html.decode import decode_html  # noqa: E402
from pipeline.html.page_cues import page_cues  # noqa: E402
from pipeline.html.segment import parse, segment  # noqa: E402
from pipeline.lang import stoplists  # noqa: E402
from pipeline.learned.columns import CHEAP_EXCLUDED, FEATURE_NAMES  # noqa: E402
from pipeline.learned.decision import decide  # noqa: E402
from pipeline.types import block_fields  # noqa: E402

DEFAULT_OUT = REPO / "bench" / "results" / "fast_trees.json"
# The shipped cheap set's exclusions, and the text repeats too: the study left them out (a
# grouping of every block's text); the shipped set keeps them, their grouping being cheap.
EXPENSIVE = (*CHEAP_EXCLUDED, "text_repeats")
SETS = {"wcxb": "wcxb-dev", "ml": "multilingual-dev", "mh": "magic-html"}


def cheap_columns() -> list[int]:
    return [i for i, name in enumerate(FEATURE_NAMES) if not any(e in name for e in EXPENSIVE)]


def quality(data_dir: Path, seed: int) -> dict[str, Any]:
    """Held-out word F1 per source set of trees on all columns and on the cheap ones, fitted as
    `jobs/train_cleaner.py` fits the shipped shape."""
    from train_cleaner import (
        FINAL,
        _scorer_probs,
        _training_rows,
        fit_spec,
        only_columns,
        prepare,
        score_pages,
    )

    pages = prepare(data_dir, seed)
    train = [p for p in pages if p.part != "test"]
    test = [p for p in pages if p.part == "test" and p.blocks]
    family = FINAL[1]
    out: dict[str, Any] = {"train_pages": len(train), "test_pages": len(test), "trees": family}
    for name, columns in (("all", list(range(len(FEATURE_NAMES)))), ("cheap", cheap_columns())):
        spec = fit_spec(family, *_training_rows(only_columns(train, columns)), seed)
        probs = _scorer_probs(spec, len(FEATURE_NAMES), test)
        scores: dict[str, dict[str, float]] = {}
        for rule, threshold in (("expected_f1", None), ("fixed_0.5", 0.5)):
            by_set: dict[str, list[float]] = {}
            for p, pr in zip(test, probs, strict=True):
                sizes = np.array([b.n_chars for b in p.blocks], dtype=np.float64)
                texts = [b.text for b in p.blocks]
                keep = decide(pr, threshold, 0.0, texts, True, sizes)
                row = score_pages([p], [keep])[0]
                if row.f1 is not None:
                    by_set.setdefault(p.key.split("/")[0], []).append(row.f1)
            scores[rule] = {s: round(float(np.mean(v)), 4) for s, v in sorted(by_set.items())}
        out[name] = {"columns": len(columns), "word_f1": scores}
        print(f"{name:6} ({len(columns)} columns): {scores}", flush=True)
    return out


def cost(data_dir: Path) -> dict[str, Any]:
    """Mean and median CPU ms per wcxb-dev page of `page_features` and of its expensive parts."""
    stoplist = stoplists.stoplist("en")
    pages = []
    for path in sorted((data_dir / SETS["wcxb"] / "html").glob("*.html.gz")):
        decoded = decode_html(gzip.decompress(path.read_bytes()))
        tree = parse(decoded.utf8 if decoded.utf8 is not None else decoded.html)
        blocks = segment(tree, record_runs=True)
        if blocks:
            pages.append((blocks, page_cues(tree, None), block_fields(blocks)))
    gc.collect()
    gc.freeze()  # a job holds one page at a time: keep the loaded pages out of the collector's way
    parts: dict[str, Callable[[Sequence, np.ndarray, Sequence], Any]] = {
        "page_features": lambda b, c, f: features.page_features(b, stoplist, c, f),
        "block_stats": lambda b, c, f: features._block_stats(b, f, stoplist),
        "bte_fractions": lambda b, c, f: features._bte_fractions(f[11], f[7]),
        "text_groups": lambda b, c, f: features.group_ids(f[1]),
    }
    times: dict[str, list[int]] = {name: [] for name in parts}
    clock = time.process_time_ns
    for _ in range(2):  # the first round warms caches and is dropped
        for name in parts:
            times[name].clear()
        for blocks, cues, fields in pages:
            for name, part in parts.items():
                t0 = clock()
                part(blocks, cues, fields)
                times[name].append(clock() - t0)
    summary = {
        name: {
            "mean_ms": round(statistics.mean(ns) / 1e6, 4),
            "median_ms": round(statistics.median(ns) / 1e6, 4),
        }
        for name, ns in times.items()
    }
    skipped = sum(summary[n]["mean_ms"] for n in ("block_stats", "bte_fractions", "text_groups"))
    summary["cheap_columns_left"] = {
        "mean_ms": round(summary["page_features"]["mean_ms"] - skipped, 4)
    }
    return {"pages": len(pages), "compiled": features._COMPILED, "ms": summary}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--seed", type=int, default=13, help="the site split's seed (as shipped)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON path")
    args = parser.parse_args(argv)
    missing = [s for s in SETS.values() if not (args.data_dir / s).is_dir()]
    if missing:
        raise SystemExit(f"error: {args.data_dir} lacks {', '.join(missing)}")
    started = results_file.utc_now()
    load_start = os.getloadavg()
    timed = cost(args.data_dir)
    print(f"{'CPU ms per wcxb-dev page':28} {'mean':>8} {'median':>8}")
    for name, row in timed["ms"].items():
        print(f"{name:28} {row['mean_ms']:8.3f} {row.get('median_ms', float('nan')):8.3f}")
    scored = quality(args.data_dir, args.seed)
    result = {
        "date": started,
        "command": results_file.command_line(__file__, argv),
        "load_average": {"start": load_start, "end": os.getloadavg()},
        "expensive": EXPENSIVE,
        "cost": timed,
        "quality": scored,
    }
    results_file.write_results(args.out, result)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
