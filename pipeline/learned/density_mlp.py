"""The `density-mlp` cleaner: the "easy way" text-density method, a mean-density filter and then
a small neural network over each line and its neighbours.

The method (ai-depot, "The Easy Way to Extract Useful Text from Arbitrary HTML"): split the
page into lines, compute each line's text density (text over HTML bytes), drop the lines below
the page's mean density, and let a perceptron trained on human-labelled pages decide each
remaining line from three numbers of the previous, the current and the next line: its density,
its HTML byte count and its text length.

Ours:

* The line is our block (`pipeline.html.segment`): the article's lines are the lines of the
  page's HTML source with their tags stripped, which follow the source's formatting; a block is
  the text between block-level tags, which is what such a line usually holds in formatted HTML
  and not what it holds in minified HTML, where one source line is the whole page.
* Density is `Block.text_density` (text characters over text plus markup characters); the HTML
  byte count is text plus markup characters; the text length is the block's characters. The
  counts enter the network as ``log(1 + n)`` (they span five orders of magnitude), and the first
  and last blocks get zeros for their missing neighbour. The neighbours are the page's blocks in
  document order, before the filter, as the article's previous and next line are.
* The network is an MLP with one hidden layer of 16 ReLU units and a logistic output, trained
  by ``jobs/train_cleaner.py --only density`` on the blocks of the training sites that pass the
  mean filter (labels from aligning blocks with the reference text), its threshold chosen on the
  model-selection sites. It ships as JSON, loaded without pickle.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from pipeline.cleaners.density import mean
from pipeline.learned.model import Mlp, ModelError, mlp_from_spec, sigmoid
from pipeline.threads import one_blas_thread
from pipeline.types import Block, LabeledBlock, Verdict

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "density-mlp.json"
FORMAT = "warcclean-density-mlp/1"
LINE_FEATURES = ("density", "log_html_bytes", "log_text_chars")
FEATURE_NAMES = tuple(
    f"{where}_{name}" for where in ("prev", "cur", "next") for name in LINE_FEATURES
)


def line_features(blocks: Sequence[Block]) -> np.ndarray:
    """Per block: density, log(1 + HTML bytes), log(1 + text chars) of the previous, this and the
    next block (zeros past either end)."""
    n = len(blocks)
    own = np.zeros((n + 2, 3))
    if n:
        chars = np.fromiter((b.n_chars for b in blocks), np.float64, n)
        markup = np.fromiter((b.n_markup_chars for b in blocks), np.float64, n)
        html = chars + markup
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


class DensityMlpCleaner:
    """Mean-density filter, then the MLP on the blocks it kept (kept when the network's
    probability is ``>= threshold``; the trained one by default)."""

    name: ClassVar[str] = "density-mlp"

    def __init__(self, threshold: float | None = None, model: str | None = None) -> None:
        self._model_path = str(model) if model is not None else None
        self.model = load_model(self._model_path or DEFAULT_MODEL)
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
        return out

    def label(self, blocks: Sequence[Block], stoplist: frozenset[str] | None) -> list[LabeledBlock]:
        del stoplist  # language independent: three numbers per block
        densities = [b.text_density for b in blocks]
        bar = mean(densities)
        kept = [i for i, d in enumerate(densities) if d > bar and blocks[i].n_chars]
        threshold = self.model.threshold if self.threshold is None else self.threshold
        out = [LabeledBlock(b, Verdict.BAD) for b in blocks]
        if kept:
            probs = self.model.probabilities(line_features(blocks)[kept]).tolist()
            for i, p in zip(kept, probs, strict=True):
                verdict = Verdict.GOOD if p >= threshold else Verdict.BAD
                out[i] = LabeledBlock(blocks[i], verdict, None, float(p))
        return out
