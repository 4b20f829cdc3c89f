"""The learned block classifier's model: its scorers, its file format and its loading.

The model is trained offline with scikit-learn and PyTorch (`jobs/train_cleaner.py`) and shipped
as JSON (`pipeline/models/neighbours.json`): the trees of a gradient-boosted ensemble as flat
arrays, or the weights of a small MLP, and the sequence net's arrays. Loading it reads data only,
never pickle, so a model file cannot run code, and inference needs numpy alone.

The shipped model blends the trees' probability with that of small convolutional nets that read
the whole page as a sequence of blocks (`pipeline.learned.convnet`; three nets alike but for
their training seeds, their probabilities averaged): the trees judge a block from its own and
nearby features, the nets from the page's layout as a whole, and the blend is better than either.

A model may have a second, "stacked" pass: the first pass scores every block from its features;
the second sees the same features plus the first pass's probabilities of the block's neighbours
and structural siblings (`pipeline.learned.stacked`), so the decisions of a
page's repeated items and of a run of paragraphs come out consistent.

Which blocks a page keeps is the decision rule's (`pipeline.learned.decision`), with the
threshold, fallback and repeat dropping the model file names.

Trees are walked by `pipeline.learned.treewalk` when it is compiled (each (block, tree) pair down
to its leaf in C; trees of up to `COMPLETE_MAX_DEPTH` levels laid out as complete binary trees, so
that a child's position is computed rather than read). Otherwise all pairs walk together, one level
per step, as a gather over the stacked node arrays, so a page costs ``depth`` vectorised numpy steps
rather than ``blocks × trees`` Python calls; leaves point to themselves, so pairs that reach a leaf
early just stay there. The nets run as one stack (`pipeline.learned.convnet.NetStack`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.compiled import is_compiled_file
from pipeline.learned import treewalk
from pipeline.learned.columns import CHEAP_COLUMNS, FEATURE_NAMES, STACK_FEATURES
from pipeline.learned.convnet import (
    ConvNet,
    NetError,
    NetStack,
    logistic,
    net_from_spec,
    stack_nets,
)
from pipeline.learned.decision import decide, smooth
from pipeline.learned.stacked import stack_features
from pipeline.threads import one_blas_thread
from pipeline.types import Block

# Shipped models are data beside the package's modules (the n-gram cleaner's too).
MODEL_DIR = Path(__file__).resolve().parents[1] / "models"
DEFAULT_MODEL = MODEL_DIR / "neighbours.json"
# The fast model: trees alone over the cheap feature set (`CHEAP_COLUMNS`), `neighbours-fast`.
FAST_MODEL = MODEL_DIR / "neighbours-fast.json"
FORMAT = "warcclean-neighbours/1"
_TEXT = attrgetter("text")
_N_CHARS = attrgetter("n_chars")
_TEXT_FIELD = Block._fields.index("text")
_N_CHARS_FIELD = Block._fields.index("n_chars")


class ModelError(ValueError):
    """A model file is missing, malformed, or was built for other features."""


# Trees up to this depth are also kept as complete binary trees (`_complete_layout`): 2 ** depth
# leaves a tree, 256 at most.
COMPLETE_MAX_DEPTH = 8


def _complete_layout(
    feature: np.ndarray,
    threshold: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    value: np.ndarray,
    roots: np.ndarray,
    depth: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The trees as `pipeline.learned.treewalk.complete_raw` reads them: every tree a complete
    binary tree of ``depth`` levels, in which the walker computes a child's position instead of
    reading it. Where a path reaches a leaf early, the levels below it test anything and lead to
    that leaf's value on both sides, so every row ends on the value `ensemble_raw`'s walk of
    ``depth`` steps (flat node arrays, leaves pointing to themselves) ends on."""
    internal = (1 << depth) - 1
    trees = roots.shape[0]
    c_feature = np.zeros(trees * internal, dtype=np.intp)
    c_threshold = np.zeros(trees * internal, dtype=np.float64)
    leaves = np.zeros(trees << depth, dtype=np.float64)
    for t, root in enumerate(roots.tolist()):
        # (node in the flat arrays, position in the complete tree, level)
        stack = [(root, 0, 0)]
        while stack:
            node, pos, level = stack.pop()
            if level == depth:
                leaves[(t << depth) + pos - internal] = value[node]
                continue
            if left[node] == node:  # a leaf before the last level: both sides end on it
                stack += [(node, 2 * pos + 1, level + 1), (node, 2 * pos + 2, level + 1)]
                continue
            c_feature[t * internal + pos] = feature[node]
            c_threshold[t * internal + pos] = threshold[node]
            stack += [(left[node], 2 * pos + 1, level + 1), (right[node], 2 * pos + 2, level + 1)]
    return c_feature, c_threshold, leaves


