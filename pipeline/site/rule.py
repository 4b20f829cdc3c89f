"""Which kept blocks the site stage labels ``repeat``: the settings and the rule.

A block is a candidate when the cleaner kept it (its label is ``good``; a reader comment stays
a comment), its normalized text is not blank, and at least ``min_pages`` distinct documents of
its site hold that text (``site_pages``, exact duplicates counted once); with ``max_chars``, a
block of that many characters or more is no candidate. The page then decides: when the
candidates would take more than ``max_share`` of the characters its kept blocks hold, none of
them is marked. Boilerplate that survives a per-page cleaner is a part of a page (a teaser, a
notice, a copyright line); a page whose kept text is mostly on other pages of the site is the
same article published twice (a print view, an update under a new URL, a near copy), which a
corpus wants, once: on daniel such pairs are what made Polish fall when counting alone decided.
``min_pages`` 0 turns the stage off. The defaults are chosen on half of the daniel sites and
reported on the other half (BENCHMARKS.md, "The site stage").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pipeline.site.keys import EMPTY, SITE_KEYS

__all__ = ["DEFAULT_MAX_CHARS", "DEFAULT_MIN_PAGES", "REPEAT", "SiteSettings"]

REPEAT = "repeat"
GOOD = "good"
DEFAULT_MIN_PAGES = 2
DEFAULT_MAX_CHARS = 200  # 0: no length cap
DEFAULT_MAX_SHARE = 1.0  # 1: a page may lose all of its kept text


@dataclass(frozen=True, slots=True)
class SiteSettings:
    """What the site stage does: ``min_pages`` is ``--site-repeats``, ``site_key`` is
    ``--site-key`` (`pipeline.site.keys.site_of`), ``max_chars`` the length from which a block
    is never marked (0: none), ``max_share`` the share of a page's kept characters above which
    none of its blocks is marked (1: no such guard)."""

    min_pages: int = DEFAULT_MIN_PAGES
    site_key: str = "host"
    max_chars: int = DEFAULT_MAX_CHARS
    max_share: float = DEFAULT_MAX_SHARE

    def __post_init__(self) -> None:
        if self.min_pages < 0:
            raise ValueError(f"site repeats must be >= 0, got {self.min_pages}")
        if self.min_pages == 1:
            raise ValueError(
                "site repeats 1 would mark every kept block (each is on its own page): give 0 "
                "to turn the stage off, or 2 or more"
            )
        if self.site_key not in SITE_KEYS:
            raise ValueError(
                f"site key must be one of {', '.join(SITE_KEYS)}, got {self.site_key!r}"
            )
        if self.max_chars < 0:
            raise ValueError(f"max chars must be >= 0, got {self.max_chars}")
        if not 0.0 < self.max_share <= 1.0:
            raise ValueError(f"max share must be in (0, 1], got {self.max_share}")

    @property
    def enabled(self) -> bool:
        return self.min_pages > 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def marks(
        self,
        cleaner_labels: np.ndarray,
        site_pages: np.ndarray,
        text_hashes: np.ndarray,
        n_chars: np.ndarray,
        offsets: np.ndarray,
    ) -> np.ndarray:
        """Whether each block is a repeat (one boolean per block); ``cleaner_labels`` are the
        labels as the cleaner left them (`cleaner_labels`), ``offsets`` the documents' first
        block indices followed by the total."""
        good = cleaner_labels == GOOD
        out = good & (site_pages >= self.min_pages) & (text_hashes != EMPTY)
        if self.max_chars:
            out &= n_chars < self.max_chars
        if self.max_share < 1.0 and out.any():
            n_docs = len(offsets) - 1
            doc_of = np.repeat(np.arange(n_docs), np.diff(offsets))
            chars = n_chars.astype(np.float64)
            kept = np.bincount(doc_of, weights=np.where(good, chars, 0.0), minlength=n_docs)
            marked = np.bincount(doc_of, weights=np.where(out, chars, 0.0), minlength=n_docs)
            whole = marked > self.max_share * kept
            out &= ~whole[doc_of]
        return out


def cleaner_labels(labels: np.ndarray) -> np.ndarray:
    """The labels as the cleaner left them: a ``repeat`` was a ``good`` block (only those are
    marked), so a stage run again over its own output starts from the cleaner's decision."""
    return np.where(labels == REPEAT, GOOD, labels)
