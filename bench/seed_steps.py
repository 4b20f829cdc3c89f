"""Single steps of the seed texts that no cleaner parameter stands for, measured as written and as
we run them, on the same pages.

Usage: python bench/seed_steps.py [--data-dir ../shared/data] [--out bench/results/seed_steps.json]

Every page of wcxb-dev, multilingual-dev and daniel is decoded, parsed, segmented (with BTE's
runs) and its language detected once, as `pipeline.clean_html` does; then each system below labels
the same blocks, and its kept blocks go through the same steps after labelling as in
`pipeline.clean.clean_decoded` (data tables kept whole, reader comments left out) and are
rendered (`pipeline.render.render`), scored with `score_text` as ``warcclean eval`` scores:

* ``justext``: ours, as shipped;
* ``justext, <header> dropped``: the jusText description (seed 003) removes the contents of
  ``<header>`` in preprocessing; the package and we remove ``<head>`` and keep ``<header>``.
  Here every block inside a ``<header>`` element is made bad after labelling (before the
  context-sensitive pass would be more exact; after it is an upper bound of what dropping them
  can do to the text, since dropped blocks cannot anchor others);
* ``bte, tokens of the stretch``: Baroni's step 5 (seed 002), "print only the TOKENs from the
  chosen stretch", against ours, where a block is kept when most of its tokens lie in it. A
  block's tokens are mapped to its words in order (when the block's runs count another number of
  words than its text has, proportionally), so a block cut by the stretch gives only its words
  inside it. Both at tag weight 1 (the paper's) and 0.75 (ours);
* ``justext, <select> contents bad``: the description (seed 003) makes the contents of
  ``<select>`` bad blocks; the package and we remove them with the element. Here the page is
  parsed again with each ``<select>`` renamed to an element we do not remove (its ``<option>``
  children become blocks, as they are block tags), and every block under one is classed bad
  before the context-sensitive pass, where it can now stop a short block's search for good
  neighbours;
* ``density-lm paper, kept lines' text``: Pal's output is the kept source lines (seed 000, its
  last step); ours maps the lines' verdicts onto our blocks (a block is kept when most of its
  characters lie in kept lines). Here the kept lines' visible text, one per line, is the output;
* ``density-fixed`` / ``density-mean`` paper, ``two bytes per break``: the article's formatter
  (seed 001, step 3) adds two bytes to a line's HTML size for every line break it writes; ours
  counts the characters of the paragraph's HTML only. Here every paragraph's HTML size gets the
  two bytes of the break that opens it.

Prints a table and writes it to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline.clean import get_cleaner  # noqa: E402
from pipeline.cleaners import density, density_lm  # noqa: E402
from pipeline.cleaners.bte import BteCleaner, max_stretch  # noqa: E402
from pipeline.cleaners.justext import (  # noqa: E402
    JusTextCleaner,
    classify_context_free,
    revise,
    stopword_densities,
)
from pipeline.cleaners.units import page_html  # noqa: E402
from pipeline.evaluate.datasets import load_dataset  # noqa: E402
from pipeline.evaluate.scoring import aggregate, score_text  # noqa: E402
from pipeline.html.decode import decode_html  # noqa: E402
from pipeline.html.segment import parse, segment  # noqa: E402
from pipeline.lang import langid, stoplists  # noqa: E402
from pipeline.render.blocks import render  # noqa: E402
from pipeline.render.table_units import keep_whole  # noqa: E402
from pipeline.rules.comments import label_comments  # noqa: E402
from pipeline.types import Block, CfClass, LabeledBlock, Verdict  # noqa: E402

DEFAULT_OUT = REPO / "bench" / "results" / "seed_steps.json"
SETS = {"wcxb": "wcxb-dev", "ml": "multilingual-dev", "daniel": "daniel"}


def text_of(labeled: list[LabeledBlock], tree: Any, url: str | None) -> str:
    labeled, _ = label_comments(keep_whole(labeled), tree, url)
    return render([lb.block for lb in labeled if lb.verdict is Verdict.GOOD], markdown=False).text


def in_header(block: Block) -> bool:
    return "header" in block.dom_path.split(".")


def header_dropped(labeled: list[LabeledBlock]) -> list[LabeledBlock]:
    return [lb._replace(verdict=Verdict.BAD) if in_header(lb.block) else lb for lb in labeled]


def stretch_words(blocks: Sequence[Block], tag_weight: float) -> str:
    """The words of BTE's maximal stretch, block by block in document order."""
    per_block = [b.runs or () for b in blocks]
    counts = [len(r) for r in per_block]
    flat = np.fromiter(chain.from_iterable(per_block), np.int64, sum(counts))
    start, end, _ = max_stretch(np.where(flat > 0, flat, flat * tag_weight))
    out: list[str] = []
    position = 0
    for block, runs in zip(blocks, per_block, strict=True):
        words = block.text.split()
        tokens = sum(r for r in runs if r > 0)
        seen = 0
        inside: list[tuple[int, int]] = []  # token ranges of this block inside the stretch
        for k, run in enumerate(runs, start=position):
            if run > 0:
                if start <= k < end:
                    inside.append((seen, seen + run))
                seen += run
        position += len(runs)
        if not inside or not tokens:
            continue
        scale = len(words) / tokens
        for a, b in inside:
            out.extend(words[round(a * scale) : round(b * scale)])
        out.append("\n\n")
    return " ".join(out)


