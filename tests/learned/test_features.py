"""Block feature vectors (`pipeline.learned.features`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pipeline.learned.features as installed_features
from pipeline import compiled
from pipeline.cleaners.bte import BteCleaner
from pipeline.cleaners.justext import classify_context_free, stopword_densities
from pipeline.html.page_cues import N_PAGE_CUES, PAGE_CUE_NAMES, page_cues
from pipeline.html.segment import segment
from pipeline.learned.columns import (
    ANCESTOR_NAMES,
    CHEAP_COLUMNS,
    FEATURE_NAMES,
    N_FEATURES,
    OWN_FEATURES,
    PATH_CUES,
    STACK_FEATURES,
    TAG_GROUPS,
)
from pipeline.learned.features import own_features, page_features
from pipeline.learned.stacked import stack_features
from pipeline.types import Block

PAGE = """<html><body>
<div class="main-nav"><ul><li class="menu-item"><a href="/">Home</a></li>
<li class="menu-item"><a href="/n">News</a></li></ul></div>
<article><h1>The valley</h1>
<p>For thousands of years the river has carved its way through the soft limestone of the valley,
and the farmers who came later turned its terraces into fields and orchards.</p>
<p>Today the valley is known for its apples! Every autumn there is a market, with 25 growers.</p>
</article>
<footer class="site-footer"><p>&copy; 2024 VALLEY NEWS | <a href="/p">Privacy</a></p></footer>
</body></html>"""
STOP = frozenset("the of and its has to is for with a there who into".split())


def col(name: str) -> int:
    return FEATURE_NAMES.index(name)


@pytest.fixture(scope="module")
def blocks():
    return segment(PAGE, record_runs=True)


def test_shape_and_finite(blocks):
    x = page_features(blocks, STOP)
    assert x.shape == (len(blocks), N_FEATURES)
    assert np.isfinite(x).all()
    assert len(set(FEATURE_NAMES)) == N_FEATURES


def test_empty_page():
    assert page_features([], None).shape == (0, N_FEATURES)


def test_cues_land_on_the_right_blocks(blocks):
    x = page_features(blocks, STOP)
    texts = [b.text for b in blocks]
    nav = texts.index("Home")
    body = next(i for i, t in enumerate(texts) if t.startswith("For thousands"))
    foot = next(i for i, t in enumerate(texts) if "VALLEY NEWS" in t)
    assert x[nav, col("style_nav")] == 1.0
    assert x[nav, col("link_density")] == 1.0
    assert x[body, col("style_nav")] == 0.0
    assert x[body, col("path_article")] == 1.0
    assert x[body, col("tag_p")] == 1.0
    assert x[body, col("stopword_density")] > 0.2
    assert x[body, col("ends_sentence")] == 1.0
    assert x[foot, col("path_footer")] == 1.0
    assert x[foot, col("cf_bad")] == 1.0  # the copyright sign makes jusText call it bad
    assert x[foot, col("upper_ratio")] > 0.5
    # Neighbour columns hold the neighbours' own values.
    assert x[body + 1, col("prev_log_chars")] == x[body, col("log_chars")]
    assert x[body - 1, col("next_log_chars")] == x[body, col("log_chars")]
    assert x[0, col("prev_log_chars")] == 0.0


def test_page_cues_fill_their_columns_in_every_row(source_features, blocks):
    cues = np.arange(1.0, N_PAGE_CUES + 1.0)
    cue_cols = [col(name) for name in PAGE_CUE_NAMES]
    rest = np.ones(N_FEATURES, dtype=bool)
    rest[cue_cols] = False
    x = page_features(blocks, STOP, cues)
    unknown = page_features(blocks, STOP)
    assert (x[:, cue_cols] == cues).all()
    # nothing else depends on the cues, and None is the page that declares nothing
    assert np.array_equal(x[:, rest], unknown[:, rest])
    assert (unknown[:, cue_cols] == page_cues()).all()
    assert np.array_equal(own_features(blocks, STOP, cues), x[:, : len(OWN_FEATURES)])
    # page-level: never copied to the neighbours' columns
    assert not [n for n in FEATURE_NAMES if "cue_" in n and not n.startswith("cue_")]
    for loops in (False, True):
        source_features._COMPILED = loops
        try:
            assert np.array_equal(source_features.page_features(blocks, STOP, cues), x)
        finally:
            source_features._COMPILED = False


def test_ancestor_cues_fill_their_columns_and_are_not_copied(source_features, blocks):
    # The fixture page: the menu items sit in div.main-nav ("main" names content too), the
    # footer's <p> in footer.site-footer; the article's paragraphs in no element with a cue.
    x = page_features(blocks, STOP)
    texts = [b.text for b in blocks]
    nav, foot = texts.index("Home"), next(i for i, t in enumerate(texts) if "VALLEY" in t)
    body = next(i for i, t in enumerate(texts) if t.startswith("For thousands"))
    anc = [col(name) for name in ANCESTOR_NAMES]
    assert [ANCESTOR_NAMES[k] for k in np.flatnonzero(x[nav, anc])] == ["anc_nav", "anc_content"]
    assert [ANCESTOR_NAMES[k] for k in np.flatnonzero(x[foot, anc])] == ["anc_footer"]
    assert not x[body, anc].any()
    # Bit i of Block.ancestor_cues is column i, in both feature paths.
    shifted = [b._replace(ancestor_cues=(1 << len(ANCESTOR_NAMES)) - 1 - b.index) for b in blocks]
    want = np.array([[b.ancestor_cues >> k & 1 for k in range(len(anc))] for b in shifted])
    for loops in (False, True):
        source_features._COMPILED = loops
        try:
            assert np.array_equal(source_features.page_features(shifted, STOP)[:, anc], want)
        finally:
            source_features._COMPILED = False
    assert np.array_equal(page_features(shifted, STOP)[:, anc], want)
    # Own columns only: no neighbour, window or far copies.
    assert [n for n in FEATURE_NAMES if "anc_" in n] == list(ANCESTOR_NAMES)


def test_page_cues_of_the_wrong_shape_are_refused(blocks):
    with pytest.raises(ValueError, match="page cues"):
        page_features(blocks, STOP, np.zeros(N_PAGE_CUES + 1))


def test_digits_counted(blocks):
    x = own_features(blocks, STOP)
    texts = [b.text for b in blocks]
    i = next(k for k, t in enumerate(texts) if "25 growers" in t)
    assert x[i, OWN_FEATURES.index("digit_ratio")] == pytest.approx(2 / len(texts[i]))


def test_language_independent_mode_zeroes_stopwords(blocks):
    x = page_features(blocks, None)
    assert (x[:, col("stopword_density")] == 0).all()
    assert (x[:, col("has_stoplist")] == 0).all()


SHORT_BLOCKS = (
    "<body><p>Short, with <a href='/a'>a</a> link.</p><p>Short, and no link.</p>"
    "<p><a href='/b'>All of it one link</a></p></body>"
)


# SHORT_BLOCKS: under jusText's length_low, "short" without links, "bad" with any link text.
@pytest.mark.parametrize("html", [PAGE, SHORT_BLOCKS], ids=["page", "short blocks"])
def test_cf_and_bte_columns_agree_with_their_cleaners(html: str) -> None:
    blocks = segment(html, record_runs=True)
    for stop in (STOP, None):
        x = own_features(blocks, stop)
        onehot = x[:, OWN_FEATURES.index("cf_good") : OWN_FEATURES.index("cf_good") + 4]
        names = [("good", "neargood", "short", "bad")[k] for k in onehot.argmax(axis=1)]
        assert names == [c.value for c in classify_context_free(blocks, stop)]
    # The feature is the paper's BTE (a tag costs as much as a token).
    bte = [lb.score for lb in BteCleaner(tag_weight=1.0).label(blocks, None)]
    assert x[:, OWN_FEATURES.index("bte_fraction")] == pytest.approx(bte)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=6))
def test_any_text_gives_finite_features(paragraphs):
    html = "<body>" + "".join(f"<p class='x{i}'>{p}</p>" for i, p in enumerate(paragraphs))
    blocks = segment(html, record_runs=True)
    x = page_features(blocks, STOP)
    assert x.shape == (len(blocks), N_FEATURES)
    assert np.isfinite(x).all()


def _block(i, text, tag, path, style, links=0, heading=False, runs=None):
    n_words = len(text.split())
    return Block(i, text, tag, path, style, heading, len(text), n_words, links, 2, 9, runs)


LONG = "word " * 49 + "word"  # 249 characters: "good" for jusText without a stoplist


@pytest.fixture(scope="module")
def built():
    """Nav link, title, a long and a short paragraph under one path, and a footer link that
    repeats the nav's text: values below are worked out by hand from these counts."""
    return [
        _block(0, "Home", "li", "html.body.nav.ul.li", "li.menu", links=4),
        _block(1, "Title", "h1", "html.body.article.h1", "h1", heading=True),
        _block(2, LONG, "p", "html.body.article.p", "p"),
        _block(3, "A short second paragraph.", "p", "html.body.article.p", "p"),
        _block(4, "Home", "li", "html.body.footer.ul.li", "li.menu", links=4),
    ]


