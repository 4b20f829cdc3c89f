"""The `density-mlp` cleaner: the "easy way" text-density method, a small neural network over
each unit of the page and its neighbours.

The article (ai-depot, "The Easy Way to Extract Useful Text from Arbitrary HTML"), as
published: format the page as text, one paragraph per unit (the formatter breaks at ``p``,
``h1``-``h6``, ``li``, ``dl``/``dt``/``dd``, ``blockquote``, ``pre``, ``hr`` and every ``<br>``,
but not at ``div``, ``table`` or ``td``: `pipeline.cleaners.units.article_paragraphs`); compute
each paragraph's text density (text over HTML bytes); and let a network trained on
human-labelled pages decide **every** paragraph from three numbers of the previous, this and the
next paragraph: its density, its HTML size and its text length. The page's mean density is the
simple method the network *replaces* (it may be fed to it as an input), not a filter before it.

``variant="paper"`` (the default) runs that: the network on every article paragraph, no mean
filter, its model ``pipeline/models/density-mlp-paper.json`` trained by ``jobs/train_cleaner.py
--only density`` the same way as the project's (every paragraph of the training sites, labelled
by aligning it with the reference text; threshold chosen on the model-selection sites: 0.35).
Its verdicts are per paragraph and our output per block: a block takes the verdict of most of
its characters (`pipeline.cleaners.units.verdicts_for_blocks`; on the held-out pages this
mapping changed word F1 by +0.003 wcxb, +0.001 multilingual against the paragraphs' own text).
The paragraphs are cut from the parsed page, which a caller passes as ``tree=``
(`pipeline.cleaners.registry.Cleaner.needs_tree`); without it the network judges every block
instead, and the page's notes say ``paper_unit_unavailable``.

``variant="project"`` is the two-stage version this project shipped first, which measured worse
(word F1, full sets / held-out pages; BENCHMARKS.md, "Seed systems as published"): wcxb-dev 0.782
/ 0.758 against the paper's 0.788 / 0.771, multilingual-dev 0.792 / 0.828 against 0.847 / 0.859,
daniel 0.682 against 0.713. It differs in two ways:

* The unit is our block (`pipeline.html.segment`), which also breaks at ``div`` and table
  cells: a layout table's cells, one paragraph to the article, are separate blocks to us.
* Blocks at or below the page's mean density are dropped first and the network decides only the
  rest (two stages, like Pal's system), trained on the mean filter's survivors
  (``pipeline/models/density-mlp.json``, threshold 0.15).

Both variants: density is text characters over text plus markup characters, the HTML size is
text plus markup characters, the text length the characters; the counts enter the network as
``log(1 + n)`` (they span five orders of magnitude), and the first and last units get zeros for
their missing neighbour. The neighbours are the page's units in document order, before any
filter, as the article's previous and next line are. The network is an MLP with one hidden
layer of 16 ReLU units and a logistic output (the article's size and activation are not ours to
copy: the shape is the project's), shipped as JSON and loaded without pickle.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from pipeline.cleaners.density import check_variant, mean
from pipeline.cleaners.units import (
    PaperUnits,
    Unit,
    article_paragraphs,
    page_html,
    verdicts_for_blocks,
)
from pipeline.learned.model import Mlp, ModelError, mlp_from_spec, sigmoid
from pipeline.threads import one_blas_thread
from pipeline.types import Block, LabeledBlock, Verdict

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "density-mlp.json"
PAPER_MODEL = Path(__file__).resolve().parents[1] / "models" / "density-mlp-paper.json"
# The article's method measured better than the project's two stages on every set (wcxb-dev,
# multilingual-dev, daniel: BENCHMARKS.md, "Seed systems as published"), so it is the default.
DEFAULT_VARIANT = "paper"
# Said in the page's notes when the paper variant had to judge blocks for lack of the page.
FORMAT = "warcclean-density-mlp/1"
LINE_FEATURES = ("density", "log_html_bytes", "log_text_chars")
FEATURE_NAMES = tuple(
    f"{where}_{name}" for where in ("prev", "cur", "next") for name in LINE_FEATURES
)


def line_features(blocks: Sequence[Block]) -> np.ndarray:
    """Per block: density, log(1 + HTML bytes), log(1 + text chars) of the previous, this and the
    next block (zeros past either end)."""
    n = len(blocks)
    chars = np.fromiter((b.n_chars for b in blocks), np.float64, n)
    markup = np.fromiter((b.n_markup_chars for b in blocks), np.float64, n)
    return _features(chars, chars + markup)


def unit_features(units: Sequence[Unit]) -> np.ndarray:
    """`line_features` of the article's paragraphs (or any units)."""
    n = len(units)
    chars = np.fromiter((u.n_text for u in units), np.float64, n)
    html = np.fromiter((u.n_html for u in units), np.float64, n)
    return _features(chars, html)


