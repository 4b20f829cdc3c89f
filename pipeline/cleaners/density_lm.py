"""The `density-lm` cleaner: Pal's two-stage system, a density filter and then per-class n-gram
language models on what the filter kept.

Pal (2009), "Extracting Useful Text from HTML", first drops chunks by text density: the smoothed
density ``(text + 1) / (text + markup + 1)``, chunks under 60 characters dropped, threshold
``0.5 − σ`` with σ the standard deviation of the page's densities (our `density-stddev`, with the
same defaults). A trained classifier then decides each remaining chunk: a language model per
class (useful text, boilerplate), the chunk kept when the useful-text model explains it better.

Ours:

* The chunk is our block (`pipeline.html.segment`: the text between block-level tags), which is
  what the paper's chunks are too (text runs delimited by block markup).
* The class models are `pipeline.cleaners.ngram`'s hashed character n-gram models (order 4,
  interpolated Dirichlet smoothing), trained by ``jobs/train_cleaner.py --only density`` on the
  blocks of the training sites that the density filter keeps, labelled content or boilerplate by
  aligning them with the pages' reference text. The paper's models are word n-grams; characters
  serve every script, spaced or not. The decision threshold on the mean log-likelihood ratio per
  character is chosen on the model-selection sites (the paper compares the two likelihoods, a
  threshold of 0).
* A block the filter drops has no score; a block the models judged has its log-likelihood ratio.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from pipeline.cleaners.density import StddevDensityCleaner
from pipeline.cleaners.ngram import load_model
from pipeline.types import Block, LabeledBlock, Verdict

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "density-lm.npz"


class DensityLmCleaner:
    """Density filter (``base − σ``, ``min_chars``), then the class language models on the blocks
    it kept (kept when the ratio is ``>= threshold``; the trained one by default)."""

    name: ClassVar[str] = "density-lm"

    def __init__(
        self,
        threshold: float | None = None,
        model: str | None = None,
        base: float = 0.5,
        min_chars: int = 60,
    ) -> None:
        self.filter = StddevDensityCleaner(base=base, min_chars=min_chars)
        self._model_path = str(model) if model is not None else None
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
        return out

    def label(self, blocks: Sequence[Block], stoplist: frozenset[str] | None) -> list[LabeledBlock]:
        del stoplist  # language independent: density and the character models are the evidence
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