def test_group_shares_by_hand(built):
    x = page_features(built, None)
    plain = 0 + 5 + 249 + 25 + 0  # characters outside links
    assert x[:, col("path_share")] == pytest.approx([0, 5 / plain, 274 / plain, 274 / plain, 0])
    assert x[:, col("path_blocks")] == pytest.approx(np.log1p([1, 1, 2, 2, 1]))
    assert x[:, col("parent_share")] == pytest.approx([0, 1, 1, 1, 0])
    assert x[:, col("style_group_share")] == pytest.approx(
        [0, 5 / plain, 274 / plain, 274 / plain, 0]
    )
    assert x[:, col("style_group_blocks")] == pytest.approx(np.log1p([2, 1, 2, 2, 2]))
    assert x[:, col("path_link_density")] == pytest.approx([1, 0, 0, 0, 1])
    assert x[:, col("parent_link_density")] == pytest.approx([1, 0, 0, 0, 1])
    assert x[:, col("style_group_link_density")] == pytest.approx([1, 0, 0, 0, 1])
    assert x[:, col("is_main_path")].tolist() == [0, 0, 1, 1, 0]
    assert x[:, col("is_main_parent")].tolist() == [0, 1, 1, 1, 0]


def test_page_relative_columns_by_hand(built):
    x = page_features(built, None)
    chars = np.array([4, 5, 249, 25, 4])
    median = np.log1p(5)  # median of log1p over the five non-empty blocks
    assert x[:, col("rel_log_chars")] == pytest.approx(np.log1p(chars) - median)
    page_links = 8 / chars.sum()
    assert x[:, col("rel_link_density")] == pytest.approx(np.array([1, 0, 0, 0, 1]) - page_links)
    assert (x[:, col("rel_stopword_density")] == 0).all()  # no stoplist: every density is 0
    assert x[:, col("text_repeats")] == pytest.approx(np.log1p([1, 0, 0, 0, 1]))
    assert x[:, col("offset_from_longest")] == pytest.approx([-0.4, -0.2, 0, 0.2, 0.4])
    # Elements of its path shared with the longest block's html.body.article.p, of its four.
    assert x[:, col("path_prefix_with_longest")] == pytest.approx([2 / 4, 3 / 4, 1, 1, 2 / 4])