def _features(chars: np.ndarray, html: np.ndarray) -> np.ndarray:
    n = chars.size
    own = np.zeros((n + 2, 3))
    if n:
        own[1:-1, 0] = np.divide(chars, html, out=np.zeros(n), where=html > 0)
        own[1:-1, 1] = np.log1p(html)
        own[1:-1, 2] = np.log1p(chars)
    return np.hstack((own[:-2], own[1:-1], own[2:]))


class DensityMlpModel:
    """The network and its decision threshold."""

    def __init__(self, mlp: Mlp, threshold: float, metadata: dict[str, Any]) -> None:
        self.mlp = mlp
        self.threshold = threshold
        self.metadata = metadata

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        if x.shape[0] == 0:
            return np.zeros(0)
        with one_blas_thread():
            return sigmoid(self.mlp.raw(x))


def model_from_json(data: dict[str, Any]) -> DensityMlpModel:
    if data.get("format") != FORMAT:
        raise ModelError(f"not a {FORMAT} model (format={data.get('format')!r})")
    if list(data.get("features", [])) != list(FEATURE_NAMES):
        raise ModelError("model was trained on other features; retrain with jobs/train_cleaner.py")
    threshold = data.get("threshold")
    if not isinstance(threshold, int | float) or not 0.0 <= threshold <= 1.0:
        raise ModelError(f"threshold must be a number in [0, 1], got {threshold!r}")
    mlp = mlp_from_spec(data.get("mlp") or {}, len(FEATURE_NAMES))
    return DensityMlpModel(mlp, float(threshold), dict(data.get("metadata") or {}))


@lru_cache(maxsize=4)
def load_model(path: str | Path = DEFAULT_MODEL) -> DensityMlpModel:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ModelError(f"model file {path} not found; run jobs/train_cleaner.py") from None
    except (OSError, ValueError) as exc:
        raise ModelError(f"model file {path} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ModelError(f"model file {path} is not a JSON object")
    return model_from_json(data)


class DensityMlpCleaner(PaperUnits):
    """``variant="paper"`` (default): the MLP on every article paragraph (on every block when
    no ``tree`` is given). ``variant="project"``: mean-density filter, then the MLP on the blocks
    it kept. Kept when the network's probability is ``>= threshold`` (the trained one of the
    variant's model by default)."""

    name: ClassVar[str] = "density-mlp"

    def __init__(
        self,
        threshold: float | None = None,
        model: str | None = None,
        variant: str = DEFAULT_VARIANT,
    ) -> None:
        self.variant = check_variant(variant)
        self.needs_tree = self.variant == "paper"
        self._model_path = str(model) if model is not None else None
        default = PAPER_MODEL if self.variant == "paper" else DEFAULT_MODEL
        self.model = load_model(self._model_path or default)
        if threshold is not None:
            threshold = float(threshold)
            if not 0.0 <= threshold <= 1.0:
                raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        self.threshold = threshold

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if self._model_path is not None:
            out["model"] = self._model_path
        if self.variant != DEFAULT_VARIANT:
            out["variant"] = self.variant
        return out

    def label(
        self, blocks: Sequence[Block], stoplist: frozenset[str] | None, tree: Any = None
    ) -> list[LabeledBlock]:
        """``tree``: the parsed page (or its HTML), which the paper's paragraphs are cut from;
        without it the paper variant judges every block."""
        del stoplist  # language independent: three numbers per unit
        threshold = self.model.threshold if self.threshold is None else self.threshold
        if self.variant == "paper":
            return self._label_paper(blocks, tree, threshold)
        densities = [b.text_density for b in blocks]
        bar = mean(densities)
        kept = [i for i, d in enumerate(densities) if d > bar and blocks[i].n_chars]
        out = [LabeledBlock(b, Verdict.BAD) for b in blocks]
        if kept:
            probs = self.model.probabilities(line_features(blocks)[kept]).tolist()
            for i, p in zip(kept, probs, strict=True):
                verdict = Verdict.GOOD if p >= threshold else Verdict.BAD
                out[i] = LabeledBlock(blocks[i], verdict, None, float(p))
        return out

    def _label_paper(
        self, blocks: Sequence[Block], tree: Any, threshold: float
    ) -> list[LabeledBlock]:
        if tree is None:
            probs = self.model.probabilities(line_features(blocks)).tolist()
            return [
                LabeledBlock(b, Verdict.GOOD if p >= threshold else Verdict.BAD, None, float(p))
                for b, p in zip(blocks, probs, strict=True)
            ]
        units = article_paragraphs(page_html(tree))
        probs = self.model.probabilities(unit_features(units)).tolist()
        mapped = verdicts_for_blocks(
            [b.text for b in blocks], units, [p >= threshold for p in probs]
        )
        return [
            LabeledBlock(
                b,
                Verdict.GOOD if good else Verdict.BAD,
                None,
                None if unit is None else float(probs[unit]),
            )
            for b, (good, unit) in zip(blocks, mapped, strict=True)
        ]