System = Callable[[list[Block], frozenset[str] | None, Any, str | None], str]

_SELECT_OPEN = re.compile(r"<select(?=[\s>/])", re.IGNORECASE)
_SELECT_CLOSE = re.compile(r"</select\s*>", re.IGNORECASE)
_KEPT_SELECT = "wc-select"  # an element name no page uses, which the walk does not remove


def in_select(block: Block) -> bool:
    return _KEPT_SELECT in block.dom_path.split(".")


def justext_select_bad(cleaner: JusTextCleaner) -> System:
    """jusText with every block inside a ``<select>`` classed bad before the context-sensitive
    pass, on the page parsed again with its ``<select>`` elements kept."""

    def run(blocks, stoplist, tree, url):  # type: ignore[no-untyped-def]
        source = page_html(tree)
        renamed = _SELECT_CLOSE.sub(
            f"</{_KEPT_SELECT}>", _SELECT_OPEN.sub(f"<{_KEPT_SELECT}", source)
        )
        if renamed != source:
            tree = parse(renamed)
            blocks = segment(tree)
        params = cleaner.settings
        densities = stopword_densities(blocks, stoplist)
        cf = classify_context_free(blocks, stoplist, params, densities)
        cf = [CfClass.BAD if in_select(b) else c for b, c in zip(blocks, cf, strict=True)]
        verdicts = revise(blocks, cf, params)
        labeled = [
            LabeledBlock(b, v, c, None, d)
            for b, v, c, d in zip(blocks, verdicts, cf, densities, strict=True)
        ]
        return text_of(labeled, tree, url)

    return run


def kept_lines_text(cleaner: Any) -> System:
    """The text of the source lines the density-lm paper variant keeps, one per line, instead of
    its verdicts mapped onto our blocks."""

    def run(blocks, stoplist, tree, url):  # type: ignore[no-untyped-def]
        kept: list[str] = []
        real = density_lm.labels_from_units

        def capture(blocks, units, keep, scores):  # type: ignore[no-untyped-def]
            kept.extend(u.text for u, k in zip(units, keep, strict=True) if k)
            return real(blocks, units, keep, scores)

        density_lm.labels_from_units = capture
        try:
            cleaner.label(blocks, stoplist, tree=tree)
        finally:
            density_lm.labels_from_units = real
        return "\n".join(kept)

    return run


def with_break_bytes(cleaner: Any) -> System:
    """A paper variant judging the article's paragraphs, each paragraph's HTML size with the two
    bytes of the line break the article's formatter writes before it."""

    def run(blocks, stoplist, tree, url):  # type: ignore[no-untyped-def]
        real = density.article_paragraphs

        def plus_two(source: str) -> list:
            return [u._replace(n_html=u.n_html + 2) for u in real(source)]

        density.article_paragraphs = plus_two
        try:
            return text_of(cleaner.label(blocks, stoplist, tree=tree), tree, url)
        finally:
            density.article_paragraphs = real

    return run


def paper(cleaner: Any) -> System:
    return lambda blocks, stoplist, tree, url: text_of(
        cleaner.label(blocks, stoplist, tree=tree), tree, url
    )


