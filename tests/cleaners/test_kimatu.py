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
        # Link text at exactly max_link (0.5) of the block is furniture.
        ("abcdefghijklmnopqrst", {"link_chars": 10}, True),
        ("abcdefghijklmnopqrst", {"link_chars": 9}, False),
        # min_chars (15): 15 characters are enough, 14 are not, unless it is a heading.
        ("abcdefghijklmno", {}, False),
        ("abcdefghijklmn", {}, True),
        ("abcdefghijklmn", {"tag": "h3"}, False),
        ("abcdefghijklmn", {"heading": True, "tag": "span"}, False),
        ("abcdefghijklmn", {"tag": "h1"}, False),
        ("abcdefghijklmn", {"tag": "h6"}, False),
        # A menu: three or more parts between separators, none over three words.
        ("Home and garden | News today | Sport", {}, True),
        ("Home and garden | News of today now | Sport", {}, False),
        ("Home and garden | Sport and leisure", {}, False),
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


# --- every step at its bounds and defaults (where mutants of the module survived) ------------


def test_relevances_group_within_five_positions_by_default() -> None:
    rows = [blk("x" * 100, 0), *[blk("y" * 10, i, style=f"s{i}") for i in range(1, 6)]]
    rows.append(blk("z" * 10, 6))  # a p six positions after the long one: a group of its own
    alone = k.relevance(0.1, 0.1, k.punctuation_score("z" * 10), 0.0)
    assert k.relevances(rows)[6] == pytest.approx(alone)
    assert k.relevances(rows, group_gap=6)[6] == pytest.approx(alone + 0.5 * (0.55 - 0.1))


def test_style_groups_default_gap_is_five_positions() -> None:
    blocks = [blk("x", i, style="p" if i in (0, 5, 11) else f"s{i}") for i in range(12)]
    groups = k.style_groups(blocks)
    assert groups[5] == groups[0]  # 5 positions apart: the same group
    assert groups[11] != groups[5]  # 6 apart: a new one
    # relevances groups with the same default: the short p at 5 shares the long p's average.
    long = blk("x" * 100, 0, style="p")
    rows = [long, *[blk("y" * 10, i, style=f"s{i}") for i in range(1, 5)], blk("z" * 10, 5)]
    near = k.relevances(rows)
    rows[5] = blk("z" * 10, 5, style="q")
    apart = k.relevances(rows)
    assert near[5] - apart[5] == pytest.approx(0.5 * ((1.0 + 0.1) / 2 - 0.1))


def test_is_function_block_thresholds_are_parameters() -> None:
    block = blk("abcdefghijklmnopqrst", link_chars=10)
    assert k.is_function_block(block, max_link=0.6) is False
    assert k.is_function_block(blk("abcdefghij"), min_chars=10) is False
    assert k.is_function_block(blk("abcdefghij"), min_chars=11) is True


def test_quote_duplicates_check_texts_of_six_tokens_or_more() -> None:
    source = "one two three four five six seven eight nine ten eleven twelve"
    six = "four five six seven eight nine"
    five = "four five six seven eight"
    assert k.quote_duplicates(page((source,), (six,)), {0, 1}) == {1}
    assert k.quote_duplicates(page((source,), (five,)), {0, 1}) == set()


def test_quote_duplicates_need_the_words_in_order() -> None:
    # The same words, shuffled: every token is shared, but no long common subsequence.
    source = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    shuffled = "mu kappa iota eta zeta alpha gamma theta"
    assert k.quote_duplicates(page((source,), (shuffled,)), {0, 1}) == set()
    # Most words shared in order, but too few of the shorter text's: kept too.
    partial = "alpha beta gamma delta omicron pi rho sigma tau upsilon"
    assert k.quote_duplicates(page((source,), (partial,)), {0, 1}) == set()


def test_quote_sources_are_the_longest_candidates_only() -> None:
    # 200 candidates longer than the quote's source push it out of the sources.
    quote = "w0 w1 w2 w3 w4 w5 w6"
    source = quote + " w7"
    fillers = [" ".join(f"f{i}x{j}" for j in range(12)) for i in range(200)]
    blocks = page(*[(t,) for t in fillers], (source,), (quote,))
    n = len(blocks)
    assert k.quote_duplicates(blocks, set(range(n))) == set()
    # One filler fewer, and the source is among them: the quote is found.
    blocks = page(*[(t,) for t in fillers[1:]], (source,), (quote,))
    n = len(blocks)
    assert k.quote_duplicates(blocks, set(range(n))) == {n - 1}


def test_geometric_mean_distances_of_two_positions() -> None:
    assert k.geometric_mean_distances([3, 7]) == [4.0, 4.0]
    assert k.geometric_mean_distances([]) == []


def test_drop_dispersed_at_its_bounds() -> None:
    # Three candidates are enough to tell an outlier.
    assert k.drop_dispersed({0, 1, 60}) == {60}
    # The limit is factor (2) times the median distance, and at least min_distance (8): here
    # the cluster's median is about 3.5, so the limit is 8, and 18 lies 12.6 from the rest.
    positions = {*range(11), 18}
    assert 12 < distances_at(positions, 18) < 13
    assert k.drop_dispersed(positions) == {18}
    assert k.drop_dispersed(positions, min_distance=13.0) == set()
    assert k.drop_dispersed(positions, factor=4.0) == set()
    # A distance exactly at the limit stays.
    at = distances_at(positions, 18)
    assert k.drop_dispersed(positions, min_distance=at) == set()