def test_sentence_columns_by_hand() -> None:
    """Sentence ends are counted up to 20, scaled to 1 there."""
    texts = ("One. Two. Three. Four. Five.", " ".join(["Go."] * 25), "No end here")
    page = [_block(i, text, "p", "html.body.p", "p") for i, text in enumerate(texts)]
    x = page_features(page, None)
    assert x[:, col("sentence_ends")] == pytest.approx([5 / 20, 1, 0])
    assert x[:, col("ends_sentence")].tolist() == [1, 1, 0]


def test_good_span_and_h1_by_hand(built):
    x = page_features(built, None)
    # Only the 249-character paragraph is jusText-good (no stoplist, longer than 200).
    assert x[:, col("cf_good")].tolist() == [0, 0, 1, 0, 0]
    assert x[:, col("in_good_span")].tolist() == [0, 0, 1, 0, 0]
    assert x[:, col("good_chars_before")].tolist() == [0, 0, 0, 1, 1]
    assert x[:, col("after_h1")].tolist() == [0, 1, 1, 1, 1]
    assert x[:, col("from_h1")] == pytest.approx([-0.2, 0, 0.2, 0.4, 0.6])
    assert x[:, col("near_h1")] == pytest.approx([1 / 2, 1, 1 / 2, 1 / 3, 1 / 4])
    no_h1 = [b._replace(tag="h2") if b.tag == "h1" else b for b in built]
    assert (page_features(no_h1, None)[:, col("after_h1")] == 0.5).all()


