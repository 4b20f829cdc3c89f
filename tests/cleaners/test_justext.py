"""jusText classification on hand-built blocks (no HTML), as jusText's own classifier tests do."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.cleaners.justext import (
    JusTextCleaner,
    JusTextParams,
    classify_context_free,
    revise,
    stopword_densities,
)
from pipeline.cleaners.registry import make_cleaner
from pipeline.types import Block, CfClass, Verdict

G, N, S, B = CfClass.GOOD, CfClass.NEARGOOD, CfClass.SHORT, CfClass.BAD
STOP = frozenset({"the", "a", "of", "and", "is", "in", "to", "it"})


def block(
    text: str,
    *,
    link_chars: int = 0,
    dom_path: str = "html.body.p",
    heading: bool = False,
    index: int = 0,
) -> Block:
    return Block(
        index=index,
        text=text,
        tag=dom_path.rpartition(".")[2],
        dom_path=dom_path,
        style="",
        is_heading=heading,
        n_chars=len(text),
        n_words=len(text.split()),
        n_link_chars=link_chars,
        n_tags=0,
        n_markup_chars=0,
    )


def text_with(words: int, stop_share: float, word: str = "word") -> str:
    """``words`` words of which round(stop_share * words) are stopwords ("the")."""
    n_stop = round(words * stop_share)
    return " ".join(["the"] * n_stop + [word] * (words - n_stop))


# --- context-free thresholds -------------------------------------------------------------


def cf(b: Block, stoplist: frozenset[str] | None = STOP, **params: object) -> CfClass:
    return classify_context_free([b], stoplist, JusTextParams(**params))[0]  # type: ignore[arg-type]


def test_link_density_above_max_is_bad() -> None:
    text = text_with(60, 0.5)
    assert cf(block(text, link_chars=int(len(text) * 0.21))) is B
    # exactly at the maximum is not above it
    assert cf(block(text, link_chars=int(len(text) * 0.2))) is not B
    exact = text[: len(text) // 5 * 5]
    assert cf(block(exact, link_chars=len(exact) // 5)) is not B
    assert cf(block(exact, link_chars=len(exact) // 5 + 1)) is B


def test_copyright_sign_or_entity_is_bad() -> None:
    text = text_with(60, 0.5)
    assert cf(block(text)) is G
    assert cf(block(text + " ©")) is B
    assert cf(block(text + " &copy 2024")) is B


def test_select_in_dom_path_is_bad() -> None:
    text = text_with(60, 0.5)
    assert cf(block(text, dom_path="html.body.form.select.option")) is B
    assert cf(block(text, dom_path="html.body.myselector")) is B


def test_length_below_low_is_short_or_bad_with_links() -> None:
    text = "x" * 69
    assert cf(block(text)) is S
    assert cf(block(text, link_chars=1)) is B
    assert cf(block("x" * 70)) is B  # long enough, no stopwords


def test_stopword_density_thresholds() -> None:
    # 100 words, 5 chars each with spaces: length > 200
    assert cf(block(text_with(100, 0.32))) is G
    assert cf(block(text_with(100, 0.31))) is N
    assert cf(block(text_with(100, 0.30))) is N
    assert cf(block(text_with(100, 0.29))) is B


def test_dense_but_not_long_is_neargood() -> None:
    text = text_with(20, 0.5, word="words")  # 20 words, 99 chars: between low and high
    assert 70 <= len(text) <= 200
    assert cf(block(text)) is N
    assert cf(block(text), length_high=90) is G


def test_length_high_is_strict() -> None:
    text = ("the " * 50)[:200]
    assert len(text) == 200
    assert cf(block(text)) is N
    assert cf(block(text + "x")) is G


def test_stopwords_are_matched_lower_cased_whole_tokens() -> None:
    upper = " ".join(["THE"] * 40 + ["Word"] * 40)
    assert cf(block(upper)) is G
    punctuated = " ".join(["the,"] * 40 + ["word"] * 40)  # jusText keeps punctuation attached
    assert cf(block(punctuated)) is B


def test_empty_stoplist_makes_every_long_block_bad() -> None:
    # jusText's behaviour, kept: an empty stoplist is not "no stoplist".
    assert cf(block(text_with(100, 0.5)), stoplist=frozenset()) is B


def test_language_independent_without_stoplist() -> None:
    long_text = "x " * 150
    mid_text = "x " * 50
    assert cf(block(long_text), stoplist=None) is G
    assert cf(block(mid_text), stoplist=None) is N
    assert cf(block("x" * 20), stoplist=None) is S
    # link density still applies
    assert cf(block(long_text, link_chars=len(long_text)), stoplist=None) is B


def test_language_independent_flag_ignores_stoplist() -> None:
    text = "word " * 60  # no stopwords at all
    assert cf(block(text)) is B
    assert cf(block(text), language_independent=True) is G


def test_params_validation() -> None:
    with pytest.raises(ValueError, match="stopword"):
        JusTextParams(stopwords_low=1.5)
    with pytest.raises(ValueError, match="lengths"):
        JusTextParams(length_low=-1)
    with pytest.raises(TypeError, match="length_low must be int"):
        JusTextParams(length_low="70")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="no_headings must be bool"):
        JusTextParams(no_headings="yes")  # type: ignore[arg-type]
    assert JusTextParams(stopwords_low=0).stopwords_low == 0  # an int is a fine float


def test_params_default_to_the_reference_packages() -> None:
    # jusText 3.0's defaults (justext.core: LENGTH_LOW_DEFAULT ... MAX_HEADING_DISTANCE_DEFAULT),
    # and ours for Han and kana.
    p = JusTextParams()
    assert (p.length_low, p.length_high, p.max_heading_distance) == (70, 200, 200)
    assert (p.stopwords_low, p.stopwords_high, p.max_link_density) == (0.30, 0.32, 0.2)
    assert (p.no_headings, p.language_independent, p.fix_heading_bug) == (False, False, False)
    assert p.han_kana_weight == 2


def test_params_at_their_bounds() -> None:
    zero = JusTextParams(length_low=0, length_high=0, max_heading_distance=0, max_link_density=0)
    assert (zero.length_low, zero.length_high, zero.max_heading_distance) == (0, 0, 0)
    assert JusTextParams(han_kana_weight=1).han_kana_weight == 1
    with pytest.raises(ValueError, match="han_kana_weight"):
        JusTextParams(han_kana_weight=0)
    for bad in ({"length_high": -1}, {"max_heading_distance": -1}):
        with pytest.raises(ValueError, match="lengths and distances"):
            JusTextParams(**bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_link_density"):
        JusTextParams(max_link_density=-0.01)
    for low, high in ((0.0, 0.0), (1.0, 1.0), (0.0, 1.0)):
        assert JusTextParams(stopwords_low=low, stopwords_high=high).stopwords_high == high
    for bad in ({"stopwords_high": 1.5}, {"stopwords_high": -0.1}, {"stopwords_low": -0.1}):
        with pytest.raises(ValueError, match="stopword thresholds"):
            JusTextParams(**bad)  # type: ignore[arg-type]


def test_stopword_density_of_text_beyond_ascii() -> None:
    stoplist = frozenset({"über", "die", "und", "den"})
    # 7 words, 5 of them stopwords once lower-cased ("Über" and "über" both).
    (density,) = stopword_densities([block("Über die Brücke und über den Fluß")], stoplist)
    assert density == pytest.approx(5 / 7)
    (density,) = stopword_densities([block("the cat and a dog")], STOP)
    assert density == pytest.approx(3 / 5)
    assert stopword_densities([block("—")], stoplist) == [0.0]


# --- context-sensitive revision -----------------------------------------------------------


def blocks_for(classes: str, *, headings: str = "", length: int = 10) -> list[Block]:
    """One block per class letter; ``headings`` marks heading blocks with 'h'."""
    return [
        block("x" * length, heading=i < len(headings) and headings[i] == "h", index=i)
        for i in range(len(classes))
    ]


LETTER = {"g": G, "n": N, "s": S, "b": B}


def run_revise(classes: str, *, headings: str = "", **params: object) -> str:
    cfs = [LETTER[c] for c in classes]
    verdicts = revise(blocks_for(classes, headings=headings), cfs, JusTextParams(**params))  # type: ignore[arg-type]
    return "".join("g" if v is Verdict.GOOD else "b" for v in verdicts)


@pytest.mark.parametrize(
    ("classes", "expected"),
    [
        ("gsg", "ggg"),  # short between good and good
        ("bsb", "bbb"),  # short between bad and bad
        ("s", "b"),  # page edges count as bad
        ("gs", "gb"),  # good then edge (bad), no near-good: bad
        ("sg", "bg"),
        ("gssg", "gggg"),  # runs of short blocks resolve alike
        ("bnsg", "bggg"),  # bad side, but a near-good block separates it from the short one
        ("gsnb", "gggb"),  # near-good between short and bad on the right; near-good runs
        ("gsb", "gbb"),  # good and bad around, no near-good: bad
        (
            "gnsb",
            "ggbb",
        ),  # near-good is skipped: good | short | bad, nothing near-good on the bad side
        ("bnb", "bbb"),  # near-good between bad and bad
        ("gnb", "ggb"),  # near-good next to good
        ("bng", "bgg"),
        ("n", "b"),  # near-good alone: both edges bad
        ("bnnb", "bbbb"),
        ("bnnnbg", "bbbbbg"),
        ("gnng", "gggg"),
        ("bsnsb", "bbbbb"),  # short next to near-good between bads: near-good ends bad
        ("snb", "bbb"),  # edge and bad on both sides: bad even though a near-good is next to it
        ("gsnsb", "gggbb"),
        ("", ""),
        ("gbgb", "gbgb"),
    ],
)
def test_context_sensitive_cases(classes: str, expected: str) -> None:
    assert run_revise(classes) == expected


def test_headings_after_bad_become_good_before_good_content() -> None:
    # heading (short -> bad by context) followed within 200 chars by good content
    assert run_revise("bsbg", headings="_h") == "bgbg"
    # but not a heading that was bad context-free
    assert run_revise("bbbg", headings="_h") == "bbbg"
    # and not when headings are switched off
    assert run_revise("bsbg", headings="_h", no_headings=True) == "bbbg"


def test_heading_distance_counts_text_between() -> None:
    classes = [B, S] + [B] * 3 + [G]
    blocks = [block("x" * 10, heading=i == 1, index=i) for i in range(6)]
    # 3 bad blocks of 10 chars between the heading and the good block: 30 chars
    assert revise(blocks, classes, JusTextParams(max_heading_distance=30))[1] is Verdict.GOOD
    assert revise(blocks, classes, JusTextParams(max_heading_distance=29))[1] is Verdict.BAD


def test_heading_prepass_bug_45_reproduced_by_default() -> None:
    # good | short | short heading | bad | good. With the pre-pass (fixed), the heading has good
    # content within 200 chars, becomes near-good, and so the plain short block before it sits
    # between good and bad-behind-a-near-good: good. jusText 3.0.2 never runs that pass (bug #45),
    # so the short block is bad there, and only the heading is rescued by the post-pass.
    blocks = blocks_for("gssbg", headings="__h")
    cfs = [G, S, S, B, G]
    assert [v.value for v in revise(blocks, cfs)] == ["good", "bad", "good", "bad", "good"]
    fixed = revise(blocks, cfs, JusTextParams(fix_heading_bug=True))
    assert [v.value for v in fixed] == ["good", "good", "good", "bad", "good"]


def test_revise_rejects_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="classes"):
        revise(blocks_for("gg"), [G])


# --- a quadratic reference, written from the algorithm's description --------------------


def reference_revise(blocks: list[Block], cfs: list[CfClass], p: JusTextParams) -> list[str]:
    """Straightforward neighbour searches (quadratic), jusText 3.0.2 semantics (bug #45 kept)."""
    cls = [c.value for c in cfs]
    n = len(cls)

    def neighbour(i: int, step: int, ignore_neargood: bool, classes: list[str]) -> str:
        j = i + step
        while 0 <= j < n:
            if classes[j] in ("good", "bad") or (classes[j] == "neargood" and not ignore_neargood):
                return classes[j]
            j += step
        return "bad"

    new = list(cls)
    for i in range(n):
        if cls[i] != "short":
            continue
        prev, nxt = neighbour(i, -1, True, cls), neighbour(i, 1, True, cls)
        if prev == nxt == "good":
            new[i] = "good"
        elif prev == nxt == "bad":
            new[i] = "bad"
        elif (prev == "bad" and neighbour(i, -1, False, cls) == "neargood") or (
            nxt == "bad" and neighbour(i, 1, False, cls) == "neargood"
        ):
            new[i] = "good"
        else:
            new[i] = "bad"
    cls = new
    for i in range(n):  # in place, left to right
        if cls[i] == "neargood":
            both_bad = neighbour(i, -1, True, cls) == neighbour(i, 1, True, cls) == "bad"
            cls[i] = "bad" if both_bad else "good"
    if not p.no_headings:
        for i in range(n):
            if not (blocks[i].is_heading and cls[i] == "bad" and cfs[i] is not B):
                continue
            distance, j = 0, i + 1
            while j < n and distance <= p.max_heading_distance:
                if cls[j] == "good":
                    cls[i] = "good"
                    break
                distance += len(blocks[j].text)
                j += 1
    return cls


cases = st.lists(
    st.tuples(
        st.sampled_from([G, N, S, B]),
        st.booleans(),
        st.integers(min_value=0, max_value=120),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(cases, st.booleans())
def test_revise_matches_quadratic_reference(
    spec: list[tuple[CfClass, bool, int]], no_headings: bool
) -> None:
    blocks = [block("x" * n, heading=h, index=i) for i, (_, h, n) in enumerate(spec)]
    cfs = [c for c, _, _ in spec]
    p = JusTextParams(no_headings=no_headings)
    assert [v.value for v in revise(blocks, cfs, p)] == reference_revise(blocks, cfs, p)


@settings(max_examples=200, deadline=None)
@given(cases)
def test_revise_one_verdict_per_block_good_or_bad(spec: list[tuple[CfClass, bool, int]]) -> None:
    blocks = [block("x" * n, heading=h, index=i) for i, (_, h, n) in enumerate(spec)]
    verdicts = revise(blocks, [c for c, _, _ in spec], JusTextParams(fix_heading_bug=True))
    assert len(verdicts) == len(blocks)
    assert set(verdicts) <= {Verdict.GOOD, Verdict.BAD}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([G, B]), st.booleans()), max_size=40))
