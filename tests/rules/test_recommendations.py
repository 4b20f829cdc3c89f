"""A product page's recommendation sections are dropped, on product pages only."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.metadata import read_head
from pipeline.html.segment import parse, segment
from pipeline.rules import recommendations
from pipeline.types import Block, LabeledBlock, Shape, Verdict

PRODUCT = "Walnut standing desk with a two-motor frame"
DESCRIPTION = (
    "The desktop is solid walnut, finished with a hard wax oil that brings out the grain and "
    "can be refreshed at home. The frame lifts it from 64 to 129 centimetres on two motors, "
    "quietly enough for a shared office, and remembers four heights.",
    "Every desk ships with a cable tray, a wire grommet and a ten-year warranty on the frame. "
    "Assembly takes two people about forty minutes with the tools in the box.",
)
CARDS = (
    "Oak standing desk with a single-motor frame and a bamboo top",
    "Corner standing desk in white laminate with three motors",
    "Children's height-adjustable desk with a tilting top",
)
PRODUCT_URL = "https://shop.example.com/products/walnut-standing-desk"


def product_page(heading: str = "Similar items", level: int = 2, head: str = "") -> str:
    cards = "".join(
        f'<li class="card"><h3>{card}</h3><span class="price">$ {399 + 50 * i}</span></li>'
        for i, card in enumerate(CARDS)
    )
    paragraphs = "".join(f"<p>{p}</p>" for p in DESCRIPTION)
    return (
        f"<html><head><title>{PRODUCT}</title>{head}</head><body><main>"
        f"<h1>{PRODUCT}</h1>{paragraphs}"
        f'<section class="carousel"><h{level}>{heading}</h{level}><ul>{cards}</ul></section>'
        f"<h2>Delivery</h2><p>Free delivery in five working days.</p></main></body></html>"
    )


def dropped_texts(html: str, url: str | None) -> list[str]:
    """What the rule drops when every block of ``html`` is kept: the rule alone, whatever the
    model says."""
    tree = parse(html.encode())
    labeled = [LabeledBlock(b, Verdict.GOOD) for b in segment(tree)]
    out, notes = recommendations.drop(labeled, url, read_head(tree, url))
    dropped = [lb.block.text for lb in out if lb.verdict is Verdict.BAD]
    assert (notes == (recommendations.RECOMMENDATIONS_DROPPED,)) == bool(dropped)
    return dropped


def carousel(heading: str) -> list[str]:
    return [heading, *[t for i, card in enumerate(CARDS) for t in (card, f"$ {399 + 50 * i}")]]


def test_a_recommendation_section_is_dropped_up_to_the_next_heading_of_its_level():
    assert dropped_texts(product_page(), PRODUCT_URL) == carousel("Similar items")


@pytest.mark.parametrize(
    "heading",
    [
        "Customers who viewed this item also viewed",
        "Products related to this item",
        "You may also like",
        "Frequently bought together",
        "Info Why you're seeing this ad",
        "Ähnliche Artikel",
        "Vous aimerez aussi",
        "Productos relacionados",
    ],
)
def test_headings_that_name_other_products(heading: str) -> None:
    assert dropped_texts(product_page(heading), PRODUCT_URL) == carousel(heading)


def test_other_headings_open_no_section():
    for heading in ("Specifications", "Similarities to the old model", "What customers say"):
        assert dropped_texts(product_page(heading), PRODUCT_URL) == [], heading


def test_a_long_heading_is_not_one():
    heading = "Similar items " + "and a headline that goes on " * 3
    assert len(heading) > recommendations.MAX_HEADING_CHARS
    assert dropped_texts(product_page(heading), PRODUCT_URL) == []


def test_the_page_title_opens_no_section():
    html = product_page().replace(f"<h1>{PRODUCT}</h1>", "<h1>Similar items</h1>")
    assert dropped_texts(html, PRODUCT_URL) == carousel("Similar items")


def test_a_heading_of_several_blocks_is_one_heading():
    html = product_page("<span>Info</span><div>Why you're seeing this ad</div>")
    assert dropped_texts(html, PRODUCT_URL) == carousel("Info")[:1] + carousel(
        "Why you're seeing this ad"
    )


def test_a_heading_in_a_sibling_element_of_the_same_path_ends_the_section():
    # two <section><h2> in a row: the blocks' paths are the same, the headings are two
    paragraphs = "".join(f"<p>{p}</p>" for p in DESCRIPTION)
    html = (
        f"<html><head><title>{PRODUCT}</title></head><body><main><h1>{PRODUCT}</h1>"
        "<section><h2>You may also like</h2></section>"
        f"<section><h2>Description</h2>{paragraphs}</section></main></body></html>"
    )
    assert dropped_texts(html, PRODUCT_URL) == ["You may also like"]


def test_the_section_ends_where_the_blocks_leave_the_headings_surroundings():
    # an ad slot's disclosure heading, deep in a hidden list above the product, and the product's
    # own facts after it before any other heading
    slot = "<div>" * (recommendations.MAX_CLIMB + 1)
    slot_end = "</div>" * (recommendations.MAX_CLIMB + 1)
    paragraphs = "".join(f"<p>{p}</p>" for p in DESCRIPTION)
    html = (
        f"<html><head><title>{PRODUCT}</title></head><body><main>"
        f"<ul><li>{slot}<h2>Why you're seeing this ad</h2><p>Advertiser: deskworld</p>"
        f"{slot_end}</li></ul>{paragraphs}<h2>Delivery</h2><p>Five working days.</p>"
        "</main></body></html>"
    )
    assert dropped_texts(html, PRODUCT_URL) == [
        "Why you're seeing this ad",
        "Advertiser: deskworld",
    ]


def test_a_lower_heading_stays_in_the_section_and_a_higher_one_ends_it():
    # the cards' <h3>s are inside an <h2>'s section; an <h3> section ends at the next <h3>
    html = product_page(level=3)
    dropped = dropped_texts(html, PRODUCT_URL)
    assert dropped == ["Similar items"]


@pytest.mark.parametrize(
    ("url", "head"),
    [
        ("https://www.ebay.com/itm/276702815108", ""),
        ("https://www.amazon.co.uk/dp/B0CHWRXH8B", ""),
        ("https://shop.example.com/p/123", ""),
        # WooCommerce's plain permalink of a product
        ("https://shop.example.com/?product=standing-desk", ""),
        (None, '<meta property="og:type" content="product">'),
        (None, '<meta property="og:type" content="product.item">'),
        (None, '<script type="application/ld+json">{"@type": "Product", "name": "x"}</script>'),
        (None, f'<link rel="canonical" href="{PRODUCT_URL}">'),
    ],
)
def test_a_product_page_is_known_by_its_address_or_its_head(url: str | None, head: str) -> None:
    assert dropped_texts(product_page(head=head), url) == carousel("Similar items")


@pytest.mark.parametrize(
    "url",
    [
        None,
        "https://shop.example.com/collections/desks",
        "https://shop.example.com/shop/desks/",
        "https://blog.example.com/2024/05/desk-review/",
    ],
)
def test_off_a_product_page_the_section_is_left_alone(url: str | None) -> None:
    # a collection's best-sellers carousel may be its content
    assert dropped_texts(product_page(), url) == []


@pytest.mark.parametrize(
    "url",
    [
        # A record of a real crawl (arc2warc-conversion's crawl-002 ARC file, in ../shared) has
        # this address: urlsplit reads its "]" as an unbalanced IPv6 bracket and raises.
        "http://www.insuranceforpets.net]www.insuranceforpets.net/",
        "http://[::1/products/desk",
    ],
)
def test_an_unreadable_address_is_no_product_address(url: str) -> None:
    assert not recommendations.product_by_address((url,), read_head(parse(product_page()), None))
    assert dropped_texts(product_page(), url) == []
    # ... and the page is cleaned, not failed: the canonical link may be unreadable as well
    head = f'<link rel="canonical" href="{url}">'
    result = clean_html(product_page(head=head), url=url)
    assert all(paragraph in result.text for paragraph in DESCRIPTION)


def test_nothing_is_dropped_when_nothing_else_would_stay_kept():
    html = (
        f"<html><head><title>{PRODUCT}</title></head><body><h2>Similar items</h2>"
        f"<ul>{''.join(f'<li><h3>{c}</h3></li>' for c in CARDS)}</ul></body></html>"
    )
    assert dropped_texts(html, PRODUCT_URL) == []


def test_the_default_cleaner_drops_kept_card_headings_and_notes_it():
    without_rule = clean_html(product_page(), url=PRODUCT_URL, recommendations=False)
    # the model keeps some of the cards (else this page tests nothing)
    assert any(card in without_rule.text for card in CARDS)
    assert recommendations.RECOMMENDATIONS_DROPPED not in without_rule.notes
    result = clean_html(product_page(), url=PRODUCT_URL)
    for paragraph in DESCRIPTION:
        assert paragraph in result.text
    for card in CARDS:
        assert card not in result.text and card not in result.markdown
    assert recommendations.RECOMMENDATIONS_DROPPED in result.notes
    # the seed cleaners do not ask for the rule
    assert (
        recommendations.RECOMMENDATIONS_DROPPED
        not in clean_html(product_page(), url=PRODUCT_URL, cleaner="bte").notes
    )


def test_the_option_is_a_cleaner_parameter():
    from pipeline.cleaners.registry import make_cleaner

    assert make_cleaner("neighbours", recommendations=False).params()["recommendations"] is False
    assert "recommendations" not in make_cleaner("neighbours").params()
    with pytest.raises(ValueError, match="recommendations must be true or false"):
        make_cleaner("neighbours", recommendations="no")


_TAGS = ("div", "section", "ul", "li")


@st.composite
def block_runs(draw: st.DrawFn) -> list[Block]:
    """Pages of headings (some naming recommendations) and other blocks at random depths."""
    out: list[Block] = []
    for index in range(draw(st.integers(0, 30))):
        path = ".".join(("html", "body", *draw(st.lists(st.sampled_from(_TAGS), max_size=12))))
        level = draw(st.sampled_from((0, 0, 0, 1, 2, 3)))
        text = draw(st.sampled_from(("Similar items", "Details", "Price $20", "You may also like")))
        if level:
            path += f".h{level}"
        shape = Shape(heading=level) if level else None
        block = Block(index, text, "div", path, "", bool(level), len(text), 2, 0, 0, 0, None, 0)
        out.append(block._replace(shape=shape))
    return out


@given(block_runs())
def test_sections_are_a_cue_headings_outline_within_its_surroundings(blocks: list[Block]) -> None:
    ranges = recommendations.sections(blocks)
    level = [b.shape.heading if b.shape else 0 for b in blocks]
    assert all(a.stop <= b.start for a, b in pairwise(ranges))
    for r in ranges:
        assert r.start < r.stop
        cues = [
            i
            for i in r
            if level[i] >= 2 and recommendations.RECOMMENDATION_HEADING.search(blocks[i].text)
        ]
        assert cues, "a section opens at a heading that names recommendations"
        i = cues[0]
        # nothing after it in the section is a heading of its level or above
        assert not any(0 < level[j] <= level[i] for j in range(i + 1, r.stop))
        # the blocks before it are parts of the same heading
        assert all(level[j] == level[i] for j in range(r.start, i))
        # it stays inside the heading's surroundings, and ends at a heading or where it leaves
        parts = blocks[i].dom_path.split(".")
        prefix = ".".join(parts[: max(1, len(parts) - recommendations.MAX_CLIMB)]) + "."
        assert all(blocks[j].dom_path.startswith(prefix) for j in range(i + 1, r.stop))
        if r.stop < len(blocks) and not 0 < level[r.stop] <= level[i]:
            assert not blocks[r.stop].dom_path.startswith(prefix)
    # every cue heading of level 2 or below is in a section
    covered = {i for r in ranges for i in r}
    for i, b in enumerate(blocks):
        if level[i] >= 2 and recommendations.RECOMMENDATION_HEADING.search(b.text):
            assert i in covered
