"""Word and stopword counting for every script, spaced or not.

PROVISIONAL: whitespace splitting only. The stoplist/langid work replaces the body of
`count_words` with script-aware segmentation (zh, ja, th, my) keeping this signature.
"""

from __future__ import annotations


def count_words(text: str, stoplist: frozenset[str] | None) -> tuple[int, int]:
    """Return (words, stopwords) in ``text``; stopwords are 0 without a stoplist."""
    words = text.lower().split()
    if not stoplist:
        return len(words), 0
    return len(words), sum(1 for w in words if w in stoplist)
