"""A small dilated convolutional net over a page's sequence of blocks, run in numpy.

The tree ensemble sees a block with its neighbours up to two blocks away, two window averages
and a few page-level shares; how the blocks further away are laid out, it cannot weigh. This net
reads the page as one sequence: every block's own features, then residual 1-D convolutions of
width 3 whose dilations double (1, 2, 4, 8: a block sees 15 blocks either side), then the mean and
maximum of every channel over the page, fed back to every block. Its content probability is
blended with the trees' (`pipeline.learned.model.NeighboursModel`).

It is trained with PyTorch (`jobs/train_sequence.py`, run by `jobs/train_cleaner.py`) and shipped as
plain arrays in the model's JSON; inference is five matrix products per page (the input layer and
one per convolution) and a few small ones, in float32. Padding is zeros at both ends of the page, as
in training, so a page's output does not depend on what it was batched with. Where
`pipeline.learned.netwalk` is compiled, it runs the steps between the products as one loop each
(about half the time on a page of 200 blocks); otherwise the numpy code below does (`raw_numpy`).
The model's nets share their input columns and standardisation, so they run as one `NetStack`: the
page is standardised once and goes through one input product for all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pipeline.compiled import is_compiled_file
from pipeline.learned import netwalk


class NetError(ValueError):
    """The net's arrays are missing, not numeric, or of shapes that do not fit together."""


@dataclass(frozen=True)
class ConvNet:
    """The net as inference runs it, in float32 (the precision it was trained in; float64
    products measured 1.4x slower). Each convolution's three taps are one (hidden, 3 * hidden)
    matrix: one product per layer, then the t - d and t + d thirds are added in shifted.
    (Folding the standardisation into the first layer would save two passes, but in float32 it
    cancels large terms against each other where a feature's spread is small.)"""

    columns: int  # the first `columns` feature columns are read (a block's own features)
    mean: np.ndarray  # (columns,) float32: z = clip((x - mean) / scale, -clip, clip)
    inverse_scale: np.ndarray  # (columns,) float32, 1 / scale
    clip: float
    w_in: np.ndarray  # (columns, hidden)
    b_in: np.ndarray  # (hidden,)
    # Per layer: taps (hidden, 3 * hidden) [t - d | t | t + d], bias (hidden,), dilation.
    convs: tuple[tuple[np.ndarray, np.ndarray, int], ...]
    w_page: np.ndarray  # (2 * hidden, hidden): [mean, max] over the page -> page vector
    b_page: np.ndarray  # (hidden,)
    w_block: np.ndarray  # (hidden,): block channels -> logit
    w_pooled: np.ndarray  # (hidden,): page vector -> logit
    b_out: float
    # The compiled kernel is the fast path; tests turn it off to compare the two.
    compiled: bool = is_compiled_file(netwalk.__file__)

    def raw(self, x: np.ndarray) -> np.ndarray:
        """Content logit of every block from the page's feature rows."""
        if self.compiled:
            return netwalk.net_raw(
                x,
                self.columns,
                self.mean,
                self.inverse_scale,
                self.clip,
                self.w_in,
                self.b_in,
                self.convs,
                self.w_page,
                self.b_page,
                self.w_block,
                self.w_pooled,
                self.b_out,
            )
        return self.raw_numpy(x)

    def raw_numpy(self, x: np.ndarray) -> np.ndarray:
        """`raw` in numpy calls: the path where `pipeline.learned.netwalk` is not compiled."""
        n = x.shape[0]
        if n == 0:
            return np.zeros(0)
        hidden = self.b_in.shape[0]
        z = x[:, : self.columns].astype(np.float32)
        z -= self.mean
        z *= self.inverse_scale
        # Clipped: a block far outside the training range (a 100 kB table cell) must not
        # swamp its neighbours' channels.
        np.clip(z, -self.clip, self.clip, out=z)
        h = z @ self.w_in
        h += self.b_in
        np.maximum(h, 0.0, out=h)
        for taps, bias, d in self.convs:
            p = h @ taps
            c = p[:, hidden : 2 * hidden] + bias
            if d < n:
                c[d:] += p[: n - d, :hidden]
                c[: n - d] += p[d:, 2 * hidden :]
            np.maximum(c, 0.0, out=c)
            h += c
        pooled = np.concatenate((h.sum(axis=0) / n, h.max(axis=0)))
        page = pooled @ self.w_page + self.b_page
        np.maximum(page, 0.0, out=page)
        logit = h @ self.w_block
        return logit.astype(np.float64) + float(page @ self.w_pooled + self.b_out)


