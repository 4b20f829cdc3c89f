"""A page's address is data: whatever a record's URL or a page's head says, the page is cleaned.

Several steps read the address: the page cues (its shape), the product-page, forum and
title-heading rules, the media-address guard, the page type. ``urllib.parse.urlsplit`` raises on
some addresses that real crawls carry (an unbalanced IPv6 bracket:
``http://www.insuranceforpets.net]www.insuranceforpets.net/`` in a 2010 ARC file), and one such
raise inside a rule once turned a whole page into an ``error:ValueError`` rejection. Here every
cleaner cleans one page under hostile addresses, given as the record's URL and as the head's
canonical link and ``og:url``, and the default does so for any text hypothesis makes of them.
"""

from __future__ import annotations

from html import escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.cleaners.registry import available

DESCRIPTION = (
    "The desktop is solid walnut, finished with a hard wax oil that brings out the grain and "
    "can be refreshed at home. The frame lifts it from 64 to 129 centimetres on two motors."
)
HOSTILE = [
    "http://www.insuranceforpets.net]www.insuranceforpets.net/",
    "http://[::1/products/desk",
    "https://[not-an-ip]/t/topic/12",
    "http://shop.example.com:99999/p/123",
    "http://shop.example.com:port/products/x",
    "//[/threads/1",
    "https://例え.テスト/dp/B0%zz",
    "http://a b.example/\x00/products/",
    "\\\\server\\share",
    "",
]
# Pieces that make addresses every reader must survive: schemes, brackets, ports, percent signs,
# the path shapes the rules look for.
PIECES = [
    "http://",
    "https://",
    "//",
    "[",
    "]",
    "::1",
    ":",
    ":99999",
    "@",
    "%",
    "%zz",
    "/products/",
    "/p/",
    "/t/",
    "/threads/",
    "?",
    "#",
    "\\",
    " ",
    "é",
    "www.example.com",
    ".png",
]
ADDRESSES = st.one_of(
    st.text(max_size=60), st.lists(st.sampled_from(PIECES), max_size=8).map("".join)
)


def page(address: str) -> str:
    value = escape(address, quote=True)
    cards = "".join(
        f"<li><h3>Oak desk number {i}</h3><span>$ {399 + i}</span></li>" for i in range(3)
    )
    return (
        "<html><head><title>Walnut standing desk</title>"
        f'<link rel="canonical" href="{value}"><meta property="og:url" content="{value}">'
        "</head><body><main><h1>Walnut standing desk</h1>"
        f"<p>{DESCRIPTION}</p><p>Image: {escape(address)}</p>"
        f"<h2>Similar items</h2><ul>{cards}</ul></main></body></html>"
    )


@pytest.mark.parametrize("cleaner", available())
@pytest.mark.parametrize("address", HOSTILE)
def test_every_cleaner_cleans_a_page_whatever_its_address(cleaner: str, address: str) -> None:
    result = clean_html(page(address), url=address or None, cleaner=cleaner, classify_page=True)
    assert result.blocks and result.page_type is not None


@settings(max_examples=150, deadline=None)
@given(address=ADDRESSES)
def test_the_default_cleans_a_page_whatever_its_address(address: str) -> None:
    result = clean_html(page(address), url=address, classify_page=True)
    # The product's description is what the page is: no address takes it away.
    assert DESCRIPTION in result.text