def test_page_level_columns_by_hand(built):
    x = page_features(built, None)
    total = 4 + 5 + 249 + 25 + 4
    assert x[:, col("page_link_density")] == pytest.approx(np.full(5, 8 / total))
    assert x[:, col("page_good_share")] == pytest.approx(np.full(5, 249 / total))
    assert x[:, col("page_longest_share")] == pytest.approx(np.full(5, 249 / total))
    assert x[:, col("log_page_blocks")] == pytest.approx(np.full(5, np.log1p(5)))


def test_two_away_and_wide_window_by_hand(built):
    x = page_features(built, None)
    own = x[:, col("log_chars")]
    assert x[2:, col("prev2_log_chars")] == pytest.approx(own[:-2])
    assert x[:2, col("prev2_log_chars")].tolist() == [0, 0]
    assert x[:-2, col("next2_log_chars")] == pytest.approx(own[2:])
    # A 10-block window covers this whole page: every row holds the page mean.
    assert x[:, col("win10_log_chars")] == pytest.approx(np.full(5, own.mean()))
    # The 3-block window of the first block covers blocks 0..3.
    assert x[0, col("win3_log_chars")] == pytest.approx(own[:4].mean())


def test_stack_features_by_hand(built):
    probs = np.array([0.1, 0.6, 0.9, 0.7, 0.2])
    s = stack_features(built, probs)
    c = {name: i for i, name in enumerate(STACK_FEATURES)}
    assert s.shape == (5, len(STACK_FEATURES))
    assert s[:, c["p1"]] == pytest.approx(probs)
    assert s[:, c["prev_p1"]] == pytest.approx([0, 0.1, 0.6, 0.9, 0.7])
    assert s[:, c["next2_p1"]] == pytest.approx([0.9, 0.7, 0.2, 0, 0])
    assert s[0, c["win2_p1"]] == pytest.approx((0.1 + 0.6 + 0.9) / 3)
    # Blocks 2 and 3 share a path: their character-weighted (+1) mean.
    body = (0.9 * 250 + 0.7 * 26) / 276
    assert s[:, c["path_p1"]] == pytest.approx([0.1, 0.6, body, body, 0.2])
    # Blocks 1-3 share the parent html.body.article.
    parent = (0.6 * 6 + 0.9 * 250 + 0.7 * 26) / 282
    assert s[1:4, c["parent_p1"]] == pytest.approx([parent] * 3)
    # The two "li.menu" blocks share a class string (5 characters each with the +1).
    assert s[[0, 4], c["style_p1"]] == pytest.approx([0.15, 0.15])
    assert s[:, c["page_max_p1"]] == pytest.approx(np.full(5, 0.9))
    assert stack_features([], np.zeros(0)).shape == (0, len(STACK_FEATURES))


# --- Implementations side by side --------------------------------------------------------------
# Compiled, the module counts characters and stopwords in one loop; uncompiled, with
# whole-page numpy. Both must give the shipped model bit-identical features.


@pytest.fixture(scope="module")
def source_features() -> ModuleType:
    """The uncompiled module, whose ``_COMPILED`` switch picks either implementation."""
    module = compiled.load_source("pipeline.learned.features")
    assert not compiled.is_compiled_file(module.__file__)
    return module


@pytest.fixture(scope="module")
def source_stacked() -> ModuleType:
    """The uncompiled stacked pass, switched the same way."""
    module = compiled.load_source("pipeline.learned.stacked")
    assert not compiled.is_compiled_file(module.__file__)
    return module


@contextmanager
def _loops(on: bool, *modules: ModuleType) -> Iterator[None]:
    """Run source modules with their compiled module's way (row loops) or numpy's."""
    for module in modules:
        module._COMPILED = on
    try:
        yield
    finally:
        for module in modules:
            module._COMPILED = False


def _both_ways(module: ModuleType, stacked: ModuleType, blocks, stoplist, probs=None) -> None:
    outputs = []
    for loops in (False, True):
        with _loops(loops, module, stacked):
            x = module.page_features(blocks, stoplist)
            s = stacked.stack_features(
                blocks, probs if probs is not None else np.zeros(len(blocks))
            )
        outputs.append((x, s))
    (x0, s0), (x1, s1) = outputs
    assert x0.shape == x1.shape == (len(blocks), N_FEATURES)
    assert np.array_equal(x0, x1)
    assert np.array_equal(s0, s1)
    # The installed module (compiled when the build could) agrees with its source.
    assert np.array_equal(page_features(blocks, stoplist), x0)