def test_good_and_bad_pass_through_without_headings(spec: list[tuple[CfClass, bool]]) -> None:
    blocks = [block("x" * 10, heading=h, index=i) for i, (_, h) in enumerate(spec)]
    cfs = [c for c, _ in spec]
    verdicts = revise(blocks, cfs, JusTextParams(no_headings=True))
    assert [v.value for v in verdicts] == [c.value for c in cfs]
    # with headings on too: only headings that were not bad context-free can be promoted
    assert [v.value for v in revise(blocks, cfs)] == [c.value for c in cfs]


# --- linearity: a page of 50,000 blocks (jusText #43 never finishes on such pages) --------


def test_fifty_thousand_blocks() -> None:
    # Pattern per 5 blocks: good, short, short, bad, near-good. Every short run sits between a
    # good block and a bad one, with no near-good on the bad side's way -> bad; every near-good
    # sits between bad and good -> good. A quadratic search would walk ~1e9 steps here.
    n = 50_000
    pattern = [G, S, S, B, N]
    cfs = [pattern[i % 5] for i in range(n)]
    blocks = [block("x" * 10, index=i) for i in range(n)]
    verdicts = revise(blocks, cfs, JusTextParams(no_headings=True))
    expected = {0: "good", 1: "bad", 2: "bad", 3: "bad", 4: "good"}
    assert all(v.value == expected[i % 5] for i, v in enumerate(verdicts[:-1]))
    assert verdicts[-1] is Verdict.BAD  # the last near-good has the page edge after it
    # All-short page: every short block's neighbours are the page edges -> all bad; and a page
    # of short blocks between two good ones -> all good.
    assert set(revise(blocks, [S] * n)) == {Verdict.BAD}
    assert set(revise(blocks, [G] + [S] * (n - 2) + [G])) == {Verdict.GOOD}
    # Headings everywhere, good block only at the end: only the last 200 chars of headings are
    # promoted (pass d), the rest stay bad.
    heads = [block("x" * 10, heading=True, index=i) for i in range(n)]
    verdicts = revise(heads, [S] * (n - 1) + [G])
    promoted = sum(v is Verdict.GOOD for v in verdicts[:-1])
    assert promoted == 21  # the heading 0..200 chars before the good block: 21 blocks of 10


