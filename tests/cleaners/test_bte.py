"""BTE: the maximal token-minus-tag stretch, and block labels derived from it."""

from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.cleaners.bte import BteCleaner, max_stretch
from pipeline.cleaners.registry import make_cleaner
from pipeline.evaluate.metrics import text_f1
from pipeline.html.decode import decode_html
from pipeline.html.segment import segment
from pipeline.types import Block, Verdict


def brute_force(runs: list[int]) -> tuple[int, int, int]:
    """Every non-empty stretch; the documented tie-break is the smallest (start, end)."""
    best: tuple[int, int, int] | None = None
    for i in range(len(runs)):
        for j in range(i + 1, len(runs) + 1):
            score = sum(runs[i:j])
            if best is None or score > best[2]:
                best = (i, j, score)
    if best is None or best[2] <= 0:
        return (0, 0, 0)
    return best


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        ([], (0, 0, 0)),
        ([-3, -1], (0, 0, 0)),
        ([5], (0, 1, 5)),
        ([3, -1, 4], (0, 3, 6)),
        ([-2, 5, -10, 3], (1, 2, 5)),
        ([2, -5, 1, -1, 9, -20, 4], (2, 5, 9)),
        # Ties: the earliest start, then the shortest stretch from it.
        ([2, -2, 2], (0, 1, 2)),
        ([1, -1, 1, -1], (0, 1, 1)),
        ([-1, 3, -3, 3], (1, 2, 3)),
        # A zero-sum prefix starts earlier, so it is taken.
        ([0, 3], (0, 2, 3)),
    ],
)
def test_max_stretch_hand_built(runs: list[int], expected: tuple[int, int, int]) -> None:
    assert max_stretch(runs) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=-6, max_value=6), max_size=14))
def test_max_stretch_matches_brute_force(runs: list[int]) -> None:
    start, end, score = max_stretch(runs)
    assert (start, end, score) == brute_force(runs)
    assert score == sum(runs[start:end])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=-50, max_value=50), max_size=40))
def test_max_stretch_is_maximal(runs: list[int]) -> None:
    _, _, score = max_stretch(runs)
    for i in range(len(runs)):
        for j in range(i + 1, len(runs) + 1):
            assert sum(runs[i:j]) <= score


def _block(index: int, runs: tuple[int, ...], text: str | None = None) -> Block:
    words = sum(r for r in runs if r > 0)
    text = text if text is not None else " ".join(["w"] * words)
    tags = -sum(r for r in runs if r < 0)
    return Block(index, text, "p", "html.body.p", "p", False, len(text), words, 0, tags, 0, runs)


def test_label_uses_the_stretch_across_blocks() -> None:
    blocks = [
        _block(0, (-3, 1, -2)),  # navigation: one word among many tags
        _block(1, (-1, 20, -2)),
        _block(2, (-1, 15, -1)),
        _block(3, (-4, 2, -6, 1, -3)),  # footer
    ]
    labeled = BteCleaner().label(blocks, None)
    assert [lb.verdict for lb in labeled] == [Verdict.BAD, Verdict.GOOD, Verdict.GOOD, Verdict.BAD]
    assert [lb.score for lb in labeled] == [0.0, 1.0, 1.0, 0.0]
    assert all(lb.cf_class is None for lb in labeled)


def test_block_cut_by_the_stretch_goes_by_majority() -> None:
    # The stretch is the 6 tokens + 2 tokens at the end of block 0 and the 10 of block 1; the
    # 3 tokens before the heavy tag run are outside. Block 0 has 8 of 11 tokens inside.
    blocks = [_block(0, (3, -9, 6, -1, 2)), _block(1, (-1, 10))]
    labeled = BteCleaner().label(blocks, None)
    assert labeled[0].score == pytest.approx(8 / 11)
    assert labeled[0].verdict is Verdict.GOOD
    strict = BteCleaner(min_fraction=0.75).label(blocks, None)
    assert strict[0].verdict is Verdict.BAD
    assert strict[1].verdict is Verdict.GOOD


def test_tag_weight_changes_the_stretch() -> None:
    # Two text runs separated by 6 tags: at full weight the gap costs more than the 5 tokens
    # beyond it gain; at half weight it costs 3, so the second run is taken too.
    blocks = [_block(0, (-1, 10, -1)), _block(1, (-6, 5, -1))]
    assert BteCleaner(tag_weight=1.0).label(blocks, None)[1].verdict is Verdict.BAD
    assert BteCleaner(tag_weight=0.5).label(blocks, None)[1].verdict is Verdict.GOOD


def test_block_without_tokens_is_bad() -> None:
    blocks = [_block(0, (-2,), text="·"), _block(1, (5,))]
    labeled = BteCleaner().label(blocks, None)
    assert labeled[0].verdict is Verdict.BAD
    assert labeled[1].verdict is Verdict.GOOD


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(min_value=-8, max_value=8).filter(bool), max_size=6).map(tuple),
        max_size=12,
    )
)
def test_every_block_gets_exactly_one_verdict(per_block: list[tuple[int, ...]]) -> None:
    blocks = [_block(i, runs) for i, runs in enumerate(per_block)]
    labeled = BteCleaner().label(blocks, None)
    assert len(labeled) == len(blocks)
    for lb, block in zip(labeled, blocks, strict=True):
        assert lb.block is block
        assert lb.verdict in (Verdict.GOOD, Verdict.BAD)
        assert lb.score is not None and 0.0 <= lb.score <= 1.0
    # Good blocks are exactly those with a majority of their tokens in the one stretch, so they
    # form one contiguous range of the blocks that have tokens.
    with_tokens = [lb for lb in labeled if lb.block.n_words]
    good = [i for i, lb in enumerate(with_tokens) if lb.verdict is Verdict.GOOD]
    if good:
        assert good == list(range(good[0], good[-1] + 1))


