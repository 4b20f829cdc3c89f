"""Weighting the trees' training rows (issue 49): does a page-level or page-type-level weight
help the per-page metric and the weak WCXB page types (product, collection, listing, service)?

Usage: python bench/row_weights.py [--folds 5] [--seed 13] [--nets [--weighted-nets]]
                                   [--arms NAME,...]
                                   [--assignments size,S,...] [--out FILE]

Training (`train_cleaner._training_rows`) stacks every labelled block of every page as one
row, all weighted 1, so a page of 600 blocks weighs 30 times a page of 20, while the metric
(word F1 per page, averaged over pages) weighs every page alike. Each arm refits the shipped
model's trees (`train_cleaner.FINAL`, the same hyperparameters and seed) on ``--folds`` folds
of whole sites of the training sets (wcxb-dev, multilingual-dev, magic-html; the folds of
`jobs/grouped_cv.py --by site`, as bench/edge_recall.py), with the rows weighted by
``HistGradientBoostingClassifier.fit(sample_weight=...)``:

- ``none``: every row 1 (today's training);
- ``page-equal``: each page's rows 1 / its number of labelled rows (every page the same total);
- ``page-sqrt``: 1 / sqrt(its number of labelled rows);
- ``type-balanced``: the WCXB rows' total shared equally by the 7 WCXB page types (the type
  from metadata-dev.json: known when training, never needed at inference), each type's share
  spread over its rows in proportion to the rows' weights before; the other sets' rows keep
  their weights and so their share of the total;
- ``page-equal + type-balanced``: the same on top of ``page-equal`` (within a type every page
  the same total, the non-WCXB pages page-equal and keeping their share);
- ``page-sqrt + type-balanced``: likewise on top of ``page-sqrt`` (only when ``--arms`` names it).

Weights are computed over each fold's fitted pages and rescaled to mean 1 there. Every page
then gets probabilities from trees that never saw its site, is decided as the shipped cleaner
decides (`jobs/grouped_cv.py`'s ``stricter_keeps``: the shipped model's rule, its power outside
English, then all of the shipped page guards, `pipeline.rules.sequence.guarded`, in the page's
dev-set language) and scored as ``warcclean eval`` scores it: WCXB word F1 overall and per page
type, magic-html F1, multilingual-dev combined (full-text F1 and snippets). With ``--nets`` the
shipped shape's `train_cleaner.NETS` sequence nets are fitted once per fold, unweighted, and
blended at the shipped share with each arm's trees (so arms differ only in their trees); each
arm is then scored both as trees alone and as the blend. With ``--weighted-nets`` too, each
weighted arm's nets are fitted per fold with the arm's weight for each page multiplying its
blocks' weights in the nets' loss, so the blend is weighted throughout.

``--assignments``: which deals of sites into folds to run: ``size`` is GroupKFold's
deterministic deal (the one `jobs/grouped_cv.py` and bench/edge_recall.py use), a number S a
shuffled deal (GroupKFold(shuffle=True, random_state=S)). The fold assignment alone moves
cross-validated F1 by up to 0.003 (`train_cleaner.NETS`'s note), so each arm is also given as a
paired difference from ``none`` on the same pages, with a 95% bootstrap interval over pages.
Results: ``bench/results/row_weights.json``.

On a shared machine run it with ``OMP_NUM_THREADS=1``: the trees' OpenMP threads spin while
other processes hold the cores (a 60-tree fit took 49 s with two threads, 11 s with one, on a
loaded 2-core box). Trees only, 5 arms, one assignment: about 22 minutes there.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "jobs"))

import grouped_cv  # noqa: E402
import train_cleaner as tc  # noqa: E402

from pipeline.evaluate.scoring import PageScore, aggregate  # noqa: E402
from pipeline.html.page_type import PAGE_TYPES  # noqa: E402
from pipeline.learned.decision import smooth  # noqa: E402
from pipeline.learned.model import DEFAULT_MODEL, load_model  # noqa: E402

sys.path.append(str(REPO / "bench"))  # after the package: bench/pipeline.py stays shadowed
import edge_recall  # noqa: E402

DEFAULT_OUT = REPO / "bench" / "results" / "row_weights.json"
BOOTSTRAP = 2000
COLUMNS = (
    ("wcxb", "f1"),
    *((f"wcxb {t}", "f1") for t in PAGE_TYPES),
    ("mh", "f1"),
    ("ml", "combined"),
)

Weigh = Callable[[list[tc.PreparedPage]], np.ndarray]


def _page_rows(pages: list[tc.PreparedPage]) -> np.ndarray:
    """Each page's number of labelled rows (its rows in `train_cleaner._training_rows`)."""
    return np.array([int((p.y >= 0).sum()) for p in pages], dtype=np.float64)


def _per_row(pages: list[tc.PreparedPage], per_page: np.ndarray) -> np.ndarray:
    """A weight per page spread to its labelled rows, rescaled to mean 1."""
    rows = np.repeat(per_page, _page_rows(pages).astype(np.intp))
    return rows / rows.mean() if len(rows) else rows


