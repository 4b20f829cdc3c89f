"""Context for a stacked second pass: what a first model concluded about a block's
surroundings and structural siblings (`pipeline.learned.columns.STACK_FEATURES`).

A model may score every block twice: the second pass sees the block's features plus these
columns, so a page's repeated items and a run of paragraphs come out consistent. Compiled with
Cython when the install can (hatch_build.py, stacked.pxd), like the features: a row loop over
typed views; uncompiled, whole-column numpy, which is faster in the interpreter. Both give the
same columns bit for bit (tests/learned/test_features.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

import numpy as np

from pipeline.compiled import check_fresh, is_compiled_file
from pipeline.learned.columns import STACK_FEATURES, STACK_WINDOWS
from pipeline.learned.features import group_ids, padded_prefix_sums, window_sizes, window_sums
from pipeline.types import Block

check_fresh(__name__, __file__)
_COMPILED = is_compiled_file(__file__)

_STACK_SPANS = np.array(STACK_WINDOWS, dtype=np.int64)
# Three fields only: item getters map a NamedTuple's fields at C speed (a compiled index into a
# tuple subclass goes through the generic protocol, ten times slower), and mapping three costs
# half of transposing all of them.
_DOM_PATH = itemgetter(3)
_STYLE = itemgetter(4)
_N_CHARS = itemgetter(6)


def _stack_groups(
    paths: Sequence[str], styles: Sequence[str], chars: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """What `stack_features` needs of the blocks: the group-mean weight (characters + 1), the
    path id, the distinct paths, the class-string id."""
    path_ids, distinct_paths = group_ids(paths)
    style_ids, _ = group_ids(styles)
    weight = np.array(chars, dtype=np.float64) + 1.0
    return weight, path_ids, distinct_paths, style_ids


def stack_features(blocks: Sequence[Block], probs: np.ndarray) -> np.ndarray:
    """``(len(blocks), len(STACK_FEATURES))`` from first-pass probabilities ``probs``.

    Group means are weighted by characters (+1, so empty blocks count a little): a long
    paragraph says more about its path than an empty wrapper does.
    """
    n = len(blocks)
    out = np.zeros((n, len(STACK_FEATURES)))
    if n == 0:
        return out
    p = np.asarray(probs, dtype=np.float64)
    weight, path_ids, distinct_paths, style_ids = _stack_groups(
        list(map(_DOM_PATH, blocks)), list(map(_STYLE, blocks)), list(map(_N_CHARS, blocks))
    )
    parent_of_path, _ = group_ids([d.rpartition(".")[0] for d in distinct_paths])
    weighted = p * weight
    if _COMPILED:
        _fill_stack_loop(
            out,
            np.ascontiguousarray(p),
            weight,
            weighted,
            path_ids,
            parent_of_path[path_ids],
            style_ids,
            _STACK_SPANS,
        )
        out[:, 11] = p.max()
        out[:, 12] = weighted.sum() / weight.sum()
        return out
    out[:, 0] = p
    out[1:, 1] = p[:-1]
    out[:-1, 2] = p[1:]
    out[2:, 3] = p[:-2]
    out[:-2, 4] = p[2:]
    reach = STACK_WINDOWS[-1]
    sums = padded_prefix_sums(p, reach)
    for k, w in enumerate(STACK_WINDOWS):
        out[:, 5 + k] = window_sums(sums, w, reach, n) / window_sizes(n, w)
    for k, ids in enumerate((path_ids, parent_of_path[path_ids], style_ids)):
        out[:, 8 + k] = (np.bincount(ids, weights=weighted) / np.bincount(ids, weights=weight))[ids]
    out[:, 11] = p.max()
    out[:, 12] = weighted.sum() / weight.sum()
    return out


def _fill_stack_loop(
    out: np.ndarray,
    p: np.ndarray,
    weight: np.ndarray,
    weighted: np.ndarray,
    path_ids: np.ndarray,
    parent_ids: np.ndarray,
    style_ids: np.ndarray,
    spans: np.ndarray,
) -> None:
    """Columns 0-10 of `stack_features` row by row (the compiled module's way): the same
    prefix sums and per-group sums, added in page order as `numpy.cumsum` and
    `numpy.bincount` add them."""
    n = p.shape[0]
    prefix_array = np.empty(n + 1)
    prefix = prefix_array
    prefix[0] = 0.0
    prefix[1] = p[0]
    for j in range(1, n):
        prefix[j + 1] = prefix[j] + p[j]
    # Rows: weighted and plain weight sums of paths, parents, class strings.
    groups_array = np.zeros((6, n))
    groups = groups_array
    for i in range(n):
        groups[0, path_ids[i]] += weighted[i]
        groups[1, path_ids[i]] += weight[i]
        groups[2, parent_ids[i]] += weighted[i]
        groups[3, parent_ids[i]] += weight[i]
        groups[4, style_ids[i]] += weighted[i]
        groups[5, style_ids[i]] += weight[i]
    for i in range(n):
        out[i, 0] = p[i]
        out[i, 1] = p[i - 1] if i >= 1 else 0.0
        out[i, 2] = p[i + 1] if i + 1 < n else 0.0
        out[i, 3] = p[i - 2] if i >= 2 else 0.0
        out[i, 4] = p[i + 2] if i + 2 < n else 0.0
        for m in range(spans.shape[0]):
            w = spans[m]
            low = i - w if i > w else 0
            high = i + w + 1 if i + w + 1 < n else n
            out[i, 5 + m] = (prefix[high] - prefix[low]) / (high - low)
        out[i, 8] = groups[0, path_ids[i]] / groups[1, path_ids[i]]
        out[i, 9] = groups[2, parent_ids[i]] / groups[3, parent_ids[i]]
        out[i, 10] = groups[4, style_ids[i]] / groups[5, style_ids[i]]
