"""Per-page resource caps shared by the library and the job."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps that keep time and memory per page bounded; None disables a cap.

    What happens to a page over each cap, and why (see FUZZING.md and `pipeline.html.guard`):

    - ``max_body_bytes``: the reader keeps the first bytes and flags the page ``truncated``;
      it is cleaned from that prefix. Main content sits near the top of a page, and the reader
      has to stream past the rest anyway, so keeping the prefix loses least.
    - ``max_nodes``: rejected (``too_complex``), counted from the markup before parsing. A cut
      DOM is arbitrary, and pages with that many elements are generated listings or spam.
    - ``max_blocks``: rejected (``too_complex``): cleaners judge a block by its neighbours, so a
      prefix of blocks would be labelled differently from the whole page.
    - ``max_seconds``: rejected (``timeout``). Checked between stages and inside the walk; pages
      nested deeper than ``isolate_depth`` are parsed in a child process killed at the deadline,
      because the parser is quadratic in depth and cannot be interrupted in-process.
    - ``isolate_memory_bytes``: the address space such a child may use (``RLIMIT_AS``, POSIX
      only); a page that needs more is rejected (``too_complex``) instead of letting one
      pathological page take the worker's memory. Pages cleaned in-process are bounded by the
      node and block caps, and by the worker's own memory limit.
    """

    max_body_bytes: int | None = 10_000_000
    max_nodes: int | None = 500_000
    max_blocks: int | None = 50_000
    max_seconds: float | None = 20.0
    isolate_depth: int | None = 2_000
    isolate_memory_bytes: int | None = 4_000_000_000

    def __post_init__(self) -> None:
        for name in (
            "max_body_bytes",
            "max_nodes",
            "max_blocks",
            "isolate_depth",
            "isolate_memory_bytes",
        ):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                raise ValueError(f"Limits.{name} must be a non-negative int or None, got {value!r}")
        if self.max_seconds is not None and not self.max_seconds > 0:
            raise ValueError(f"Limits.max_seconds must be > 0 or None, got {self.max_seconds!r}")