def page_power(power: float) -> Weigh:
    """Each row 1 / (its page's labelled rows) ** ``power``: 0 every row alike, 1 every page."""

    def weigh(pages: list[tc.PreparedPage]) -> np.ndarray:
        return _per_row(pages, np.maximum(_page_rows(pages), 1.0) ** -power)

    return weigh


def type_balanced(base: Weigh) -> Weigh:
    """``base``'s weights with the WCXB rows' total shared equally by the WCXB page types (each
    type's share spread in proportion to ``base`` within it); other rows as ``base`` has them."""

    def weigh(pages: list[tc.PreparedPage]) -> np.ndarray:
        w = base(pages).copy()
        n = _page_rows(pages).astype(np.intp)
        kinds = np.repeat([p.page.page_type if p.key.startswith("wcxb/") else "" for p in pages], n)
        wcxb = kinds != ""
        present = sorted(set(kinds[wcxb].tolist()))
        if not present:
            return w
        share = w[wcxb].sum() / len(present)
        for kind in present:
            mask = kinds == kind
            w[mask] *= share / w[mask].sum()
        return w / w.mean()

    return weigh


ARMS: dict[str, Weigh | None] = {
    "none": None,
    "page-equal": page_power(1.0),
    "page-sqrt": page_power(0.5),
    "type-balanced": type_balanced(page_power(0.0)),
    "page-equal + type-balanced": type_balanced(page_power(1.0)),
    "page-sqrt + type-balanced": type_balanced(page_power(0.5)),
}

DEFAULT_ARMS = tuple(ARMS)[:5]