def systems() -> dict[str, System]:
    justext = JusTextCleaner()
    bte_paper, bte_ours = BteCleaner(tag_weight=1.0), BteCleaner()

    def jt(blocks, stoplist, tree, url):  # type: ignore[no-untyped-def]
        return text_of(justext.label(blocks, stoplist), tree, url)

    def jt_header(blocks, stoplist, tree, url):  # type: ignore[no-untyped-def]
        return text_of(header_dropped(justext.label(blocks, stoplist)), tree, url)

    def bte_blocks(cleaner: BteCleaner) -> System:
        return lambda blocks, stoplist, tree, url: text_of(cleaner.label(blocks, None), tree, url)

    def bte_tokens(weight: float) -> System:
        return lambda blocks, stoplist, tree, url: stretch_words(blocks, weight)

    lm_paper = get_cleaner("density-lm", {"variant": "paper"})
    fixed_paper = get_cleaner("density-fixed", {"variant": "paper"})
    mean_paper = get_cleaner("density-mean", {"variant": "paper"})
    return {
        "justext": jt,
        "justext, <header> dropped": jt_header,
        "justext, <select> contents bad (as written)": justext_select_bad(justext),
        "density-lm paper, lines mapped onto blocks (ours)": paper(lm_paper),
        "density-lm paper, kept lines' text (as written)": kept_lines_text(lm_paper),
        "density-fixed paper (ours)": paper(fixed_paper),
        "density-fixed paper, two bytes per break (as written)": with_break_bytes(fixed_paper),
        "density-mean paper (ours)": paper(mean_paper),
        "density-mean paper, two bytes per break (as written)": with_break_bytes(mean_paper),
        "bte 1.0, blocks by majority": bte_blocks(bte_paper),
        "bte 1.0, tokens of the stretch (as written)": bte_tokens(1.0),
        "bte 0.75, blocks by majority (ours)": bte_blocks(bte_ours),
        "bte 0.75, tokens of the stretch": bte_tokens(0.75),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    split = json.loads((REPO / "pipeline" / "models" / "neighbours.json").read_text())
    held_out = set(split["metadata"]["split"]["test_ids"])
    named = systems()
    rows: dict[str, dict[str, list]] = {name: {s: [] for s in SETS} for name in named}
    held: dict[str, dict[str, list]] = {name: {"wcxb": [], "ml": []} for name in named}
    header_pages = dict.fromkeys(SETS, 0)
    for prefix, folder in SETS.items():
        for page in load_dataset(args.data_dir / folder):
            tree = parse(decode_html(page.read_html(), None).html)
            blocks = segment(tree, record_runs=True)
            stoplist = stoplists.stoplist(langid.detect_blocks(blocks).code)
            header_pages[prefix] += any(in_header(b) for b in blocks)
            for name, system in named.items():
                row = score_text(page, system(blocks, stoplist, tree, page.url))
                rows[name][prefix].append(row)
                if f"{prefix}/{page.id}" in held_out:
                    held[name][prefix].append(row)
        print(f"{prefix} done", flush=True)

    def f1(values: list) -> float:
        return aggregate(values)["f1"]

    results = {
        name: {
            **{prefix: f1(rows[name][prefix]) for prefix in SETS},
            **{f"{prefix}_held_out": f1(held[name][prefix]) for prefix in ("wcxb", "ml")},
            "ml_combined": aggregate(rows[name]["ml"])["combined"],
            "empty": {p: aggregate(rows[name][p])["empty"] for p in SETS},
        }
        for name in named
    }
    lines = [
        "| system | wcxb F1 (held-out) | ml F1 (held-out) | ml combined | daniel F1 | empty "
        "wcxb / ml / daniel |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, r in results.items():
        empty = " / ".join(str(r["empty"][p]) for p in SETS)
        lines.append(
            f"| {name} | {r['wcxb']:.3f} ({r['wcxb_held_out']:.3f}) | {r['ml']:.3f} "
            f"({r['ml_held_out']:.3f}) | {r['ml_combined']:.3f} | {r['daniel']:.3f} | {empty} |"
        )
    print("\n".join(lines))
    print(f"pages with a block inside <header>: {header_pages}")
    results_file.write_results(
        args.out,
        {
            "what": __doc__.split("\n\n")[0],
            "when": results_file.utc_now(),
            "commit": results_file.git_commit(),
            "pages_with_header_blocks": header_pages,
            "systems": results,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