@dataclass(frozen=True)
class TreeEnsemble:
    """Boosted trees as stacked arrays, one row per tree; leaves have left == right == self."""

    feature: np.ndarray  # (trees, nodes) int
    threshold: np.ndarray  # (trees, nodes) float; go left when x <= threshold
    left: np.ndarray  # (trees, nodes) int, absolute index into the flattened arrays
    right: np.ndarray
    value: np.ndarray  # (trees * nodes,) leaf values (0 elsewhere)
    baseline: float
    depth: int
    # The compiled walker is the fast path; tests turn it off to compare the two.
    compiled: bool = is_compiled_file(treewalk.__file__)
    # The walker's flat views of the node arrays and each tree's root, made once here rather
    # than on every page, and the trees laid out complete (`_complete_layout`) where that stays
    # small: None otherwise.
    _flat: tuple[np.ndarray, ...] = field(init=False, repr=False, compare=False)
    _complete: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        trees, nodes = self.feature.shape
        flat = tuple(
            np.ascontiguousarray(a).ravel()
            for a in (self.feature, self.threshold, self.left, self.right)
        )
        roots = np.arange(trees, dtype=np.intp) * nodes
        object.__setattr__(self, "_flat", (*flat, np.ascontiguousarray(self.value), roots))
        complete = None
        if trees and 1 <= self.depth <= COMPLETE_MAX_DEPTH:
            complete = _complete_layout(*flat, self.value, roots, self.depth)
        object.__setattr__(self, "_complete", complete)

    def raw(self, x: np.ndarray) -> np.ndarray:
        if self.compiled:
            x = np.ascontiguousarray(x, dtype=np.float64)
            if self._complete is not None:
                feature, threshold, leaves = self._complete
                return treewalk.complete_raw(
                    x, feature, threshold, leaves, self.baseline, self.depth
                )
            feature, threshold, left, right, value, roots = self._flat
            return treewalk.ensemble_raw(
                x, feature, threshold, left, right, value, roots, self.baseline, self.depth
            )
        return self.raw_numpy(x)

    def raw_numpy(self, x: np.ndarray) -> np.ndarray:
        n, width = x.shape
        trees, nodes = self.feature.shape
        feature = self.feature.ravel()
        threshold = self.threshold.ravel()
        left = self.left.ravel()
        right = self.right.ravel()
        flat_x = np.ascontiguousarray(x, dtype=np.float64).ravel()
        # Flat indices (row * width + feature) into x: one 1-D take per level instead of 2-D
        # fancy indexing, which profiled at twice the cost.
        row_base = (np.arange(n) * width)[:, None]
        node = np.broadcast_to(np.arange(trees) * nodes, (n, trees)).copy()
        for _ in range(self.depth):
            go_left = flat_x.take(row_base + feature.take(node)) <= threshold.take(node)
            node = np.where(go_left, left.take(node), right.take(node))
        return self.baseline + self.value.take(node).sum(axis=1)


