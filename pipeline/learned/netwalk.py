# cython: boundscheck=False, wraparound=False, initializedcheck=False
"""The sequence net's inference (`pipeline.learned.convnet.ConvNet`) with its element-wise steps
fused.

This module is compiled with Cython when the install can (see hatch_build.py and netwalk.pxd).
numpy's path spends most of a page's time not in the net's five matrix products but around
them: some 25 calls, each a pass over the page and often a new array (standardise, clip, add
the bias, shift the taps in, ReLU, add the residual, pool). Compiled, every stretch between two
products is one loop over the page's rows here, and the products stay numpy's (OpenBLAS picks
the machine's widest vector instructions at run time, which a portable wheel, built without
``-march``, cannot: loops here get 4-float SSE2 vectors, and products written as loops measured
1.5-2x slower than numpy's path on pages of 200 blocks or more).

The products go to the same BLAS routines as numpy's path, and every other step adds in the
same order in float32, except the page vector (a 64 x 32 product, looped here, like the last
dot product): logits differ by a few float32 rounding steps at most. Uncompiled, the loops run
in the interpreter at thousands of times that cost, so `pipeline.learned.convnet` uses this module
only when it is compiled.

The model's nets run together (`nets_raw`, for `pipeline.learned.convnet.NetStack`): one
standardisation and one input product for all of them, then each net's channels in rows of its
own, so that its later products are those it makes alone, one call a step for all the nets.

(The first line is a Cython directive, read only when compiling.)
"""

from __future__ import annotations

import numpy as np

from pipeline.compiled import check_fresh

check_fresh(__name__, __file__)


def net_raw(
    x: np.ndarray,
    columns: int,
    mean: np.ndarray,
    inverse_scale: np.ndarray,
    clip: float,
    w_in: np.ndarray,
    b_in: np.ndarray,
    convs: tuple[tuple[np.ndarray, np.ndarray, int], ...],
    w_page: np.ndarray,
    b_page: np.ndarray,
    w_block: np.ndarray,
    w_pooled: np.ndarray,
    b_out: float,
) -> np.ndarray:
    """Content logit (float64) of every row of ``x`` for one net; the other arguments are
    `ConvNet`'s fields (float32 arrays in C order; ``convs`` holds ``(taps, bias, dilation)`` per
    layer). `nets_raw` with a stack of one: the same products and loops.

    Compiled, array reads are not bounds-checked (that is much of the speed), so every shape
    is checked first (by `nets_raw`): a mismatch raises ValueError instead of reading past an
    array. Only the first ``columns`` columns of ``x`` are read, and ``x`` is never written.
    """
    if b_in.ndim != 1 or any(t.ndim != 2 or b.ndim != 1 for t, b, _ in convs):
        raise ValueError("the net's arrays do not fit together: expected one net's arrays")
    return nets_raw(
        x,
        columns,
        mean,
        inverse_scale,
        clip,
        w_in,
        b_in,
        tuple((t[None], b[None], d) for t, b, d in convs),
        w_page[None],
        b_page[None],
        w_block[None],
        w_pooled[None],
        np.array([b_out], dtype=np.float32),
    )[0]


def nets_raw(
    x: np.ndarray,
    columns: int,
    mean: np.ndarray,
    inverse_scale: np.ndarray,
    clip: float,
    w_in: np.ndarray,
    b_in: np.ndarray,
    convs: tuple[tuple[np.ndarray, np.ndarray, int], ...],
    w_page: np.ndarray,
    b_page: np.ndarray,
    w_block: np.ndarray,
    w_pooled: np.ndarray,
    b_out: np.ndarray,
) -> np.ndarray:
    """Content logits (float64, shape (nets, rows)) of every row of ``x`` for a stack of nets
    that read the same columns, standardised alike, through layers of the same shapes and
    dilations (`pipeline.learned.convnet.NetStack`). ``w_in`` is (columns, nets * hidden), the
    nets' input layers side by side, so the page's rows are standardised once and go through one
    product for all the nets; ``b_in`` is (nets * hidden,); every other array has the nets first:
    ``convs`` holds ``(taps (nets, hidden, 3 * hidden), bias (nets, hidden), dilation)`` per
    layer, ``w_page`` is (nets, 2 * hidden, hidden), ``b_page``, ``w_block`` and ``w_pooled`` are
    (nets, hidden) and ``b_out`` (nets,), all float32 in C order.

    Each net's channels are then kept apart, (nets, rows, hidden), so that its convolutions are
    the products one net alone would make (one matmul call for all the nets) and its logits are
    those of the net run by itself, give or take the float32 rounding of the wider first product.
    """
    if x.ndim != 2 or x.shape[1] < columns:
        raise ValueError(f"feature rows of shape {x.shape} do not have the net's {columns} columns")
    n = x.shape[0]
    nets = b_out.shape[0]
    hidden = b_page.shape[1] if b_page.ndim == 2 else -1
    if (
        nets < 1
        or b_out.shape != (nets,)
        or b_page.shape != (nets, hidden)
        or b_in.shape != (nets * hidden,)
        or mean.shape != (columns,)
        or inverse_scale.shape != (columns,)
        or w_in.shape != (columns, nets * hidden)
        or w_page.shape != (nets, 2 * hidden, hidden)
        or w_block.shape != (nets, hidden)
        or w_pooled.shape != (nets, hidden)
        or any(
            t.shape != (nets, hidden, 3 * hidden) or b.shape != (nets, hidden) or d < 1
            for t, b, d in convs
        )
    ):
        raise ValueError(f"the net's arrays do not fit together for {hidden} hidden channels")
    if n == 0:
        return np.zeros((nets, 0))
    x = np.ascontiguousarray(x, dtype=np.float64)  # no copy for `page_features`' rows
    z = np.empty((n, columns), dtype=np.float32)
    _standardise(x, mean, inverse_scale, clip, z)
    wide = np.empty((n, nets * hidden), dtype=np.float32)
    np.dot(z, w_in, out=wide)
    h = np.empty((nets, n, hidden), dtype=np.float32)
    _bias_relu(wide, b_in, h)
    if convs:
        p = np.empty((nets, n, 3 * hidden), dtype=np.float32)
        for taps, bias, d in convs:
            np.matmul(h, taps, out=p)
            # A dilation past the page's end reaches no block, as one of the page's length
            # does; capped, `t + d` cannot overflow.
            _conv_sums(h, bias, min(d, n), p)
    logit = np.empty((nets, n), dtype=np.float32)
    for k in range(nets):
        # One matrix-vector product per net, as a net alone makes it (a batched matmul with a
        # column of weights takes another BLAS routine and rounds otherwise).
        np.dot(h[k], w_block[k], out=logit[k])
    out = np.empty((nets, n), dtype=np.float64)
    _heads(h, w_page, b_page, w_pooled, b_out, logit, np.empty(3 * hidden, np.float32), out)
    return out


