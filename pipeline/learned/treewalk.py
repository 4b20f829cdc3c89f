# cython: boundscheck=False, wraparound=False
"""Boosted-tree scoring by walking each (row, tree) pair down to its leaf.

This module is compiled with Cython when the install can (see hatch_build.py and
treewalk.pxd): compiled, a walk is a few machine instructions per level, so a page of a few
hundred blocks through a few hundred trees costs a fraction of a millisecond. Uncompiled, the
same loops run in the interpreter at several hundred times that cost, so `pipeline.learned`
uses this module only when it is compiled and otherwise evaluates the trees level by level with
numpy (identical decisions; sums may differ in the last bit from the order of addition).

(The first line is a Cython directive, read only when compiling.)
"""

from __future__ import annotations

import numpy as np

from pipeline.compiled import check_fresh

check_fresh(__name__, __file__)


def ensemble_raw(
    x: np.ndarray,
    feature: np.ndarray,
    threshold: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    value: np.ndarray,
    roots: np.ndarray,
    baseline: float,
    depth: int,
) -> np.ndarray:
    """The raw score (baseline + sum of leaf values) of every row of ``x`` (float64, C order).

    The tree arrays are flat over all trees: node ``k`` tests ``x[row, feature[k]] <=
    threshold[k]`` (left when true, so NaN goes right, as in the numpy path) and a leaf is a node
    whose ``left`` and ``right`` are itself; ``roots`` holds each tree's first node and ``depth``
    is the deepest leaf's depth. Every walk takes exactly ``depth`` steps (a leaf reached early
    steps onto itself): a fixed trip count and a branch-free select are several times faster
    than stopping at each leaf, whose timing the processor cannot predict.

    Compiled, array reads are not bounds-checked (that is most of the speed), so the node arrays
    must be well formed: `pipeline.learned` checks at load time that every child index is in
    range and after its parent (so every walk ends at a leaf). The row width is checked here.
    """
    if x.ndim != 2 or (feature.size and int(feature.max()) >= x.shape[1]):
        raise ValueError("feature matrix is narrower than the trees' feature indices")
    n = x.shape[0]
    out = np.empty(n, dtype=np.float64)
    _walk(x, feature, threshold, left, right, value, roots, baseline, depth, out)
    return out


def _walk(x, feature, threshold, left, right, value, roots, baseline, depth, out) -> None:
    n = x.shape[0]
    trees = roots.shape[0]
    for i in range(n):
        out[i] = baseline
    for t in range(trees):
        for i in range(n):
            node = roots[t]
            for _ in range(depth):
                go_left = x[i, feature[node]] <= threshold[node]
                node = right[node] + go_left * (left[node] - right[node])
            out[i] += value[node]


def complete_raw(
    x: np.ndarray,
    feature: np.ndarray,
    threshold: np.ndarray,
    leaves: np.ndarray,
    baseline: float,
    depth: int,
) -> np.ndarray:
    """`ensemble_raw` over trees laid out as complete binary trees of ``depth``: tree ``t``'s
    internal node ``k`` (0 the root, ``2k + 1`` and ``2k + 2`` its children) is at ``t * (2 **
    depth - 1) + k`` in ``feature`` and ``threshold``, and its leaves are ``leaves[t * 2 **
    depth :][: 2 ** depth]`` in order (`pipeline.learned.model` builds the layout from the node
    arrays, repeating a leaf that is reached early under every path below it). A child's index
    is computed, not read, which leaves two array reads per level instead of four.

    The leaf a row reaches is the one the node arrays lead it to, and every row adds its leaves
    in tree order, so the sums equal `ensemble_raw`'s to the bit. As there, the arrays are not
    bounds-checked when compiled: their lengths are checked here."""
    internal = (1 << depth) - 1
    trees = leaves.shape[0] >> depth if depth >= 0 else -1
    if (
        depth < 1
        or leaves.ndim != 1
        or trees < 1
        or leaves.shape[0] != trees << depth
        or feature.shape != (trees * internal,)
        or threshold.shape != (trees * internal,)
    ):
        raise ValueError(f"complete trees of depth {depth} do not fit these node arrays")
    if x.ndim != 2 or int(feature.max()) >= x.shape[1]:
        raise ValueError("feature matrix is narrower than the trees' feature indices")
    n = x.shape[0]
    out = np.empty(n, dtype=np.float64)
    _walk_complete(x, feature, threshold, leaves, trees, baseline, depth, out)
    return out


def _walk_complete(x, feature, threshold, leaves, trees, baseline, depth, out) -> None:
    n = x.shape[0]
    internal = (1 << depth) - 1
    # Row by row, every tree for a row (the flat walk goes tree by tree): the row's features
    # stay in the first-level cache, and the trees' arrays, a few tens of kB, in the second.
    # Measured 0.62x the flat walk's time against 0.70x tree by tree (wcxb-dev, shipped trees).
    # Eight rows go down each tree side by side: a walk's next level waits on the load its
    # last one chose, and eight independent walks overlap those waits (0.7x the time of one row
    # at a time on wcxb-dev, shipped trees). Each row still adds its leaves in tree order, so
    # its sum is the one-row walk's to the bit.
    i = 0
    while i + 8 <= n:
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = baseline
        for t in range(trees):
            base = t * internal
            a = b = c = d = e = f = g = h = 0
            for _ in range(depth):
                # NaN compares false and goes right, as in `ensemble_raw`.
                a = 2 * a + 1 + (not (x[i, feature[base + a]] <= threshold[base + a]))
                b = 2 * b + 1 + (not (x[i + 1, feature[base + b]] <= threshold[base + b]))
                c = 2 * c + 1 + (not (x[i + 2, feature[base + c]] <= threshold[base + c]))
                d = 2 * d + 1 + (not (x[i + 3, feature[base + d]] <= threshold[base + d]))
                e = 2 * e + 1 + (not (x[i + 4, feature[base + e]] <= threshold[base + e]))
                f = 2 * f + 1 + (not (x[i + 5, feature[base + f]] <= threshold[base + f]))
                g = 2 * g + 1 + (not (x[i + 6, feature[base + g]] <= threshold[base + g]))
                h = 2 * h + 1 + (not (x[i + 7, feature[base + h]] <= threshold[base + h]))
            leaf = (t << depth) - internal
            s0 += leaves[leaf + a]
            s1 += leaves[leaf + b]
            s2 += leaves[leaf + c]
            s3 += leaves[leaf + d]
            s4 += leaves[leaf + e]
            s5 += leaves[leaf + f]
            s6 += leaves[leaf + g]
            s7 += leaves[leaf + h]
        out[i] = s0
        out[i + 1] = s1
        out[i + 2] = s2
        out[i + 3] = s3
        out[i + 4] = s4
        out[i + 5] = s5
        out[i + 6] = s6
        out[i + 7] = s7
        i += 8
    while i < n:  # the last rows, one at a time
        total = baseline
        for t in range(trees):
            base = t * internal
            node = 0
            for _ in range(depth):
                go_right = not (x[i, feature[base + node]] <= threshold[base + node])
                node = 2 * node + 1 + go_right
            total += leaves[(t << depth) + node - internal]
        out[i] = total
        i += 1
