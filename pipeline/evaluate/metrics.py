"""Text-extraction quality metrics, as the WCXB benchmark defines them.

Word-level precision/recall/F1 over lowercase ``\\w+`` tokens counted as multisets, per page; for
languages written without spaces (zh, ja, th, my) the same over non-space characters.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

_WORD = re.compile(r"\w+")
CHARACTER_SCORED_LANGUAGES = frozenset({"zh", "ja", "th", "my"})


class PRF(NamedTuple):
    precision: float
    recall: float
    f1: float


def word_tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def char_tokens(text: str) -> list[str]:
    return [c for c in text.lower() if not c.isspace()]


def tokens_for(text: str, language: str | None) -> list[str]:
    """Tokens the metric counts for ``language``: characters for unspaced scripts, else words."""
    if language in CHARACTER_SCORED_LANGUAGES:
        return char_tokens(text)
    return word_tokens(text)


def prf(predicted: list[str], reference: list[str]) -> PRF:
    """Multiset precision/recall/F1. Two empty sides score 1.0 (nothing to find, nothing found)."""
    if not predicted and not reference:
        return PRF(1.0, 1.0, 1.0)
    if not predicted or not reference:
        return PRF(0.0, 0.0, 0.0)
    overlap = sum((Counter(predicted) & Counter(reference)).values())
    p = overlap / len(predicted)
    r = overlap / len(reference)
    f = 2 * p * r / (p + r) if p + r else 0.0
    return PRF(p, r, f)


def text_f1(predicted: str, reference: str, language: str | None = None) -> PRF:
    return prf(tokens_for(predicted, language), tokens_for(reference, language))