# --- the registered cleaner -----------------------------------------------------------------


def test_cleaner_is_registered_and_labels() -> None:
    cleaner = make_cleaner("justext", length_low=10)
    assert cleaner.name == "justext"
    assert isinstance(cleaner, JusTextCleaner)
    assert cleaner.needs_runs is False
    assert cleaner.params()["length_low"] == 10
    blocks = [
        block("Menu", index=0),
        block(text_with(100, 0.5), index=1),
        block("Home About Contact", link_chars=18, index=2),
    ]
    labeled = cleaner.label(blocks, STOP)
    assert [lb.cf_class for lb in labeled] == [S, G, B]
    assert [lb.verdict for lb in labeled] == [Verdict.BAD, Verdict.GOOD, Verdict.BAD]
    assert labeled[1].stopword_density == pytest.approx(0.5)
    assert [lb.block for lb in labeled] == blocks


def test_cleaner_rejects_unknown_params() -> None:
    with pytest.raises(ValueError, match=r"unknown jusText parameter.*length_lo\b"):
        JusTextCleaner(length_lo=10)


def test_cleaner_without_stoplist_is_language_independent() -> None:
    labeled = JusTextCleaner().label([block("x " * 150)], None)
    assert labeled[0].cf_class is G
    assert labeled[0].verdict is Verdict.GOOD
    assert labeled[0].stopword_density == 0.0


