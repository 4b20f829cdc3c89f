"""Exceptions raised by one part of the pipeline and handled by another.

They live below every part that raises or catches them (the segmentation, the guards, the
sandbox, the page composition, the task and the job), so none of those imports another just for
a name.
"""

from __future__ import annotations


class PageTooComplex(ValueError):
    """The page has more DOM nodes than the configured cap allows."""


class PageTimeout(TimeoutError):
    """A page used up its time budget (``Limits.max_seconds``)."""


class WarcTaskError(RuntimeError):
    """An input could not be processed as a whole (unreadable input or unwritable output).

    ``str()`` is the full message, naming the input and the output; `reason` is the cause
    alone, which the job prints beside the input's path (one line per failed input).
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message, message if reason is None else reason)

    def __str__(self) -> str:
        return str(self.args[0])

    @property
    def reason(self) -> str:
        return str(self.args[-1])


class PermanentInputError(WarcTaskError):
    """A failure that every attempt at the input repeats: the job does not retry it."""


class UnreadableInput(PermanentInputError):
    """Not one WARC/ARC record could be read from the input (empty, not an archive), or the
    input cannot be opened (missing, a directory, no permission)."""
