"""The kept blocks short enough to be a notice or an appeal, which two guards read.

`pipeline.rules.script_notice` and `pipeline.rules.support_appeal` each search a page's short
kept blocks; listing them, and writing their text out once where both look for their cue words
first (`lowered`), is most of either guard's cost on a page where neither finds anything, so
`pipeline.rules.sequence` does both once for both guards.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Between two blocks' texts in `lowered`: no cue holds it, so none is found across two blocks.
SEPARATOR = "\0"


def short_kept(keep: np.ndarray, texts: Sequence[str], max_chars: int) -> list[tuple[int, str]]:
    """The index and text of every kept block of at most ``max_chars`` characters, in order;
    ``texts``: every block's text."""
    return [(i, text) for i in np.flatnonzero(keep).tolist() if len(text := texts[i]) <= max_chars]


def lowered(short: Sequence[tuple[int, str]]) -> bytes:
    """The texts of ``short`` joined by `SEPARATOR`, in UTF-8 with their ASCII letters lowered:
    where the guards look for their cue words. Half the cost of `str.lower` and of the searches
    in its result (most pages' text is not pure ASCII, which makes both slow), so cues are
    written without a letter that has a non-ASCII capital where a sentence may capitalize it."""
    return SEPARATOR.join([text for _, text in short]).encode("utf-8", "surrogatepass").lower()


def holding(
    short: Sequence[tuple[int, str]], data: bytes, cues: Sequence[bytes]
) -> list[tuple[int, str]]:
    """The blocks of ``short`` (`short_kept`'s list) whose text holds one of ``cues`` in their
    `lowered` ``data``, in order. A NUL inside a text (which the parser never leaves) shifts
    which blocks these are, past the list's end at most."""
    found: set[int] = set()
    for cue in cues:
        at = data.find(cue)
        while at >= 0:
            found.add(data.count(_SEPARATOR, 0, at))
            at = data.find(cue, at + len(cue))
    return [short[k] for k in sorted(found) if k < len(short)]


_SEPARATOR = SEPARATOR.encode()
