"""Recall at the edges of the content (issue 49, item 5): what each candidate rule keeps, and what
it costs in boilerplate, on answers the model gives for sites it was not fitted on.

Usage: python bench/edge_recall.py [--folds 5] [--seed 13] [--out FILE]

The shipped model's trees are refitted on ``--folds`` folds of whole sites of the training sets
(wcxb-dev, multilingual-dev, magic-html; `jobs/grouped_cv.py`'s site folds), so every page gets
probabilities from a model that never saw its site. Each page's answer is decided by the shipped
rule and corrected by the shipped page rules (`pipeline.rules.sequence.guarded`, without the
list rescue, in the page's dev-set language). Then each candidate rule runs on top:

- ``list items`` and ``label line``: `pipeline.rules.list_rescue`'s two corrections (shipped);
- ``both (shipped)``: `pipeline.rules.list_rescue.rescue`, as the cleaner runs it;
- ``captions``: a dropped ``<figcaption>`` block between two kept blocks (not shipped);
- ``section headings``: a dropped heading right above a kept, mostly link-free block of at
  least 100 characters (not shipped);
- ``list items, every language`` and ``label line, every language``: the shipped corrections
  without their English-only gate.

For each: the characters of the blocks it added whose aligned label is content (in the
reference) and boilerplate (outside it), which is its cost, and the mean page scores as
``warcclean eval`` computes them: WCXB word F1 overall and per page type, magic-html F1, and
multilingual-dev combined (full-text F1 and snippets). Results: ``bench/results/edge_recall.json``.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "jobs"))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

import grouped_cv  # noqa: E402
import train_cleaner as tc  # noqa: E402

from pipeline.evaluate.scoring import aggregate  # noqa: E402
from pipeline.html.page_type import PAGE_TYPES  # noqa: E402
from pipeline.learned.model import DEFAULT_MODEL, load_model  # noqa: E402
from pipeline.rules import list_rescue  # noqa: E402
from pipeline.rules.sequence import guarded  # noqa: E402
from pipeline.types import Block  # noqa: E402

DEFAULT_OUT = REPO / "bench" / "results" / "edge_recall.json"
HEADING_NEXT_CHARS = 100
GROUPS = ("wcxb", *(f"wcxb {t}" for t in PAGE_TYPES), "mh", "ml")

Rule = Callable[[np.ndarray, Sequence[Block], str | None], np.ndarray]


def captions(keep: np.ndarray, blocks: Sequence[Block], language: str | None) -> np.ndarray:
    """A dropped figure caption between two kept blocks."""
    out = keep.copy()
    for i in range(1, len(blocks) - 1):
        block = blocks[i]
        if keep[i] or "figcaption" not in block.dom_path.split("."):
            continue
        if block.link_density < 0.5 and keep[i - 1] and keep[i + 1]:
            out[i] = True
    return out


def section_headings(keep: np.ndarray, blocks: Sequence[Block], language: str | None) -> np.ndarray:
    """A dropped heading right above kept prose."""
    out = keep.copy()
    for i in range(len(blocks) - 1):
        block, after = blocks[i], blocks[i + 1]
        heading = block.is_heading or (block.shape is not None and block.shape.heading)
        if keep[i] or not heading or not keep[i + 1] or block.link_density >= 0.3:
            continue
        if len(after.text) >= HEADING_NEXT_CHARS and after.link_density <= 0.3:
            out[i] = True
    return out


def _items(keep: np.ndarray, blocks: Sequence[Block], language: str | None) -> np.ndarray:
    if language not in list_rescue.TRUSTED_LANGUAGES:
        return keep
    return list_rescue.fill_lists(keep, blocks, list_rescue.list_items(blocks))


def _labels(keep: np.ndarray, blocks: Sequence[Block], language: str | None) -> np.ndarray:
    if language not in list_rescue.TRUSTED_LANGUAGES:
        return keep
    return list_rescue.keep_labels(keep, blocks, list_rescue.list_items(blocks))


def _ungated(rule: Rule) -> Rule:
    return lambda keep, blocks, _language: rule(keep, blocks, "en")


RULES: dict[str, Rule] = {
    "list items": _items,
    "label line": _labels,
    "both (shipped)": lambda k, b, lang: list_rescue.rescue(k, b, lang)[0],
    "captions": captions,
    "section headings": section_headings,
    "list items, every language": _ungated(_items),
    "label line, every language": _ungated(_labels),
}


def _scores(pages: list[tc.PreparedPage], keeps: list[np.ndarray]) -> dict[str, dict]:
    rows = tc.score_pages(pages, keeps)
    groups: dict[str, list] = defaultdict(list)
    for page, row in zip(pages, rows, strict=True):
        dataset = page.key.split("/", 1)[0]
        groups[dataset].append(row)
        if dataset == "wcxb":
            groups[f"wcxb {page.page.page_type}"].append(row)
    out = {}
    for name in GROUPS:
        agg = aggregate(groups[name])
        out[name] = {
            "pages": agg["pages"],
            "f1": agg["f1"],
            "combined": agg["combined"],
            "with": agg["with_share"],
            "without": agg["without_share"],
        }
    return out


def _added_chars(
    pages: list[tc.PreparedPage], before: list[np.ndarray], after: list[np.ndarray]
) -> dict[str, dict[str, int]]:
    """Characters of the blocks a rule added, by dataset and by the block's aligned label."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"content": 0, "boilerplate": 0})
    for page, a, b in zip(pages, before, after, strict=True):
        dataset = page.key.split("/", 1)[0]
        for i in np.flatnonzero(b & ~a).tolist():
            label = int(page.y[i])
            kind = "content" if label == 1 else "boilerplate" if label == 0 else "unlabelled"
            out[dataset][kind] = out[dataset].get(kind, 0) + len(page.blocks[i].text)
    return {k: dict(v) for k, v in out.items()}


