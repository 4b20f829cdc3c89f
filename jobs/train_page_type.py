"""Train the page-type classifier (`pipeline.html.page_type`) and print how often it names
WCXB's page type right.

    python jobs/train_page_type.py [--data-dir ../shared/data] [--seed 13]
                                   [--out pipeline/models/page-type.json]

Data: the WCXB dev pages (CC-BY-4.0), the only pages labelled with a type
(``_internal.page_type.primary``). They are split by site exactly as `jobs/train_cleaner.py`
splits them (same seeded hash, same seed), so the test sites are the block model's held-out test
sites. Every page is read twice, with its URL and without one (a library call may give none, and
daniel's pages have none): the model learns from both, so a page without a URL is typed by its
markup and shape rather than as an outlier. The regularisation strength is chosen with folds
grouped by site on the training and selection sites (`FOLDS`, the grid `STRENGTHS`); the chosen
model is refitted on those pages and scored once on the test sites. multilingual-dev and daniel
have no type labels: the job prints the types it predicts there, to check that non-English pages
are not all thrown into one type.

The model is a multinomial logistic regression on standardised columns, written as JSON (the
standardising folded in at load time) and read without scikit-learn.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "jobs"))

import train_cleaner as tc  # noqa: E402

from pipeline.evaluate.datasets import load_dataset  # noqa: E402
from pipeline.html.page_cues import page_cues  # noqa: E402
from pipeline.html.page_type import (  # noqa: E402
    FORMAT,
    PAGE_TYPES,
    TYPE_FEATURE_NAMES,
    PageTypeModel,
    type_features,
)
from pipeline.html.segment import parse, segment  # noqa: E402

STRENGTHS = (0.03, 0.1, 0.3, 1.0, 3.0)
FOLDS = 5


def page_rows(folder: Path) -> tuple[list, np.ndarray, np.ndarray]:
    """The dataset's pages and their `TYPE_FEATURE_NAMES` rows, read as the cleaner reads them:
    with the page's URL, and as a library call without one reads them."""
    pages = sorted(load_dataset(folder), key=lambda p: p.id)
    rows, bare = [], []
    for page in pages:
        html = tc._decode(page.read_html())
        tree = parse(html)
        blocks = segment(tree, record_runs=True)
        rows.append(type_features(blocks, page_cues(tree, page.url), html, page.url, tree))
        bare.append(type_features(blocks, page_cues(tree, None), html, None, tree))
    return pages, np.array(rows), np.array(bare)


def fit(x: np.ndarray, y: np.ndarray, strength: float, metadata: dict | None = None) -> dict:
    """The model document for rows ``x`` and type indices ``y`` (into `PAGE_TYPES`)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    scale = scaler.scale_.copy()
    scale[scale == 0] = 1.0
    clf = LogisticRegression(C=strength, max_iter=5000)
    clf.fit((x - scaler.mean_) / scale, y)
    coef = np.zeros((len(PAGE_TYPES), x.shape[1]))
    intercept = np.full(len(PAGE_TYPES), -30.0)  # a type never seen in training is never chosen
    coef[clf.classes_] = clf.coef_
    intercept[clf.classes_] = clf.intercept_
    return {
        "format": FORMAT,
        "classes": list(PAGE_TYPES),
        "features": list(TYPE_FEATURE_NAMES),
        "mean": scaler.mean_.tolist(),
        "scale": scale.tolist(),
        "coef": coef.tolist(),
        "intercept": intercept.tolist(),
        "metadata": metadata or {},
    }


def grouped_accuracy(
    x: np.ndarray, bare: np.ndarray, y: np.ndarray, groups: list[str], strength: float
) -> float:
    """Accuracy over `FOLDS` folds grouped by site: each page, with its URL, scored by a model
    fitted without its site on the other pages' rows with and without their URLs."""
    from sklearn.model_selection import GroupKFold

    right = 0
    for train, score in GroupKFold(FOLDS).split(x, groups=groups):
        rows, labels = np.vstack((x[train], bare[train])), np.concatenate((y[train], y[train]))
        model = PageTypeModel(fit(rows, labels, strength))
        right += int(np.sum(model.probabilities(x[score]).argmax(1) == y[score]))
    return right / len(y)


