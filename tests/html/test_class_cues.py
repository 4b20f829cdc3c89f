"""The class and id cue words, and the enclosing elements' cues the segmentation gathers."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.compiled import load_source
from pipeline.html.class_cues import (
    _CACHED_CHARS,
    ALL_ANCESTOR_CUES,
    ANCESTOR_CUES,
    ANCESTOR_WORDS,
    RULE_CUES,
    STYLE_CUES,
    ancestor_cue_bits,
    ancestor_cue_names,
    cue_bit,
    has_lead_class,
)
from pipeline.html.segment import parse, segment


def names(bits: int) -> set[str]:
    return {name for i, (name, _) in enumerate(ALL_ANCESTOR_CUES) if bits >> i & 1}


def page(body: str, body_attrs: str = "") -> str:
    return f"<html><head><title>T</title></head><body{body_attrs}>{body}</body></html>"


def cues_by_text(html: str) -> dict[str, set[str]]:
    return {b.text: names(b.ancestor_cues) for b in segment(html)}


def test_the_style_cues_come_first_in_the_same_order() -> None:
    # Bit i means the same cue in the style_* and the anc_* columns.
    assert ANCESTOR_CUES[: len(STYLE_CUES)] == STYLE_CUES
    assert [name for name, _ in ANCESTOR_CUES[len(STYLE_CUES) :]] == ["review", "tooltip"]


def test_the_rules_cues_come_after_the_models_and_no_column_reads_them() -> None:
    # The model's anc_* columns are one per ANCESTOR_CUES entry: a bit the rules add after them
    # must not shift a column or become one, or every shipped model would be refused or misread.
    from pipeline.learned.columns import ANCESTOR_NAMES

    assert (*ANCESTOR_CUES, *RULE_CUES) == ALL_ANCESTOR_CUES
    assert tuple(f"anc_{name}" for name, _ in ANCESTOR_CUES) == ANCESTOR_NAMES
    assert cue_bit("facet") == 1 << len(ANCESTOR_CUES)
    assert cue_bit("nav") == 1
    words = [w for _, ws in ALL_ANCESTOR_CUES for w in ws.split()]
    assert len(words) == len(set(words)) == len(ANCESTOR_WORDS)  # a word names one cue


@pytest.mark.parametrize(
    ("value", "want"),
    [
        ("site-footer__links", {"footer"}),
        ("Main-NAV", {"content", "nav"}),  # "main" names content
        ("CustomerReviews", set()),  # one piece, "customerreviews"
        ("customer-reviews js-tooltip", {"review", "tooltip"}),
        ("footer2 navx", set()),  # whole pieces only
        ("", set()),
        ("\u212aomment", set()),  # KELVIN SIGN lower-cases to an ASCII "k": "komment"
        ("\u00e9-comment caf\u00e9", {"comment"}),  # non-ASCII letters separate pieces
        ("collection-filters__list", {"facet", "list"}),
        ("mobile-facets__details js-filter", {"facet"}),
        ("a-section d-asin-grid-refinements", {"facet", "list"}),
        ("filtered-results", set()),  # whole pieces only
    ],
)
def test_ancestor_cue_bits(value: str, want: set[str]) -> None:
    assert names(ancestor_cue_bits(value)) == want


def test_names_of_the_bits_in_table_order() -> None:
    assert ancestor_cue_names(0) == []
    bits = ancestor_cue_bits("tooltip footer nav")
    assert ancestor_cue_names(bits) == ["nav", "footer", "tooltip"]
    assert ancestor_cue_names(2 ** len(ALL_ANCESTOR_CUES) - 1) == [n for n, _ in ALL_ANCESTOR_CUES]


def test_long_values_are_read_but_not_cached() -> None:
    # Distinct long class strings (generated CSS names) must not pile up in a worker's cache.
    cache = ancestor_cue_bits.cache
    # A full cache would not grow either: start from an empty one, whatever ran before.
    cache.cache_clear()
    short, long = "site-footer uncached-probe-7f3", "site-footer " + "x" * 300
    before = cache.cache_info().currsize
    assert names(ancestor_cue_bits(long)) == {"footer"}
    assert cache.cache_info().currsize == before
    assert names(ancestor_cue_bits(short)) == {"footer"}
    assert cache.cache_info().currsize == before + 1


def test_a_value_of_exactly_the_cap_is_cached() -> None:
    # "Up to" the cap: the longest value still kept is one of exactly _CACHED_CHARS characters.
    cache = ancestor_cue_bits.cache
    cache.cache_clear()
    value = "site-footer ".ljust(_CACHED_CHARS, "y")
    assert len(value) == _CACHED_CHARS
    assert names(ancestor_cue_bits(value)) == {"footer"}
    assert cache.cache_info().currsize == 1


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("P.Article-Standfirst", True),  # class words are matched lower-cased
        ("summary.details-box", False),  # <summary> is an element: the tag is no class word
        ("p.summary", True),
        ("h2.sub-title", True),
        ("h2.title.sub", True),  # two words, in any order
        ("h2.sub", False),
        ("h2.page-title", False),
    ],
)
def test_lead_class_words(style: str, expected: bool) -> None:
    assert has_lead_class(style) is expected


_VALUE = st.lists(
    st.one_of(st.sampled_from(sorted(ANCESTOR_WORDS)), st.text(max_size=6)), max_size=6
).map(lambda parts: "-".join(parts))


@settings(max_examples=200, deadline=None)
@given(_VALUE)
def test_ancestor_cue_bits_is_a_lookup_of_every_piece(value: str) -> None:
    pieces = re.split(r"[^a-z0-9]+", value.lower())
    want = {ALL_ANCESTOR_CUES[ANCESTOR_WORDS[p]][0] for p in pieces if p in ANCESTOR_WORDS}
    assert names(ancestor_cue_bits(value)) == want


def test_enclosing_classes_and_ids_name_a_block_but_its_own_do_not() -> None:
    html = page(
        "<div class='site-footer'><section id=Site-Menu><p class=comment>inner</p></section></div>"
        "<p class=sidebar>free</p>"
    )
    assert cues_by_text(html) == {"inner": {"footer", "nav"}, "free": set()}


def test_the_root_is_not_read_and_the_body_is() -> None:
    html = page("<p>x</p>", " class='single-post has-sidebar'").replace(
        "<html>", "<html class='no-js nav-footer'>"
    )
    assert cues_by_text(html) == {"x": {"content", "sidebar"}}


def test_text_after_a_nested_block_has_its_own_elements_ancestors() -> None:
    # "tail" is the outer card's block: its ancestors are the review list's, without the card.
    html = page("<div class=reviews><div class=card><p>a</p>tail</div></div><p>out</p>")
    assert cues_by_text(html) == {"a": {"review", "list"}, "tail": {"review"}, "out": set()}


def test_an_unwrapped_form_and_inline_elements_count() -> None:
    html = page(
        "<form class=newsletter-form><p>sign</p></form>"
        "<a class=product-card href=/x><div>linked card</div></a>"
        "<div class=sidebar><p>a<br><br>b</p></div>"
    )
    assert cues_by_text(html) == {
        "sign": {"subscribe"},
        "linked card": {"list"},
        "a": {"sidebar"},
        "b": {"sidebar"},
    }


def test_the_python_walk_gives_the_same_cues() -> None:
    source = load_source("pipeline.html.walk")
    html = page(
        "<div id=comments class='Comment-Area'><div class='x-tooltip'><p>deep</p></div>"
        "<ul class=menu><li>one</li></ul></div>"
    )
    tree = parse(html)
    got = source.walk(tree.root, None, False, None)
    assert got == segment(html)
    assert {b.text: names(b.ancestor_cues) for b in got} == {
        "deep": {"comment", "tooltip"},
        "one": {"comment", "nav"},
    }
