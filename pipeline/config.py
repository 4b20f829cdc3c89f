"""Per-page resource caps shared by the library and the job."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps that keep time and memory per page bounded; None disables a cap."""

    max_body_bytes: int | None = 10_000_000
    max_nodes: int | None = 500_000
    max_blocks: int | None = 50_000
