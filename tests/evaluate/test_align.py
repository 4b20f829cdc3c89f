"""Training labels from aligning blocks with a reference text (`pipeline.evaluate.align`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.evaluate.align import align_labels, aligned_fractions, snippet_labels

ARTICLE = [
    "The river carved the valley over thousands of years.",
    "Farmers later turned the terraces into fields and orchards.",
]


def test_content_blocks_match_and_menu_does_not():
    blocks = ["Home News About", *ARTICLE, "Privacy Terms Contact"]
    assert align_labels(blocks, "\n\n".join(ARTICLE)) == [False, True, True, False]


def test_repeated_words_are_matched_once_in_order():
    # The page repeats the title (a menu entry, then the heading); the reference has it once, so
    # only one copy may be labelled content.
    blocks = ["valley apples", "Valley apples", "Valley apples are sweet and crisp in autumn."]
    reference = "Valley apples\n\nValley apples are sweet and crisp in autumn."
    labels = align_labels(blocks, reference)
    assert labels[2] is True
    assert labels[:2].count(True) == 1


def test_reordered_reference_keeps_the_longer_aligned_run():
    # The reference puts the second paragraph first: an order-respecting alignment can keep only
    # one of the two, and it keeps the longer (more tokens in common).
    short = "A short first paragraph here."
    long = "A much longer second paragraph with many more words than the first one has."
    fractions = aligned_fractions([short, long], long + "\n\n" + short)
    assert fractions[1] == pytest.approx(1.0)
    assert fractions[0] < 0.5


def test_partial_match_uses_the_fraction():
    block = "one two three four five six seven eight nine ten"
    assert aligned_fractions([block], "one two three four")[0] == pytest.approx(0.4)
    assert align_labels([block], "one two three four five six") == [True]
    assert align_labels([block], "one two three four five six", min_fraction=0.7) == [False]


def test_empty_blocks_and_empty_reference():
    assert aligned_fractions(["", "  "], "text") == [0.0, 0.0]
    assert align_labels(["some words"], "") == [False]


def test_character_tokens_for_unspaced_languages():
    blocks = ["首页 新闻", "河流在数千年里塑造了山谷。"]
    assert align_labels(blocks, "河流在数千年里塑造了山谷。", language="zh") == [False, True]


def test_min_fraction_is_validated():
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="min_fraction"):
            align_labels(["a"], "a", min_fraction=bad)


def test_snippet_labels():
    blocks = [
        "Menu Home",
        "The river carved the valley over thousands of years.",
        "Copyright 2024",
        "",
    ]
    labels = snippet_labels(blocks, ["carved the valley"], ["copyright 2024"])
    assert labels == [None, True, False, None]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.text(alphabet="abc ", max_size=30), max_size=8),
    st.text(alphabet="abc ", max_size=60),
)
def test_fractions_are_shares(blocks, reference):
    fractions = aligned_fractions(blocks, reference)
    assert len(fractions) == len(blocks)
    assert all(0.0 <= f <= 1.0 for f in fractions)


def test_whole_page_as_reference_labels_everything():
    blocks = ["alpha beta", "gamma delta epsilon", "alpha beta"]
    assert align_labels(blocks, " ".join(blocks)) == [True, True, True]


def test_fractions_are_each_blocks_own_share_of_aligned_tokens():
    blocks = ["Home News About", *ARTICLE, "Privacy Terms Contact"]
    assert aligned_fractions(blocks, "\n\n".join(ARTICLE)) == [0.0, 1.0, 1.0, 0.0]
    assert aligned_fractions(["one two", "three four five six"], "two three four") == [0.5, 0.5]
    # Two aligned runs apart: each marks its own tokens.
    assert aligned_fractions(["a b", "c d e", "f g", "h"], "a b f g") == [1.0, 0.0, 1.0, 0.0]
    # The bound is inclusive, up to 1.0 itself.
    assert align_labels(["one two three four"], "one two", min_fraction=0.5) == [True]
    assert align_labels(["one two", "one two x"], "one two", min_fraction=1.0) == [True, False]


def test_a_block_inside_a_snippet_counts_from_twenty_characters():
    # A snippet may span several blocks: a block of at least 20 characters inside one is in it.
    snippet = "The river carved the valley over thousands of years"
    inside = "carved the valley ov"
    assert len(inside) == 20
    assert snippet_labels([inside, inside[:-1]], [snippet], []) == [True, None]
    assert snippet_labels([inside, inside[:-1]], [], [snippet]) == [False, None]
