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
    - ``max_attributes``: rejected (``too_complex``), counted from the markup before parsing.
      The parser checks each new attribute against the element's earlier ones, so its time
      grows with the square of the attributes on one element (30,000 took 1.7 s, 100,000 took
      103 s). A page is rejected when the sum of squares over its elements passes
      ``max_attributes`` squared: one element over the cap, or several that add up to as much.
      Only elements with about 1,000 attributes or more are counted (those whose tag runs on
      for 2 KB); smaller ones cannot add up to more than about 10 s within the body cap.
    - ``max_seconds``: rejected (``timeout``). Checked between stages and inside the walk; pages
      nested deeper than ``isolate_depth`` are parsed in a child process killed at the deadline,
      because the parser is quadratic in depth and cannot be interrupted in-process. The job
      runs each whole input in a supervised child (`pipeline.supervise`) that is killed when
      one page runs past it, whatever stage the page is in.
    - ``max_stall_seconds``: under that supervision, how long the child may go without reading
      a record while it is not cleaning a page (a hung read, a write that never ends); the
      input then fails with `pipeline.run.WarcTaskError` and nothing of it is committed.
    - ``isolate_memory_bytes``: the address space such a child may use (``RLIMIT_AS``, POSIX
      only); a page that needs more is rejected (``too_complex``) instead of letting one
      pathological page take the worker's memory. The job's supervised child is capped the
      same way: a ``MemoryError`` there is its page's rejection, and a child that dies while
      cleaning a page makes that page ``crashed``, never the worker. Pages cleaned in-process
      are bounded by the node and block caps, and by the worker's own memory limit.
    """

    max_body_bytes: int | None = 10_000_000
    max_nodes: int | None = 500_000
    max_blocks: int | None = 50_000
    max_attributes: int | None = 10_000
    max_seconds: float | None = 20.0
    max_stall_seconds: float | None = 300.0
    isolate_depth: int | None = 2_000
    isolate_memory_bytes: int | None = 4_000_000_000

    def __post_init__(self) -> None:
        for name in (
            "max_body_bytes",
            "max_nodes",
            "max_blocks",
            "max_attributes",
            "isolate_depth",
            "isolate_memory_bytes",
        ):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                raise ValueError(f"Limits.{name} must be a non-negative int or None, got {value!r}")
        for name in ("max_seconds", "max_stall_seconds"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"Limits.{name} must be > 0 or None, got {value!r}")
