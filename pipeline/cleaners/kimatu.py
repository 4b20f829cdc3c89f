"""Kimatu (Saralegi & Leturia, "Kimatu, a tool for cleaning non-content text parts from HTML
docs", WAC 2007), reimplemented from the paper's description over our shared blocks.

Kimatu bootstraps: it scores every block with a content-relevance ratio, takes the clear winners
as references, then widens and trims that set with a few heuristics. Each heuristic is a small
pure function below, run in this order by `KimatuCleaner.label`:

1. `style_groups`: blocks with the same visual style (``Block.style``: tag plus class attributes
   of the enclosing block element) that lie close together (at most ``group_gap`` block positions
   apart) form a group; a block's group average length says "I look like my neighbours".
2. `relevance`: ``0.5·length + 0.5·group_average_length − (1 − punctuation) − link_density``.
   Lengths are normalised per page by dividing by the page's longest block (so the longest
   block scores 1 and the scale adapts to terse and verbose sites alike); ``punctuation`` is
   `punctuation_score`, 1 for prose (at least one clause mark per ``CHARS_PER_MARK``
   characters) and 0 for text without any (menus, labels, tag clouds).
3. `sure_candidates`: relevance above ``sure`` (0.32, the paper's value).
4. `is_function_block`: link-dominated, very short or menu-like blocks are never content.
5. `quote_duplicates`: a block whose text is nearly contained in a longer candidate (longest
   common subsequence over the shorter text ≥ ``lcs_ratio``) is a pull quote or a repeated
   teaser: it is dropped and never recovered later; the longer text stays. Run again after
   step 6 on the widened set.
6. `recover_same_style`: blocks sharing a style with a candidate and relevance above ``recover``
   (0.1) join: the article's shorter paragraphs look like its long ones.
7. `drop_dispersed`: candidates whose geometric-mean distance (in block positions) to the other
   candidates is far above the typical one are outliers away from the main cluster (a comment,
   a teaser in the footer).
8. `recover_nearby`: non-function blocks next to the content (a heading just before it, a short
   block between two content blocks, a relevant block adjacent to it) are taken back.

`output_tag` gives the h/p/l (heading/paragraph/list item) mark Kimatu writes for kept blocks.
The stoplist is not used: every feature is language independent.

This is the project's variant, built before the paper was at hand; ``variant="paper"`` runs the
paper's algorithm (`pipeline.cleaners.kimatu_paper`), and docs/seeds.md compares the two with the
paper step by step. Where this one differs: the ratio is computed and decided per block, the
paper's per block of same-aspect elements; punctuation is clause marks per character, the
paper's phrase-boundary marks per word; link density is link characters, the paper's link tags
per element; the function-block test, the quote removal (class not considered), the dispersed
rule (no exemption above 0.5) and the recoveries are this project's versions of those steps.
It stays the default because it measured better on two sets of three (word F1, this variant
against the paper's; docs/seeds.md): wcxb-dev 0.757 / 0.803, multilingual-dev 0.899 / 0.849,
daniel 0.835 / 0.797.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from pipeline.cleaners.kimatu_paper import PaperConstants, PaperKimatu
from pipeline.cleaners.lcs import containment_ratio, tokens_of
from pipeline.types import Block, LabeledBlock, Verdict

# Clause and sentence punctuation across scripts: Latin/Cyrillic/Greek, CJK full-width, Arabic,
# Devanagari danda, Armenian, Ethiopic. Brackets, quotes and separators such as "|" or "»" are
# deliberately absent: menus are full of them and prose is not defined by them.
CLAUSE_MARKS = frozenset(".,;:!?。，、；：！？．؛،؟۔।॥։።፣፤")
# Prose carries about one clause mark per 60 characters in English (sentences of ~20 words with
# a comma or two); CJK prose carries more. At or above that rate punctuation scores 1.
CHARS_PER_MARK = 60
_SPACE = re.compile(r"\s+")
_MARKS = re.compile("[" + re.escape("".join(sorted(CLAUSE_MARKS))) + "]")
# Texts this short are not checked as quotes: a few common words occur in any paragraph.
MIN_QUOTE_TOKENS = 6
_MENU_SEPARATORS = re.compile(r"\s*[|•·»›/◦▪►]\s*")
_HEADING_TAGS = frozenset(f"h{i}" for i in range(1, 7))
_LIST_TAGS = frozenset(("li", "dd", "dt"))
_QUOTE_SOURCES = 200
VARIANTS = ("project", "paper")


def normalized_lengths(blocks: Sequence[Block]) -> list[float]:
    """Block lengths divided by the page's longest block length: the longest scores 1."""
    longest = max((b.n_chars for b in blocks), default=0)
    return [b.n_chars / longest if longest else 0.0 for b in blocks]


