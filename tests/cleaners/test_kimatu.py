"""Kimatu's steps, one by one, on hand-built blocks; then the whole cleaner on a made-up page."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.cleaners import kimatu as k
from pipeline.cleaners import lcs
from pipeline.types import Block, Verdict

PROSE = (
    "The council met on Tuesday to discuss the new budget, which had been delayed for months. "
    "Members argued about transport, housing and schools; in the end, a compromise was found."
)


def blk(
    text: str,
    index: int = 0,
    style: str = "p",
    tag: str = "p",
    link_chars: int = 0,
    heading: bool = False,
) -> Block:
    return Block(
        index, text, tag, f"body.{tag}", style, heading, len(text), len(text.split()),
        link_chars, 1, 7,
    )  # fmt: skip


def page(*specs: tuple) -> list[Block]:
    return [blk(*spec[:1], i, *spec[1:]) for i, spec in enumerate(specs)]


# --- step 1: lengths and style groups -------------------------------------------------------


def test_normalized_lengths_divide_by_longest() -> None:
    assert k.normalized_lengths(page(("a" * 50,), ("b" * 200,), ("c" * 100,))) == [0.25, 1, 0.5]
    assert k.normalized_lengths([]) == []


def test_style_groups_by_style_and_proximity() -> None:
    styles = ["p", "p", "li", "p", "li", "p", "p"]
    blocks = [blk("x", i, style=s) for i, s in enumerate(styles)]
    # gap 2: the p at 3 is 2 after the p at 1 (same group); the li at 4 is 2 after the li at 2.
    assert k.style_groups(blocks, group_gap=2) == [0, 0, 1, 0, 1, 0, 0]
    # gap 1: every interruption starts a new group.
    assert k.style_groups(blocks, group_gap=1) == [0, 0, 1, 2, 3, 4, 4]


def test_group_average_lengths() -> None:
    assert k.group_average_lengths([0.2, 0.4, 1.0, 0.6], [0, 0, 1, 0]) == pytest.approx(
        [0.4, 0.4, 1.0, 0.4]
    )


# --- step 2: features and the relevance ratio -------------------------------------------------


def test_punctuation_score() -> None:
    assert k.punctuation_score(PROSE) == 1.0
    assert k.punctuation_score("Home News Sport Weather Contact") == 0.0
    assert k.punctuation_score("") == 0.0
    # One mark in 120 non-space characters: half the prose rate.
    assert k.punctuation_score("a" * 119 + ".") == pytest.approx(0.5)
    assert k.punctuation_score("市议会周二开会讨论新的预算，预算已经推迟了几个月。") == 1.0


def test_relevance_formula() -> None:
    assert k.relevance(1.0, 1.0, 1.0, 0.0) == 1.0
    assert k.relevance(0.4, 0.6, 0.5, 0.1) == pytest.approx(0.5 - 0.5 - 0.1)
    assert k.relevance(0.0, 0.0, 0.0, 1.0) == -2.0


def test_relevances_combine_the_features() -> None:
    blocks = page((PROSE,), ("Home News Sport", "div.nav", "div", 15))
    scores = k.relevances(blocks)
    # The prose block is the longest (length 1, its own group) with full punctuation.
    assert scores[0] == pytest.approx(1.0)
    short = len("Home News Sport") / len(PROSE)
    assert scores[1] == pytest.approx(short - 1.0 - 1.0)


# --- steps 3 and 4: sure candidates, function blocks -----------------------------------------


def test_sure_candidates_strictly_above_threshold() -> None:
    assert k.sure_candidates([0.5, 0.32, 0.33, -1.0]) == {0, 2}
    assert k.sure_candidates([0.5, 0.2], sure=0.1) == {0, 1}


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [
        (PROSE, {}, False),
        ("Read more", {}, True),  # too short to be prose
        ("Summary", {"heading": True, "tag": "h2"}, False),  # short headings are spared
        ("All the latest news from our partners", {"link_chars": 30}, True),
        ("Home | News | Sport | Weather", {}, True),
        ("Start » Politik » Inland » Artikel", {}, True),
        ("© 2024 Example Media Ltd. All rights reserved.", {}, True),
        ("Price: 20 EUR / Delivery in 3 days / free returns included", {}, False),
    ],
)
def test_function_blocks(text: str, kwargs: dict, expected: bool) -> None:
    assert k.is_function_block(blk(text, **kwargs)) is expected


# --- step 5: quotes and teasers by longest common subsequence -------------------------------


def test_lcs_length() -> None:
    assert lcs.lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert lcs.lcs_length([], list("abc")) == 0
    assert lcs.lcs_length(list("abc"), list("abc")) == 3


def _lcs_reference(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            table[i][j] = (
                table[i - 1][j - 1] + 1 if x == y else max(table[i - 1][j], table[i][j - 1])
            )
    return table[-1][-1]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from("abcd"), max_size=40), st.lists(st.sampled_from("abcd"), max_size=40)
)
def test_bit_parallel_lcs_matches_the_textbook_table(a: list[str], b: list[str]) -> None:
    assert lcs.lcs_length(a, b) == _lcs_reference(a, b)


def test_containment_ratio() -> None:
    long = "the council met on tuesday to discuss the budget".split()
    assert lcs.containment_ratio("met on tuesday to discuss".split(), long) == 1.0
    assert lcs.containment_ratio("met on friday to discuss".split(), long) == pytest.approx(0.8)
    assert lcs.containment_ratio([], long) == 0.0


def test_quote_duplicates_drop_the_shorter_copy() -> None:
    quote = "Members argued about transport, housing and schools"
    teaser = PROSE.split(". ")[0] + "."
    other = "An unrelated paragraph about the weather this weekend, with rain expected."
    blocks = page((PROSE,), (quote,), (other,), (teaser,))
    assert k.quote_duplicates(blocks, {0, 1, 2, 3}) == {1, 3}
    # A quote whose source is not a candidate stays (only candidates are sources).
    assert k.quote_duplicates(blocks, {1, 2}) == set()
    # Non-candidates that copy a candidate are found too, so no later step brings them back.
    assert k.quote_duplicates(blocks, {0, 2}, others={1, 3}) == {1, 3}


def test_quote_duplicates_keep_the_first_of_identical_texts() -> None:
    blocks = page((PROSE,), ("Some other text here, long enough.",), (PROSE,))
    assert k.quote_duplicates(blocks, {0, 1, 2}) == {2}


def test_quote_duplicates_threshold() -> None:
    near = "the council met on friday to discuss the budget"  # 8 of 9 words in order: 0.89
    blocks = page(("the council met on tuesday to discuss the budget and more",), (near,))
    assert k.quote_duplicates(blocks, {0, 1}, lcs_ratio=0.85) == {1}
    assert k.quote_duplicates(blocks, {0, 1}, lcs_ratio=0.9) == set()


def test_quote_duplicates_on_unspaced_text_compare_characters() -> None:
    source = "市议会周二开会讨论新的预算，预算已经推迟了几个月。议员们就交通和学校问题展开辩论。"
    blocks = page((source,), ("议员们就交通和学校问题展开辩论",))
    assert k.quote_duplicates(blocks, {0, 1}) == {1}


# --- step 6: recovery of same-style blocks --------------------------------------------------


def test_recover_same_style() -> None:
    blocks = page(("a",), ("b",), ("c", "div.teaser"), ("d",), ("e",))
    scores = [0.9, 0.2, 0.5, 0.05, 0.3]
    # Block 1 and 4 share candidate 0's style with relevance > 0.1; 3 is too weak; 2 differs.
    assert k.recover_same_style(blocks, scores, {0}, excluded=set()) == {1, 4}
    assert k.recover_same_style(blocks, scores, {0}, excluded={4}) == {1}
    assert k.recover_same_style(blocks, scores, {0}, set(), recover=0.25) == {4}


# --- step 7: dispersed candidates -------------------------------------------------------------


def test_geometric_mean_distances() -> None:
    assert k.geometric_mean_distances([0, 1, 3]) == pytest.approx(
        [math.sqrt(3), math.sqrt(2), math.sqrt(6)]
    )
    assert k.geometric_mean_distances([5]) == [0.0]


def test_drop_dispersed_removes_far_outliers_only() -> None:
    cluster = set(range(10, 20))
    assert k.drop_dispersed(cluster | {80}) == {80}
    assert k.drop_dispersed(cluster) == set()
    # Two candidates cannot say which one is the outlier.
    assert k.drop_dispersed({1, 90}) == set()
    # min_distance protects small pages where all distances are small.
    assert k.drop_dispersed({0, 1, 2, 9}) == set()


# --- step 8: nearby blocks ------------------------------------------------------------------


def test_recover_nearby() -> None:
    blocks = page(
        ("Menu",),  # 0: nothing kept near it except via chains, and low relevance
        ("Title", "h2", "h2", 0, True),  # 1: heading just before content
        (PROSE,),  # 2: kept
        ("By the editor",),  # 3: between two kept blocks
        (PROSE,),  # 4: kept
        ("A relevant aside, short.",),  # 5: adjacent, relevance above 0.1
        ("Unrelated",),  # 6: adjacent only to 5 and weak
    )
    scores = [-1.0, -0.5, 0.9, -0.8, 0.9, 0.2, -0.5]
    assert k.recover_nearby(blocks, scores, {2, 4}, excluded=set(), near=1) == {1, 3, 5}
    # Function blocks are never taken back.
    assert k.recover_nearby(blocks, scores, {2, 4}, excluded={1, 3}, near=1) == {5}


def test_output_tag() -> None:
    assert k.output_tag(blk("Title", tag="h1", heading=True)) == "h"
    assert k.output_tag(blk("Inside a heading", tag="span", heading=True)) == "h"
    assert k.output_tag(blk("item", tag="li")) == "l"
    assert k.output_tag(blk("term", tag="dt")) == "l"
    assert k.output_tag(blk(PROSE)) == "p"


# --- the whole cleaner ------------------------------------------------------------------------


def test_kimatu_on_a_made_up_page() -> None:
    para2 = (
        "Transport took most of the evening. Several members wanted more buses, others more "
        "cycle lanes; a few asked for both, and the chair promised a study by spring."
    )
    para3 = "Schools were next, and the debate was shorter."
    blocks = page(
        ("Home | News | Sport | Weather | Contact", "ul.menu", "li", 30),  # 0 nav
        ("Council agrees budget", "h1", "h1", 0, True),  # 1 heading
        (PROSE,),  # 2
        ("Members argued about transport, housing and schools", "blockquote.pull", "p"),  # 3
        (para2,),  # 4
        (para3,),  # 5
        *[("Related story headline here", "li.rel", "li", 27)] * 3,  # 6-8 link list
        *[("Filler block with no punctuation at all", "div.x", "div")] * 12,  # 9-20
        (
            "I disagree with this article entirely, the council wastes money every year, "
            "and nobody listens to residents, as usual.",
            "div.comment",
            "div",
        ),  # 21: far away from the article
        ("© 2024 Example Media", "div.footer", "div"),  # 22
    )
    cleaner = k.KimatuCleaner()
    kept, scores = cleaner.select(blocks)
    assert kept == {1, 2, 4, 5}
    labeled = cleaner.label(blocks, None)
    assert [i for i, lb in enumerate(labeled) if lb.verdict is Verdict.GOOD] == [1, 2, 4, 5]
    assert [lb.score for lb in labeled] == scores
    assert [k.output_tag(blocks[i]) for i in sorted(kept)] == ["h", "p", "p", "p"]


def test_kimatu_params_and_validation() -> None:
    assert k.KimatuCleaner(sure=0.4).params()["sure"] == 0.4
    assert k.KimatuCleaner().params()["sure"] == 0.32
    with pytest.raises(ValueError, match="recover"):
        k.KimatuCleaner(sure=0.1, recover=0.2)
    with pytest.raises(ValueError, match="lcs_ratio"):
        k.KimatuCleaner(lcs_ratio=0)
    with pytest.raises(TypeError):
        k.KimatuCleaner(unknown=1)  # type: ignore[call-arg]


def test_kimatu_empty_page() -> None:
    assert k.KimatuCleaner().label([], None) == []


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet="ab .,|", min_size=0, max_size=80),
            st.sampled_from(["p", "div.x", "li"]),
            st.integers(0, 80),
        ),
        max_size=30,
    )
)
def test_kimatu_labels_every_block_once(specs: list[tuple[str, str, int]]) -> None:
    blocks = [
        blk(text, i, style, style.split(".")[0], min(links, len(text)))
        for i, (text, style, links) in enumerate(specs)
    ]
    labeled = k.KimatuCleaner().label(blocks, None)
    assert [lb.block for lb in labeled] == blocks
    assert all(-2.0 <= lb.score <= 1.0 for lb in labeled)
