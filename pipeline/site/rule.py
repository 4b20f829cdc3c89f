"""Which kept blocks the site stage labels ``repeat``: the settings and the rule.

A block is marked when the cleaner kept it (its label is ``good``; a reader comment stays a
comment), its normalized text is not blank, and at least ``min_pages`` distinct documents of its
site hold that text (``site_pages``, exact duplicates counted once). Blocks of ``max_chars`` or
more characters are never marked: boilerplate that survives a per-page cleaner is short (a
teaser, a notice, a copyright line), while a long block on several pages of a site is an
article reprinted (a print view, an update under a new URL), which the site's readers and a
corpus want once, and `duplicate_of` handles exact copies. ``min_pages`` 0 turns the stage off.
The defaults are chosen on half of the daniel sites and reported on the other half
(BENCHMARKS.md, "The site stage").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pipeline.site.keys import EMPTY, SITE_KEYS

__all__ = ["DEFAULT_MAX_CHARS", "DEFAULT_MIN_PAGES", "REPEAT", "SiteSettings"]

REPEAT = "repeat"
GOOD = "good"
DEFAULT_MIN_PAGES = 3
DEFAULT_MAX_CHARS = 0  # 0: no length cap


@dataclass(frozen=True, slots=True)
class SiteSettings:
    """What the site stage does: ``min_pages`` is ``--site-repeats``, ``site_key`` is
    ``--site-key`` (`pipeline.site.keys.site_of`), ``max_chars`` the length above which a block
    is never marked (0: none)."""

    min_pages: int = DEFAULT_MIN_PAGES
    site_key: str = "host"
    max_chars: int = DEFAULT_MAX_CHARS

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
    ) -> np.ndarray:
        """Whether each block is a repeat (one boolean per block); ``cleaner_labels`` are the
        labels as the cleaner left them (`cleaner_labels`)."""
        out = (cleaner_labels == GOOD) & (site_pages >= self.min_pages) & (text_hashes != EMPTY)
        if self.max_chars:
            out &= n_chars < self.max_chars
        return out


def cleaner_labels(labels: np.ndarray) -> np.ndarray:
    """The labels as the cleaner left them: a ``repeat`` was a ``good`` block (only those are
    marked), so a stage run again over its own output starts from the cleaner's decision."""
    return np.where(labels == REPEAT, GOOD, labels)