@pytest.mark.parametrize(
    ("n_han", "weight", "expected"),
    [
        (40, 1, CfClass.SHORT),  # 40 < 70: the package's verdict on a Chinese sentence
        (40, 2, CfClass.NEARGOOD),  # counted as 80 characters
        (120, 1, CfClass.NEARGOOD),  # 120 <= 200
        (120, 2, CfClass.GOOD),  # counted as 240 > 200
    ],
)
def test_han_kana_weight_scales_lengths_for_chinese(
    n_han: int, weight: int, expected: CfClass
) -> None:
    text = "中" * n_han
    params = JusTextParams(han_kana_weight=weight)
    assert classify_context_free([block(text)], None, params) == [expected]


def test_han_kana_weight_leaves_latin_text_alone() -> None:
    text = text_with(12, 0.5)  # 59 characters: short whatever the weight
    for weight in (1, 2, 3):
        params = JusTextParams(han_kana_weight=weight)
        assert classify_context_free([block(text)], None, params) == [CfClass.SHORT]


# --- a small article page (issue 50: "cleaner='justext' returned empty text") -------------------

SMALL_ARTICLE = (
    "<html><head><title>My first post</title></head><body><h1>My first post</h1>"
    "<p>This is a short article with two paragraphs of text that a user might write on a blog.</p>"
    "<p>It has a second paragraph too, with a few more words about the topic at hand and more.</p>"
    "</body></html>"
)
LONG_PARAGRAPH = (
    "<p>The river carved the valley over thousands of years, and the farmers who came later "
    "followed its course down to the sea, where they built their first town on the banks of the "
    "estuary and traded with the ships that came in on the tide.</p>"
)