TRICKY_TEXTS = [
    "",
    "The and of",
    "THE And oF the",
    "tabs\tand\x0bvertical\x0cfeeds\x1cand\x1dseparators\x1e\x1fthe",
    "İstanbul and the KELVIN \u212a sign: \u212aelvin",
    "ΣΊΣΥΦΟΣ ΟΔΟΣ the end ΣΑΣ.",
    "naïve café the résumé — “quoted” of",
    "中文的段落，没有空格。 the 的",
    "ภาษาไทยไม่มีช่องว่าง the",
    "emoji 😀 the 𝐀𝐁 astral",
    "\u00a0non\u2003breaking\u3000spaces the\u2028line",
    "© 2024 &copy; the",
    "Ends with a question?",
    "x" * 300 + " the of and",
]
STOPLISTS = [
    STOP,
    None,
    frozenset(),
    frozenset({"the", "The", "of", "two words", "", "café", "的", "ΟΔΟΣ", "οδος", "k", "и"}),
]


def _tricky_blocks(with_runs: bool) -> list[Block]:
    blocks = []
    for i, text in enumerate(TRICKY_TEXTS):
        path = "html.body.form.select.option" if i == 3 else f"html.body.div.p{i % 3}"
        runs = (len(text.split()), -1) if with_runs and i % 4 else None
        blocks.append(_block(i, text, "h1" if i == 5 else "p", path, f"p.c{i % 2}", runs=runs))
    return blocks


@pytest.mark.parametrize("stoplist", STOPLISTS, ids=["stop", "none", "empty", "odd"])
@pytest.mark.parametrize("with_runs", [False, True])
def test_loops_match_numpy_on_tricky_blocks(source_features, source_stacked, stoplist, with_runs):
    blocks = _tricky_blocks(with_runs)
    probs = np.linspace(0.0, 1.0, len(blocks))
    _both_ways(source_features, source_stacked, blocks, stoplist, probs)
    for size in (1, 2, 3):
        _both_ways(source_features, source_stacked, blocks[:size], stoplist, probs[:size])


def test_loops_match_numpy_on_segmented_page(source_features, source_stacked, blocks):
    for stoplist in STOPLISTS:
        _both_ways(
            source_features, source_stacked, blocks, stoplist, np.linspace(0.0, 1.0, len(blocks))
        )


_words = st.sampled_from(["the", "The", "OF", "and", "İ", "ΣΑΣ", "的", "©", "&copy", "a.b!"])
_texts = st.lists(
    st.one_of(_words, st.text(max_size=8), st.sampled_from([" ", "\t", "\x1c", "\u3000"])),
    max_size=12,
).map("".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(_texts, min_size=1, max_size=8), st.sampled_from(STOPLISTS))
def test_loops_match_numpy_on_random_text(source_features, source_stacked, texts, stoplist):
    blocks = [_block(i, t, "p", "html.body.p", "p") for i, t in enumerate(texts)]
    _both_ways(source_features, source_stacked, blocks, stoplist)


def test_stopword_column_matches_justext_densities(source_features):
    blocks = _tricky_blocks(True)
    for stoplist in STOPLISTS:
        want = stopword_densities(blocks, stoplist)
        source_features._COMPILED = True
        try:
            got = source_features.own_features(blocks, stoplist)
        finally:
            source_features._COMPILED = False
        assert got[:, OWN_FEATURES.index("stopword_density")].tolist() == want


# Stopwords longer than a token key's packed characters (`_stop_table`): entries of one length
# that share those characters, tokens that differ from an entry only after them, and an entry
# and tokens too long for a key, which are looked up as strings.
LONG_STOP = frozenset(
    {"intermediate", "intermediary", "abcdefgh", "abcdefghi", "understanding", "y" * 300}
)
LONG_TEXTS = [
    "Intermediary INTERMEDIATE intermediatf intermediar intermediaries",
    "abcdefgh abcdefghi abcdefghij abcdefg ABCDEFGHI",
    "understanding understandinG understandinh",
    "y" * 300 + " " + "Y" * 300 + " " + "y" * 299 + " " + "y" * 256,
    "ends with an intermediary",
]