@dataclass(frozen=True)
class NetStack:
    """Nets alike in everything but their weights (the model's nets, trained from different
    seeds), run as one: their inputs are standardised once and go through one product for all of
    them, and every later step is one call for all the nets (`pipeline.learned.netwalk.nets_raw`).
    Each net's logits are those it gives alone within float32 rounding (the wider first product
    may sum in another order); `mean_probability` averages their probabilities as the model
    always has. Built by `stack_nets` from the `ConvNet`s, which stay the reference."""

    nets: tuple[ConvNet, ...]
    w_in: np.ndarray  # (columns, nets * hidden): the nets' input layers side by side
    b_in: np.ndarray  # (nets * hidden,)
    convs: tuple[tuple[np.ndarray, np.ndarray, int], ...]  # (nets, hidden, 3h), (nets, h), d
    w_page: np.ndarray  # (nets, 2 * hidden, hidden)
    b_page: np.ndarray  # (nets, hidden)
    w_block: np.ndarray  # (nets, hidden)
    w_pooled: np.ndarray  # (nets, hidden)
    b_out: np.ndarray  # (nets,) float32
    compiled: bool = is_compiled_file(netwalk.__file__)

    def raw(self, x: np.ndarray) -> np.ndarray:
        """Content logits of every block from the page's feature rows, one row per net."""
        if not self.compiled:
            # Uncompiled, each net's numpy path is the cheaper one (the kernel's loops would
            # run in the interpreter).
            return np.array([net.raw_numpy(x) for net in self.nets]).reshape(len(self.nets), -1)
        first = self.nets[0]
        return netwalk.nets_raw(
            x,
            first.columns,
            first.mean,
            first.inverse_scale,
            first.clip,
            self.w_in,
            self.b_in,
            self.convs,
            self.w_page,
            self.b_page,
            self.w_block,
            self.w_pooled,
            self.b_out,
        )

    def mean_probability(self, x: np.ndarray) -> np.ndarray:
        """The mean of the nets' content probabilities of every block (float64), summed net by
        net in their order as `pipeline.learned.model.NeighboursModel` sums the nets' own."""
        probs = logistic(self.raw(x))
        mean = probs[0]
        for row in probs[1:]:
            mean += row
        if len(self.nets) > 1:
            mean /= len(self.nets)
        return mean


