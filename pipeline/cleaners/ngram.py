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

The salts are 64-bit values (`SALTED`, the scheme of every model trained now). The first models
(`LEGACY`, format ``/1``) XORed the order into the hash as a small number (k, k + 64, k + 128),
and a one-character n-gram's hash is its code point, so a character's count shared a bucket with
a context's whose code point differs from it in those few bits, on every page: the unigram "c"
with the context " ", "A" with the start symbol. Such models still load and score exactly as
they were trained; retraining writes format ``/2``.

Models are stored as ``.npz`` of plain arrays, loaded with ``allow_pickle=False``.

`WittenBellLm` and `ClassLmModel` are the classifier Pal (2009) used, LingPipe's character n-gram
process models with Witten-Bell smoothing and a class prior, on the same hashed tables; they
serve `density-lm`'s ``variant="paper"`` (`pipeline.cleaners.density_lm`).
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
LEGACY, SALTED = 1, 2  # hashing schemes (module docstring); a model file's format names its own
FORMAT = "warcclean-ngram-lm/2"
_FORMATS = {"warcclean-ngram-lm/1": LEGACY, FORMAT: SALTED}  # a file's format -> its scheme
_START = 2  # code point used as the start-of-block symbol (a control character, absent in text)
_P = np.uint64(0x100000001B3)  # FNV-64 prime: a good odd multiplier for the rolling hash
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing constant, spreads the bits to the top
_ALPHABET = 65536.0  # V in the unigram estimate


class NgramModelError(ValueError):
    """An n-gram model file is missing or malformed."""


_M64 = (1 << 64) - 1


def _spread(x: int) -> int:
    """SplitMix64's finaliser: a well-spread 64-bit value for each small integer."""
    x = (x + 0x9E3779B97F4A7C15) & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


def salt(scheme: int, kind: int, k: int) -> np.uint64:
    """The salt of order ``k``'s n-grams (``kind`` 0), contexts (1) or a context's distinct
    extensions (2) under a hashing ``scheme``."""
    if scheme == LEGACY:
        return np.uint64(k + 64 * kind)
    return np.uint64(_spread(kind << 16 | k))


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