def test_long_stopwords_sharing_their_first_characters(source_features):
    blocks = [_block(i, t, "p", "html.body.p", "p") for i, t in enumerate(LONG_TEXTS)]
    want = stopword_densities(blocks, LONG_STOP)
    column = OWN_FEATURES.index("stopword_density")
    assert page_features(blocks, LONG_STOP)[:, column].tolist() == want
    source_features._COMPILED = True
    try:
        got = source_features.own_features(blocks, LONG_STOP)
    finally:
        source_features._COMPILED = False
    assert got[:, column].tolist() == want
    assert want[:4] == [2 / 5, 3 / 5, 2 / 3, 2 / 4]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 25])
@pytest.mark.parametrize("w", [2, 3, 10, 15])
def test_window_means_by_brute_force(source_features, n, w):
    values = np.random.default_rng(n * 100 + w).random((n, 3))
    reach = 15
    sums = source_features.padded_prefix_sums(values, reach)
    got = (
        source_features.window_sums(sums, w, reach, n) / source_features.window_sizes(n, w)[:, None]
    )
    want = [values[max(i - w, 0) : i + w + 1].mean(axis=0) for i in range(n)]
    assert got == pytest.approx(np.array(want))


@pytest.mark.parametrize("n", [1, 2, 5, 6, 101])
def test_median_is_numpys(source_features, n):
    values = np.random.default_rng(n).random(n)
    assert source_features._median(values) == float(np.median(values))


def test_compiled_build_is_used_when_built():
    # The source switches its loops on exactly when it runs as the compiled extension.
    import pipeline.learned.features as installed

    assert compiled.is_compiled_file(installed.__file__) == installed._COMPILED
    if os.environ.get("WARCCLEAN_REQUIRE_COMPILED") == "1":
        assert compiled.compiled_modules()["pipeline.learned.features"]


def _style_cues_by_definition(module: ModuleType, style: str) -> int:
    # The definition: split the lower-cased class string at every non-alphanumeric run, drop
    # the tag name, look each piece up.
    pieces = module._STYLE_SPLIT.split(style.lower())[1:]
    return sum({1 << module._STYLE_WORDS[p] for p in pieces if p in module._STYLE_WORDS})


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["nav", "NAV", "footer", "content", "ad", "div", "main", "x1"]),
            st.sampled_from([".", "-", "__", " ", "–", "İ", "\u212a", "ſ", "\t"]),
            st.text(max_size=4),
        ),
        max_size=10,
    ).map("".join)
)
# Every ASCII separator between two cue words, the tag name first (as the walk writes it).
@example("div.nav_footer[content]`ad^main\\x1")
def test_style_cues_follow_their_definition(source_features, style):
    import pipeline.learned.features as installed

    want = _style_cues_by_definition(source_features, style)
    assert source_features._style_bits.__wrapped__(style) == want
    # The compiled module's one-pass scan, run by Python and as installed (C when compiled).
    assert source_features._style_bits_loop(style.lower()) == want
    if style.isascii():  # lower-cased in the loop
        assert source_features._style_bits_loop(style) == want
    assert installed._style_bits.__wrapped__(style) == want


@pytest.mark.parametrize(
    ("path", "tag_group", "cues"),
    [
        ("html.body.nav.ul.li", "li", {"nav", "ul"}),
        ("html.body.article.div.p", "p", {"article"}),
        ("td", "cell", set()),
        ("html.body.footer.table.tr.td.a", None, {"footer", "table", "a"}),
    ],
)
def test_path_cues(source_features, path, tag_group, cues):
    bits, depth = source_features._path_bits.__wrapped__(path)
    names = [name for name, _ in TAG_GROUPS] + list(PATH_CUES)
    got = {names[i] for i in range(len(names)) if bits >> i & 1}
    assert got == cues | ({tag_group} if tag_group else set())
    assert depth == len(path.split(".")) / 16.0


# --- Page-level loops: compiled module against its source --------------------------------------
# Compiled, the group, neighbour, window and stacked columns come from row-by-row loops
# (`_fill_own_loop`, `_fill_neighbours_loop`, `_fill_stack_loop`); from source, from whole-column
# numpy. The shipped model needs both bit for bit, so equality below is exact.


