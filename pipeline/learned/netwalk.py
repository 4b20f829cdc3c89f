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
    """Content logit (float64) of every row of ``x``; the other arguments are `ConvNet`'s
    fields (float32 arrays in C order; ``convs`` holds ``(taps, bias, dilation)`` per layer).

    Compiled, array reads are not bounds-checked (that is much of the speed), so every shape
    is checked here first: a mismatch raises ValueError instead of reading past an array.
    Only the first ``columns`` columns of ``x`` are read, and ``x`` is never written.
    """
    if x.ndim != 2 or x.shape[1] < columns:
        raise ValueError(f"feature rows of shape {x.shape} do not have the net's {columns} columns")
    n = x.shape[0]
    hidden = b_in.shape[0]
    if (
        b_in.shape != (hidden,)
        or mean.shape != (columns,)
        or inverse_scale.shape != (columns,)
        or w_in.shape != (columns, hidden)
        or w_page.shape != (2 * hidden, hidden)
        or b_page.shape != (hidden,)
        or w_block.shape != (hidden,)
        or w_pooled.shape != (hidden,)
        or any(
            t.shape != (hidden, 3 * hidden) or b.shape != (hidden,) or d < 1 for t, b, d in convs
        )
    ):
        raise ValueError(f"the net's arrays do not fit together for {hidden} hidden channels")
    if n == 0:
        return np.zeros(0)
    x = np.ascontiguousarray(x, dtype=np.float64)  # no copy for `page_features`' rows
    z = np.empty((n, columns), dtype=np.float32)
    h = np.empty((n, hidden), dtype=np.float32)
    _standardise(x, mean, inverse_scale, clip, z)
    np.dot(z, w_in, out=h)
    _bias_relu(h, b_in)
    if convs:
        p = np.empty((n, 3 * hidden), dtype=np.float32)
        for taps, bias, d in convs:
            np.dot(h, taps, out=p)
            # A dilation past the page's end reaches no block, as one of the page's length
            # does; capped, `t + d` cannot overflow.
            _conv_sums(h, bias, min(d, n), p)
    logit = np.empty(n, dtype=np.float32)
    np.dot(h, w_block, out=logit)
    out = np.empty(n, dtype=np.float64)
    _head(h, w_page, b_page, w_pooled, b_out, logit, np.empty(3 * hidden, np.float32), out)
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


def _bias_relu(h, bias) -> None:
    """h = relu(h + bias)."""
    n = h.shape[0]
    hidden = h.shape[1]
    for t in range(n):
        for o in range(hidden):
            v = h[t, o] + bias[o]
            if v < 0.0:
                v = 0.0
            h[t, o] = v


def _conv_sums(h, bias, d, p) -> None:
    """h += relu(p[t, H:2H] + bias + p[t - d, :H] + p[t + d, 2H:]) where p = h @ taps holds
    every block's three products (of the old h), with no term beyond the page's ends; summed in
    the order numpy's path adds them. Only p is read, so h is updated as it goes."""
    n = h.shape[0]
    hidden = h.shape[1]
    for t in range(n):
        # Tested once per block: the compiler makes one vectorised copy of the inner loop per
        # case. (Inlined into a larger function, gcc 12 left this loop scalar: 1.6x slower.)
        left = t >= d
        right = t + d < n
        for o in range(hidden):
            v = p[t, hidden + o] + bias[o]
            if left:
                v += p[t - d, o]
            if right:
                v += p[t + d, 2 * hidden + o]
            if v < 0.0:
                v = 0.0
            h[t, o] += v


def _head(h, w_page, b_page, w_pooled, b_out, logit, pooled, out) -> None:
    """out = logit + page . w_pooled + b_out, where page = relu([mean, max] over the blocks @
    w_page + b_page): in float32, widened to float64 for the last sum, as numpy's path."""
    n = h.shape[0]
    hidden = h.shape[1]
    for o in range(hidden):
        pooled[o] = 0.0
        pooled[hidden + o] = h[0, o]
    for t in range(n):
        for o in range(hidden):
            v = h[t, o]
            pooled[o] += v
            top = pooled[hidden + o]
            if v > top:
                top = v
            pooled[hidden + o] = top
    blocks = n  # float32, as numpy divides the float32 sums by the count
    for o in range(hidden):
        pooled[o] = pooled[o] / blocks
    # The page vector goes in the last `hidden` floats (a 64 x 32 product: a loop costs less
    # than one more call into numpy).
    page = 2 * hidden
    for o in range(hidden):
        pooled[page + o] = 0.0
    for i in range(2 * hidden):
        a = pooled[i]
        for o in range(hidden):
            pooled[page + o] += a * w_page[i, o]
    shared = 0.0
    for o in range(hidden):
        v = pooled[page + o] + b_page[o]
        if v < 0.0:
            v = 0.0
        shared += v * w_pooled[o]
    shared += b_out  # float32: numpy adds the Python float to its float32 scalar as float32
    wide = shared
    for t in range(n):
        out[t] = logit[t]
        out[t] += wide  # in float64, as numpy's path adds after widening
