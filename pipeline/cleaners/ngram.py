"""The `ngram-lm` cleaner: two character n-gram language models, content against boilerplate.

Each model gives every character of a block a probability from the characters before it; a block
is kept when the content model explains it better than the boilerplate model, measured as the
mean log-likelihood ratio per character (so long blocks do not win by length alone).

Smoothing is interpolation with a Dirichlet prior, order by order::

    p_1(c)       = (n(c) + 1) / (N + V)
    p_k(c | h)   = (n(h c) + beta * p_{k-1}(c | h')) / (n(h ·) + beta)

where ``h'`` is ``h`` without its oldest character and ``n(h ·)`` counts ``h`` as a context.

Counts live in one hashed table per model (`numpy` uint32, 2**bits buckets), keyed by a rolling
polynomial hash of the n-gram salted with its order and with "gram" or "context". Hashing keeps
the model a fixed, small size (collisions only merge rare n-grams) and lets a whole page be
scored with array operations: all block texts are laid end to end, each preceded by start
symbols, and every order's hashes come from the previous order's by one multiply-add.

Models are stored as ``.npz`` of plain arrays, loaded with ``allow_pickle=False``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from pipeline.cleaners.registry import model_params
from pipeline.types import Block, LabeledBlock, Verdict

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "ngram-lm.npz"
FORMAT = "warcclean-ngram-lm/1"
_START = 2  # code point used as the start-of-block symbol (a control character, absent in text)
_P = np.uint64(0x100000001B3)  # FNV-64 prime: a good odd multiplier for the rolling hash
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing constant, spreads the bits to the top
_ALPHABET = 65536.0  # V in the unigram estimate


class NgramModelError(ValueError):
    """An n-gram model file is missing or malformed."""


def _positions(texts: Sequence[str], order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Code points of all texts, each preceded by ``order - 1`` start symbols.

    Returns ``(codes, real, owner)``: ``real`` marks the positions holding a text's character,
    ``owner`` gives their text index.
    """
    pad = chr(_START) * (order - 1)
    joined = "".join(pad + t for t in texts)
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    lengths = np.fromiter((len(t) for t in texts), np.int64, len(texts))
    real = np.ones(codes.size, dtype=bool)
    owner = np.repeat(np.arange(len(texts)), lengths + order - 1)
    starts = np.concatenate(([0], np.cumsum(lengths + order - 1)[:-1]))
    for k in range(order - 1):
        real[starts + k] = False
    return codes, real, owner


