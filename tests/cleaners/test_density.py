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
    label_above,
    label_paragraphs,
    mean,
    pal_stage_one,
    pal_threshold,
    population_stddev,
    sample_stddev,
    smoothed_density,
)
from pipeline.cleaners.units import Unit
from pipeline.html.segment import parse
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


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1), max_size=30))
def test_sample_stddev_matches_statistics(values: list[float]) -> None:
    expected = statistics.stdev(values) if len(values) >= 2 else 0.0
    assert sample_stddev(values) == pytest.approx(expected, abs=1e-9)


def test_the_statistics_by_hand() -> None:
    assert mean([]) == 0.0
    assert mean([1.0, 2.0, 6.0]) == 3.0
    # 1, 2, 3, 4: squared deviations sum to 5.
    assert population_stddev([1.0, 2.0, 3.0, 4.0]) == pytest.approx((5 / 4) ** 0.5)
    assert sample_stddev([1.0, 2.0, 3.0, 4.0]) == pytest.approx((5 / 3) ** 0.5)
    assert sample_stddev([0.7]) == 0.0


def test_pal_sigma_counts_only_chunks_of_min_chars_or_more() -> None:
    densities = [0.9, 0.1, 0.5, 0.0]
    lengths = [60, 60, 80, 59]  # the last is one short: it never enters sigma
    expected = 0.5 - statistics.stdev([0.9, 0.1, 0.5])
    assert pal_threshold(densities, lengths, 0.5, 60, paper=True) == pytest.approx(expected)
    # The project's variant: every chunk, divisor n.
    expected = 0.5 - statistics.pstdev(densities)
    assert pal_threshold(densities, lengths, 0.5, 60, paper=False) == pytest.approx(expected)


def test_pal_stage_one_as_published() -> None:
    # Smoothed density (text + 1) / (html + 1); sigma over the chunks of 60 characters or more
    # (divisor n - 1); a chunk is kept when it has 60 characters and its density is above
    # 0.5 - sigma.
    units = [
        Unit("a", 60, 70),  # 61/71, exactly 60 characters: kept
        Unit("b", 59, 59),  # 60/60 = 1, but one character short
        Unit("c", 300, 299),  # 301/300
        Unit("d", 100, 1999),  # 101/2000 = 0.0505
        Unit("e", 120, 139),  # 121/140
        Unit("f", 90, 95),  # 91/96
        Unit("g", 0, 0),  # (0 + 1) / (0 + 1) = 1, no text
    ]
    long = [61 / 71, 301 / 300, 101 / 2000, 121 / 140, 91 / 96]
    bar = 0.5 - statistics.stdev(long)
    assert bar == pytest.approx(0.1071, abs=1e-4)  # between d's density and every other's
    assert pal_stage_one(units) == [True, False, True, False, True, True, False]
    # A lower bar keeps d too; a shorter minimum lets b in.
    assert pal_stage_one(units, base=0.4)[3] is True
    assert pal_stage_one(units, min_chars=59)[1] is True
    # A chunk without text is never kept, however dense its smoothing makes it.
    assert pal_stage_one(units, min_chars=0)[6] is False


@pytest.mark.parametrize(
    ("n_text", "n_html", "kept"),
    [
        (60, 120, True),  # 61/121 = 0.504
        (60, 122, False),  # 61/123 = 0.496
        (60, 121, False),  # 61/122 = 0.5: not above the bar
        (1, 1, True),  # one character, with no minimum length
    ],
)
def test_pal_smoothing_decides_at_the_bar(n_text: int, n_html: int, kept: bool) -> None:
    # Two equal chunks: sigma is 0, so the bar is the base, 0.5, and the smoothed density
    # alone decides.
    units = [Unit("x", n_text, n_html)] * 2
    assert pal_stage_one(units, min_chars=0 if n_text < 60 else 60) == [kept, kept]


def test_label_above_takes_blocks_of_exactly_min_chars() -> None:
    blocks = [block(60, 0, 0), block(59, 0, 1), block(0, 0, 2)]
    labeled = label_above(blocks, [0.9, 0.9, 0.9], 0.5, min_chars=60)
    assert verdicts(labeled) == [True, False, False]
    assert verdicts(label_above(blocks, [0.9, 0.9, 0.9], 0.5)) == [True, True, False]


