"""Density cleaners on hand-built blocks: each rule and its threshold."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.cleaners.density import (
    FixedDensityCleaner,
    MeanDensityCleaner,
    StddevDensityCleaner,
    population_stddev,
    smoothed_density,
)
from pipeline.types import Block, Verdict


def block(chars: int, markup: int, index: int = 0) -> Block:
    text = "x" * chars
    return Block(index, text, "p", "body.p", "p", False, chars, 1 if chars else 0, 0, 1, markup)


def verdicts(labeled: list) -> list[bool]:
    return [lb.verdict is Verdict.GOOD for lb in labeled]


def test_fixed_threshold_is_strict() -> None:
    blocks = [block(60, 40), block(50, 50), block(40, 60), block(0, 10)]  # 0.6, 0.5, 0.4, 0
    assert verdicts(FixedDensityCleaner().label(blocks, None)) == [True, False, False, False]
    assert verdicts(FixedDensityCleaner(threshold=0.45).label(blocks, None)) == [
        True,
        True,
        False,
        False,
    ]


def test_fixed_records_density_as_score_and_params() -> None:
    (lb,) = FixedDensityCleaner().label([block(30, 10)], frozenset({"the"}))
    assert lb.score == pytest.approx(0.75)
    assert FixedDensityCleaner(threshold=0.3).params() == {"threshold": 0.3}


@pytest.mark.parametrize("bad", [-0.1, 1.0, 2])
def test_fixed_rejects_out_of_range_threshold(bad: float) -> None:
    with pytest.raises(ValueError, match="threshold"):
        FixedDensityCleaner(threshold=bad)


def test_unknown_params_are_rejected() -> None:
    with pytest.raises(TypeError):
        FixedDensityCleaner(treshold=0.5)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        MeanDensityCleaner(threshold=0.5)  # type: ignore[call-arg]


def test_mean_uses_the_pages_own_mean() -> None:
    # densities 0.9, 0.3, 0.3, 0.3: mean 0.45, so only the first passes.
    blocks = [block(90, 10), block(30, 70), block(30, 70), block(30, 70)]
    assert verdicts(MeanDensityCleaner().label(blocks, None)) == [True, False, False, False]
    # The same 0.3 blocks on a page of even sparser blocks are above that page's mean.
    sparse = [block(30, 70), block(10, 90), block(10, 90)]
    assert verdicts(MeanDensityCleaner().label(sparse, None)) == [True, False, False]


def test_mean_on_uniform_page_keeps_nothing_and_empty_page_is_fine() -> None:
    # Nothing is strictly above the mean when all blocks are equal.
    assert verdicts(MeanDensityCleaner().label([block(50, 50)] * 3, None)) == [False] * 3
    assert MeanDensityCleaner().label([], None) == []


def test_smoothed_density() -> None:
    assert smoothed_density(block(0, 0)) == 1.0
    assert smoothed_density(block(9, 10)) == pytest.approx(0.5)


def test_stddev_threshold_and_min_chars() -> None:
    blocks = [block(200, 20), block(60, 600), block(59, 0), block(70, 90)]
    densities = [smoothed_density(b) for b in blocks]
    threshold = 0.5 - statistics.pstdev(densities)
    cleaner = StddevDensityCleaner()
    assert cleaner.threshold(densities) == pytest.approx(threshold)
    expected = [d > threshold and b.n_chars >= 60 for b, d in zip(blocks, densities, strict=True)]
    assert verdicts(cleaner.label(blocks, None)) == expected
    # The 59-character block is dense but too short; the others fall either side of 0.5 − σ.
    assert expected == [True, False, False, True]


def test_stddev_params_validated() -> None:
    assert StddevDensityCleaner(base=0.4, min_chars=10).params() == {"base": 0.4, "min_chars": 10}
    with pytest.raises(ValueError, match="min_chars"):
        StddevDensityCleaner(min_chars=-1)
    with pytest.raises(ValueError, match="min_chars"):
        StddevDensityCleaner(min_chars=1.5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1), max_size=30))
def test_population_stddev_matches_statistics(values: list[float]) -> None:
    expected = statistics.pstdev(values) if values else 0.0
    assert population_stddev(values) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 500), st.integers(0, 500)), min_size=1, max_size=25))
def test_every_cleaner_labels_every_block_once(sizes: list[tuple[int, int]]) -> None:
    blocks = [block(c, m, i) for i, (c, m) in enumerate(sizes)]
    for cleaner in (FixedDensityCleaner(), MeanDensityCleaner(), StddevDensityCleaner()):
        labeled = cleaner.label(blocks, None)
        assert [lb.block for lb in labeled] == blocks
        # A block without text is never kept.
        assert all(lb.verdict is Verdict.BAD for lb in labeled if lb.block.n_chars == 0)
