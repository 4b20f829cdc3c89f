"""The compiled tree walker (`pipeline.learned.treewalk`) against the numpy evaluation it
replaces."""

from __future__ import annotations

import dataclasses
import gzip
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.compiled import compiled_modules, load_source
from pipeline.html.segment import parse, segment
from pipeline.lang import stoplists
from pipeline.learned import treewalk
from pipeline.learned.columns import N_FEATURES
from pipeline.learned.features import page_features
from pipeline.learned.model import (
    COMPLETE_MAX_DEPTH,
    FORMAT,
    ModelError,
    TreeEnsemble,
    load_model,
    model_from_json,
)


@pytest.fixture(scope="module")
def compiled_walker() -> None:
    if not compiled_modules()["pipeline.learned.treewalk"]:
        if os.environ.get("WARCCLEAN_REQUIRE_COMPILED") == "1":
            pytest.fail(
                "pipeline.learned.treewalk is not compiled but WARCCLEAN_REQUIRE_COMPILED=1"
            )
        pytest.skip(
            "pipeline.learned.treewalk is not compiled here (no C compiler at install time)"
        )


def _numpy(ensemble: TreeEnsemble) -> TreeEnsemble:
    return dataclasses.replace(ensemble, compiled=False)


def _random_trees(rng: np.random.Generator, trees: int, depth: int, width: int) -> dict:
    """Complete trees of ``depth`` in scikit-learn's numbering (children after the parent),
    with some subtrees cut short into leaves, as real boosted trees have."""
    nodes = 2 ** (depth + 1) - 1
    feature = np.zeros((trees, nodes), dtype=int)
    threshold = np.zeros((trees, nodes))
    left = np.tile(np.arange(nodes), (trees, 1))
    right = left.copy()
    value = np.zeros((trees, nodes))
    for t in range(trees):
        next_free = 1
        stack = [(0, 0)]
        while stack:
            node, level = stack.pop()
            if level == depth or (level > 0 and rng.random() < 0.2):
                value[t, node] = rng.normal()
                continue
            feature[t, node] = rng.integers(width)
            threshold[t, node] = rng.normal()
            left[t, node], right[t, node] = next_free, next_free + 1
            stack += [(next_free, level + 1), (next_free + 1, level + 1)]
            next_free += 2
    return {
        "kind": "trees",
        "baseline": float(rng.normal()),
        "depth": depth,
        "feature": feature.tolist(),
        "threshold": threshold.tolist(),
        "left": left.tolist(),
        "right": right.tolist(),
        "value": value.tolist(),
    }


def _document(spec: dict) -> dict:
    from pipeline.learned.columns import FEATURE_NAMES

    return {
        "format": FORMAT,
        "features": list(FEATURE_NAMES),
        "threshold": 0.5,
        "model": spec,
        "metadata": {},
    }


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), depth=st.integers(1, 6), rows=st.integers(0, 40))
def test_walker_matches_numpy_on_random_trees(
    compiled_walker: None, seed: int, depth: int, rows: int
) -> None:
    rng = np.random.default_rng(seed)
    ensemble = model_from_json(_document(_random_trees(rng, 7, depth, N_FEATURES))).scorer
    assert isinstance(ensemble, TreeEnsemble) and ensemble.compiled
    x = rng.normal(size=(rows, N_FEATURES))
    # Exact ties with thresholds and missing values must go the same way in both.
    x[::3, :] = np.round(x[::3, :], 1)
    x[1::5, 7] = np.nan
    np.testing.assert_allclose(ensemble.raw(x), _numpy(ensemble).raw_numpy(x), rtol=0, atol=1e-12)


def test_walker_matches_numpy_on_the_shipped_model_and_real_pages(
    compiled_walker: None, wcxb_dir: Path
) -> None:
    model = load_model()
    stoplist = stoplists.stoplist("en")
    passes = [model.scorer] + ([model.stacked] if model.stacked is not None else [])
    for path in sorted((wcxb_dir / "html").glob("*.html.gz"))[:60]:
        blocks = segment(parse(gzip.decompress(path.read_bytes())), record_runs=True)
        x = page_features(blocks, stoplist)
        for scorer in passes:
            assert isinstance(scorer, TreeEnsemble)
            width = scorer.feature.max() + 1
            xs = np.hstack((x, np.zeros((x.shape[0], max(0, width - x.shape[1])))))
            np.testing.assert_allclose(scorer.raw(xs), scorer.raw_numpy(xs), atol=1e-12)


def test_walker_rejects_a_matrix_narrower_than_the_trees(compiled_walker: None) -> None:
    ensemble = model_from_json(_document(_random_trees(np.random.default_rng(1), 3, 3, 50))).scorer
    with pytest.raises(ValueError, match="narrower"):
        ensemble.raw(np.zeros((2, 3)))


def _tree_doc(left: list[int], right: list[int]) -> dict:
    n = len(left)
    return _document(
        {
            "kind": "trees",
            "baseline": 0.0,
            "depth": 2,
            "feature": [[0] * n],
            "threshold": [[0.0] * n],
            "left": [left],
            "right": [right],
            "value": [[0.0] * n],
        }
    )


def test_model_with_a_cycle_is_refused() -> None:
    # Node 1 sends its walk back to the root: a walk that never reaches a leaf.
    with pytest.raises(ModelError, match="after their parent"):
        model_from_json(_tree_doc([1, 0, 2], [2, 2, 2]))


