"""Page cues (`pipeline.html.page_cues`): what a page declares about itself, and its URL's shape."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.html import page_cues as pc
from pipeline.html.metadata import MAX_SCRIPT_CHARS, HeadFacts
from pipeline.html.page_cues import (
    N_PAGE_CUES,
    PAGE_CUE_NAMES,
    URL_KIND_NAMES,
    declared_types,
    page_cues,
    url_kind_words,
)
from pipeline.html.segment import parse
from pipeline.types import NO_METADATA


def cues(head: str = "", body: str = "<p>x</p>", url: str | None = None) -> dict[str, float]:
    tree = parse(f"<html><head>{head}</head><body>{body}</body></html>")
    return dict(zip(PAGE_CUE_NAMES, page_cues(tree, url).tolist(), strict=True))


def ld(obj: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


def on(values: dict[str, float]) -> set[str]:
    return {k for k, v in values.items() if v}


def test_nothing_known_is_only_the_missing_og_type():
    assert on(cues()) == {"cue_og_missing"}
    assert page_cues().tolist() == page_cues(None, None).tolist()
    assert on(dict(zip(PAGE_CUE_NAMES, page_cues().tolist(), strict=True))) == {"cue_og_missing"}
    assert page_cues().shape == (N_PAGE_CUES,) and page_cues().dtype == np.float64


def test_head_facts_passed_in_are_read_instead_of_the_tree():
    # The cleaner reads the head once and passes its facts: the tree is not read again, so
    # what it would say does not count.
    tree = parse('<html><head><meta property="og:type" content="website"></head></html>')
    head = HeadFacts("article", frozenset({"Product"}), NO_METADATA)
    got = dict(zip(PAGE_CUE_NAMES, page_cues(tree, None, head).tolist(), strict=True))
    assert on(got) == {"cue_og_article", "cue_schema_product"}


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        ('<meta property="og:type" content="article">', {"cue_og_article"}),
        ('<meta property="og:type" content=" Product ">', {"cue_og_product"}),
        ('<meta name="og:type" content="website">', {"cue_og_website"}),
        # a type outside the three: known, so not "missing", but none of the three
        ('<meta property="og:type" content="video.other">', set()),
        ('<meta property="og:type">', set()),
        # the first declaration wins
        (
            '<meta property="og:type" content="product">'
            '<meta property="og:type" content="article">',
            {"cue_og_product"},
        ),
        ('<meta property="og:title" content="article">', {"cue_og_missing"}),
    ],
)
def test_open_graph_type(meta, expected):
    assert on(cues(meta)) == expected


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        ({"@context": "https://schema.org", "@type": "Product"}, {"cue_schema_product"}),
        ({"@type": ["WebPage", "FAQPage"]}, {"cue_schema_faq"}),
        ({"@graph": [{"@type": "WebSite"}, {"@type": "NewsArticle"}]}, {"cue_schema_article"}),
        # nested: the Offer inside says "product" as well
        ({"@type": "Thing", "offers": {"@type": "Offer"}}, {"cue_schema_product"}),
        ({"@type": "https://schema.org/DiscussionForumPosting"}, {"cue_schema_forum"}),
        ({"@type": "schema:Recipe"}, {"cue_schema_recipe"}),
        ({"@type": "CollectionPage"}, {"cue_schema_list"}),
        ({"@type": "Organization", "name": "Product"}, set()),
    ],
)
def test_json_ld_types(obj, expected):
    assert on(cues(ld(obj))) - {"cue_og_missing"} == expected


def test_malformed_json_ld_is_read_as_far_as_its_type_pairs_go():
    broken = '<script type="application/ld+json">{"@type": "Product", "name": "x",,}</script>'
    with pytest.raises(json.JSONDecodeError):
        json.loads(broken.split(">", 1)[1].rsplit("<", 1)[0])
    assert "cue_schema_product" in on(cues(broken))


def test_only_json_ld_scripts_of_the_head_are_read():
    product = {"@type": "Product"}
    assert "cue_schema_product" in on(cues(ld(product)))
    # the same block in the body, or a script of another type, is not read (see declared_types)
    assert "cue_schema_product" not in on(cues(body=ld(product)))
    other = '<script type="application/json">{"@type": "Product"}</script>'
    assert "cue_schema_product" not in on(cues(other))
    # microdata is not read either
    assert "cue_schema_product" not in on(
        cues(body='<div itemscope itemtype="https://schema.org/Product"><p>x</p></div>')
    )


def test_long_json_ld_is_read_only_so_far():
    filler = "x" * MAX_SCRIPT_CHARS
    early = f'<script type="application/ld+json">{{"@type": "Product", "d": "{filler}"}}</script>'
    late = f'<script type="application/ld+json">{{"d": "{filler}", "@type": "Product"}}</script>'
    assert "cue_schema_product" in on(cues(early))
    assert "cue_schema_product" not in on(cues(late))


def test_declared_types_lists_every_type():
    tree = parse(
        "<html><head>"
        + ld({"@type": ["A", "B"], "x": {"@type": "https://schema.org/C/"}})
        + '<meta property="og:type" content="Article"></head><body></body></html>'
    )
    assert declared_types(tree) == ("article", frozenset({"A", "B", "C"}))
    assert declared_types(parse("<p>no head written</p>")) == (None, frozenset())


def test_url_shape():
    got = cues(url="https://shop.example.com/en/products/mens-quarter-socks.html?ref=x1")
    assert got["cue_has_url"] == 1.0
    assert got["cue_url_depth"] == 3.0
    assert got["cue_url_slug_hyphens"] == 2.0
    assert got["cue_url_slug_chars"] == len("mens-quarter-socks")
    assert got["cue_url_query"] == 1.0
    assert got["cue_url_long_number"] == 0.0
    assert {k for k in on(got) if k.startswith("cue_url_") and got[k] == 1.0} >= {
        "cue_url_product",
        "cue_url_query",
    }
    assert not got["cue_url_forum"] and not got["cue_url_article"]
    plain = cues(url="https://shop.example.com/en/products/mens-quarter-socks.html")
    assert plain["cue_url_query"] == 0.0


@pytest.mark.parametrize(
    ("url", "family"),
    [
        ("https://forum.example.org/t/some-topic/12345", "forum"),
        ("https://example.org/viewtopic.php?t=9", "forum"),
        ("https://example.org/docs/install", "docs"),
        ("https://example.org/collections/socks", "collection"),
        ("https://example.org/2024/05/a-story", "article"),
        ("https://example.org/blog/a-story/", "article"),
        ("https://example.org/p/123", "product"),
        # the family's segment ends the path: no "/" follows it in the URL
        ("https://example.org/docs", "docs"),
        ("https://shop.example.com/products", "product"),
    ],
)
def test_url_families(url, family):
    got = cues(url=url)
    families = {k for k in on(got) if k.removeprefix("cue_url_") in dict(pc._URL_FAMILIES)}
    assert families == {f"cue_url_{family}"}


def test_url_families_need_a_whole_segment():
    got = cues(url="https://example.org/tshirts/productive-days")
    assert not any(got[f"cue_url_{name}"] for name, _ in pc._URL_FAMILIES)


def test_long_number_and_caps():
    assert cues(url="https://example.org/a/2024-x")["cue_url_long_number"] == 1.0
    deep = "https://example.org/" + "/".join(["a"] * 100) + "/" + "-".join(["w"] * 150)
    got = cues(url=deep)
    assert got["cue_url_depth"] == pc._MAX_DEPTH
    assert got["cue_url_slug_hyphens"] == pc._MAX_HYPHENS
    assert got["cue_url_slug_chars"] == pc._MAX_SLUG


def url_cues(url: str) -> dict[str, float]:
    return {k: v for k, v in cues(url=url).items() if k.startswith("cue_url_")}


@pytest.mark.parametrize(
    ("plain", "pretty"),
    [
        # WordPress's plain permalinks read as the pretty ones they stand for
        ("https://news.example.org/?p=48213", "https://news.example.org/48213/"),
        ("https://news.example.org/index.php?page_id=48213", "https://news.example.org/48213"),
        ("https://news.example.org/?cat=12", "https://news.example.org/category/12/"),
        ("https://news.example.org/?tag=Elections", "https://news.example.org/tag/elections"),
        (
            "https://shop.example.com/?product=blue-shirt",
            "https://shop.example.com/product/blue-shirt",
        ),
        ("https://blog.example.net/?s=socks&paged=2", "https://blog.example.net/search/socks"),
        # a script's page whose query gives a number: the item's number (the longest) as its
        # last segment
        (
            "https://news.example.kr/article.php?id=48213",
            "https://news.example.kr/article.php/48213",
        ),
        (
            "https://f.example.org/viewtopic.php?f=20&t=487157",
            "https://f.example.org/viewtopic.php/487157",
        ),
        (
            "https://example.cn/News/Detail.aspx?NewsID=5531",
            "https://example.cn/news/detail.aspx/5531",
        ),
        # Joomla's articles, at the root's script with no WordPress key
        (
            "https://example.de/index.php?option=com_content&view=article&id=7713",
            "https://example.de/index.php/7713",
        ),
    ],
)
def test_addresses_that_name_the_page_in_their_query_read_as_that_path(plain, pretty):
    assert url_cues(plain) == url_cues(pretty)


def test_a_number_in_the_query_is_an_item_number_whatever_its_digits():
    # in a path "/12" may be a page number; "?p=12" is post 12
    got = url_cues("https://blog.example.net/?p=12")
    assert got["cue_url_long_number"] == 1.0 and got["cue_url_query"] == 0.0
    assert got["cue_url_depth"] == 1.0 and got["cue_url_slug_chars"] == 2.0
    assert url_cues("https://blog.example.net/12")["cue_url_long_number"] == 0.0
    got = url_cues("https://news.example.kr/view.php?no=7")
    assert got["cue_url_long_number"] == 1.0 and got["cue_url_depth"] == 2.0


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/archive/?p=12",  # not the site's root
        "https://example.org/?p=about",  # p is not a number
        "https://example.org/?srsltid=AfmBOop",  # a tracking parameter
        "https://example.org/?tag=<script>",  # not a slug
        "https://example.org/?cat=",
        "https://example.org/?id=12",  # the root is no script, and id no WordPress key
        "https://example.org/search.php?q=socks",  # a script's query with no number
        "https://example.org/news/story.html?id=12",  # a page, not a script
        # past its cap a query is not parsed (a hostile address of 256 KiB took 250 ms)
        "https://example.org/?p=12&" + "a" * pc.MAX_QUERY_READ,
        "https://example.org/article.php?id=12&" + "a=1&" * pc.MAX_QUERY_READ,
    ],
)
def test_other_queries_stay_queries(url):
    got = url_cues(url)
    assert got["cue_url_query"] == 1.0
    path_only = url_cues(url.split("?")[0])
    assert {k: v for k, v in got.items() if k != "cue_url_query"} == {
        k: v for k, v in path_only.items() if k != "cue_url_query"
    }


def test_plain_permalinks_name_their_kind_to_the_page_type():
    words = dict(
        zip(URL_KIND_NAMES, url_kind_words("https://shop.example.com/?product=x"), strict=True)
    )
    assert words["url_dirs_product"] == 1.0
    words = dict(zip(URL_KIND_NAMES, url_kind_words("https://shop.example.com/?s=x"), strict=True))
    assert words["url_dirs_collection"] == 1.0


@pytest.mark.parametrize("url", ["", None, "http://[::1/broken", "   "])
def test_unusable_urls_read_as_unknown(url):
    got = cues(url=url)
    assert not any(v for k, v in got.items() if k.startswith(("cue_url_", "cue_has_url")))


@pytest.mark.parametrize("url", [b"https://example.org/products/x", 42])
def test_a_url_that_is_not_text_is_a_clear_error(url):
    with pytest.raises(TypeError, match="url must be a str or None"):
        page_cues(None, url)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_url_gives_bounded_finite_cues(url):
    values = page_cues(None, url)
    assert values.shape == (N_PAGE_CUES,)
    assert np.isfinite(values).all() and (values >= 0).all()
    assert values.max() <= max(pc._MAX_DEPTH, pc._MAX_HYPHENS, pc._MAX_SLUG)


_markup = st.lists(
    st.one_of(
        st.sampled_from(
            [
                '<script type="application/ld+json">',
                "</script>",
                '"@type"',
                ":",
                '["',
                '"]',
                '"Product"',
                "\\",
                '<meta property="og:type" content="',
                '">',
                "<head>",
                "</head>",
            ]
        ),
        st.text(max_size=10),
    ),
    max_size=30,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(_markup)
def test_any_markup_gives_valid_cues(markup):
    url = "https://example.org/x"
    values = page_cues(parse(markup), url)
    assert values.shape == (N_PAGE_CUES,)
    declared = len(pc._OG_TYPES) + 1 + len(pc._SCHEMA_FAMILIES)
    og = values[: len(pc._OG_TYPES) + 1]
    assert og.sum() <= 1.0
    assert set(values[:declared].tolist()) <= {0.0, 1.0}
    # the markup never changes what the URL says
    assert values[declared:].tolist() == page_cues(None, url)[declared:].tolist()


def test_schema_types_are_named_by_their_address_end():
    # "https://schema.org/Product", "schema:Product" and "...#Product" all name Product.
    i = pc.SCHEMA_COUNTED.index("Recipe")
    for kind in ("https://schema.org/Recipe", "schema:Recipe", "http://schema.org#Recipe"):
        assert pc.schema_type_counts(ld({"@type": kind}))[i] == np.log1p(1)


def test_schema_type_mentions_are_counted_to_their_cap():
    i = pc.SCHEMA_COUNTED.index("Product")
    markup = '{"@type": "Product"}' * (pc._MAX_TYPE_MENTIONS + 1)
    assert pc.schema_type_counts(markup)[i] == np.log1p(pc._MAX_TYPE_MENTIONS)
    assert pc.schema_type_counts(markup.encode())[i] == np.log1p(pc._MAX_TYPE_MENTIONS)