def style_groups(blocks: Sequence[Block], group_gap: int = 5) -> list[int]:
    """Group id per block: same ``style`` and at most ``group_gap`` positions from the previous
    block of that style in the group. Ids are numbered in order of first appearance."""
    group_of: list[int] = []
    last_seen: dict[str, tuple[int, int]] = {}  # style -> (position, group id)
    next_id = 0
    for pos, block in enumerate(blocks):
        seen = last_seen.get(block.style)
        if seen is not None and pos - seen[0] <= group_gap:
            gid = seen[1]
        else:
            gid = next_id
            next_id += 1
        last_seen[block.style] = (pos, gid)
        group_of.append(gid)
    return group_of


def group_average_lengths(lengths: Sequence[float], groups: Sequence[int]) -> list[float]:
    """Each block's group mean of ``lengths``."""
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for length, gid in zip(lengths, groups, strict=True):
        sums[gid] = sums.get(gid, 0.0) + length
        counts[gid] = counts.get(gid, 0) + 1
    return [sums[g] / counts[g] for g in groups]


def punctuation_score(text: str) -> float:
    """min(1, clause marks · CHARS_PER_MARK / characters): 1 for prose, 0 for bare labels."""
    chars = len(_SPACE.sub("", text))
    if not chars:
        return 0.0
    marks = len(_MARKS.findall(text))
    return min(1.0, marks * CHARS_PER_MARK / chars)


def relevance(length: float, group_length: float, punctuation: float, link_density: float) -> float:
    """Kimatu's content-relevance ratio (all inputs in [0, 1]; the result in [-2, 1])."""
    return 0.5 * length + 0.5 * group_length - (1.0 - punctuation) - link_density


def relevances(blocks: Sequence[Block], group_gap: int = 5) -> list[float]:
    """`relevance` of every block of a page."""
    lengths = normalized_lengths(blocks)
    averages = group_average_lengths(lengths, style_groups(blocks, group_gap))
    return [
        relevance(length, avg, punctuation_score(b.text), b.link_density)
        for b, length, avg in zip(blocks, lengths, averages, strict=True)
    ]


def sure_candidates(scores: Sequence[float], sure: float = 0.32) -> set[int]:
    return {i for i, s in enumerate(scores) if s > sure}


def is_function_block(block: Block, max_link: float = 0.5, min_chars: int = 15) -> bool:
    """Navigation and furniture: mostly link text, too short to be prose (headings excepted:
    they are short by nature and step 8 judges them by position), a copyright line, or a run
    of short items between menu separators ("Home | News | Contact", "A » B » C")."""
    if block.link_density >= max_link:
        return True
    if block.n_chars < min_chars and not (block.is_heading or block.tag in _HEADING_TAGS):
        return True
    if "©" in block.text:
        return True
    parts = [p for p in _MENU_SEPARATORS.split(block.text) if p]
    return len(parts) >= 3 and all(len(p.split()) <= 3 for p in parts)


def quote_duplicates(
    blocks: Sequence[Block],
    candidates: set[int],
    lcs_ratio: float = 0.8,
    others: set[int] | frozenset[int] = frozenset(),
) -> set[int]:
    """Blocks nearly contained in a longer (or equally long, earlier) candidate: pull quotes and
    repeated teasers. Candidates are checked against each other, ``others`` (blocks that are not
    candidates but could be recovered later) against the candidates. The source is kept."""
    pool = candidates | set(others)
    tokens = {i: tokens_of(blocks[i].text) for i in pool}
    keys = {i: (-len(t), i) for i, t in tokens.items()}
    sets = {i: set(t) for i, t in tokens.items()}
    # Only the longest candidates are sources: quotes and teasers copy article paragraphs, and
    # this bounds the pairs on pages with thousands of candidates (forums).
    sources = sorted(candidates, key=keys.__getitem__)[:_QUOTE_SOURCES]
    rank = {j: r for r, j in enumerate(sources)}
    postings: dict[str, list[int]] = {}
    for j in sources:
        for token in sets[j]:
            postings.setdefault(token, []).append(j)
    dropped: set[int] = set()
    for i in sorted(pool, key=keys.__getitem__):
        distinct = sets[i]
        if len(tokens[i]) < MIN_QUOTE_TOKENS:
            continue
        # Prefix filter: a source sharing a ``lcs_ratio`` share of i's distinct tokens must hold
        # one of i's (1 − lcs_ratio)·n + 1 rarest ones, so only their postings are compared.
        by_rarity = sorted(distinct, key=lambda t: len(postings.get(t, ())))
        prefix = by_rarity[: len(distinct) - math.ceil(lcs_ratio * len(distinct)) + 1]
        near = {j for t in prefix for j in postings.get(t, ())}
        for j in sorted(near, key=rank.__getitem__):
            if keys[j] >= keys[i]:
                break  # sorted longest first: no longer source is left
            if j in dropped:
                continue
            shared = len(distinct & sets[j]) / len(distinct)
            if shared >= lcs_ratio and containment_ratio(tokens[i], tokens[j]) >= lcs_ratio:
                dropped.add(i)
                break
    return dropped