def _hashes(
    codes: np.ndarray,
    order: int,
    bits: int,
    extensions: list[np.ndarray] | None = None,
    scheme: int = SALTED,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per order k (1..order): the bucket of the k-gram ending at each position and the bucket
    of its (k-1)-character context as a context. Positions without a full k-gram get garbage
    that callers never read (they only read real positions, which have ``order - 1`` symbols of
    history). Given a list as ``extensions``, it is filled with a third bucket per order, the
    context's again under another salt: where Witten-Bell keeps how many distinct characters
    followed that context."""
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
            grams.append(((rolling ^ salt(scheme, 0, k)) * _MIX) >> shift)
            contexts.append(((previous ^ salt(scheme, 1, k)) * _MIX) >> shift)
            if extensions is not None:
                extensions.append(((previous ^ salt(scheme, 2, k)) * _MIX) >> shift)
    return grams, contexts


@dataclass(frozen=True)
class CharLm:
    """One smoothed character n-gram model (hashed counts)."""

    counts: np.ndarray  # (2**bits,) uint32
    total: float
    order: int
    beta: float
    scheme: int = SALTED  # how its n-grams were hashed

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


def train_lm(
    texts: Iterable[str], order: int, bits: int, beta: float, scheme: int = SALTED
) -> CharLm:
    """Count the n-grams of ``texts`` (orders 1..order) into a hashed table."""
    counts = np.zeros(1 << bits, dtype=np.uint64)
    total = 0
    batch: list[str] = []

    def flush() -> None:
        nonlocal total
        if not batch:
            return
        codes, real, _ = _positions(batch, order)
        grams, contexts = _hashes(codes, order, bits, scheme=scheme)
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
        np.minimum(counts, np.iinfo(np.uint32).max).astype(np.uint32),
        float(total),
        order,
        beta,
        scheme,
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
        grams, contexts = _hashes(codes, self.order, self.content.bits, scheme=self.content.scheme)
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

    meta = json.dumps(
        {**model.metadata, "format": _format_of(_FORMATS, model.content, model.boilerplate)},
        sort_keys=True,
    )
    np.savez_compressed(
        path,
        content=model.content.counts,
        boilerplate=model.boilerplate.counts,
        totals=np.array([model.content.total, model.boilerplate.total]),
        params=np.array([model.content.order, model.content.beta, model.threshold]),
        metadata=np.array(meta),
    )


def _format_of(formats: dict[str, int], content: Any, boilerplate: Any) -> str:
    """The file format of a model whose two class models share one hashing scheme."""
    if content.scheme != boilerplate.scheme:
        raise ValueError(
            f"content and boilerplate models hashed differently ({content.scheme} and "
            f"{boilerplate.scheme}): a model file has one scheme"
        )
    for fmt, scheme in formats.items():
        if scheme == content.scheme:
            return fmt
    raise ValueError(f"unknown hashing scheme {content.scheme!r}: {LEGACY} or {SALTED}")


@lru_cache(maxsize=4)
def _load_counts(
    path: str | Path, formats: tuple[str, ...], what: str, *extra: str
) -> tuple[list[np.ndarray], dict[str, Any]]:
    """The content and boilerplate count tables of a model file in one of ``formats`` (``what``
    it is, for the errors), then its ``extra`` arrays, and its metadata; raises
    `NgramModelError` on anything unexpected."""
    import json

    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = [data[name] for name in ("content", "boilerplate", *extra)]
            meta = json.loads(str(data["metadata"]))
    except FileNotFoundError:
        raise NgramModelError(f"model file {path} not found; run jobs/train_cleaner.py") from None
    except (KeyError, ValueError, OSError) as exc:
        raise NgramModelError(f"model file {path} is not {what}: {exc}") from None
    if meta.get("format") not in formats:
        raise NgramModelError(f"{path}: not a {formats[-1]} model")
    content, boilerplate = arrays[0], arrays[1]
    size = content.size
    if size != boilerplate.size or size & (size - 1) or content.dtype != np.uint32:
        raise NgramModelError(f"{path}: count tables must be uint32 of one power-of-two size")
    return arrays, meta


def load_model(path: str | Path = DEFAULT_MODEL) -> NgramModel:
    """Load a model written by `save_model`; raises `NgramModelError` on anything unexpected."""
    arrays, meta = _load_counts(path, tuple(_FORMATS), "an n-gram model", "totals", "params")
    content, boilerplate, totals, params = arrays
    order, beta, threshold = int(params[0]), float(params[1]), float(params[2])
    scheme = _FORMATS[meta["format"]]
    return NgramModel(
        CharLm(content, float(totals[0]), order, beta, scheme),
        CharLm(boilerplate, float(totals[1]), order, beta, scheme),
        threshold,
        meta,
    )


WB_FORMAT = "warcclean-ngram-lm-wb/2"
_WB_FORMATS = {"warcclean-ngram-lm-wb/1": LEGACY, WB_FORMAT: SALTED}


def _depths(texts: Sequence[str], owner: np.ndarray, order: int) -> np.ndarray:
    """Each position's index within its own text (the pad before a text is negative)."""
    lengths = np.fromiter((len(t) for t in texts), np.int64, len(texts))
    starts = np.concatenate(([0], np.cumsum(lengths + order - 1)[:-1]))
    return np.arange(owner.size) - starts[owner] - (order - 1)


@dataclass(frozen=True)
class WittenBellLm:
    """A character n-gram process model with interpolated Witten-Bell smoothing, as LingPipe's
    ``NGramProcessLM`` defines it (hashed counts)::

        p_0(c)     = 1 / V
        p_k(c | h) = (n(h c) + L·E(h)·p_{k-1}(c | h')) / (n(h) + L·E(h))

    where ``n(h)`` counts ``h`` as a context, ``E(h)`` is the number of distinct characters seen
    after it and ``L`` the interpolation factor (LingPipe's ``lambdaFactor``, by default the
    model's order); an unseen context (``n(h) = 0``) passes its shorter context's estimate on.
    A process model has no start symbols: a text's first character is predicted with no
    context, its second with one character, and so on.

    ``counts`` holds, in one hashed table, the n-gram counts, the context counts and the
    contexts' distinct-extension counts, each under its own salt (`_hashes`); ``total`` and
    ``types`` are the empty context's (all characters, and the distinct ones)."""

    counts: np.ndarray  # (2**bits,) uint32
    total: float
    types: float
    order: int
    lambda_factor: float
    alphabet: float = _ALPHABET
    scheme: int = SALTED  # how its n-grams were hashed

    @property
    def bits(self) -> int:
        return int(self.counts.size).bit_length() - 1

    def log_probs(
        self,
        grams: list[np.ndarray],
        contexts: list[np.ndarray],
        extensions: list[np.ndarray],
        depth: np.ndarray,
    ) -> np.ndarray:
        counts = self.counts
        weight = self.lambda_factor * self.types
        p = (counts[grams[0]] + weight / self.alphabet) / (self.total + weight)
        for k in range(1, self.order):
            context = counts[contexts[k]].astype(np.float64)
            # As in `CharLm`: a collision must not make an n-gram outnumber its context.
            gram = np.minimum(counts[grams[k]], context)
            weight = self.lambda_factor * counts[extensions[k]].astype(np.float64)
            denominator = context + weight
            # A context seen in training has at least one extension: a bucket with a count but
            # none is another entry's collision, and the context counts as unseen.
            usable = (weight > 0) & (depth >= k)
            p = np.where(usable, (gram + weight * p) / np.where(usable, denominator, 1.0), p)
        return np.log(p)


_Buckets = tuple[
    list[np.ndarray], list[np.ndarray], list[np.ndarray], np.ndarray, np.ndarray, np.ndarray
]


def _wb_buckets(texts: Sequence[str], order: int, bits: int, scheme: int = SALTED) -> _Buckets:
    """Buckets of every real position (see `_hashes`), with each position's depth in its text,
    its text index and its code point."""
    codes, real, owner = _positions(texts, order)
    extensions: list[np.ndarray] = []
    grams, contexts = _hashes(codes, order, bits, extensions, scheme)
    depth = _depths(texts, owner, order)
    idx = np.flatnonzero(real)
    return (
        [g[idx] for g in grams],
        [c[idx] for c in contexts],
        [e[idx] for e in extensions],
        depth[idx],
        owner[idx],
        codes[idx],
    )


def train_witten_bell(
    texts: Iterable[str],
    order: int,
    bits: int,
    lambda_factor: float | None = None,
    scheme: int = SALTED,
) -> WittenBellLm:
    """Count ``texts`` into a `WittenBellLm` (``lambda_factor`` None: LingPipe's default, the
    order)."""
    counts = np.zeros(1 << bits, dtype=np.uint64)
    seen: list[np.ndarray] = [np.zeros(0, np.uint64) for _ in range(order)]
    chars = np.zeros(0, np.uint64)
    total = 0
    batch: list[str] = []

    def add(buckets: np.ndarray) -> None:
        counts[:] += np.bincount(buckets.astype(np.int64), minlength=counts.size).astype(np.uint64)

    def flush() -> None:
        nonlocal total, chars
        if not batch:
            return
        grams, contexts, extensions, depth, _, codes = _wb_buckets(batch, order, bits, scheme)
        add(grams[0])
        chars = np.union1d(chars, codes)
        total += depth.size
        for k in range(1, order):
            ok = depth >= k
            add(grams[k][ok])
            add(contexts[k][ok])
            # A context's distinct extensions: the distinct (n-gram, context) pairs, counted
            # once each at the end, after every batch.
            pairs = (grams[k][ok] << np.uint64(bits)) | extensions[k][ok]
            seen[k] = np.union1d(seen[k], pairs)
        batch.clear()

    for text in texts:
        batch.append(text)
        if len(batch) >= 2000:
            flush()
    flush()
    mask = np.uint64((1 << bits) - 1)
    for k in range(1, order):
        add(seen[k] & mask)
    return WittenBellLm(
        np.minimum(counts, np.iinfo(np.uint32).max).astype(np.uint32),
        float(total),
        float(chars.size),
        order,
        float(order if lambda_factor is None else lambda_factor),
        scheme=scheme,
    )


@dataclass(frozen=True)
class ClassLmModel:
    """LingPipe's ``DynamicLMClassifier`` with two categories: a `WittenBellLm` per class and a
    class prior; a text goes to the class with the larger ``log p(class) + log p(text | class)``.
    `scores` gives that difference (content minus boilerplate), so the classifier's own rule
    is ``score >= threshold`` with the threshold 0."""

    content: WittenBellLm
    boilerplate: WittenBellLm
    log_prior: tuple[float, float]  # content, boilerplate
    threshold: float
    metadata: dict[str, Any]

    @property
    def order(self) -> int:
        return self.content.order

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """Joint log-probability of each text under content minus under boilerplate; texts
        without characters score ``-inf``."""
        out = np.full(len(texts), -np.inf)
        if not texts or not any(texts):
            return out
        grams, contexts, extensions, depth, owner, _ = _wb_buckets(
            texts, self.order, self.content.bits, self.content.scheme
        )
        llr = self.content.log_probs(grams, contexts, extensions, depth)
        llr -= self.boilerplate.log_probs(grams, contexts, extensions, depth)
        n = np.bincount(owner, minlength=len(texts))
        sums = np.bincount(owner, weights=llr, minlength=len(texts))
        has = n > 0
        out[has] = sums[has] + self.log_prior[0] - self.log_prior[1]
        return out


def class_prior(n_content: int, n_boilerplate: int) -> tuple[float, float]:
    """Log class priors from the training texts per class, add-one smoothed so an empty class
    keeps some mass."""
    total = n_content + n_boilerplate + 2
    return (
        float(np.log((n_content + 1) / total)),
        float(np.log((n_boilerplate + 1) / total)),
    )


def save_class_model(model: ClassLmModel, path: str | Path) -> None:
    """Write a `ClassLmModel` as an ``.npz`` of plain arrays."""
    import json

    c, b = model.content, model.boilerplate
    meta = json.dumps({**model.metadata, "format": _format_of(_WB_FORMATS, c, b)}, sort_keys=True)
    np.savez_compressed(
        path,
        content=c.counts,
        boilerplate=b.counts,
        stats=np.array([[c.total, c.types], [b.total, b.types]]),
        params=np.array([c.order, c.lambda_factor, c.alphabet, model.threshold, *model.log_prior]),
        metadata=np.array(meta),
    )


@lru_cache(maxsize=4)
def load_class_model(path: str | Path) -> ClassLmModel:
    """Load a model written by `save_class_model`; raises `NgramModelError` on anything
    unexpected."""
    arrays, meta = _load_counts(path, tuple(_WB_FORMATS), "a class LM model", "stats", "params")
    content, boilerplate, stats, params = arrays
    if stats.shape != (2, 2) or params.shape != (6,):
        raise NgramModelError(f"{path}: unexpected statistics or parameters")
    order, factor, alphabet = int(params[0]), float(params[1]), float(params[2])
    scheme = _WB_FORMATS[meta["format"]]

    def lm(counts: np.ndarray, row: np.ndarray) -> WittenBellLm:
        return WittenBellLm(counts, float(row[0]), float(row[1]), order, factor, alphabet, scheme)

    return ClassLmModel(
        lm(content, stats[0]),
        lm(boilerplate, stats[1]),
        (float(params[4]), float(params[5])),
        float(params[3]),
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
