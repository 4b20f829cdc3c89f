"""Training labels: which blocks of a page are main content, judged against a reference text.

The page's blocks, read in order, form one token stream; the reference (the benchmark's main
content) is another. Their longest common subsequence marks every page token that the reference
also has *at that place in the order*. A block is content when most of its tokens are marked.

Requiring order is what makes the labels trustworthy: a navigation link "Recipes" is not content
just because the word "recipes" occurs somewhere in the article. Repeated boilerplate (a menu
that names the article's own title) is matched once at most, where the order puts it.

The alignment is `difflib.SequenceMatcher` over integer token ids with ``autojunk`` off (its
heuristic would ignore the frequent words and split the matches into slivers). Its matching blocks
are an LCS approximation that runs in a fraction of a second on pages of tens of thousands of
tokens; an exact LCS would be O(n·m) in time.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from pipeline.evaluate.metrics import tokens_for

# Share of a block's tokens that must align with the reference for the block to be content.
DEFAULT_MIN_FRACTION = 0.5


def _ids(tokens: Sequence[str], vocab: dict[str, int]) -> list[int]:
    return [vocab.setdefault(t, len(vocab)) for t in tokens]


def aligned_fractions(
    block_texts: Sequence[str], reference: str, language: str | None = None
) -> list[float]:
    """For every block, the share of its tokens that align with ``reference`` (0.0 without tokens).

    Tokens are those of `pipeline.evaluate.metrics.tokens_for` (lowercase words; characters for
    unspaced scripts), so the labels agree with what the evaluation metric counts."""
    vocab: dict[str, int] = {}
    per_block = [_ids(tokens_for(text, language), vocab) for text in block_texts]
    page = [t for ids in per_block for t in ids]
    ref = _ids(tokens_for(reference, language), vocab)
    matched = bytearray(len(page))
    if page and ref:
        matcher = SequenceMatcher(None, page, ref, autojunk=False)
        for start, _, size in matcher.get_matching_blocks():
            matched[start : start + size] = b"\x01" * size
    fractions: list[float] = []
    offset = 0
    for ids in per_block:
        n = len(ids)
        fractions.append(sum(matched[offset : offset + n]) / n if n else 0.0)
        offset += n
    return fractions


def align_labels(
    block_texts: Sequence[str],
    reference: str,
    language: str | None = None,
    min_fraction: float = DEFAULT_MIN_FRACTION,
) -> list[bool]:
    """True for the blocks whose aligned share of tokens is at least ``min_fraction``."""
    if not 0.0 < min_fraction <= 1.0:
        raise ValueError(f"min_fraction must be in (0, 1], got {min_fraction}")
    return [f >= min_fraction for f in aligned_fractions(block_texts, reference, language)]


def snippet_labels(
    block_texts: Sequence[str], with_snippets: Sequence[str], without_snippets: Sequence[str]
) -> list[bool | None]:
    """Labels from snippet ground truth: True inside a must-contain snippet, False inside a
    must-not-contain one, None (unknown) elsewhere.

    Matching is on whitespace-normalised lowercase text; a snippet counts for a block when either
    contains the other, since a snippet may span only part of a block or a block only part of a
    snippet that crosses inline boundaries.
    """

    def norm(s: str) -> str:
        return " ".join(s.lower().split())

    withs = [n for n in map(norm, with_snippets) if n]
    withouts = [n for n in map(norm, without_snippets) if n]
    labels: list[bool | None] = []
    for text in block_texts:
        t = norm(text)
        if not t:
            labels.append(None)
        elif any(s in t or (len(t) >= 20 and t in s) for s in withs):
            labels.append(True)
        elif any(s in t or (len(t) >= 20 and t in s) for s in withouts):
            labels.append(False)
        else:
            labels.append(None)
    return labels