def recover_same_style(
    blocks: Sequence[Block],
    scores: Sequence[float],
    candidates: set[int],
    excluded: set[int],
    recover: float = 0.1,
) -> set[int]:
    """Blocks with a candidate's style and relevance above ``recover`` (not excluded)."""
    styles = {blocks[i].style for i in candidates}
    return {
        i
        for i, b in enumerate(blocks)
        if i not in candidates and i not in excluded and b.style in styles and scores[i] > recover
    }


def geometric_mean_distances(positions: Sequence[int]) -> list[float]:
    """For each position, the geometric mean of its distances to all the others."""
    if len(positions) < 2:
        return [0.0] * len(positions)
    arr = np.asarray(positions, dtype=np.float64)
    out = []
    # Row by row: O(n) memory, and numpy keeps a forum page with thousands of candidates fast.
    for p in arr:
        gaps = np.abs(arr - p)
        gaps = gaps[gaps > 0]
        out.append(float(np.exp(np.log(gaps).mean())) if gaps.size else 0.0)
    return out


def drop_dispersed(
    candidates: set[int], factor: float = 2.0, min_distance: float = 8.0
) -> set[int]:
    """Candidates whose geometric-mean distance exceeds ``factor`` times the median one (and
    ``min_distance`` positions, so a compact page is never thinned). Needs three candidates."""
    if len(candidates) < 3:
        return set()
    positions = sorted(candidates)
    distances = geometric_mean_distances(positions)
    limit = max(factor * statistics.median(distances), min_distance)
    return {p for p, d in zip(positions, distances, strict=True) if d > limit}


def recover_nearby(
    blocks: Sequence[Block],
    scores: Sequence[float],
    kept: set[int],
    excluded: set[int],
    near: int = 2,
    recover: float = 0.1,
) -> set[int]:
    """Blocks taken back beside the content, repeated until nothing changes:
    a heading at most ``near`` positions before a kept block, a block with kept blocks within
    ``near`` on both sides, or a block adjacent to a kept one with relevance above ``recover``."""
    kept = set(kept)
    added: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i, block in enumerate(blocks):
            if i in kept or i in excluded:
                continue
            after = any(j in kept for j in range(i + 1, i + near + 1))
            before = any(j in kept for j in range(i - near, i))
            heading = block.is_heading or block.tag in _HEADING_TAGS
            adjacent = (i - 1 in kept or i + 1 in kept) and scores[i] > recover
            if (heading and after) or (before and after) or adjacent:
                kept.add(i)
                added.add(i)
                changed = True
    return added


def output_tag(block: Block) -> str:
    """Kimatu's output mark: "h" heading, "l" list item, "p" anything else."""
    if block.is_heading or block.tag in _HEADING_TAGS:
        return "h"
    if block.tag in _LIST_TAGS:
        return "l"
    return "p"