@dataclass(frozen=True)
class Mlp:
    """A ReLU multilayer perceptron, logistic output. The training-time standardisation
    ((x - mean) / scale) is folded into the first layer when the model is loaded, which saves
    two passes over the feature matrix per page."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]

    def raw(self, x: np.ndarray) -> np.ndarray:
        h = x
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        return h[:, 0]


Scorer = TreeEnsemble | Mlp


def sigmoid(raw: np.ndarray) -> np.ndarray:
    # Clipped so that a confident MLP logit cannot overflow exp (a warning, and 0.0 anyway).
    return logistic(raw)


@dataclass(frozen=True)
class NeighboursModel:
    scorer: Scorer
    threshold: float | None  # None: each page's own, from `expected_f1_threshold`
    fallback_ratio: float
    metadata: dict[str, Any]
    smoothing: float = 0.0
    stacked: Scorer | None = None  # second pass over features + `STACK_FEATURES`
    drop_repeats: bool = False  # see `pipeline.rules.repeats.without_repeats`
    # Nets over the whole page (`pipeline.learned.convnet`), trained alike from different seeds;
    # their probabilities are averaged, and the average has `blend` of a block's probability.
    nets: tuple[ConvNet, ...] = ()
    blend: float = 0.0
    # Features from `page_features(..., cheap=True)`: the model reads `CHEAP_COLUMNS` only.
    cheap_features: bool = False
    # The nets run as one (`pipeline.learned.convnet.NetStack`) where they can be: one
    # standardisation and one input product for all of them, fewer calls after.
    _stack: NetStack | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_stack", stack_nets(self.nets))

    def probabilities(self, x: np.ndarray, blocks: Sequence[Block] | None = None) -> np.ndarray:
        """Per-block content probability, smoothed with the neighbours' (see `smooth`).

        ``blocks`` (the blocks ``x`` was computed from) are needed by a stacked model, whose
        second pass groups the first pass's probabilities by the blocks' paths and classes."""
        if x.shape[0] == 0:
            return np.zeros(0)
        if self.stacked is not None and (blocks is None or len(blocks) != x.shape[0]):
            raise ValueError("a stacked model needs the page's blocks with its features")
        with one_blas_thread():  # see pipeline.threads: a pool's threads only spin here
            probs = sigmoid(self.scorer.raw(x))
            if self.stacked is not None:
                probs = sigmoid(self.stacked.raw(np.hstack((x, stack_features(blocks, probs)))))
            if self.nets:
                # In place, the same products and sum as (1 - blend) * probs + blend * nets.
                nets = self.net_probabilities(x)
                probs *= 1.0 - self.blend
                nets *= self.blend
                probs += nets
        return smooth(probs, self.smoothing)

    def net_probabilities(self, x: np.ndarray) -> np.ndarray:
        """The mean of the nets' content probabilities for every block of the page."""
        if self._stack is not None:
            return self._stack.mean_probability(x)
        probs = sigmoid(self.nets[0].raw(x))
        for net in self.nets[1:]:
            probs += sigmoid(net.raw(x))
        return probs / len(self.nets) if len(self.nets) > 1 else probs

    def decide(
        self,
        probs: np.ndarray,
        blocks: Sequence[Block] | None = None,
        fields: Sequence[Sequence] | None = None,
    ) -> np.ndarray:
        """`decide` with this model's threshold (fixed or each page's expected-F1 one), fallback
        and repeat dropping; ``blocks`` are the page's, needed by all but a fixed-threshold model
        that keeps repeats. ``fields``: the blocks' `pipeline.types.block_fields`
        when the caller has them, which hold the texts and sizes read here."""
        texts = sizes = None
        if blocks is not None:
            if len(blocks) != probs.size:
                raise ValueError("one block per probability is needed to decide a page")
            if fields:
                # The features' transpose: a tuple of ints converts to float64 in half the
                # time of reading the attribute off every block.
                texts = fields[_TEXT_FIELD]
                sizes = np.fromiter(fields[_N_CHARS_FIELD], np.float64, len(blocks))
            else:
                # attrgetter under map reads every block in C, not in Python bytecode.
                texts = list(map(_TEXT, blocks))
                sizes = np.fromiter(map(_N_CHARS, blocks), np.float64, len(blocks))
        return decide(probs, self.threshold, self.fallback_ratio, texts, self.drop_repeats, sizes)