def measure(folds: int, seed: int) -> dict:
    t0 = time.perf_counter()
    pages = tc.prepare(REPO.parent / "shared" / "data", seed)
    groups = [grouped_cv.group_of(p, "site") for p in pages]
    splits = grouped_cv.folds(groups, "site", folds)
    keeps, probs, _ = grouped_cv.out_of_group_keeps(
        pages, splits, load_model(DEFAULT_MODEL), False, seed
    )
    languages = [tc._group(p) for p in pages]
    base = [
        guarded(k, pr, p.blocks, p.stoplist, lang, list_items=False)[0]
        for p, k, pr, lang in zip(pages, keeps, probs, languages, strict=True)
    ]
    base_scores = _scores(pages, base)
    rows = {"guards without the list rescue": {"scores": base_scores, "added": {}}}
    for name, rule in RULES.items():
        after = [rule(k, p.blocks, lang) for k, p, lang in zip(base, pages, languages, strict=True)]
        rows[name] = {
            "scores": _scores(pages, after),
            "added": _added_chars(pages, base, after),
            "pages_changed": sum(
                1 for a, b in zip(base, after, strict=True) if not np.array_equal(a, b)
            ),
        }
    return {"pages": len(pages), "seconds": round(time.perf_counter() - t0, 1), "rows": rows}


def table(result: dict) -> str:
    base = result["rows"]["guards without the list rescue"]["scores"]
    cols = ("wcxb", "wcxb product", "wcxb listing", "wcxb collection", "wcxb service", "mh", "ml")
    head = "| rule | " + " | ".join(cols) + " | added chars in / outside the reference |"
    lines = [head, "|---" * (len(cols) + 2) + "|"]
    for name, row in result["rows"].items():
        cells = []
        for col in cols:
            key = "combined" if col == "ml" else "f1"
            value = row["scores"][col][key]
            delta = value - base[col][key]
            cells.append(f"{value:.4f}" if not row["added"] else f"{value:.4f} ({delta:+.4f})")
        added = row["added"]
        inside = sum(v.get("content", 0) for v in added.values())
        outside = sum(v.get("boilerplate", 0) for v in added.values())
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {inside:,} / {outside:,} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    if not (REPO.parent / "shared" / "data" / "wcxb-dev").is_dir():
        ap.error("needs ../shared/data beside the repository")
    result = measure(args.folds, args.seed)
    result |= {
        "date": results_file.utc_now()[:10],
        "commit": results_file.git_commit(),
        "machine": platform.processor() or platform.machine(),
        "command": results_file.command_line(__file__, argv),
    }
    print(table(result))
    results_file.write_results(args.out, result)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
