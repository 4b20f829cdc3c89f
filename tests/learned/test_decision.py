"""Which blocks a learned model keeps: the threshold, the fallback of a page with none, the
smoothing over neighbours. Expected values are worked out by hand from the rules in
pipeline/learned/decision.py."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.learned.decision import decide, expected_f1_threshold, smooth


def _keep(probs: list[float], threshold: float | None, **kw: object) -> list[bool]:
    return decide(np.array(probs), threshold, **kw).tolist()  # type: ignore[arg-type]


def test_blocks_at_or_above_the_threshold_are_kept() -> None:
    assert _keep([0.2, 0.5, 0.7], 0.5) == [False, True, True]
    assert _keep([], 0.5) == []


@pytest.mark.parametrize(
    ("probs", "ratio", "kept"),
    [
        ([0.1, 0.3, 0.2], 0.5, [False, True, True]),  # within half of the best, 0.3
        ([0.2, 0.1], 0.5, [True, True]),  # exactly half of the best
        ([0.1, 0.3, 0.2], 1.0, [False, True, False]),  # the best alone
        ([0.1, 0.3, 0.2], 0.0, [False, False, False]),  # no fallback
        ([0.0, 0.0], 0.5, [False, False]),  # no block has any probability
    ],
)
def test_a_page_with_no_block_over_the_threshold_falls_back_to_its_likeliest(
    probs: list[float], ratio: float, kept: list[bool]
) -> None:
    assert _keep(probs, 0.5, fallback_ratio=ratio) == kept


def test_no_fallback_when_a_block_is_kept() -> None:
    assert _keep([0.45, 0.6], 0.5, fallback_ratio=0.5) == [False, True]


def test_repeats_are_dropped_only_when_asked_and_need_the_texts() -> None:
    probs = [0.9, 0.9, 0.9]
    texts = ["Share this", "An article paragraph.", "Share this"]
    assert _keep(probs, 0.5) == [True, True, True]  # no texts needed
    assert _keep(probs, 0.5, texts=texts) == [True, True, True]
    assert _keep(probs, 0.5, texts=texts, drop_repeats=True) == [True, True, False]
    with pytest.raises(ValueError, match="texts"):
        _keep(probs, 0.5, drop_repeats=True)
    with pytest.raises(ValueError, match="texts"):
        _keep(probs, 0.5, texts=texts[:2], drop_repeats=True)


def test_the_expected_f1_threshold_needs_the_sizes() -> None:
    sizes = np.array([1.0, 1.0])
    assert _keep([0.5, 0.45], None, sizes=sizes) == [True, True]
    with pytest.raises(ValueError, match="sizes"):
        _keep([0.5, 0.45], None)
    with pytest.raises(ValueError, match="sizes"):
        _keep([0.5, 0.45], None, sizes=np.array([1.0]))


def test_the_expected_f1_threshold_with_less_than_one_expected_character() -> None:
    # 0.95 characters of content expected in all: both blocks give 2 * 0.95 / (2 + 0.95) = 0.644,
    # the first alone 2 * 0.5 / (1 + 0.95) = 0.513.
    assert expected_f1_threshold(np.array([0.5, 0.45]), np.array([1.0, 1.0])) == 0.45


def test_smoothing_mixes_each_block_with_its_neighbours_mean() -> None:
    probs = np.array([0.0, 1.0, 0.0, 0.4])
    # Half of each block's own, half of the mean of its neighbours'; an edge is its own neighbour.
    assert smooth(probs, 0.5).tolist() == pytest.approx([0.25, 0.5, 0.35, 0.3])
    assert smooth(probs, 1.0).tolist() == pytest.approx([0.5, 0.0, 0.7, 0.2])
    assert smooth(probs, 0.25).tolist() == pytest.approx([0.125, 0.75, 0.175, 0.35])
    # Two blocks are each other's neighbour and their own.
    assert smooth(np.array([0.0, 1.0]), 0.5).tolist() == pytest.approx([0.25, 0.75])


@pytest.mark.parametrize("weight", [0.0, -0.5])
def test_no_smoothing_without_a_positive_weight(weight: float) -> None:
    probs = np.array([0.0, 1.0, 0.0])
    assert smooth(probs, weight) is probs


@pytest.mark.parametrize("probs", [[], [0.7]])
def test_a_page_of_one_block_or_none_is_not_smoothed(probs: list[float]) -> None:
    page = np.array(probs)
    assert smooth(page, 0.5) is page
