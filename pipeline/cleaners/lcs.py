"""Word overlap of two texts in order: the longest common subsequence of their tokens, with which
both Kimatu variants find quotes (`pipeline.cleaners.kimatu`, `pipeline.cleaners.kimatu_paper`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

_WORD = re.compile(r"\w+")
# Bounds LCS work on giant blocks: at most this many tokens of the quote, 4x of its source.
_LCS_MAX_TOKENS = 2000


def tokens_of(text: str) -> list[str]:
    """Words without their punctuation ("schools;" is "schools"), lower-cased."""
    words = _WORD.findall(text.lower())
    # Unspaced scripts come out as one "word" per clause; compare their characters instead.
    if words and sum(map(len, words)) > 12 * len(words):
        return [c for w in words for c in w]
    return words


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences.

    Bit-parallel (Allison & Dix 1986, in Hyyrö's 2004 form): one Python integer holds a DP
    column with one bit per token of the shorter sequence, so each token of the longer one costs
    a few big-integer operations instead of a Python loop over the shorter one. The number of
    zero bits left in the column is the LCS length.
    """
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[str, int] = {}
    for i, token in enumerate(b):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(b)) - 1
    column = full
    for token in a:
        match = column & masks.get(token, 0)
        column = ((column + match) | (column - match)) & full
    return len(b) - column.bit_count()


def containment_ratio(shorter: Sequence[str], longer: Sequence[str]) -> float:
    """LCS length over the shorter length: 1.0 when ``shorter`` occurs, in order, in ``longer``."""
    if not shorter:
        return 0.0
    shorter, longer = shorter[:_LCS_MAX_TOKENS], longer[: 4 * _LCS_MAX_TOKENS]
    return lcs_length(shorter, longer) / len(shorter)