def per_type(pred: np.ndarray, y: np.ndarray) -> str:
    lines = [f"{'type':<14} {'pages':>5} {'right':>6} {'precision':>9}"]
    for i, name in enumerate(PAGE_TYPES):
        n = int(np.sum(y == i))
        hit = int(np.sum((y == i) & (pred == i)))
        called = int(np.sum(pred == i))
        prec = f"{hit / called:.3f}" if called else "-"
        lines.append(f"{name:<14} {n:>5} {hit / n if n else 0:>6.3f} {prec:>9}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=REPO / "pipeline" / "models" / "page-type.json")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args(argv)

    t0 = time.time()
    wcxb = args.data_dir / "wcxb-dev"
    meta = json.loads((wcxb / "metadata-dev.json").read_text())
    pages, x, bare = page_rows(wcxb)
    keep = [i for i, p in enumerate(pages) if p.page_type in PAGE_TYPES]
    pages, x, bare = [pages[i] for i in keep], x[keep], bare[keep]
    y = np.array([PAGE_TYPES.index(p.page_type) for p in pages])
    sites = ["wcxb:" + meta[p.id]["domain"] for p in pages]
    parts = np.array([tc.split_of(s, args.seed) for s in sites])
    print(f"read {len(pages)} WCXB pages in {time.time() - t0:.0f}s", flush=True)

    fit_rows = np.flatnonzero(parts != "test")
    test_rows = np.flatnonzero(parts == "test")
    groups = [sites[i] for i in fit_rows]
    scores = {
        c: grouped_accuracy(x[fit_rows], bare[fit_rows], y[fit_rows], groups, c) for c in STRENGTHS
    }
    for c, acc in scores.items():
        print(f"C={c:<5} grouped-by-site accuracy {acc:.3f} ({len(fit_rows)} pages)", flush=True)
    best = max(STRENGTHS, key=lambda c: (scores[c], -c))
    doc = fit(
        np.vstack((x[fit_rows], bare[fit_rows])), np.concatenate((y[fit_rows], y[fit_rows])), best
    )
    model = PageTypeModel(doc)
    pred = model.probabilities(x[test_rows]).argmax(1)
    test_acc = float(np.mean(pred == y[test_rows]))
    print(f"\nheld-out test sites, C={best}: {test_acc:.3f} of {len(test_rows)} pages named right")
    print(per_type(pred, y[test_rows]))
    pred_bare = model.probabilities(bare[test_rows]).argmax(1)
    bare_acc = float(np.mean(pred_bare == y[test_rows]))
    print(f"\nthe same pages without their URLs: {bare_acc:.3f} named right")
    print(per_type(pred_bare, y[test_rows]))

    doc["metadata"] = {
        "licences": [tc.LICENCES[0]],
        "trained_on": "wcxb-dev, the train and select parts of jobs/train_cleaner.py's site split",
        "classifier": f"multinomial logistic regression, C={best}, standardised columns",
        "grouped_cv_accuracy": {str(c): round(a, 4) for c, a in scores.items()},
        "test_accuracy": round(test_acc, 4),
        "test_pages": len(test_rows),
        "test_accuracy_without_urls": round(bare_acc, 4),
        "test_ids": sorted(pages[i].id for i in test_rows),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"wrote {args.out}", flush=True)

    for folder in ("multilingual-dev", "daniel"):
        path = args.data_dir / folder
        if not path.is_dir():
            continue
        other, ox, _bare = page_rows(path)
        urls = sum(1 for p in other if p.url)
        # daniel's pages have no URL: they are read as a library call without one reads them.
        called = Counter(PAGE_TYPES[i] for i in model.probabilities(ox).argmax(1))
        print(
            f"{folder}: {len(other)} pages ({urls} with a URL), predicted "
            f"{dict(called.most_common())}",
            flush=True,
        )
        doc["metadata"].setdefault("predicted_elsewhere", {})[folder] = dict(called)
        args.out.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
