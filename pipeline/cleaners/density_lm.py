"""The `density-lm` cleaner: Pal's two-stage system, a density filter and then per-class n-gram
language models on what the filter kept.

Pal (2009), "Extracting Useful Text from HTML", as published:

* The chunk is a line of the page's HTML **source**; its text is the line with its tags
  stripped (`pipeline.cleaners.units.source_lines`).
* Stage 1 keeps a chunk whose smoothed density ``(text + 1) / (html + 1)`` exceeds ``0.5 − σ``;
  chunks under 60 characters of text are dropped *before* σ is computed, and σ is the sample
  standard deviation (n − 1) of the densities of the chunks that remain.
* Stage 2 is a LingPipe ``DynamicLMClassifier`` built by ``createNGramProcess``: per class (useful
  text, boilerplate) a **character** n-gram process model of order 6 with interpolated
  Witten-Bell smoothing, and a class prior; a chunk is useful when ``log p(useful) + log p(chunk |
  useful)`` beats the same sum for boilerplate (`pipeline.cleaners.ngram.ClassLmModel`).

``variant="paper"`` runs exactly that (``unit="blocks"`` swaps only the chunk for our block); its
models, ``pipeline/models/density-lm-paper.npz``, are trained by ``jobs/train_cleaner.py --only
density`` like the project's: on the stage-1 survivors of the training sites, labelled by
aligning them with the reference text. The paper's verdicts are on source lines; our output is
per block, and a block takes the verdict of most of its characters
(`pipeline.cleaners.units.verdicts_for_blocks`).

The default, ``variant="project"``, differs, each difference kept because it measured better
(word F1; BENCHMARKS.md, "Seed systems as published"): ours against the paper's system and, in
brackets, the paper's system on our blocks, wcxb-dev 0.776 / 0.645 (0.771), multilingual-dev
0.853 / 0.501 (0.616), daniel 0.745 / 0.483 (0.516).

* The chunk is our block (`pipeline.html.segment`): in minified HTML one source line is the
  whole page, and neither stage can then separate anything (on source lines the paper's system
  empties 261 of the 1,358 wcxb pages).
* Stage 1 is `density-stddev`'s default: σ the population standard deviation over every block.
* Stage 2's models are `pipeline.cleaners.ngram`'s hashed character 4-grams with interpolated
  Dirichlet smoothing and no class prior, compared by the mean log-likelihood ratio per
  character (a long chunk does not win by its length), at a threshold chosen on the
  model-selection sites (−0.125) instead of 0.
* A block the filter drops has no score; a block the models judged has its log-likelihood ratio.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from pipeline.cleaners.density import (
    StddevDensityCleaner,
    check_unit,
    check_variant,
    pal_stage_one,
)
from pipeline.cleaners.ngram import load_class_model, load_model
from pipeline.cleaners.units import (
    PaperUnits,
    Unit,
    labels_from_units,
    page_html,
    source_lines,
    visible,
)
from pipeline.types import Block, LabeledBlock, Verdict

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "density-lm.npz"
PAPER_MODEL = Path(__file__).resolve().parents[1] / "models" / "density-lm-paper.npz"


def block_units(blocks: Sequence[Block]) -> list[Unit]:
    """Blocks as chunks: their text, and their text plus markup as their HTML."""
    return [Unit(b.text, b.n_chars, b.n_chars + b.n_markup_chars) for b in blocks]


class DensityLmCleaner(PaperUnits):
    """Density filter, then the class language models on the chunks it kept. The project's
    variant (default): blocks, ``base − σ`` with ``min_chars``, kept when the mean ratio per
    character is ``>= threshold`` (the trained one by default). ``variant="paper"``: Pal's
    system (module docstring), on source lines unless ``unit="blocks"``, kept when the joint
    log-probability difference is ``>= threshold`` (0, the classifier's own rule, by default)."""

    name: ClassVar[str] = "density-lm"

    def __init__(
        self,
        threshold: float | None = None,
        model: str | None = None,
        base: float = 0.5,
        min_chars: int = 60,
        variant: str = "project",
        unit: str | None = None,
    ) -> None:
        self.variant = check_variant(variant)
        self.unit = check_unit(self.variant, unit)
        # Only Pal's source lines need the page's HTML.
        self.needs_tree = self.unit == "lines"
        self.filter = StddevDensityCleaner(base=base, min_chars=min_chars)
        self._model_path = str(model) if model is not None else None
        if self.variant == "paper":
            self.class_model = load_class_model(self._model_path or PAPER_MODEL)
        else:
            self.model = load_model(self._model_path or DEFAULT_MODEL)
        self.threshold = float(threshold) if threshold is not None else None

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if self._model_path is not None:
            out["model"] = self._model_path
        if (self.filter.base, self.filter.min_chars) != (0.5, 60):
            out.update(base=self.filter.base, min_chars=self.filter.min_chars)
        if self.variant != "project":
            out.update(variant=self.variant, unit=self.unit)
        return out

    def label(
        self, blocks: Sequence[Block], stoplist: frozenset[str] | None, tree: Any = None
    ) -> list[LabeledBlock]:
        """``tree``: the parsed page (or its HTML), which the paper's source lines are cut
        from; without it the paper variant judges blocks."""
        del stoplist  # language independent: density and the character models are the evidence
        if self.variant == "paper":
            return self._label_paper(blocks, tree)
        first = self.filter.label(blocks, None)
        kept = [i for i, lb in enumerate(first) if lb.verdict is Verdict.GOOD]
        threshold = self.model.threshold if self.threshold is None else self.threshold
        out = [LabeledBlock(b, Verdict.BAD) for b in blocks]
        if kept:
            scores = self.model.scores([blocks[i].text for i in kept]).tolist()
            for i, s in zip(kept, scores, strict=True):
                out[i] = LabeledBlock(
                    blocks[i], Verdict.GOOD if s >= threshold else Verdict.BAD, None, float(s)
                )
        return out

    def unit_scores(self, units: Sequence[Unit]) -> list[float | None]:
        """Per chunk, the classifier's score if stage 1 kept it, else None."""
        keep = pal_stage_one(units, self.filter.base, self.filter.min_chars)
        kept = [i for i, k in enumerate(keep) if k]
        out: list[float | None] = [None] * len(units)
        if kept:
            scores = self.class_model.scores([units[i].text for i in kept]).tolist()
            for i, s in zip(kept, scores, strict=True):
                out[i] = float(s)
        return out

    def _label_paper(self, blocks: Sequence[Block], tree: Any) -> list[LabeledBlock]:
        threshold = self.class_model.threshold if self.threshold is None else self.threshold
        if self.unit == "blocks" or tree is None:
            scores = self.unit_scores(block_units(blocks))
            return [
                LabeledBlock(
                    b, Verdict.GOOD if s is not None and s >= threshold else Verdict.BAD, None, s
                )
                for b, s in zip(blocks, scores, strict=True)
            ]
        units = source_lines(page_html(tree))
        scores = self.unit_scores(units)
        keep = [s is not None and s >= threshold for s in scores]
        # The classifier read Pal's raw line text; blocks are found in what a reader sees of it.
        shown = [u._replace(text=visible(u.text)) for u in units]
        return labels_from_units(blocks, shown, keep, scores)