def _hashes(codes: np.ndarray, order: int, bits: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per order k (1..order): the bucket of the k-gram ending at each position and the bucket
    of its (k-1)-character context as a context. Positions without a full k-gram get garbage
    that callers never read (they only read real positions, which have ``order - 1`` symbols of
    history)."""
    shift = np.uint64(64 - bits)
    grams: list[np.ndarray] = []
    contexts: list[np.ndarray] = []
    rolling = codes.copy()
    previous = np.zeros_like(codes)  # hash of the (k-1)-gram ending one position earlier
    with np.errstate(over="ignore"):
        for k in range(1, order + 1):
            if k > 1:
                prior = np.empty_like(rolling)
                prior[0] = 0
                prior[1:] = rolling[:-1]
                previous = prior
                rolling = prior * _P + codes
            grams.append(((rolling ^ np.uint64(k)) * _MIX) >> shift)
            contexts.append(((previous ^ np.uint64(k + 64)) * _MIX) >> shift)
    return grams, contexts


@dataclass(frozen=True)
class CharLm:
    """One smoothed character n-gram model (hashed counts)."""

    counts: np.ndarray  # (2**bits,) uint32
    total: float
    order: int
    beta: float

    @property
    def bits(self) -> int:
        return int(self.counts.size).bit_length() - 1

    def log_probs(self, grams: list[np.ndarray], contexts: list[np.ndarray]) -> np.ndarray:
        counts = self.counts
        p = (counts[grams[0]] + 1.0) / (self.total + _ALPHABET)
        for k in range(1, self.order):
            context = counts[contexts[k]].astype(np.float64)
            # A hash collision can make an n-gram look more frequent than its context; capping
            # it keeps every estimate a probability (<= 1).
            gram = np.minimum(counts[grams[k]], context)
            p = (gram + self.beta * p) / (context + self.beta)
        return np.log(p)


def train_lm(texts: Iterable[str], order: int, bits: int, beta: float) -> CharLm:
    """Count the n-grams of ``texts`` (orders 1..order) into a hashed table."""
    counts = np.zeros(1 << bits, dtype=np.uint64)
    total = 0
    batch: list[str] = []

    def flush() -> None:
        nonlocal total
        if not batch:
            return
        codes, real, _ = _positions(batch, order)
        grams, contexts = _hashes(codes, order, bits)
        for k in range(order):
            counts[:] += np.bincount(grams[k][real].astype(np.int64), minlength=counts.size).astype(
                np.uint64
            )
            if k:
                counts[:] += np.bincount(
                    contexts[k][real].astype(np.int64), minlength=counts.size
                ).astype(np.uint64)
        total += int(real.sum())
        batch.clear()

    for text in texts:
        batch.append(text)
        if len(batch) >= 2000:
            flush()
    flush()
    return CharLm(
        np.minimum(counts, np.iinfo(np.uint32).max).astype(np.uint32), float(total), order, beta
    )


@dataclass(frozen=True)
class NgramModel:
    content: CharLm
    boilerplate: CharLm
    threshold: float  # keep a block whose mean log-likelihood ratio per character is >= this
    metadata: dict[str, Any]

    @property
    def order(self) -> int:
        return self.content.order

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """Mean log-likelihood ratio per character (content over boilerplate) of every text;
        texts without characters score ``-inf`` (nothing to keep)."""
        out = np.full(len(texts), -np.inf)
        if not texts:
            return out
        codes, real, owner = _positions(texts, self.order)
        if not real.any():
            return out
        grams, contexts = _hashes(codes, self.order, self.content.bits)
        idx = np.flatnonzero(real)
        grams = [g[idx] for g in grams]
        contexts = [c[idx] for c in contexts]
        llr = self.content.log_probs(grams, contexts) - self.boilerplate.log_probs(grams, contexts)
        n = np.bincount(owner[idx], minlength=len(texts))
        sums = np.bincount(owner[idx], weights=llr, minlength=len(texts))
        has = n > 0
        out[has] = sums[has] / n[has]
        return out


def save_model(model: NgramModel, path: str | Path) -> None:
    """Write the model as an ``.npz`` of plain arrays (no pickled objects)."""
    import json

    meta = json.dumps({"format": FORMAT, **model.metadata}, sort_keys=True)
    np.savez_compressed(
        path,
        content=model.content.counts,
        boilerplate=model.boilerplate.counts,
        totals=np.array([model.content.total, model.boilerplate.total]),
        params=np.array([model.content.order, model.content.beta, model.threshold]),
        metadata=np.array(meta),
    )


@lru_cache(maxsize=4)
def load_model(path: str | Path = DEFAULT_MODEL) -> NgramModel:
    """Load a model written by `save_model`; raises `NgramModelError` on anything unexpected."""
    import json

    try:
        with np.load(path, allow_pickle=False) as data:
            content = data["content"]
            boilerplate = data["boilerplate"]
            totals = data["totals"]
            params = data["params"]
            meta = json.loads(str(data["metadata"]))
    except FileNotFoundError:
        raise NgramModelError(f"model file {path} not found; run jobs/train_cleaner.py") from None
    except (KeyError, ValueError, OSError) as exc:
        raise NgramModelError(f"model file {path} is not an n-gram model: {exc}") from None
    if meta.get("format") != FORMAT:
        raise NgramModelError(f"{path}: not a {FORMAT} model")
    size = content.size
    if size != boilerplate.size or size & (size - 1) or content.dtype != np.uint32:
        raise NgramModelError(f"{path}: count tables must be uint32 of one power-of-two size")
    order, beta, threshold = int(params[0]), float(params[1]), float(params[2])
    return NgramModel(
        CharLm(content, float(totals[0]), order, beta),
        CharLm(boilerplate, float(totals[1]), order, beta),
        threshold,
        meta,
    )


class NgramCleaner:
    """Keeps blocks whose text the content n-gram model explains better than the boilerplate
    one (mean log-likelihood ratio per character >= ``threshold``; the trained one by default)."""

    name: ClassVar[str] = "ngram-lm"

    def __init__(self, threshold: float | None = None, model: str | None = None) -> None:
        self._model_path = str(model) if model is not None else None
        self.model = load_model(self._model_path or DEFAULT_MODEL)
        self.threshold = float(threshold) if threshold is not None else None

    def params(self) -> dict[str, Any]:
        return model_params(self.threshold, self._model_path)

    def label(self, blocks: Sequence[Block], stoplist: frozenset[str] | None) -> list[LabeledBlock]:
        del stoplist  # language independent: the models are the evidence
        scores = self.model.scores([b.text for b in blocks])
        threshold = self.model.threshold if self.threshold is None else self.threshold
        return [
            LabeledBlock(b, Verdict.GOOD if s >= threshold else Verdict.BAD, None, float(s))
            for b, s in zip(blocks, scores.tolist(), strict=True)
        ]
