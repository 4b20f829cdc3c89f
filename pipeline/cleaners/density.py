"""Text-density cleaners: keep the blocks whose text outweighs their markup.

Text density is a block's text characters over its text plus markup characters (tags with their
attributes, as `pipeline.html.segment` counts them in ``Block.n_markup_chars``). Boilerplate such as
menus and link lists carries much markup per character of text; paragraphs of prose carry little.
Three thresholds are offered, all language independent (the stoplist is ignored):

* ``density-fixed``: one threshold for every page (0.5 by default);
* ``density-mean``: the page's own mean block density, so a markup-heavy template does not
  drop every block;

  These two are the "easy way" article's simple filters (seed 001: a line is kept when its
  density is above 0.5, or above the average). ``variant="paper"`` judges the article's unit, the
  paragraphs an HTML-to-text formatter writes (`pipeline.cleaners.units.article_paragraphs`),
  with its density, text characters over HTML characters, and maps their verdicts onto our
  blocks; the default (``variant="project"``) judges our blocks.
* ``density-stddev``: Pal (2009)'s first stage. Smoothed density ``(text + 1) / (text + markup
  + 1)``, blocks shorter than 60 characters dropped, threshold ``0.5 − σ`` (a page whose blocks
  differ a lot lowers the bar for its denser blocks).

  Pal's chunk is a line of the page's HTML source, and he computes σ as the *sample* standard
  deviation (divisor n − 1) of the chunks that remain after the 60-character cut: short chunks
  never enter the statistics. ``variant="paper"`` does exactly that, on his lines counted as his
  code counts them (`pipeline.cleaners.units.source_lines`), or on our blocks with
  ``unit="blocks"``. The default (``variant="project"``) takes the *population* standard deviation
  (divisor n) over *every* block's density, short ones included: menus and labels are short and
  mostly markup, so counting them widens σ and lowers the bar on pages with much furniture.
  That measured better (word F1, ours against the paper's; BENCHMARKS.md, "Seed systems as
  published"): wcxb-dev 0.766 / 0.764 (held-out pages 0.750 / 0.744), daniel 0.741 / 0.720,
  multilingual-dev 0.823 / 0.818 (held-out 0.842 / 0.843).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

from pipeline.cleaners.units import (
    PaperUnits,
    Unit,
    article_paragraphs,
    labels_from_units,
    page_html,
    source_lines,
    visible,
)
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


def sample_stddev(values: Sequence[float]) -> float:
    """Standard deviation with Bessel's correction (divisor n − 1); 0 for fewer than 2 values."""
    if len(values) < 2:
        return 0.0
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


VARIANTS = ("project", "paper")
UNITS = ("lines", "blocks")


def check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    return variant


def check_unit(variant: str, unit: str | None) -> str:
    """Pal's chunk for a variant: source lines for the paper's (unless ``unit="blocks"``), our
    blocks for the project's."""
    if unit is not None and (variant != "paper" or unit not in UNITS):
        raise ValueError(f"unit is for variant='paper' only, one of {', '.join(UNITS)}")
    return unit or ("lines" if variant == "paper" else "blocks")


def pal_threshold(
    densities: Sequence[float], n_chars: Sequence[int], base: float, min_chars: int, paper: bool
) -> float:
    """``base − σ``: σ over the chunks of ``min_chars`` or more with divisor n − 1 (``paper``),
    or over every chunk with divisor n (the project's variant)."""
    if paper:
        long = [d for d, n in zip(densities, n_chars, strict=True) if n >= min_chars]
        return base - sample_stddev(long)
    return base - population_stddev(densities)


def pal_stage_one(units: Sequence[Unit], base: float = 0.5, min_chars: int = 60) -> list[bool]:
    """Pal's density filter over his chunks, as published: a chunk of ``min_chars`` or more
    characters whose smoothed density ``(text + 1) / (html + 1)`` exceeds ``base − σ``, σ the
    sample standard deviation of those chunks' densities."""
    densities = [(u.n_text + 1) / (u.n_html + 1) for u in units]
    lengths = [u.n_text for u in units]
    bar = pal_threshold(densities, lengths, base, min_chars, paper=True)
    return [d > bar and n >= min_chars and n > 0 for d, n in zip(densities, lengths, strict=True)]


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