def test_a_small_page_without_a_long_block_is_empty_as_jusText_is_written() -> None:
    from pipeline.clean import clean_html

    result = clean_html(SMALL_ARTICLE, cleaner="justext")
    # The language is found and its stoplist used: that is not why the page is empty.
    assert (result.language.code, result.stoplist) == ("en", "en")
    # Both paragraphs are grammatical (stopword density above 0.32) but 86 characters long, under
    # LENGTH_HIGH (200): near-good, not good. With no good block to anchor them, the near-good
    # blocks lie between the page's edges, which count as bad, and become bad; the heading is kept
    # only before a good block. So nothing is kept, as the jusText package also keeps nothing.
    assert [lb.cf_class for lb in result.blocks] == [S, N, N]
    assert all(lb.verdict is Verdict.BAD for lb in result.blocks)
    assert result.text == ""
    assert result.notes == ("no_good_block",)
    # One good block anchors the page: its near-good neighbours and the heading before it stay.
    anchored = clean_html(
        SMALL_ARTICLE.replace("</body>", LONG_PARAGRAPH + "</body>"), cleaner="justext"
    )
    assert [lb.cf_class for lb in anchored.blocks] == [S, N, N, G]
    assert all(lb.verdict is Verdict.GOOD for lb in anchored.blocks)
    assert anchored.notes == ()
    # On a small page a lower LENGTH_HIGH makes its paragraphs good, and jusText keeps them.
    lowered = clean_html(SMALL_ARTICLE, cleaner="justext", length_high=80)
    assert lowered.text.startswith("My first post\n\nThis is a short article")
    assert lowered.notes == ()


def test_the_package_keeps_nothing_on_the_same_small_page() -> None:
    justext = pytest.importorskip("justext")
    paragraphs = justext.justext(SMALL_ARTICLE, justext.get_stoplist("English"))
    assert [p.cf_class for p in paragraphs] == ["short", "neargood", "neargood"]
    assert not [p for p in paragraphs if not p.is_boilerplate]


def test_no_note_on_a_page_without_blocks() -> None:
    labeled, notes = JusTextCleaner().label_noted([], STOP)
    assert labeled == [] and notes == ()