def _array(obj: dict[str, Any], key: str, dtype: Any) -> np.ndarray:
    try:
        return np.asarray(obj[key], dtype=dtype)
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"model field {key!r} is missing or not numeric: {exc}") from None


def _trees(spec: dict[str, Any], width: int) -> TreeEnsemble:
    feature = _array(spec, "feature", np.intp)
    threshold = _array(spec, "threshold", np.float64)
    left = _array(spec, "left", np.intp)
    right = _array(spec, "right", np.intp)
    value = _array(spec, "value", np.float64)
    if not (
        feature.ndim == 2
        and feature.shape == threshold.shape == left.shape == right.shape == value.shape
    ):
        raise ModelError("tree arrays must all have the same (trees, nodes) shape")
    trees, nodes = feature.shape
    if feature.size and (feature.min() < 0 or feature.max() >= width):
        raise ModelError("tree feature index out of range")
    if left.size and (min(left.min(), right.min()) < 0 or max(left.max(), right.max()) >= nodes):
        raise ModelError("tree child index out of range")
    own = np.arange(nodes)
    split = left != own
    # Children after their parent (as scikit-learn numbers them) is what makes every walk end.
    if (left[split] <= np.broadcast_to(own, left.shape)[split]).any() or (
        right[split] <= np.broadcast_to(own, right.shape)[split]
    ).any():
        raise ModelError("tree children must come after their parent node")
    if ((right == own) != (left == own)).any():
        raise ModelError("a tree leaf must point to itself on both sides")
    offsets = (np.arange(trees, dtype=np.intp) * nodes)[:, None]
    return TreeEnsemble(
        feature=np.ascontiguousarray(feature),
        threshold=np.ascontiguousarray(threshold),
        left=np.ascontiguousarray(left + offsets),
        right=np.ascontiguousarray(right + offsets),
        value=np.ascontiguousarray(value.ravel()),
        baseline=float(spec.get("baseline", 0.0)),
        depth=int(spec["depth"]),
    )