def test_blocks_without_runs_are_refused() -> None:
    block = _block(0, (3,))._replace(runs=None)
    with pytest.raises(ValueError, match="record_runs"):
        BteCleaner().label([block], None)


def test_a_block_without_runs_among_blocks_with_them_is_one_run_of_its_words() -> None:
    # Its tags are unknown, so none are charged: its words alone carry it into the stretch.
    blocks = [
        _block(0, (-6, 1, -6)),
        _block(1, (20,))._replace(runs=None),
        _block(2, (-1, 15, -1)),
        _block(3, (-6, 1, -6)),
    ]
    labeled = BteCleaner().label(blocks, None)
    assert [lb.verdict for lb in labeled] == [Verdict.BAD, Verdict.GOOD, Verdict.GOOD, Verdict.BAD]


@pytest.mark.parametrize(
    "params",
    [
        {"tag_weight": -1},
        {"tag_weight": "abc"},
        {"tag_weight": True},  # a bool is an int to Python, but no weight
        {"min_fraction": 1.0},
        {"min_fraction": -0.1},
        {"alpha": 2},
    ],
)
def test_bad_params_raise(params: dict[str, float]) -> None:
    with pytest.raises((TypeError, ValueError)):
        make_cleaner("bte", **params)


def test_params_at_their_bounds_are_accepted() -> None:
    # Free tags: every token of the page is in one stretch.
    free = make_cleaner("bte", tag_weight=0)
    blocks = [_block(0, (-1, 3, -9)), _block(1, (-50, 2, -1))]
    assert [lb.verdict for lb in free.label(blocks, None)] == [Verdict.GOOD, Verdict.GOOD]
    # No share required: still a share above it, so a block wholly outside the stretch is bad.
    anyshare = make_cleaner("bte", min_fraction=0.0)
    blocks = [_block(0, (10,)), _block(1, (-100, 1))]
    assert [lb.verdict for lb in anyshare.label(blocks, None)] == [Verdict.GOOD, Verdict.BAD]


def test_a_one_token_run_is_a_whole_token() -> None:
    # One word between single tags: each word is worth 1 against a tag's 0.75, so the stretch
    # runs over all three blocks (3 - 1.5 = 1.5 beats any one word).
    blocks = [_block(0, (1,)), _block(1, (-1, 1)), _block(2, (-1, 1))]
    labeled = BteCleaner().label(blocks, None)
    assert [lb.verdict for lb in labeled] == [Verdict.GOOD] * 3


def test_registered_with_defaults() -> None:
    cleaner = make_cleaner("bte")
    assert cleaner.name == "bte"
    assert cleaner.params() == {"tag_weight": 0.75, "min_fraction": 0.5}
    assert getattr(cleaner, "needs_runs", False) is True
    assert make_cleaner("bte", tag_weight=1).params() == {"tag_weight": 1.0, "min_fraction": 0.5}


NAV = "".join(
    f'<li><a href="/s{i}"><span class="i"></span><b>Section {i}</b></a></li>' for i in range(12)
)
ARTICLE = "".join(
    f"<p>Paragraph {i} of the story tells at some length what happened in the town that "
    f"year, who was there and why it mattered to the people who lived nearby.</p>"
    for i in range(6)
)
FOOTER = "".join(
    f'<div class="c"><a href="/f{i}"><img src="x.png"><span>Link {i}</span></a></div>'
    for i in range(8)
)
PAGE = (
    f"<html><head><title>T</title><script>var a = 'x y z w';</script></head><body>"
    f"<nav><ul>{NAV}</ul></nav><article><h1>The headline of the story</h1>{ARTICLE}</article>"
    f"<footer>{FOOTER}<p>Copyright</p></footer></body></html>"
)


def test_built_page_keeps_the_article_and_drops_navigation_and_footer() -> None:
    labeled = BteCleaner().label(segment(PAGE, record_runs=True), None)
    good = [lb.block.text for lb in labeled if lb.verdict is Verdict.GOOD]
    bad = [lb.block.text for lb in labeled if lb.verdict is Verdict.BAD]
    assert sum("Paragraph" in t for t in good) == 6
    assert not any("Section" in t or "Link" in t or "Copyright" in t for t in good)
    assert any("Section 3" in t for t in bad) and any("Link 5" in t for t in bad)


def test_clean_html_runs_bte() -> None:
    from pipeline.clean import clean_html

    result = clean_html(PAGE.encode(), cleaner="bte", language="en")
    assert result.cleaner == "bte"
    assert dict(result.params) == {"tag_weight": 0.75, "min_fraction": 0.5}
    assert "Paragraph 5 of the story" in result.text
    assert "Section" not in result.text


@pytest.mark.shared
def test_bte_quality_on_a_wcxb_sample(wcxb_dir: Path) -> None:
    """A regression guard on every 20th dev page; the full-set figure is measured in bench/."""
    pages = sorted((wcxb_dir / "html").glob("*.html.gz"))[::20]
    scores = []
    cleaner = BteCleaner()
    for page in pages:
        truth = json.loads((wcxb_dir / "ground-truth" / f"{page.name[:-8]}.json").read_text())
        reference = truth["ground_truth"].get("main_content")
        if reference is None:
            continue
        html = decode_html(gzip.decompress(page.read_bytes())).html
        labeled = cleaner.label(segment(html, record_runs=True), None)
        text = "\n\n".join(lb.block.text for lb in labeled if lb.verdict is Verdict.GOOD)
        scores.append(text_f1(text, reference).f1)
    assert len(scores) >= 60
    print(f"BTE word F1 on {len(scores)} sampled wcxb-dev pages: {statistics.mean(scores):.3f}")
    assert statistics.mean(scores) >= 0.72