def label_paragraphs(
    blocks: Sequence[Block], tree: Any, threshold: float | None
) -> list[LabeledBlock]:
    """The article's simple filter on its paragraphs (`article_paragraphs` of the page): kept
    when the density is above ``threshold``, or above the paragraphs' mean density when it is
    None; verdicts mapped onto ``blocks``. Without the page, the blocks stand in."""
    if tree is None:
        units = [Unit(b.text, b.n_chars, b.n_chars + b.n_markup_chars) for b in blocks]
    else:
        units = article_paragraphs(page_html(tree))
    densities = [u.density for u in units]
    bar = mean(densities) if threshold is None else threshold
    keep = [d > bar for d in densities]
    if tree is None:
        return label_above(blocks, densities, bar)
    return labels_from_units(blocks, units, keep, densities)


class FixedDensityCleaner(PaperUnits):
    """Keeps blocks with text density above ``threshold``; ``variant="paper"``: the article's
    paragraphs with density above it (module docstring)."""

    name: ClassVar[str] = "density-fixed"
    needs_runs: ClassVar[bool] = False

    def __init__(self, threshold: float = 0.5, variant: str = "project") -> None:
        self.variant = check_variant(variant)
        self.needs_tree = self.variant == "paper"
        threshold = float(threshold)
        if not 0 <= threshold < 1:
            raise ValueError(f"threshold must be in [0, 1), got {threshold}")
        self.threshold = threshold

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"threshold": self.threshold}
        if self.variant != "project":
            out["variant"] = self.variant
        return out

    def label(
        self, blocks: Sequence[Block], stoplist: frozenset[str] | None, tree: Any = None
    ) -> list[LabeledBlock]:
        del stoplist
        if self.variant == "paper":
            return label_paragraphs(blocks, tree, self.threshold)
        return label_above(blocks, [b.text_density for b in blocks], self.threshold)


class MeanDensityCleaner(PaperUnits):
    """Keeps blocks denser than the page's mean block density (unweighted: one vote per block);
    ``variant="paper"``: the article's paragraphs denser than their mean (module docstring)."""

    name: ClassVar[str] = "density-mean"
    needs_runs: ClassVar[bool] = False

    def __init__(self, variant: str = "project") -> None:
        self.variant = check_variant(variant)
        self.needs_tree = self.variant == "paper"

    def params(self) -> dict[str, Any]:
        return {} if self.variant == "project" else {"variant": self.variant}

    def label(
        self, blocks: Sequence[Block], stoplist: frozenset[str] | None, tree: Any = None
    ) -> list[LabeledBlock]:
        del stoplist
        if self.variant == "paper":
            return label_paragraphs(blocks, tree, None)
        densities = [b.text_density for b in blocks]
        return label_above(blocks, densities, mean(densities))


class StddevDensityCleaner(PaperUnits):
    """Keeps blocks of ``min_chars`` or more whose smoothed density exceeds ``base − σ``;
    ``variant="paper"``: Pal's filter on his source lines (``unit="blocks"``: on our blocks),
    module docstring."""

    name: ClassVar[str] = "density-stddev"
    needs_runs: ClassVar[bool] = False

    def __init__(
        self,
        base: float = 0.5,
        min_chars: int = 60,
        variant: str = "project",
        unit: str | None = None,
    ) -> None:
        self.variant = check_variant(variant)
        self.unit = check_unit(self.variant, unit)
        self.needs_tree = self.unit == "lines"
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
        out: dict[str, Any] = {"base": self.base, "min_chars": self.min_chars}
        if self.variant != "project":
            out.update(variant=self.variant, unit=self.unit)
        return out

    def threshold(self, densities: Sequence[float], n_chars: Sequence[int] | None = None) -> float:
        """``base − σ`` of these densities (``n_chars``: the chunks' lengths, which the paper
        variant needs to leave the short ones out of σ)."""
        if n_chars is None:
            n_chars = [self.min_chars] * len(densities)
        return pal_threshold(densities, n_chars, self.base, self.min_chars, self.variant == "paper")

    def label(
        self, blocks: Sequence[Block], stoplist: frozenset[str] | None, tree: Any = None
    ) -> list[LabeledBlock]:
        """``tree``: the parsed page, which the paper's source lines are cut from; without it
        the paper variant judges blocks."""
        del stoplist
        if self.unit == "lines" and tree is not None:
            units = source_lines(page_html(tree))
            keep = pal_stage_one(units, self.base, self.min_chars)
            densities = [(u.n_text + 1) / (u.n_html + 1) for u in units]
            shown = [u._replace(text=visible(u.text)) for u in units]
            return labels_from_units(blocks, shown, keep, densities)
        densities = [smoothed_density(b) for b in blocks]
        bar = self.threshold(densities, [b.n_chars for b in blocks])
        return label_above(blocks, densities, bar, self.min_chars)