def test_paragraph_filter_without_the_page_judges_the_blocks() -> None:
    # Density text / (text + markup) of each block, kept strictly above the bar (the mean here:
    # 0.8, 0.5, 0.2 average 0.5).
    blocks = [block(80, 20, 0), block(50, 50, 1), block(20, 80, 2)]
    labeled = label_paragraphs(blocks, None, None)
    assert verdicts(labeled) == [True, False, False]
    assert [lb.score for lb in labeled] == pytest.approx([0.8, 0.5, 0.2])
    assert verdicts(label_paragraphs(blocks, None, 0.5)) == [True, False, False]
    assert verdicts(label_paragraphs(blocks, None, 0.49)) == [True, True, False]


def test_paper_variants_judge_the_articles_paragraphs() -> None:
    prose = "A long paragraph of plain prose that carries very little markup at all. " * 3
    menu = "".join(f'<a href="/section-{i}" class="nav-link item">S{i}</a> ' for i in range(8))
    page = f"<html><body><div>{menu}</div><p>{prose}</p><div>{menu}</div></body></html>"
    tree = parse(page)
    # The blocks' own counts say the opposite of the page (a dense menu, prose under heavy
    # markup), so only a cleaner that reads the page's paragraphs gets them right.
    blocks = [block(10, 0, 0)._replace(text="S0 S1 S2"), block(len(prose), 5000, 1)]
    blocks[1] = blocks[1]._replace(text=prose.strip())
    for cleaner in (FixedDensityCleaner(variant="paper"), MeanDensityCleaner(variant="paper")):
        assert cleaner.needs_tree is True
        assert cleaner.params()["variant"] == "paper"
        labeled = cleaner.label(blocks, None, tree)
        assert verdicts(labeled) == [False, True]
    # The project's variants judge the blocks, page or no page.
    for cleaner in (FixedDensityCleaner(), MeanDensityCleaner()):
        assert cleaner.needs_tree is False
        assert "variant" not in cleaner.params()
        assert verdicts(cleaner.label(blocks, None)) == [True, False]
        assert verdicts(cleaner.label(blocks, None, tree)) == [True, False]
    stddev = StddevDensityCleaner(min_chars=0)
    assert stddev.needs_tree is False
    assert verdicts(stddev.label(blocks, None)) == verdicts(stddev.label(blocks, None, tree))


def test_stddev_paper_lines_score_with_the_smoothed_density() -> None:
    # One source line of prose, one of links: each block gets its line's (text + 1) / (html + 1).
    prose = "Plain prose with hardly any markup on this line of the page source, " * 2
    links = "".join(f'<a href="/a-very-long-link-target-{i}">L{i}</a>' for i in range(12))
    page = f"<html><body>\n<p>{prose}</p>\n<div>{links}</div>\n</body></html>"
    tree = parse(page)
    cleaner = StddevDensityCleaner(variant="paper", min_chars=0)
    assert cleaner.needs_tree is True
    blocks = [block(len(prose), 7, 0)._replace(text=prose.strip())]
    (lb,) = cleaner.label(blocks, None, tree)
    # Pal counts the tags' insides as markup ("p" and "/p"), not their brackets.
    n_text = len(prose.strip())
    assert lb.score == pytest.approx((n_text + 1) / (n_text + 3 + 1))


def test_parameters_at_their_bounds() -> None:
    assert FixedDensityCleaner(threshold=0).threshold == 0.0
    assert StddevDensityCleaner().params() == {"base": 0.5, "min_chars": 60}
    assert StddevDensityCleaner(base=0).base == 0.0
    assert StddevDensityCleaner(base=1).base == 1.0
    assert StddevDensityCleaner(min_chars=0).min_chars == 0
    with pytest.raises(ValueError, match="base"):
        StddevDensityCleaner(base=1.01)
    with pytest.raises(ValueError, match="base"):
        StddevDensityCleaner(base=-0.01)