class KimatuCleaner:
    """Kimatu's bootstrapping heuristics; see the module docstring for the steps.

    ``variant="paper"`` runs the paper's algorithm instead (`pipeline.cleaners.kimatu_paper`), on
    its own units cut from the parsed page (``needs_tree``); its keyword parameters are then the
    fields of `pipeline.cleaners.kimatu_paper.PaperConstants`, and the project variant's
    parameters must keep their defaults."""

    name: ClassVar[str] = "kimatu"
    needs_runs: ClassVar[bool] = False
    needs_tree: bool = False

    def __init__(
        self,
        sure: float = 0.32,
        recover: float = 0.1,
        lcs_ratio: float = 0.8,
        max_link: float = 0.5,
        min_chars: int = 15,
        group_gap: int = 5,
        dispersion: float = 2.0,
        near: int | None = None,
        variant: str = "project",
        *,
        aspect: str | None = None,
        block_gap: int | None = None,
        max_average: float | None = None,
        marks_per_word: float | None = None,
        links_per_element: float | None = None,
        function_words: float | None = None,
        function_share: float | None = None,
        quote_words: int | None = None,
        quote_lcs: float | None = None,
        rescue_near: int | None = None,
        dispersed_far: float | None = None,
        min_relevance: float | None = None,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
        self.variant = variant
        self._paper: Any = None
        # The paper variant's constants (`PaperConstants`); None: the paper variant's default.
        given = {
            "aspect": aspect,
            "block_gap": block_gap,
            "max_average": max_average,
            "marks_per_word": marks_per_word,
            "links_per_element": links_per_element,
            "function_words": function_words,
            "function_share": function_share,
            "quote_words": quote_words,
            "quote_lcs": quote_lcs,
            "rescue_near": rescue_near,
            "dispersed_far": dispersed_far,
            "min_relevance": min_relevance,
        }
        paper = {k: v for k, v in given.items() if v is not None}
        if variant == "paper":
            project = (sure, recover, lcs_ratio, max_link, min_chars, group_gap, dispersion)
            if project != (0.32, 0.1, 0.8, 0.5, 15, 5, 2.0):
                raise ValueError(
                    "sure, recover, lcs_ratio, max_link, min_chars, group_gap and dispersion "
                    "are parameters of variant='project'"
                )
            if near is not None:
                paper["near"] = near
            self._paper = PaperKimatu(PaperConstants(**paper))
            self.needs_tree = True
            return
        if paper:
            raise ValueError(
                f"{', '.join(sorted(paper))}: parameters of variant='paper' "
                f"(this is variant={variant!r})"
            )
        near = 2 if near is None else near
        self.sure = float(sure)
        self.recover = float(recover)
        self.lcs_ratio = float(lcs_ratio)
        self.max_link = float(max_link)
        self.min_chars = int(min_chars)
        self.group_gap = int(group_gap)
        self.dispersion = float(dispersion)
        self.near = int(near)
        if not 0 < self.lcs_ratio <= 1:
            raise ValueError(f"lcs_ratio must be in (0, 1], got {lcs_ratio}")
        if not 0 < self.max_link <= 1:
            raise ValueError(f"max_link must be in (0, 1], got {max_link}")
        if self.recover > self.sure:
            raise ValueError(f"recover ({recover}) must not exceed sure ({sure})")
        if min(self.min_chars, self.group_gap, self.near) < 0 or self.dispersion <= 0:
            raise ValueError("min_chars, group_gap and near must be >= 0, dispersion > 0")

    def params(self) -> dict[str, Any]:
        if self._paper is not None:
            return self._paper.params()
        return {
            "sure": self.sure,
            "recover": self.recover,
            "lcs_ratio": self.lcs_ratio,
            "max_link": self.max_link,
            "min_chars": self.min_chars,
            "group_gap": self.group_gap,
            "dispersion": self.dispersion,
            "near": self.near,
        }

    def select(self, blocks: Sequence[Block]) -> tuple[set[int], list[float]]:
        """Indices of the content blocks, and every block's relevance (the project variant)."""
        if self._paper is not None:
            raise ValueError("select is the project variant's; the paper's labels through label")
        scores = relevances(blocks, self.group_gap)
        function = {
            i for i, b in enumerate(blocks) if is_function_block(b, self.max_link, self.min_chars)
        }
        candidates = sure_candidates(scores, self.sure) - function
        others = set(range(len(blocks))) - candidates - function
        quotes = quote_duplicates(blocks, candidates, self.lcs_ratio, others)
        candidates -= quotes
        # Blocks already judged as quotes stay out of every later recovery.
        excluded = function | quotes
        candidates |= recover_same_style(blocks, scores, candidates, excluded, self.recover)
        quotes = quote_duplicates(blocks, candidates, self.lcs_ratio)
        dispersed = drop_dispersed(candidates, self.dispersion)
        candidates -= quotes | dispersed
        excluded |= quotes | dispersed
        candidates |= recover_nearby(blocks, scores, candidates, excluded, self.near, self.recover)
        return candidates, scores

    def label(
        self, blocks: Sequence[Block], stoplist: frozenset[str] | None, tree: Any = None
    ) -> list[LabeledBlock]:
        """``tree``: the parsed page, which the paper variant cuts its elements from (without it,
        our blocks stand in for them); the project variant labels the blocks."""
        return self.label_noted(blocks, stoplist, tree)[0]

    def label_noted(
        self, blocks: Sequence[Block], stoplist: frozenset[str] | None, tree: Any = None
    ) -> tuple[list[LabeledBlock], tuple[str, ...]]:
        """`label`, and the paper variant's note when it had no page to cut its elements from."""
        del stoplist  # every feature is language independent
        if self._paper is not None:
            return self._paper.label_noted(blocks, tree)
        kept, scores = self.select(blocks)
        return [
            LabeledBlock(b, Verdict.GOOD if i in kept else Verdict.BAD, None, scores[i])
            for i, b in enumerate(blocks)
        ], ()
