"""Cross-validate the learned cleaner with whole sources, languages or sites held out, beside
the rule cleaners on the same pages.

    python jobs/grouped_cv.py [--by dataset|language|site] [--folds 5] [--nets]
                              [--zero-columns PART,...] [--without-test-part] [--powers P,...]
                              [--han-kana-weight W] [--fit-without-magic-html]
                              [--net-shares S,...]
                              [--data-dir ../shared/data] [--json FILE]

Why: a split by site still lets the model and its features be chosen on other pages of the same
source datasets, so it cannot show how the cleaner does on a kind of page it never saw (issue 19:
our site-held-out multilingual figure said 0.945, a private set of other sites said 0.822).
Here every page is scored by a model fitted without its whole group:

- ``dataset``: leave one source dataset out (wcxb, magic-html, and each of the multilingual
  set's sources: trafilatura, fundus, readability, newspaper4k, goose3, mercury, the Chinese CWCE
  set);
- ``language``: ``--folds`` folds of whole languages (English, the WCXB set, is one language);
- ``site``: ``--folds`` folds of whole sites, the grouping training tunes with.

What is refitted per fold: the shipped shape's trees (`train_cleaner.FINAL`) and, with ``--nets``
(PyTorch, the ``train`` extra), its sequence nets, blended with the shipped share (with
``--net-shares``, also with each share given, scored as the shipped cleaner decides: the nets'
share of the blend is chosen on these folds, `train_cleaner.NET_SHARE`). The decision
rule (threshold or per-page expected F1, fallback, smoothing, repeat dropping) is the shipped
model's, not re-tuned per fold: it was chosen on site-grouped folds of most of these pages, a
small leak beside refitting the model. The rows "+ guards" decide on the probabilities as the
model gives them; the shipped cleaner decides outside English on them raised to
`OUTSIDE_ENGLISH_POWER` (`pipeline.learned.neighbours.page_rule`), its row the ``--powers`` row
of that power; with ``--powers`` a row also chooses the power per held-out group on the other
groups (`nested_power_choice`). Each learned row is also scored after the shipped
cleaner's page guards (`pipeline.rules.sequence.guarded`: the markup guard, the link
guard, then the lead rescue, the page's dev-set language standing for the detected one; a row
without the lead rescue shows what it adds). jusText and Kimatu (no
training) and the shipped model (fitted on about 80% of the sites) are scored on the same pages
for reference. Scores are
`pipeline.evaluate.scoring.score_text`'s, as `warcclean eval` gives them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "jobs"))

import train_cleaner as tc  # noqa: E402

from pipeline.cleaners.registry import make_cleaner  # noqa: E402
from pipeline.evaluate.scoring import PageScore, aggregate  # noqa: E402
from pipeline.html.page_cues import PAGE_CUE_NAMES  # noqa: E402
from pipeline.lang.words import han_kana_chars  # noqa: E402
from pipeline.learned.columns import OWN_FEATURES, OWN_INDEX  # noqa: E402
from pipeline.learned.decision import smooth  # noqa: E402
from pipeline.learned.features import page_features  # noqa: E402
from pipeline.learned.model import DEFAULT_MODEL, NeighboursModel, load_model  # noqa: E402
from pipeline.learned.neighbours import OUTSIDE_ENGLISH_POWER, page_rule  # noqa: E402
from pipeline.rules.sequence import guarded  # noqa: E402
from pipeline.types import Verdict  # noqa: E402

GROUPINGS = ("dataset", "language", "site")
UNSPACED = frozenset({"zh", "ja", "th", "my", "ko"})
RULE_CLEANERS = ("justext", "kimatu")
# The page-cue columns of a row (the last own columns): what `page_features` takes as ``cues``.
_CUE_COLUMNS = slice(OWN_INDEX[PAGE_CUE_NAMES[0]], len(OWN_FEATURES))
# A "whole-page keep": at least this share of a page's characters kept, on a page of at least
# this many blocks (shorter pages are often all content).
WHOLE_PAGE_SHARE = 0.9
WHOLE_PAGE_MIN_BLOCKS = 10
LOW_PRECISION = 0.3


def group_of(page: tc.PreparedPage, by: str) -> str:
    """The page's group: its source dataset (`pipeline.evaluate.datasets.Page.source`; WCXB is
    one), its language (WCXB's pages English) or its site."""
    if by == "dataset":
        return page.page.source or "wcxb"
    if by == "language":
        return tc._group(page)
    return page.site


def folds(
    groups: Sequence[str], by: str, n_folds: int, shuffle_seed: int | None = None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(fit, score) index pairs; no group is on both sides of a pair and every index is scored
    exactly once. Datasets are few, so each is its own fold; languages and sites are dealt into
    ``n_folds`` folds of whole groups (sklearn's GroupKFold, deterministic; with
    ``shuffle_seed``, groups dealt in a shuffled order instead of by size: another assignment)."""
    from sklearn.model_selection import GroupKFold, LeaveOneGroupOut

    if by == "dataset":
        splitter = LeaveOneGroupOut()
    elif shuffle_seed is None:
        splitter = GroupKFold(n_folds)
    else:
        splitter = GroupKFold(n_folds, shuffle=True, random_state=shuffle_seed)
    index = np.arange(len(groups))
    return [(a, b) for a, b in splitter.split(index, groups=list(groups))]


def zeroed_columns(parts: str) -> list[int]:
    """Indices of the feature columns whose names contain any comma-separated part."""
    wanted = [w.strip() for w in parts.split(",") if w.strip()]
    return [i for i, name in enumerate(tc.FEATURE_NAMES) if any(w in name for w in wanted)]


def with_zeroed(page: tc.PreparedPage, columns: list[int]) -> tc.PreparedPage:
    x = page.x.copy()
    x[:, columns] = 0.0
    return dataclasses.replace(page, x=x)


def language_group(page: tc.PreparedPage) -> str:
    if page.key.startswith("wcxb/"):
        return "en (wcxb)"
    return "unspaced (zh ja th my ko)" if page.page.language in UNSPACED else "other languages"


def out_of_group_keeps(
    pages: list[tc.PreparedPage],
    splits: list[tuple[np.ndarray, np.ndarray]],
    shipped: NeighboursModel,
    nets: bool,
    seed: int,
    without_test_part: bool = False,
    fit_magic_html: bool = True,
    net_shares: Sequence[float] = (),
    weigh: Callable[[list[tc.PreparedPage]], np.ndarray] | None = None,
) -> tuple[list[np.ndarray], list[np.ndarray], dict[float, list[np.ndarray]]]:
    """Each page's kept blocks from the shipped shape fitted without the page's group, decided
    by the shipped model's rule, the probabilities they were decided on, and (with ``nets``) the
    probabilities blended at each of ``net_shares`` instead of the shipped share. With
    ``without_test_part`` each fold leaves out the pages of the test part of training's own site
    split (about 20% of the sites), as the shipped model did. Without ``fit_magic_html`` no fold
    is fitted on magic-html's pages, which are still scored (the shipped model before issue 35).
    ``weigh``: the fitted pages -> one weight per row of `train_cleaner._training_rows`, passed
    to the trees' fit (bench/row_weights.py); none: every row 1, as training does."""
    name, first, second = tc.FINAL
    if second is not None:
        raise SystemExit(f"{name}: a stacked shape is not cross-validated here")
    blend = shipped.blend if nets else 0.0
    keeps: list[np.ndarray] = [np.zeros(0, dtype=bool)] * len(pages)
    decided_on: list[np.ndarray] = [np.zeros(0)] * len(pages)
    shares = tuple(net_shares) if nets else ()
    at_share: dict[float, list[np.ndarray]] = {x: [np.zeros(0)] * len(pages) for x in shares}
    for k, (fit_idx, score_idx) in enumerate(splits, 1):
        t = time.time()
        fit = [
            pages[i]
            for i in fit_idx
            if (not without_test_part or pages[i].part != "test")
            and (fit_magic_html or not pages[i].key.startswith("mh/"))
        ]
        scored = [pages[i] for i in score_idx]
        weights = weigh(fit) if weigh is not None else None
        probs = tc._scorer_probs(
            tc.fit_spec(first, *tc._training_rows(fit), seed, weights),
            len(tc.FEATURE_NAMES),
            scored,
        )
        if blend > 0:
            net = tc.mean_net_probs(tc.fit_pages_nets(fit, seed), [p.x for p in scored])
            for x in shares:
                for i, a, b in zip(score_idx, probs, net, strict=True):
                    at_share[x][i] = smooth((1 - x) * a + x * b, shipped.smoothing)
            probs = [(1 - blend) * a + blend * b for a, b in zip(probs, net, strict=True)]
        for i, p, pr in zip(score_idx, scored, probs, strict=True):
            decided_on[i] = smooth(pr, shipped.smoothing)
            keeps[i] = shipped.decide(decided_on[i], p.blocks)
        print(f"fold {k}/{len(splits)}: {len(scored)} pages in {time.time() - t:.0f}s", flush=True)
    return keeps, decided_on, at_share


def guarded_keeps(
    pages: list[tc.PreparedPage],
    keeps: list[np.ndarray],
    probs: list[np.ndarray],
    lead: bool = True,
) -> tuple[list[np.ndarray], int]:
    """``keeps`` after the shipped cleaner's page guards (`pipeline.rules.sequence.guarded`;
    ``lead=False``: without its lead rescue), each page taken in its dev-set language (the WCXB
    pages as English), and how many pages they changed."""
    out = [
        guarded(k, pr, p.blocks, p.stoplist, tc._group(p), lead=lead)[0]
        for p, k, pr in zip(pages, keeps, probs, strict=True)
    ]
    return out, sum(1 for a, b in zip(keeps, out, strict=True) if not np.array_equal(a, b))


def stricter_keeps(
    pages: list[tc.PreparedPage],
    probs: list[np.ndarray],
    shipped: NeighboursModel,
    power: float = OUTSIDE_ENGLISH_POWER,
) -> list[np.ndarray]:
    """The shipped rule deciding on each non-English page's probabilities raised to ``power``
    (above 1: stricter, as if the model were less sure), then the page guards on the
    probabilities themselves, whose bounds were set on them; English pages as they are."""
    out = []
    for p, pr in zip(pages, probs, strict=True):
        language = tc._group(p)
        keep = page_rule(shipped, pr, p.blocks, language, power)
        out.append(guarded(keep, pr, p.blocks, p.stoplist, language)[0])
    return out


def rule_keeps(name: str, pages: list[tc.PreparedPage]) -> list[np.ndarray]:
    cleaner = make_cleaner(name)
    return [
        np.array([lb.verdict is Verdict.GOOD for lb in cleaner.label(p.blocks, p.stoplist)], bool)
        for p in pages
    ]


def tables(
    results: dict[str, list[PageScore]],
    pages: list[tc.PreparedPage],
    groups: Sequence[str],
    by: str,
) -> dict[str, dict[str, dict[str, dict]]]:
    """method -> table -> group -> `aggregate`; tables: the held-out groups (datasets, or the
    languages with at least 5 pages) and the language groups."""
    out: dict[str, dict[str, dict[str, dict]]] = {}
    for method, rows in results.items():
        by_group: dict[str, list[PageScore]] = defaultdict(list)
        by_language: dict[str, list[PageScore]] = defaultdict(list)
        for p, g, r in zip(pages, groups, rows, strict=True):
            if by != "site":
                by_group[g].append(r)
            by_language[language_group(p)].append(r)
            if p.key.startswith("ml/"):
                by_language["multilingual (all)"].append(r)
            elif p.key.startswith("mh/"):
                by_language["magic-html (all)"].append(r)
        out[method] = {
            "held-out group": {
                g: aggregate(rs) for g, rs in sorted(by_group.items()) if len(rs) >= 5
            },
            "language group": {g: aggregate(rs) for g, rs in sorted(by_language.items())},
        }
    return out


def whole_page_keeps(
    pages: list[tc.PreparedPage],
    keeps: dict[str, list[np.ndarray]],
    results: dict[str, list[PageScore]],
    method: str,
    share: float = WHOLE_PAGE_SHARE,
) -> dict:
    """The full-text pages on which ``method`` keeps at least ``share`` of the characters (of
    pages with at least `WHOLE_PAGE_MIN_BLOCKS` blocks), and what each other method scores on
    them: whether falling back to a rule cleaner on such pages would pay (issue 19's item 3)."""
    chosen = []
    for i, p in enumerate(pages):
        sizes = np.array([b.n_chars for b in p.blocks], dtype=np.float64)
        r = results[method][i]
        if r.f1 is None or len(sizes) < WHOLE_PAGE_MIN_BLOCKS or not sizes.sum():
            continue
        if sizes[keeps[method][i]].sum() / sizes.sum() >= share:
            chosen.append(i)
    out = {
        "share": share,
        "min_blocks": WHOLE_PAGE_MIN_BLOCKS,
        "pages": len(chosen),
        "of_full_text_pages": sum(1 for r in results[method] if r.f1 is not None),
        "precision_below_0.3": sum(1 for i in chosen if results[method][i].precision < 0.3),
        "mean_f1": {},
    }
    for name, rows in results.items():
        out["mean_f1"][name] = float(np.mean([rows[i].f1 for i in chosen])) if chosen else None
    return out


def low_precision_pages(
    pages: list[tc.PreparedPage], results: dict[str, list[PageScore]]
) -> dict[str, dict[str, int]]:
    """Per method, the full-text pages scored below `LOW_PRECISION` precision: the multilingual
    ones and the unspaced-script ones among them (issue 19's target: at most one CJK page)."""
    out = {}
    for method, rows in results.items():
        low = [
            p
            for p, r in zip(pages, rows, strict=True)
            if p.key.startswith("ml/") and r.f1 is not None and r.precision < LOW_PRECISION
        ]
        out[method] = {
            "multilingual": len(low),
            "unspaced": sum(1 for p in low if p.page.language in UNSPACED),
        }
    return out


def nested_power_choice(
    pages: list[tc.PreparedPage],
    groups: Sequence[str],
    candidates: dict[float, list[PageScore]],
) -> dict[str, float]:
    """For each group, the power whose rows (``candidates``: power -> every page's scores, the
    held-out model's) have the best mean combined score on the multilingual pages of the *other*
    groups, the smaller power on a tie: a choice of the decision rule that never sees the group
    it is scored on."""
    multilingual = [i for i, p in enumerate(pages) if p.key.startswith("ml/")]
    chosen = {}
    for group in sorted(set(groups)):
        others = [i for i in multilingual if groups[i] != group]

        def score(power: float, others: list[int] = others) -> float:
            return aggregate([candidates[power][i] for i in others])["combined"] or 0.0

        chosen[group] = max(sorted(candidates), key=lambda x: (score(x), -x))
    return chosen


def _cell(agg: dict) -> str:
    parts = []
    if agg["combined"] is not None and agg["with_share"] is not None:
        parts.append(f"**{agg['combined']:.3f}**")
    if agg["f1"] is not None:
        parts.append(f"{agg['f1']:.3f}")
    if agg["with_share"] is not None:
        parts.append(f"w {agg['with_share']:.2f}")
    if agg["without_share"] is not None:
        parts.append(f"w/o {agg['without_share']:.2f}")
    return " · ".join(parts) or "-"


def markdown(summary: dict[str, dict[str, dict[str, dict]]], by: str) -> str:
    methods = list(summary)
    lines = []
    for table in ("held-out group", "language group"):
        groups = list(next(iter(summary.values()))[table])
        if not groups:
            continue
        lines += [
            f"| {table} ({by}-held-out) | pages | " + " | ".join(methods) + " |",
            "|---|---:|" + "---:|" * len(methods),
        ]
        for g in groups:
            n = summary[methods[0]][table][g]["pages"]
            cells = [_cell(summary[m][table][g]) for m in methods]
            lines.append(f"| {g} | {n} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append(
        "Cells: combined score (bold, where a group has both kinds of page: F1 on full-text "
        "pages, w x (1 - w/o) on snippet pages, `pipeline.evaluate.scoring`) · word/char F1 on "
        "full-text pages · share of must-contain snippets found (w) · "
        "share of must-not-contain snippets present (w/o, lower is better)."
    )
    return "\n".join(lines)


def _git_commit() -> str | None:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def with_han_kana_weight(page: tc.PreparedPage, weight: float) -> tc.PreparedPage:
    """``page`` with its features recomputed as if each Han or kana character were ``weight``
    characters (link characters scaled alike, so link densities stay): a script-neutral length,
    as jusText's ``han_kana_weight`` (issue 19, item 2). Pages without Han or kana are as they
    were; the blocks kept for scoring are the page's own."""
    if weight == 1:
        return page
    changed = False
    blocks = []
    for b in page.blocks:
        extra = round((weight - 1) * han_kana_chars(b.text)) if b.n_chars else 0
        if extra:
            chars = b.n_chars + extra
            b = b._replace(n_chars=chars, n_link_chars=round(b.n_link_chars * chars / b.n_chars))
            changed = True
        blocks.append(b)
    if not changed:
        return page
    cues = page.x[0, _CUE_COLUMNS].copy()
    return dataclasses.replace(page, x=page_features(blocks, page.stoplist, cues))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--by", choices=GROUPINGS, default="dataset")
    ap.add_argument("--folds", type=int, default=5, help="folds for --by language|site")
    ap.add_argument("--nets", action="store_true", help="refit the sequence nets too (PyTorch)")
    ap.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--json", type=Path, default=None, help="write the tables here as JSON")
    ap.add_argument(
        "--zero-columns",
        default="",
        metavar="PART[,PART...]",
        help="feature columns whose names contain any PART are zeroed in training and scoring "
        "of the refitted model, to measure what they contribute (e.g. stopword,sentence)",
    )
    ap.add_argument(
        "--without-test-part",
        action="store_true",
        help="fit no fold on the test part of training's site split, as the shipped model was "
        "not (does fitting on more sites of the same sources help unseen ones?)",
    )
    ap.add_argument(
        "--powers",
        default="",
        metavar="P[,P...]",
        help="also score the refitted model (with the guards) deciding on non-English "
        "pages' probabilities raised to each power P: is a stricter rule outside English better "
        "on what the model never saw?",
    )
    ap.add_argument(
        "--han-kana-weight",
        type=float,
        default=1.0,
        metavar="W",
        help="refit and score the model on features that count each Han or kana character as W "
        "characters (a script-neutral length; 1: the shipped features)",
    )
    ap.add_argument(
        "--fit-without-magic-html",
        action="store_true",
        help="fit no fold on magic-html's pages (still scored): does training on them help the "
        "held-out groups?",
    )
    ap.add_argument(
        "--net-shares",
        default="",
        metavar="S[,S...]",
        help="with --nets, also score the refitted trees and nets blended at each share S of the "
        "nets, decided as the shipped cleaner decides (its rule outside English, the guards): "
        "which share generalises to the held-out groups?",
    )
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args(argv)
    if not 1.0 <= args.han_kana_weight <= 10.0:
        ap.error(f"--han-kana-weight must lie in [1, 10], got {args.han_kana_weight}")
    if args.folds < 2:
        ap.error("--folds must be at least 2")
    try:
        powers = [float(x) for x in args.powers.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--powers takes numbers separated by commas, got {args.powers!r}")
    if any(not 0 < x <= 10 for x in powers):
        ap.error(f"--powers must lie in (0, 10], got {args.powers!r}")
    try:
        net_shares = [float(x) for x in args.net_shares.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--net-shares takes numbers separated by commas, got {args.net_shares!r}")
    if any(not 0 <= x <= 1 for x in net_shares):
        ap.error(f"--net-shares must lie in [0, 1], got {args.net_shares!r}")
    if net_shares and not args.nets:
        ap.error("--net-shares needs --nets")
    if not (args.data_dir / "multilingual-dev" / "manifest.jsonl").is_file():
        ap.error(f"{args.data_dir} does not hold wcxb-dev and multilingual-dev")
    zeroed = zeroed_columns(args.zero_columns)
    if args.zero_columns and not zeroed:
        ap.error(f"no feature column name contains any of {args.zero_columns!r}")

    t0 = time.time()
    pages = tc.prepare(args.data_dir, args.seed)
    print(f"prepared {len(pages)} pages in {time.time() - t0:.0f}s", flush=True)
    groups = [group_of(p, args.by) for p in pages]
    splits = folds(groups, args.by, args.folds)
    shipped = load_model(DEFAULT_MODEL)

    learned = ("trees + nets" if args.nets else "trees") + ", group held out"
    if args.without_test_part:
        learned += ", test part not fitted"
    if args.fit_without_magic_html:
        learned += ", magic-html not fitted"
    if zeroed:
        learned += f", {len(zeroed)} columns zeroed"
        print("zeroed: " + ", ".join(tc.FEATURE_NAMES[i] for i in zeroed), flush=True)
    if args.han_kana_weight != 1.0:
        learned += f", han/kana x{args.han_kana_weight:g}"
    refit_pages = [with_han_kana_weight(p, args.han_kana_weight) for p in pages]
    refit_pages = [with_zeroed(p, zeroed) for p in refit_pages] if zeroed else refit_pages
    refit, refit_probs, at_share = out_of_group_keeps(
        refit_pages,
        splits,
        shipped,
        args.nets,
        args.seed,
        args.without_test_part,
        not args.fit_without_magic_html,
        net_shares,
    )
    shipped_probs = [shipped.probabilities(p.x, p.blocks) for p in pages]
    as_shipped = [shipped.decide(pr, p.blocks) for pr, p in zip(shipped_probs, pages, strict=True)]
    guarded_refit, n_guarded = guarded_keeps(pages, refit, refit_probs)
    without_lead, _ = guarded_keeps(pages, refit, refit_probs, lead=False)
    as_cleaner = [
        page_rule(shipped, pr, p.blocks, tc._group(p))
        for pr, p in zip(shipped_probs, pages, strict=True)
    ]
    shipped_guarded, n_shipped_guarded = guarded_keeps(pages, as_cleaner, shipped_probs)
    print(f"guards changed {n_guarded} pages held out, {n_shipped_guarded} shipped", flush=True)
    keeps = {
        learned: refit,
        f"{learned} + guards without the lead rescue": without_lead,
        f"{learned} + guards": guarded_refit,
        **{
            f"{learned} + guards, p^{x:g} outside English": stricter_keeps(
                pages, refit_probs, shipped, x
            )
            for x in powers
        },
        **{
            f"{learned}, net share {x:g}, as the shipped cleaner": stricter_keeps(
                pages, probs, shipped
            )
            for x, probs in at_share.items()
        },
        "shipped model (saw ~80% of sites)": as_shipped,
        f"shipped cleaner (p^{OUTSIDE_ENGLISH_POWER:g} outside English, guards)": shipped_guarded,
    }
    for name in RULE_CLEANERS:
        keeps[name] = rule_keeps(name, pages)
    results = {name: tc.score_pages(pages, k) for name, k in keeps.items()}
    chosen: dict[str, float] = {}
    if powers:
        by_power = {1.0: results[f"{learned} + guards"]}
        by_power |= {x: results[f"{learned} + guards, p^{x:g} outside English"] for x in powers}
        chosen = nested_power_choice(pages, groups, by_power)
        name = f"{learned} + guards, power chosen on the other groups"
        results[name] = [by_power[chosen[g]][i] for i, g in enumerate(groups)]
        picks = ", ".join(f"{g} {x:g}" for g, x in chosen.items())
        print(f"power chosen per held-out group: {picks}", flush=True)
    summary = tables(results, pages, groups, args.by)
    whole = whole_page_keeps(pages, keeps, results, learned)
    print(markdown(summary, args.by))
    print(
        f"\n{learned}: {whole['pages']} of {whole['of_full_text_pages']} full-text pages keep "
        f">= {whole['share']:.0%} of their characters ({whole['min_blocks']}+ blocks), "
        f"{whole['precision_below_0.3']} of them with precision below 0.3; mean F1 on them: "
        + ", ".join(f"{k} {v:.3f}" for k, v in whole["mean_f1"].items() if v is not None)
    )
    low = low_precision_pages(pages, results)
    print(f"\nmultilingual full-text pages with precision below {LOW_PRECISION} (unspaced):")
    for method, n in low.items():
        print(f"  {method}: {n['multilingual']} ({n['unspaced']})")
    if args.json is not None:
        doc = {
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "command": "python jobs/grouped_cv.py " + " ".join(argv or sys.argv[1:]),
            "git_commit": _git_commit(),
            "by": args.by,
            "folds": len(splits),
            "zeroed_columns": [tc.FEATURE_NAMES[i] for i in zeroed],
            "without_test_part": args.without_test_part,
            "fit_magic_html": not args.fit_without_magic_html,
            "powers": powers,
            "net_shares": net_shares,
            "nested_power_choice": chosen,
            "han_kana_weight": args.han_kana_weight,
            "pages": len(pages),
            "tables": summary,
            "whole_page_keeps": whole,
            "low_precision_pages": low,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