def _groups(pages: list[tc.PreparedPage]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for i, page in enumerate(pages):
        dataset = page.key.split("/", 1)[0]
        out[dataset].append(i)
        if dataset == "wcxb":
            out[f"wcxb {page.page.page_type}"].append(i)
    return out


def scores_of(pages: list[tc.PreparedPage], rows: list[PageScore]) -> dict[str, dict]:
    """`aggregate` of each of bench/edge_recall.py's groups (WCXB, its page types, magic-html,
    multilingual)."""
    groups = _groups(pages)
    return {g: aggregate([rows[i] for i in groups[g]]) for g in edge_recall.GROUPS}


def _page_value(row: PageScore, key: str) -> float | None:
    """A page's part of `aggregate`'s ``key`` (``f1`` or ``combined``)."""
    return row.f1 if key == "f1" else row.combined


def paired(
    pages: list[tc.PreparedPage], base: list[PageScore], arm: list[PageScore], seed: int
) -> dict[str, dict]:
    """Per group, the arm's mean per-page difference from ``base`` and its 95% bootstrap
    interval over the group's pages."""
    rng = np.random.default_rng(seed)
    out = {}
    for group, key in COLUMNS:
        diffs = []
        for i in _groups(pages)[group]:
            a, b = _page_value(base[i], key), _page_value(arm[i], key)
            if a is not None and b is not None:
                diffs.append(b - a)
        d = np.array(diffs)
        if not len(d):
            continue
        means = d[rng.integers(0, len(d), (BOOTSTRAP, len(d)))].mean(axis=1)
        lo, hi = np.percentile(means, [2.5, 97.5])
        out[group] = {
            "mean": round(float(d.mean()), 5),
            "ci95": [round(float(lo), 5), round(float(hi), 5)],
            "pages": len(d),
            "changed": int(np.count_nonzero(d)),
        }
    return out


def page_weights(pages: list[tc.PreparedPage], weigh: Weigh) -> np.ndarray:
    """``weigh``'s row weights as one factor per page (every arm weighs a page's rows alike);
    1 for a page without labelled rows."""
    n = _page_rows(pages).astype(np.intp)
    rows = weigh(pages)
    sums = np.add.reduceat(rows, np.r_[0, np.cumsum(n)[:-1]]) if len(rows) else np.zeros(len(n))
    return np.where(n > 0, sums / np.maximum(n, 1), 1.0)


def net_probs(
    pages: list[tc.PreparedPage],
    splits: list[tuple[np.ndarray, np.ndarray]],
    seed: int,
    weigh: Weigh | None = None,
) -> list[np.ndarray]:
    """Each page's mean probabilities from `train_cleaner.NETS` nets fitted without its fold,
    each fitted page's blocks weighted by ``weigh``'s factor for the page."""
    out: list[np.ndarray] = [np.zeros(0)] * len(pages)
    for k, (fit_idx, score_idx) in enumerate(splits, 1):
        t = time.time()
        fitted = [pages[i] for i in fit_idx]
        factors = None if weigh is None else page_weights(fitted, weigh).tolist()
        specs = tc.fit_pages_nets(fitted, seed, factors)
        for i, pr in zip(
            score_idx, tc.mean_net_probs(specs, [pages[i].x for i in score_idx]), strict=True
        ):
            out[i] = pr
        print(f"nets, fold {k}/{len(splits)}: {time.time() - t:.0f}s", flush=True)
    return out


def measure(
    folds: int,
    seed: int,
    nets: bool,
    arms: list[str],
    assignments: list[str],
    every: int = 1,
    weighted_nets: bool = False,
) -> dict:
    t0 = time.perf_counter()
    pages = tc.prepare(REPO.parent / "shared" / "data", seed)[::every]
    print(f"prepared {len(pages)} pages in {time.perf_counter() - t0:.0f}s", flush=True)
    shipped = load_model(DEFAULT_MODEL)
    sites = [grouped_cv.group_of(p, "site") for p in pages]
    out: dict[str, dict] = {}
    for assignment in assignments:
        shuffle = None if assignment == "size" else int(assignment)
        splits = grouped_cv.folds(sites, "site", folds, shuffle)
        net = net_probs(pages, splits, seed) if nets else None
        arm_nets = {
            arm: net_probs(pages, splits, seed, ARMS[arm]) if ARMS[arm] is not None else net
            for arm in (arms if nets and weighted_nets else [])
        }
        scorings = ("trees", "trees + nets") if nets else ("trees",)
        rows: dict[str, dict[str, list[PageScore]]] = {}
        for arm in arms:
            t = time.perf_counter()
            _, trees, _ = grouped_cv.out_of_group_keeps(
                pages, splits, shipped, False, seed, weigh=ARMS[arm]
            )
            probs = {"trees": trees}
            if net is not None:
                probs["trees + nets"] = [
                    smooth((1 - shipped.blend) * a + shipped.blend * b, shipped.smoothing)
                    for a, b in zip(trees, arm_nets.get(arm, net), strict=True)
                ]
            rows[arm] = {
                name: tc.score_pages(pages, grouped_cv.stricter_keeps(pages, pr, shipped))
                for name, pr in probs.items()
            }
            first = scores_of(pages, rows[arm][scorings[-1]])
            brief = ", ".join(f"{g} {first[g][k]:.4f}" for g, k in COLUMNS)
            print(f"{assignment} / {arm}: {time.perf_counter() - t:.0f}s; {brief}", flush=True)
        for scoring in scorings:
            base = rows[arms[0]][scoring]
            out[f"{assignment} / {scoring}"] = {
                arm: {
                    "scores": {
                        g: {k: v[k] for k in ("pages", "f1", "combined")}
                        for g, v in scores_of(pages, rows[arm][scoring]).items()
                    },
                    "paired_vs_" + arms[0]: paired(pages, base, rows[arm][scoring], seed),
                }
                for arm in arms
            }
    return {
        "pages": len(pages),
        "folds": folds,
        "seed": seed,
        "nets": nets,
        "weighted_nets": nets and weighted_nets,
        "trees": tc.FINAL[0],
        "seconds": round(time.perf_counter() - t0, 1),
        "runs": out,
    }


def table(result: dict) -> str:
    lines = []
    names = [f"{g.replace('wcxb ', '')}" if g != "wcxb" else "wcxb" for g, _ in COLUMNS]
    for run, arms in result["runs"].items():
        base = next(iter(arms))
        lines += [
            f"### {run} ({result['folds']} folds of sites, seed {result['seed']})",
            "",
            "| arm | " + " | ".join(names) + " |",
            "|---|" + "---:|" * len(names),
        ]
        for arm, row in arms.items():
            cells = []
            for group, key in COLUMNS:
                value = row["scores"][group][key]
                d = row[f"paired_vs_{base}"].get(group)
                cell = "-" if value is None else f"{value:.4f}"
                if arm != base and d is not None:
                    cell += f" ({d['mean']:+.4f})"
                cells.append(cell)
            lines.append(f"| {arm} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append(
        "Cells: mean per-page word F1 (multilingual: combined score), in brackets the mean "
        "paired difference from the first arm; 95% intervals in the JSON."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--nets", action="store_true", help="blend with nets fitted per fold")
    ap.add_argument(
        "--weighted-nets",
        action="store_true",
        help="with --nets: each arm's nets fitted with its page weights too",
    )
    ap.add_argument(
        "--arms", default=",".join(DEFAULT_ARMS), help="comma-separated; the first is the base"
    )
    ap.add_argument("--assignments", default="size", help="size and/or shuffle seeds, commas")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--every", type=int, default=1, help=argparse.SUPPRESS)  # smoke tests
    args = ap.parse_args(argv)
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    if unknown := [a for a in arms if a not in ARMS]:
        ap.error(f"unknown arms {unknown}; known: {', '.join(ARMS)}")
    assignments = [a.strip() for a in args.assignments.split(",") if a.strip()]
    if any(a != "size" and not a.isdigit() for a in assignments):
        ap.error("--assignments takes 'size' and non-negative integers")
    if not (REPO.parent / "shared" / "data" / "wcxb-dev").is_dir():
        ap.error("needs ../shared/data beside the repository")
    if args.weighted_nets and not args.nets:
        ap.error("--weighted-nets needs --nets")
    result = measure(
        args.folds, args.seed, args.nets, arms, assignments, args.every, args.weighted_nets
    )
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    result = {
        "command": "python bench/row_weights.py " + " ".join(argv or sys.argv[1:]),
        "commit": commit,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": platform.processor() or platform.machine(),
        **result,
    }
    print(table(result))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
