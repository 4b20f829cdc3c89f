"""Text-density cleaners: keep the blocks whose text outweighs their markup.

Text density is a block's text characters over its text plus markup characters (tags with their
attributes, as `pipeline.html.segment` counts them in ``Block.n_markup_chars``). Boilerplate such as
menus and link lists carries much markup per character of text; paragraphs of prose carry little.
Three thresholds are offered, all language independent (the stoplist is ignored):

* ``density-fixed``: one threshold for every page (0.5 by default);
* ``density-mean``: the page's own mean block density, so a markup-heavy template does not
  drop every block;
* ``density-stddev``: smoothed density ``(text + 1) / (text + markup + 1)``, blocks shorter than
  60 characters dropped, threshold ``0.5 − σ`` where σ is the standard deviation of the page's
  smoothed densities (a page whose blocks differ a lot lowers the bar for its denser blocks).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

from pipeline.types import Block, LabeledBlock, Verdict


def smoothed_density(block: Block) -> float:
    """(text + 1) / (text + markup + 1): defined for every block, and a block with no markup at all
    scores just under 1 rather than exactly 1."""
    return (block.n_chars + 1) / (block.n_chars + block.n_markup_chars + 1)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def population_stddev(values: Sequence[float]) -> float:
    if not values:
        return 0.0
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / len(values))


def label_above(
    blocks: Sequence[Block], scores: Sequence[float], threshold: float, min_chars: int = 0
) -> list[LabeledBlock]:
    """Good when the score is strictly above ``threshold`` and the block has ``min_chars``."""
    return [
        LabeledBlock(
            b,
            Verdict.GOOD if s > threshold and b.n_chars >= min_chars and b.n_chars else Verdict.BAD,
            None,
            s,
        )
        for b, s in zip(blocks, scores, strict=True)
    ]


class FixedDensityCleaner:
    """Keeps blocks with text density above ``threshold``."""

    name: ClassVar[str] = "density-fixed"
    needs_runs: ClassVar[bool] = False

    def __init__(self, threshold: float = 0.5) -> None:
        threshold = float(threshold)
        if not 0 <= threshold < 1:
            raise ValueError(f"threshold must be in [0, 1), got {threshold}")
        self.threshold = threshold

    def params(self) -> dict[str, Any]:
        return {"threshold": self.threshold}

    def label(self, blocks: Sequence[Block], stoplist: frozenset[str] | None) -> list[LabeledBlock]:
        del stoplist
        return label_above(blocks, [b.text_density for b in blocks], self.threshold)


class MeanDensityCleaner:
    """Keeps blocks denser than the page's mean block density (unweighted: one vote per block)."""

    name: ClassVar[str] = "density-mean"
    needs_runs: ClassVar[bool] = False

    def params(self) -> dict[str, Any]:
        return {}

    def label(self, blocks: Sequence[Block], stoplist: frozenset[str] | None) -> list[LabeledBlock]:
        del stoplist
        densities = [b.text_density for b in blocks]
        return label_above(blocks, densities, mean(densities))


class StddevDensityCleaner:
    """Keeps blocks of ``min_chars`` or more whose smoothed density exceeds ``base − σ``."""

    name: ClassVar[str] = "density-stddev"
    needs_runs: ClassVar[bool] = False

    def __init__(self, base: float = 0.5, min_chars: int = 60) -> None:
        base = float(base)
        if not 0 <= base <= 1:
            raise ValueError(f"base must be in [0, 1], got {base}")
        if isinstance(min_chars, float) and not min_chars.is_integer():
            raise ValueError(f"min_chars must be an integer, got {min_chars}")
        min_chars = int(min_chars)
        if min_chars < 0:
            raise ValueError(f"min_chars must be >= 0, got {min_chars}")
        self.base = base
        self.min_chars = min_chars

    def params(self) -> dict[str, Any]:
        return {"base": self.base, "min_chars": self.min_chars}

    def threshold(self, densities: Sequence[float]) -> float:
        return self.base - population_stddev(densities)

    def label(self, blocks: Sequence[Block], stoplist: frozenset[str] | None) -> list[LabeledBlock]:
        del stoplist
        densities = [smoothed_density(b) for b in blocks]
        return label_above(blocks, densities, self.threshold(densities), self.min_chars)