def _standardise(x, mean, inverse_scale, clip, z) -> None:
    """z = clip((x[:, :columns] - mean) * inverse_scale, -clip, clip)."""
    n = z.shape[0]
    columns = z.shape[1]
    low = -clip
    for t in range(n):
        for c in range(columns):
            # Rounded to float32 first, as numpy's path casts x before standardising it.
            v = x[t, c]
            v = (v - mean[c]) * inverse_scale[c]
            # Two tests, not if/elif: each compiles to a vector max or min.
            if v < low:
                v = low
            if v > clip:
                v = clip
            z[t, c] = v


def _bias_relu(wide, bias, h) -> None:
    """h[k, t] = relu(wide[t, k * hidden : (k + 1) * hidden] + bias[same]): the input layer's
    output of every net, moved to the net's own rows on the way."""
    nets = h.shape[0]
    n = h.shape[1]
    hidden = h.shape[2]
    for t in range(n):
        for k in range(nets):
            base = k * hidden
            for o in range(hidden):
                v = wide[t, base + o] + bias[base + o]
                if v < 0.0:
                    v = 0.0
                h[k, t, o] = v


def _conv_sums(h, bias, d, p) -> None:
    """h[k] += relu(p[k, t, H:2H] + bias[k] + p[k, t - d, :H] + p[k, t + d, 2H:]) where p[k] =
    h[k] @ taps[k] holds every block's three products (of the old h), with no term beyond the
    page's ends; summed in the order numpy's path adds them. Only p is read, so h is updated as
    it goes."""
    nets = h.shape[0]
    n = h.shape[1]
    hidden = h.shape[2]
    for k in range(nets):
        for t in range(n):
            # Tested once per block: the compiler makes one vectorised copy of the inner loop
            # per case. (Inlined into a larger function, gcc 12 left this loop scalar: 1.6x
            # slower.)
            left = t >= d
            right = t + d < n
            for o in range(hidden):
                v = p[k, t, hidden + o] + bias[k, o]
                if left:
                    v += p[k, t - d, o]
                if right:
                    v += p[k, t + d, 2 * hidden + o]
                if v < 0.0:
                    v = 0.0
                h[k, t, o] += v


def _heads(h, w_page, b_page, w_pooled, b_out, logit, pooled, out) -> None:
    """out[k] = logit[k] + page . w_pooled[k] + b_out[k], where page = relu([mean, max] over
    the blocks of h[k] @ w_page[k] + b_page[k]): in float32, widened to float64 for the last
    sum, as numpy's path."""
    nets = h.shape[0]
    n = h.shape[1]
    hidden = h.shape[2]
    for k in range(nets):
        for o in range(hidden):
            pooled[o] = 0.0
            pooled[hidden + o] = h[k, 0, o]
        for t in range(n):
            for o in range(hidden):
                v = h[k, t, o]
                pooled[o] += v
                top = pooled[hidden + o]
                if v > top:
                    top = v
                pooled[hidden + o] = top
        blocks = n  # float32, as numpy divides the float32 sums by the count
        for o in range(hidden):
            pooled[o] = pooled[o] / blocks
        # The page vector goes in the last `hidden` floats (a 64 x 32 product: a loop costs
        # less than one more call into numpy).
        page = 2 * hidden
        for o in range(hidden):
            pooled[page + o] = 0.0
        for i in range(2 * hidden):
            a = pooled[i]
            for o in range(hidden):
                pooled[page + o] += a * w_page[k, i, o]
        shared = 0.0
        for o in range(hidden):
            v = pooled[page + o] + b_page[k, o]
            if v < 0.0:
                v = 0.0
            shared += v * w_pooled[k, o]
        shared += b_out[k]  # float32, as numpy adds the Python float to its float32 scalar
        wide = shared
        for t in range(n):
            out[k, t] = logit[k, t]
            out[k, t] += wide  # in float64, as numpy's path adds after widening