def logistic(raw: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-raw)) in a new array, with one temporary instead of five. Clipped so that a
    confident logit cannot overflow exp (a warning, and 0.0 anyway)."""
    out = np.clip(raw, -500.0, 500.0)
    np.negative(out, out=out)
    np.exp(out, out=out)
    out += 1.0
    np.divide(1.0, out, out=out)
    return out


def stack_nets(nets: tuple[ConvNet, ...]) -> NetStack | None:
    """The nets as one `NetStack`, or None when they cannot share a run: no nets, or nets that
    read other columns, standardise them otherwise or differ in shape or dilations."""
    if not nets:
        return None
    first = nets[0]
    shape = [(t.shape, d) for t, _, d in first.convs]
    for net in nets[1:]:
        if (
            net.columns != first.columns
            or net.clip != first.clip
            or net.b_in.shape != first.b_in.shape
            or [(t.shape, d) for t, _, d in net.convs] != shape
            or not np.array_equal(net.mean, first.mean)
            or not np.array_equal(net.inverse_scale, first.inverse_scale)
        ):
            return None

    def stacked(arrays: list[np.ndarray]) -> np.ndarray:
        return np.ascontiguousarray(np.stack(arrays), dtype=np.float32)

    return NetStack(
        nets=nets,
        w_in=np.ascontiguousarray(np.hstack([n.w_in for n in nets]), dtype=np.float32),
        b_in=np.ascontiguousarray(np.concatenate([n.b_in for n in nets]), dtype=np.float32),
        convs=tuple(
            (
                stacked([n.convs[i][0] for n in nets]),
                stacked([n.convs[i][1] for n in nets]),
                d,
            )
            for i, (_, _, d) in enumerate(first.convs)
        ),
        w_page=stacked([n.w_page for n in nets]),
        b_page=stacked([n.b_page for n in nets]),
        w_block=stacked([n.w_block for n in nets]),
        w_pooled=stacked([n.w_pooled for n in nets]),
        b_out=np.array([n.b_out for n in nets], dtype=np.float32),
        compiled=all(n.compiled for n in nets),
    )


def _matrix(spec: dict[str, Any], key: str, shape: tuple[int, ...]) -> np.ndarray:
    try:
        a = np.asarray(spec[key], dtype=np.float64)
    except (KeyError, TypeError, ValueError) as exc:
        raise NetError(f"net field {key!r} is missing or not numeric: {exc}") from None
    if a.shape != shape:
        raise NetError(f"net field {key!r} has shape {a.shape}, expected {shape}")
    if not np.isfinite(a).all():
        raise NetError(f"net field {key!r} holds a non-finite number")
    return a


def _positive(spec: dict[str, Any], key: str, kind: type) -> Any:
    value = spec.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise NetError(f"net field {key!r} must be a positive number, got {value!r}")
    if kind is int and value != int(value):
        raise NetError(f"net field {key!r} must be an integer, got {value!r}")
    return kind(value)


def net_from_spec(spec: Any, width: int) -> ConvNet:
    """The net described by ``spec`` (a parsed JSON object) over feature rows of ``width``."""
    if not isinstance(spec, dict) or spec.get("kind") != "dilated-conv":
        kind = spec.get("kind") if isinstance(spec, dict) else None
        raise NetError(f"unknown sequence model kind {kind!r} (expected 'dilated-conv')")
    columns = _positive(spec, "columns", int)
    if columns > width:
        raise NetError(f"net reads {columns} feature columns, the features have {width}")
    hidden = _positive(spec, "hidden", int)
    layers = spec.get("convs")
    if not isinstance(layers, list) or not all(isinstance(c, dict) for c in layers):
        raise NetError("net field 'convs' must be a list of objects")
    convs = tuple(
        (
            _matrix(c, "weight", (3 * hidden, hidden)),
            _matrix(c, "bias", (hidden,)),
            _positive(c, "dilation", int),
        )
        for c in layers
    )
    mean = _matrix(spec, "mean", (columns,))
    scale = _matrix(spec, "scale", (columns,))
    if not (scale > 0).all():
        raise NetError("net field 'scale' must be positive")
    clip = _positive(spec, "clip", float)
    w_in = _matrix(spec, "w_in", (columns, hidden))
    w_out = _matrix(spec, "w_out", (2 * hidden,))

    def f32(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=np.float32)

    return ConvNet(
        columns=columns,
        mean=f32(mean),
        inverse_scale=f32(1.0 / scale),
        clip=clip,
        w_in=f32(w_in),
        b_in=f32(_matrix(spec, "b_in", (hidden,))),
        convs=tuple((f32(np.hstack(np.split(w, 3))), f32(b), d) for w, b, d in convs),
        w_page=f32(_matrix(spec, "w_page", (2 * hidden, hidden))),
        b_page=f32(_matrix(spec, "b_page", (hidden,))),
        w_block=f32(w_out[:hidden]),
        w_pooled=f32(w_out[hidden:]),
        b_out=float(_matrix(spec, "b_out", ())),
    )
