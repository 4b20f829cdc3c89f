"""Exceptions raised by one part of the pipeline and handled by another.

They live below every part that raises or catches them (the segmentation, the guards, the
sandbox, the page composition and the task), so none of those imports another just for a name.
"""

from __future__ import annotations


class PageTooComplex(ValueError):
    """The page has more DOM nodes than the configured cap allows."""


class PageTimeout(TimeoutError):
    """A page used up its time budget (``Limits.max_seconds``)."""
