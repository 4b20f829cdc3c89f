"""Filter panels: kept blocks of a panel of checkbox or radio filters beside the results are
dropped, a results grid wrapped with its filters and filters drawn as links are not, and the page
says so."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.class_cues import cue_bit
from pipeline.html.segment import parse, segment
from pipeline.rules import facet_filters
from tests.rules.guard_checks import dropped_by

PRODUCTS = [
    "Sennheiser HD 600 open-back reference headphones with a detachable cable",
    "Sennheiser HD 560S open-back headphones for the studio and the living room",
    "Sennheiser IE 200 in-ear monitors with a choice of bass in the ear tips",
]
# Three groups of four choices: more than the gate's eight short kept blocks under a filter word.
GROUPS = {
    "Cup Style": ["Closed-Back (10)", "Open-Back (7)", "Semi-Open (2)", "In-Ear (4)"],
    "Connectivity": ["Wired (16)", "Wireless (6)", "Bluetooth (2)", "USB-C (2)"],
    "Availability": ["In stock (18)", "Out of stock (2)", "On sale (1)", "Pre-order (1)"],
}
CHOICES = [choice for group in GROUPS.values() for choice in group]
PANEL_TEXTS = [text for heading, group in GROUPS.items() for text in (heading, *group)]


def panel(cls: str = "collection-filters", kind: str = "checkbox", tag: str = "form") -> str:
    """A filter panel: three groups of choices under a summary each."""
    groups = []
    for heading, group in GROUPS.items():
        items = "".join(
            f'<li><label><input type="{kind}" name="f">{choice}</label></li>' for choice in group
        )
        groups.append(f"<details open><summary>{heading}</summary><ul>{items}</ul></details>")
    return f'<{tag} class="{cls}">{"".join(groups)}</{tag}>'


def grid() -> str:
    cards = "".join(f'<div class="card"><p>{p}</p><p>$279.95</p></div>' for p in PRODUCTS)
    return f'<div class="product-grid">{cards}</div>'


def page(body: str) -> bytes:
    return (
        "<html><head><title>Sennheiser</title></head><body><h1>Collection: Sennheiser</h1>"
        f"{body}</body></html>"
    ).encode()


def dropped(html: bytes, keep: list[bool] | None = None) -> list[str]:
    """What the guard drops when the model keeps ``keep`` (every block when None)."""
    return dropped_by(facet_filters.guard, facet_filters.FACET_DROPPED, html, keep)


@pytest.mark.parametrize(
    ("cls", "kind", "tag"),
    [
        ("collection-filters", "checkbox", "form"),
        ("facets__form", "checkbox", "div"),
        ("a-section refinements", "radio", "div"),
        ("searchFilters", "checkbox", "aside"),  # one piece, "searchfilters": not a filter word
    ],
)
def test_a_panel_of_filters_beside_the_results_is_dropped(cls: str, kind: str, tag: str) -> None:
    html = page(panel(cls, kind, tag) + grid())
    want = [] if cls == "searchFilters" else PANEL_TEXTS
    assert dropped(html) == want


def test_an_id_names_a_panel_too() -> None:
    html = page(panel(cls="x").replace('class="x"', 'id="product-filter"') + grid())
    assert dropped(html) == PANEL_TEXTS


def test_a_results_grid_wrapped_with_its_filters_keeps_its_results() -> None:
    # A theme's wrapper named after the filters holds the grid as well: only the inner form goes.
    html = page(f'<div class="collection__grid facets-vertical">{panel()}{grid()}</div>')
    assert dropped(html) == PANEL_TEXTS
    assert len(facet_filters.filter_panels(parse(html))) == 1


def test_filters_drawn_as_links_or_a_single_checkbox_are_not_a_panel() -> None:
    links = "".join(f'<li><a href="/c?f={i}">{c}</a></li>' for i, c in enumerate(CHOICES))
    assert dropped(page(f'<ul class="filters">{links}</ul>' + grid())) == []
    # The panel's labels with one checkbox left: a form with an option, not a panel of choices.
    one = panel().replace('<input type="checkbox" name="f">', "", len(CHOICES) - 1)
    assert one.count("<input") == 1
    assert dropped(page(one + grid())) == []


def test_a_panel_mostly_of_other_text_is_not_one() -> None:
    prose = "".join(f"<p>{p}</p>" for p in PRODUCTS * 2)
    html = page(f'<div class="filters">{panel(cls="x", tag="div")}{prose}</div>')
    assert dropped(html) == []


def test_the_tree_is_searched_only_where_a_class_word_names_filters() -> None:
    # The same panel under a class the walk does not read as filters is left to the model.
    assert dropped(page(panel(cls="sidebar-options") + grid())) == []
    assert dropped(page(panel(cls="sidebar-filter") + grid())) == PANEL_TEXTS


def test_the_elements_read_for_panels_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # A deep nest of elements that all name filters and are no panel, then a panel: each one
    # read is a pass over what it holds, so the pass stops reading at MAX_READ.
    nest = '<div class="filter">' * 50 + f"<p>{PRODUCTS[0]}</p>" + "</div>" * 50
    tree = parse(page(nest + panel()))
    reads = []
    holds = facet_filters.holds_choices
    monkeypatch.setattr(facet_filters, "holds_choices", lambda node: reads.append(1) or holds(node))
    assert len(facet_filters.filter_panels(tree)) == 1
    assert len(reads) == 51
    reads.clear()
    monkeypatch.setattr(facet_filters, "MAX_READ", 10)
    assert facet_filters.filter_panels(tree) == []  # the panel lies past the bound
    assert len(reads) == 10


def test_a_page_that_is_only_a_panel_keeps_it() -> None:
    html = page(panel())
    blocks = segment(parse(html))
    keep = [b.text in PANEL_TEXTS for b in blocks]  # the h1 dropped: nothing else stays kept
    assert dropped(html, keep) == []


def test_the_tree_is_searched_only_where_the_model_kept_many_choices() -> None:
    html = page(panel() + grid())
    blocks = segment(parse(html))
    choices = [i for i, b in enumerate(blocks) if b.text in CHOICES]
    for kept in (7, 8):
        keep = [i not in choices[kept:] for i in range(len(blocks))]
        out = dropped(html, keep)
        want = [t for t in PANEL_TEXTS if t not in CHOICES[kept:]]  # the headings stay kept
        # Seven short kept choices are a panel the model mostly dropped; eight open the gate.
        assert out == ([] if kept == 7 else want)


_N_PANEL = len(PANEL_TEXTS)


@given(st.lists(st.booleans(), min_size=_N_PANEL, max_size=_N_PANEL))
def test_the_guard_only_drops_kept_panel_blocks(panel_keep: list[bool]) -> None:
    html = page(panel() + grid())
    blocks = segment(parse(html))
    texts = [b.text for b in blocks]
    assert texts[1 : 1 + _N_PANEL] == PANEL_TEXTS  # after the h1: the panel, then the cards
    keep = [True, *panel_keep, *[True] * (len(blocks) - 1 - _N_PANEL)]
    # The gate: enough short kept blocks under the panel's class word (the walk places each
    # <summary>'s text in the block of the element around its <details>, here the body, so the
    # group headings do not count). Once it opens, every kept block of the panel goes.
    named = [
        i
        for i in range(1, 1 + _N_PANEL)
        if keep[i] and blocks[i].ancestor_cues & cue_bit("facet") and blocks[i].n_chars <= 40
    ]
    want = [t for t, k in zip(PANEL_TEXTS, panel_keep, strict=True) if k]
    assert dropped(html, keep) == (want if len(named) >= facet_filters.MIN_CHOICES_KEPT else [])


def test_the_option_is_a_cleaner_parameter() -> None:
    from pipeline.cleaners.registry import make_cleaner

    assert make_cleaner("neighbours", facet_filters=False).params()["facet_filters"] is False
    assert "facet_filters" not in make_cleaner("neighbours").params()
    with pytest.raises(ValueError, match="facet_filters must be true or false"):
        make_cleaner("neighbours", facet_filters="no")


def test_on_a_real_shop_page_the_filters_go_and_the_products_stay(wcxb_dir: Path) -> None:
    # WCXB dev 2897 (headphones.com, a Shopify theme): the model keeps 44 blocks of the filter
    # form beside the 20 products; the reference holds the products and none of the filters.
    html = gzip.decompress((wcxb_dir / "html" / "2897.html.gz").read_bytes())
    truth = json.loads((wcxb_dir / "ground-truth" / "2897.json").read_text("utf-8"))
    url, reference = truth["url"], truth["ground_truth"]["main_content"]
    without_rule = clean_html(html, url=url, facet_filters=False)
    result = clean_html(html, url=url)
    for control in ("Cup Style", "Closed-Back (10)", "Requires Amplifier"):
        assert control in without_rule.text
        assert control not in result.text
        assert control not in reference
    assert facet_filters.FACET_DROPPED in result.notes
    assert facet_filters.FACET_DROPPED not in without_rule.notes
    for product in ("Sennheiser HD 800S Headphones", "Sennheiser HD 560S", "$1,999.95"):
        assert product in reference
        assert product in result.text