def test_model_with_half_a_leaf_is_refused() -> None:
    with pytest.raises(ModelError, match="itself on both sides"):
        model_from_json(_tree_doc([1, 1, 2], [2, 2, 1]))


def _flat(ensemble: TreeEnsemble) -> TreeEnsemble:
    """The ensemble walked from its flat node arrays (`treewalk.ensemble_raw`), as it was
    before the complete layout."""
    flat = dataclasses.replace(ensemble)
    object.__setattr__(flat, "_complete", None)
    return flat


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    depth=st.integers(1, COMPLETE_MAX_DEPTH),
    rows=st.integers(0, 40),
    trees=st.integers(1, 9),
)
def test_complete_layout_walks_to_the_same_leaves(
    compiled_walker: None, seed: int, depth: int, rows: int, trees: int
) -> None:
    rng = np.random.default_rng(seed)
    # Random trees cut short at random: leaves at every level, which the layout repeats below.
    ensemble = model_from_json(_document(_random_trees(rng, trees, depth, N_FEATURES))).scorer
    assert isinstance(ensemble, TreeEnsemble) and ensemble._complete is not None
    x = rng.normal(size=(rows, N_FEATURES))
    x[::3, :] = np.round(x[::3, :], 1)  # ties with thresholds go left
    x[1::5, 7] = np.nan  # and missing values right, as in the flat walk
    x[2::7, :] = np.inf
    got = ensemble.raw(x)
    # Every row adds its trees' leaves in the same order: equal to the bit.
    np.testing.assert_array_equal(got, _flat(ensemble).raw(x))
    np.testing.assert_allclose(got, ensemble.raw_numpy(x), rtol=0, atol=1e-12)


def test_complete_layout_of_the_shipped_trees_on_real_pages(
    compiled_walker: None, wcxb_dir: Path
) -> None:
    trees = load_model().scorer
    assert isinstance(trees, TreeEnsemble) and trees._complete is not None
    stoplist = stoplists.stoplist("en")
    for path in sorted((wcxb_dir / "html").glob("*.html.gz"))[:60]:
        blocks = segment(parse(gzip.decompress(path.read_bytes())), record_runs=True)
        x = page_features(blocks, stoplist)
        np.testing.assert_array_equal(trees.raw(x), _flat(trees).raw(x))


def test_complete_walk_of_a_row_is_the_same_in_a_group_of_eight_and_alone(
    compiled_walker: None,
) -> None:
    """The walker takes eight rows down each tree side by side and the rest one at a time: a
    row's sum must not depend on which way it went, nor on its place in a group."""
    trees = load_model().scorer
    assert isinstance(trees, TreeEnsemble) and trees._complete is not None
    rng = np.random.default_rng(6)
    # Features drawn from the trees' own thresholds, so that rows go down different paths.
    feature, threshold, _ = trees._complete
    x = np.zeros((19, N_FEATURES))
    for i in range(19):
        x[i, feature] = threshold + rng.choice([-1e-3, 0.0, 1e-3], size=threshold.shape)
    whole = trees.raw(x)
    assert len(np.unique(whole)) > 10
    for i in range(19):
        np.testing.assert_array_equal(trees.raw(x[i : i + 1]), whole[i : i + 1])
    for start in range(1, 12):
        np.testing.assert_array_equal(trees.raw(x[start:]), whole[start:])


def test_deep_trees_keep_the_flat_walk(compiled_walker: None) -> None:
    rng = np.random.default_rng(2)
    spec = _random_trees(rng, 2, COMPLETE_MAX_DEPTH + 1, N_FEATURES)
    ensemble = model_from_json(_document(spec)).scorer
    assert isinstance(ensemble, TreeEnsemble) and ensemble._complete is None
    x = rng.normal(size=(12, N_FEATURES))
    np.testing.assert_allclose(ensemble.raw(x), ensemble.raw_numpy(x), rtol=0, atol=1e-12)


def test_complete_walker_refuses_arrays_that_do_not_fit(compiled_walker: None) -> None:
    trees = load_model().scorer
    assert isinstance(trees, TreeEnsemble) and trees._complete is not None
    feature, threshold, leaves = trees._complete
    x = np.zeros((3, N_FEATURES))
    for args in (
        (feature[:-1], threshold, leaves, trees.depth),
        (feature, threshold[:-1], leaves, trees.depth),
        (feature, threshold, leaves[:-1], trees.depth),
        (feature, threshold, leaves, trees.depth + 1),
        (feature, threshold, leaves, 0),
    ):
        f, t, v, depth = args
        with pytest.raises(ValueError, match="do not fit"):
            treewalk.complete_raw(x, f, t, v, trees.baseline, depth)
    with pytest.raises(ValueError, match="narrower"):
        treewalk.complete_raw(x[:, :2], feature, threshold, leaves, trees.baseline, trees.depth)


def test_the_walkers_python_source_walks_the_complete_layout() -> None:
    source = load_source("pipeline.learned.treewalk")
    rng = np.random.default_rng(4)
    ensemble = model_from_json(_document(_random_trees(rng, 5, 3, N_FEATURES))).scorer
    assert isinstance(ensemble, TreeEnsemble) and ensemble._complete is not None
    feature, threshold, leaves = ensemble._complete
    x = rng.normal(size=(9, N_FEATURES))
    x[::4, :] = np.nan
    got = source.complete_raw(x, feature, threshold, leaves, ensemble.baseline, ensemble.depth)
    np.testing.assert_allclose(got, ensemble.raw_numpy(x), rtol=0, atol=1e-12)