def _three_ways(module: ModuleType, stacked: ModuleType, blocks, stoplist, probs) -> None:
    """Source with numpy columns, source with the loops (run by Python) and the installed
    modules (the loops in C when compiled) give identical matrices."""
    outputs = []
    for loops in (False, True):
        with _loops(loops, module, stacked):
            outputs.append(
                (module.page_features(blocks, stoplist), stacked.stack_features(blocks, probs))
            )
    outputs.append((page_features(blocks, stoplist), stack_features(blocks, probs)))
    (x0, s0) = outputs[0]
    assert x0.shape == (len(blocks), N_FEATURES)
    assert s0.shape == (len(blocks), len(STACK_FEATURES))
    for x, s in outputs[1:]:
        assert np.array_equal(x, x0, equal_nan=True)
        assert np.array_equal(s, s0, equal_nan=True)


def _page_shapes() -> dict[str, list[Block]]:
    """Pages of the shapes real ones come in, built in code."""
    article = [
        _block(0, "Skip to content", "a", "html.body.div.a", "a.skip", links=15),
        _block(1, "Home", "li", "html.body.header.nav.ul.li", "li.menu-item", links=4),
        _block(2, "News", "li", "html.body.header.nav.ul.li", "li.menu-item", links=4),
        _block(3, "The valley", "h1", "html.body.main.article.h1", "h1.entry-title", heading=True),
        _block(4, LONG, "p", "html.body.main.article.div.p", "p", runs=(50, -2)),
        _block(5, "Short line.", "p", "html.body.main.article.div.p", "p", runs=(2,)),
        _block(6, "A quote of the day", "blockquote", "html.body.main.article.blockquote", ""),
        _block(7, "Home", "li", "html.body.footer.ul.li", "li.menu-item", links=4),
        _block(8, "© 2024 Valley", "p", "html.body.footer.p", "p.copyright"),
    ]
    table = [
        _block(i, text, tag, f"html.body.table.tbody.tr.{tag}", f"{tag}.c{i % 3}")
        for i, (text, tag) in enumerate(
            [("Name", "th"), ("Price", "th"), ("Apples", "td"), ("2.50", "td")] * 6
        )
    ]
    headings = [
        _block(
            i,
            f"Heading {i}" if i % 2 == 0 else LONG,
            f"h{1 + i % 6}" if i % 2 == 0 else "p",
            "html.body.section." + ("h2" if i % 2 == 0 else "p"),
            "",
            heading=i % 2 == 0,
        )
        for i in range(14)
    ]
    return {
        "one block": [_block(0, "Only this.", "p", "html.body.p", "p")],
        "two blocks": article[3:5],
        "article": article,
        "table": table,
        "headings": headings,
        "empty texts": [_block(i, "", "div", "html.body.div", "div") for i in range(4)],
        "equal paths": [_block(i, LONG, "p", "p", "") for i in range(30)],
    }


@pytest.mark.parametrize("shape", list(_page_shapes()))
@pytest.mark.parametrize("stoplist", [STOP, None], ids=["stop", "none"])
def test_loops_match_numpy_on_page_shapes(source_features, source_stacked, shape, stoplist):
    blocks = _page_shapes()[shape]
    probs = np.random.default_rng(len(blocks)).random(len(blocks))
    _three_ways(source_features, source_stacked, blocks, stoplist, probs)


def test_loops_on_empty_page(source_features, source_stacked):
    for loops in (False, True):
        with _loops(loops, source_features, source_stacked):
            assert source_features.page_features([], STOP).shape == (0, N_FEATURES)
            assert source_stacked.stack_features([], np.zeros(0)).shape == (0, 13)
    assert stack_features([], np.zeros(0)).shape == (0, len(STACK_FEATURES))


_path_parts = st.sampled_from(["html", "body", "div", "p", "ul", "li", "nav", "a", "td", ""])
_random_blocks = st.lists(
    st.tuples(
        st.sampled_from(["", "Home", "Read more", LONG, "the end of it.", "Σ 12 ©", "的的"]),
        st.sampled_from(["p", "h1", "li", "td", "div"]),
        st.lists(_path_parts, min_size=1, max_size=5).map(".".join),
        st.sampled_from(["", "div.nav", "p.content", "li.menu-item", "DIV.Footer x"]),
        st.integers(0, 300),
        st.one_of(st.none(), st.lists(st.integers(-5, 20), max_size=4).map(tuple)),
        st.integers(0, 2 ** len(ANCESTOR_NAMES) - 1),
    ),
    min_size=1,
    max_size=24,
)