def distances_at(positions: set[int], position: int) -> float:
    ordered = sorted(positions)
    return k.geometric_mean_distances(ordered)[ordered.index(position)]


def test_recover_nearby_defaults_and_chains() -> None:
    blocks = page(
        ("Heading", "h2", "h2", 0, True),  # 0: two before the kept block 2
        ("A caption line",),  # 1: weak, between the heading and 2 once the heading is in
        (PROSE,),  # 2: kept
        ("Weak one",),  # 3: adjacent but weak
        ("Weak two",),  # 4
        (PROSE,),  # 5: kept; 3 and 4 lie between 2 and 5, within 2 positions of both sides
        ("Strong aside, short.",),  # 6: adjacent, relevance above recover
        ("Strong second aside.",),  # 7: adjacent to 6 once 6 is in: a chain
    )
    scores = [-0.5, -0.9, 0.9, -0.9, -0.9, 0.9, 0.2, 0.2]
    assert k.recover_nearby(blocks, scores, {2, 5}, excluded=set()) == {0, 1, 3, 4, 6, 7}
    # recover is strict: a score of exactly 0.2 is not above 0.2.
    assert 6 not in k.recover_nearby(blocks, scores, {2, 5}, excluded=set(), recover=0.2)
    # near=1: the heading two positions before is too far.
    assert 0 not in k.recover_nearby(blocks, scores, {2, 5}, excluded=set(), near=1)


def test_kimatu_parameter_bounds() -> None:
    assert k.KimatuCleaner(lcs_ratio=1.0).lcs_ratio == 1.0
    assert k.KimatuCleaner(max_link=1.0).max_link == 1.0
    assert k.KimatuCleaner(sure=0.2, recover=0.2).recover == 0.2
    assert k.KimatuCleaner(min_chars=0, group_gap=0, near=0).near == 0
    assert k.KimatuCleaner().params()["near"] == 2
    for bad in ({"max_link": 0}, {"max_link": 1.1}, {"lcs_ratio": 1.1}, {"dispersion": 0},
                {"near": -1}, {"group_gap": -1}, {"min_chars": -1}):  # fmt: skip
        with pytest.raises(ValueError):
            k.KimatuCleaner(**bad)


def test_quote_duplicates_at_exactly_the_ratio() -> None:
    # 8 of the quote's 10 words, in order, in the source: a share and a containment of 0.8.
    source = "a1 b1 c1 d1 e1 f1 g1 h1 i1 j1 k1 l1"
    quote = "a1 b1 c1 d1 e1 f1 g1 h1 x9 y9"
    assert k.quote_duplicates(page((source,), (quote,)), {0, 1}) == {1}


def test_recover_same_style_is_strictly_above_recover() -> None:
    blocks = page(("a",), ("b",))
    assert k.recover_same_style(blocks, [0.9, 0.1], {0}, excluded=set()) == set()
    assert k.recover_same_style(blocks, [0.9, 0.11], {0}, excluded=set()) == {1}


def test_recover_nearby_reach_and_passes() -> None:
    weak, strong = -0.9, 0.5
    # A heading three positions before the content is beyond the default reach of 2.
    blocks = page(("Heading", "h2", "h2", 0, True), ("one",), ("two",), (PROSE,))
    scores = [-0.5, weak, weak, 0.9]
    assert k.recover_nearby(blocks, scores, {3}, excluded=set()) == set()
    assert 0 in k.recover_nearby(blocks, scores, {3}, excluded=set(), near=3)
    # A strong block away from the content stays out; strong blocks before the content come
    # back one per pass, the nearest first.
    blocks = page(("far",), ("gap",), ("gap",), ("gap",), ("s1",), ("s2",), (PROSE,))
    scores = [strong, weak, weak, weak, strong, strong, 0.9]
    assert k.recover_nearby(blocks, scores, {6}, excluded=set()) == {4, 5}


def test_recover_nearby_heading_by_tag_or_by_flag_and_adjacency_only() -> None:
    # A heading is one by its tag or by lying in a heading element; either comes back.
    by_tag = page(("Title", "h2", "h2", 0, False), ("x",), (PROSE,))
    by_flag = page(("Title", "span", "span", 0, True), ("x",), (PROSE,))
    for blocks in (by_tag, by_flag):
        assert 0 in k.recover_nearby(blocks, [-0.5, -0.9, 0.9], {2}, excluded=set())
    # Adjacent means next to a kept block: a strong block two positions on stays out.
    blocks = page((PROSE,), ("weak",), ("strong, short.",))
    assert k.recover_nearby(blocks, [0.9, -0.9, 0.5], {0}, excluded=set()) == set()


def test_any_positive_dispersion_is_accepted() -> None:
    assert k.KimatuCleaner(dispersion=0.5).dispersion == 0.5