def mlp_from_spec(spec: dict[str, Any], width: int) -> Mlp:
    """An `Mlp` from its exported spec (weights, biases, the standardisation's mean and scale)
    for ``width`` input features; raises `ModelError` when the spec does not fit."""
    try:
        weights = [np.asarray(w, dtype=np.float64) for w in spec["weights"]]
        biases = [np.asarray(b, dtype=np.float64) for b in spec["biases"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"MLP weights are missing or not numeric: {exc}") from None
    mean = _array(spec, "mean", np.float64)
    scale = _array(spec, "scale", np.float64)
    if not weights or weights[0].ndim != 2 or weights[0].shape[0] != width:
        raise ModelError("MLP input size does not match the feature count")
    if mean.shape != (width,) or scale.shape != (width,) or not (scale != 0).all():
        raise ModelError("MLP mean/scale must have one non-zero entry per feature")
    # ((x - mean) / scale) @ W + b == x @ (W / scale[:, None]) + (b - (mean / scale) @ W)
    biases[0] = biases[0] - (mean / scale) @ weights[0]
    weights[0] = weights[0] / scale[:, None]
    return Mlp(tuple(weights), tuple(biases))


def _scorer(spec: Any, width: int) -> Scorer:
    kind = spec.get("kind") if isinstance(spec, dict) else None
    if kind == "trees":
        return _trees(spec, width)
    if kind == "mlp":
        return mlp_from_spec(spec, width)
    raise ModelError(f"unknown model kind {kind!r}")


def model_from_json(data: dict[str, Any]) -> NeighboursModel:
    """Build a model from its parsed JSON; raises `ModelError` when it does not fit this code."""
    if data.get("format") != FORMAT:
        raise ModelError(f"not a {FORMAT} model (format={data.get('format')!r})")
    if list(data.get("features", [])) != list(FEATURE_NAMES):
        raise ModelError(
            "model was trained on different features; retrain with jobs/train_cleaner.py"
        )
    scorer = _scorer(data.get("model"), len(FEATURE_NAMES))
    stacked = None
    stack = data.get("stack")
    if stack is not None:
        if not isinstance(stack, dict) or list(stack.get("features", [])) != list(STACK_FEATURES):
            raise ModelError(
                "model's second pass was trained on other stack features; retrain with "
                "jobs/train_cleaner.py"
            )
        stacked = _scorer(stack.get("model"), len(FEATURE_NAMES) + len(STACK_FEATURES))
    nets, blend = _sequence(data.get("sequence"))
    feature_set = data.get("feature_set", "full")
    if feature_set not in ("full", "cheap"):
        raise ModelError(f"unknown feature_set {feature_set!r} (expected 'full' or 'cheap')")
    cheap = feature_set == "cheap"
    if cheap:
        # The cheap set leaves the other columns constant: a model reading one would be wrong
        # without any error, so only trees whose every split is on a cheap column load.
        if stacked is not None or nets or not isinstance(scorer, TreeEnsemble):
            raise ModelError("a model on the cheap feature set must be trees alone")
        split = scorer.left != np.arange(scorer.left.size).reshape(scorer.left.shape)
        if not np.isin(scorer.feature[split], CHEAP_COLUMNS).all():
            raise ModelError("a model on the cheap feature set splits on a column outside it")
    decision = data.get("decision", "threshold")
    if decision == "expected-f1":
        threshold = None
    elif decision == "threshold":
        try:
            threshold = float(data["threshold"])
        except (KeyError, TypeError, ValueError):
            raise ModelError("model field 'threshold' is missing or not a number") from None
    else:
        raise ModelError(f"unknown decision {decision!r} (expected 'threshold' or 'expected-f1')")
    return NeighboursModel(
        scorer=scorer,
        stacked=stacked,
        threshold=threshold,
        fallback_ratio=float(data.get("fallback_ratio", 0.0)),
        metadata=dict(data.get("metadata", {})),
        smoothing=float(data.get("smoothing", 0.0)),
        drop_repeats=bool(data.get("drop_repeats", False)),
        nets=nets,
        blend=blend,
        cheap_features=cheap,
    )


def _sequence(section: Any) -> tuple[tuple[ConvNet, ...], float]:
    """The optional ``"sequence": {"blend": w, "models": [{...}, ...]}`` section: the nets and
    their share. ``"model": {...}`` (one net, as files before averaging had) reads as a list of
    one."""
    if section is None:
        return (), 0.0
    if not isinstance(section, dict):
        raise ModelError("model field 'sequence' must be an object")
    blend = section.get("blend")
    if isinstance(blend, bool) or not isinstance(blend, int | float) or not 0.0 < blend <= 1.0:
        raise ModelError(f"model field 'sequence.blend' must be in (0, 1], got {blend!r}")
    if ("model" in section) == ("models" in section):
        raise ModelError("model field 'sequence' needs exactly one of 'model' and 'models'")
    specs = section["models"] if "models" in section else [section["model"]]
    if not isinstance(specs, list) or not specs:
        raise ModelError("model field 'sequence.models' must be a non-empty list")
    nets = []
    for i, spec in enumerate(specs):
        try:
            nets.append(net_from_spec(spec, len(FEATURE_NAMES)))
        except NetError as exc:
            raise ModelError(f"model's sequence net #{i}: {exc}") from None
    return tuple(nets), float(blend)


@lru_cache(maxsize=8)
def load_model(path: str | Path = DEFAULT_MODEL) -> NeighboursModel:
    """Load (once per process) a model file written by `jobs/train_cleaner.py`."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"model file {path} not found; run jobs/train_cleaner.py") from None
    except json.JSONDecodeError as exc:
        raise ModelError(f"model file {path} is not valid JSON: {exc}") from None
    return model_from_json(data)
