"""The `neighbours` cleaner: the learned block classifier (`pipeline.learned.model`) over the
block features (`pipeline.learned.features`), run in numpy and compiled loops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from pipeline.cleaners.registry import model_params
from pipeline.learned.decision import decide
from pipeline.learned.features import page_features
from pipeline.learned.model import DEFAULT_MODEL, load_model
from pipeline.types import Block, LabeledBlock, Verdict


class NeighboursCleaner:
    """Labels blocks with the learned model; ``threshold`` replaces the model's decision rule
    (one fixed threshold for every page, no fallback; repeats are still dropped),
    ``model`` names another model file."""

    name: ClassVar[str] = "neighbours"
    needs_runs: ClassVar[bool] = True
    needs_page_cues: ClassVar[bool] = True

    def __init__(self, threshold: float | None = None, model: str | None = None) -> None:
        self._model_path = str(model) if model is not None else None
        self.model = load_model(self._model_path or DEFAULT_MODEL)
        if threshold is not None:
            threshold = float(threshold)
            if not 0.0 <= threshold <= 1.0:
                raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        self.threshold = threshold

    def params(self) -> dict[str, Any]:
        return model_params(self.threshold, self._model_path)

    def probabilities(
        self,
        blocks: Sequence[Block],
        stoplist: frozenset[str] | None,
        cues: np.ndarray | None = None,
    ) -> np.ndarray:
        return self.model.probabilities(page_features(blocks, stoplist, cues), blocks)

    def label(
        self,
        blocks: Sequence[Block],
        stoplist: frozenset[str] | None,
        cues: np.ndarray | None = None,
    ) -> list[LabeledBlock]:
        """``cues``: the page's `pipeline.html.page_cues.page_cues`, which `pipeline.clean_html`
        computes from the parsed page and its URL; None labels the page as one that declares
        nothing and has no known URL."""
        probs = self.probabilities(blocks, stoplist, cues)
        if self.threshold is None:
            keep = self.model.decide(probs, blocks)
        else:  # an explicit threshold is taken as it is, without the fallback
            texts = [b.text for b in blocks]
            keep = decide(probs, self.threshold, 0.0, texts, self.model.drop_repeats)
        good, bad = Verdict.GOOD, Verdict.BAD
        # tuple.__new__ builds each LabeledBlock without the NamedTuple's Python-level __new__:
        # 0.13 instead of 0.23 ms on a page of 250 blocks, and this runs for every page.
        make = tuple.__new__
        return [
            make(LabeledBlock, (b, good if k else bad, None, p, None))
            for b, k, p in zip(blocks, keep.tolist(), probs.tolist(), strict=True)
        ]