@settings(max_examples=40, deadline=None)
@given(_random_blocks, st.sampled_from([STOP, None]), st.integers(0, 2**32 - 1))
def test_loops_match_numpy_on_random_pages(source_features, source_stacked, rows, stoplist, seed):
    blocks = [
        Block(
            i,
            text,
            tag,
            path,
            style,
            tag == "h1",
            len(text),
            len(text.split()),
            min(links, len(text)),
            3,
            11,
            runs,
            ancestors,
        )
        for i, (text, tag, path, style, links, runs, ancestors) in enumerate(rows)
    ]
    probs = np.random.default_rng(seed).random(len(blocks))
    _three_ways(source_features, source_stacked, blocks, stoplist, probs)


@settings(max_examples=200, deadline=None)
@given(st.lists(_path_parts, min_size=1, max_size=6), st.lists(_path_parts, min_size=1, max_size=6))
def test_shared_parts_is_the_split_definition(source_features, a, b):
    want = source_features._common_prefix_parts(a, b)
    assert source_features._shared_parts(".".join(a), ".".join(b)) == want


# The cheap feature set (`neighbours-fast`): its columns are the full matrix's, from the walk's
# counts alone, and everything else is constant, so a model may only read `CHEAP_COLUMNS`.
_CHEAP = list(CHEAP_COLUMNS)
_NOT_CHEAP = [i for i in range(N_FEATURES) if i not in set(CHEAP_COLUMNS)]


def _cheap_matches_full(module: ModuleType, blocks, stoplist) -> np.ndarray:
    full = module.page_features(blocks, stoplist)
    cheap = module.page_features(blocks, stoplist, cheap=True)
    assert cheap.shape == full.shape
    assert np.array_equal(cheap[:, _CHEAP], full[:, _CHEAP])
    return cheap


def test_cheap_set_leaves_out_every_per_character_column():
    names = {FEATURE_NAMES[i] for i in _NOT_CHEAP}
    for name in ("stopword_density", "cf_good", "bte_fraction", "digit_ratio", "in_good_span"):
        assert name in names and f"prev_{name}" in names
    for name in ("log_chars", "link_density", "text_density", "path_share", "anc_nav"):
        assert name not in names and f"prev_{name}" not in names
    assert "win10_log_chars" not in names and "win10_stopword_density" in names


def test_cheap_features_equal_the_full_ones_on_the_page(blocks):
    cheap = _cheap_matches_full(installed_features, blocks, STOP)
    assert np.array_equal(cheap, page_features(blocks, None, cheap=True))
    # Vowels written as digits (one to one, so equal texts stay equal): the full matrix's
    # character and stopword columns change, the cheap matrix does not read them.
    digits = str.maketrans("aeiouAEIOU", "0123401234")
    changed = [b._replace(text=b.text.translate(digits)) for b in blocks]
    assert not np.array_equal(
        page_features(changed, STOP)[:, _NOT_CHEAP], page_features(blocks, STOP)[:, _NOT_CHEAP]
    )
    assert np.array_equal(page_features(changed, STOP, cheap=True), cheap)


@pytest.mark.parametrize("stoplist", STOPLISTS, ids=["stop", "none", "empty", "odd"])
@pytest.mark.parametrize("with_runs", [False, True])
def test_cheap_features_both_ways_on_tricky_blocks(source_features, stoplist, with_runs):
    blocks = _tricky_blocks(with_runs)
    outputs = []
    for loops in (False, True):
        with _loops(loops, source_features):
            outputs.append(_cheap_matches_full(source_features, blocks, stoplist))
    assert np.array_equal(outputs[0], outputs[1])
    assert np.array_equal(page_features(blocks, stoplist, cheap=True), outputs[0])


def test_cheap_features_need_no_token_runs(blocks):
    # `neighbours-fast` segments without BTE's runs; the cheap matrix is the same either way.
    plain = segment(PAGE, record_runs=False)
    assert [b.runs for b in plain] == [None] * len(plain)
    with_runs = page_features(blocks, STOP, cheap=True)
    assert np.array_equal(page_features(plain, STOP, cheap=True), with_runs)
