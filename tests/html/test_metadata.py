"""Page metadata (`pipeline.html.metadata`): what a page's head says about it, which source wins,
hostile heads bounded, and the page cues' inputs unchanged by the shared pass."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from pipeline.html.decode import decode_html
from pipeline.html.metadata import (
    CAPS,
    MAX_NODES,
    MAX_SCRIPT_CHARS,
    MAX_SPILL,
    NO_HEAD,
    clean_value,
    normalize_date,
    read_head,
)
from pipeline.html.segment import parse
from pipeline.types import NO_METADATA, PageMetadata


def head_of(head: str, body: str = "<p>x</p>", url: str | None = None):
    return read_head(parse(f"<html><head>{head}</head><body>{body}</body></html>"), url)


def meta_of(head: str, body: str = "<p>x</p>", url: str | None = None) -> PageMetadata:
    return head_of(head, body, url).metadata


def ld(obj: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


def og(prop: str, content: str) -> str:
    return f'<meta property="{prop}" content="{content}">'


def named(name: str, content: str) -> str:
    return f'<meta name="{name}" content="{content}">'


# --- which source wins ------------------------------------------------------------------------


def test_a_page_without_a_head_says_nothing() -> None:
    assert read_head(None) == NO_HEAD
    assert head_of("").metadata is NO_METADATA
    assert head_of("").titles == ()


def test_the_title_is_og_title_else_title_else_twitter_else_the_json_ld_headline() -> None:
    title = "<title>Post | Blog</title>"
    headline = ld({"@type": "BlogPosting", "headline": "From JSON-LD", "name": "Its name"})
    assert meta_of(og("og:title", "Post") + title + headline).title == "Post"
    assert meta_of(title + named("twitter:title", "Tweet") + headline).title == "Post | Blog"
    assert meta_of(named("twitter:title", "Tweet") + headline).title == "Tweet"
    assert meta_of(headline).title == "From JSON-LD"
    assert meta_of(ld({"@type": "Product", "name": "Its name"})).title == "Its name"
    # an empty og:title is passed over
    assert meta_of(og("og:title", "  ") + title).title == "Post | Blog"


def test_every_title_is_kept_for_the_heading_match_without_repeats() -> None:
    head = og("og:title", "Post") + "<title>Post | Blog</title>" + named("twitter:title", "Post")
    head += ld({"@type": "Article", "headline": "The post"})
    assert head_of(head).titles == ("Post", "Post | Blog", "The post")


def test_description_order() -> None:
    desc = named("description", "From meta")
    assert meta_of(og("og:description", "From OG") + desc).description == "From OG"
    assert meta_of(desc + named("twitter:description", "T")).description == "From meta"
    page = ld({"@type": "WebPage", "description": "From JSON-LD"})
    assert meta_of(page).description == "From JSON-LD"
    # The key is read whatever its case (name="Description" is common).
    assert meta_of('<meta name="Description" content="Cased">').description == "Cased"


def test_the_json_ld_author_wins_and_follows_references_in_the_graph() -> None:
    yoast = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebPage", "@id": "https://b.example/p#webpage", "name": "P"},
            {
                "@type": "Article",
                "@id": "https://b.example/p#article",
                "headline": "P",
                "author": {"@id": "https://b.example/#/schema/person/1"},
                "publisher": {"@id": "https://b.example/#org"},
                "datePublished": "2024-05-17T08:00:00+00:00",
            },
            {"@type": "Person", "@id": "https://b.example/#/schema/person/1", "name": "Ann Lee"},
            {"@type": "Organization", "@id": "https://b.example/#org", "name": "B Media"},
        ],
    }
    meta = meta_of(named("author", "The site") + ld(yoast))
    assert meta.author == "Ann Lee"
    assert meta.site_name == "B Media"
    assert meta.published == "2024-05-17T08:00:00+00:00"


def test_a_scheme_relative_address_is_no_author() -> None:
    assert meta_of(named("author", "//example.com/people/jo")).author is None
    assert meta_of(ld({"@type": "Article", "author": "//example.com/jo"})).author is None


def test_several_authors_are_joined_and_addresses_are_no_names() -> None:
    article = {
        "@type": "NewsArticle",
        "author": [
            {"@type": "Person", "name": "Ann Lee"},
            "Bo Chen",
            {"@type": "Person", "name": "Ann Lee"},
            "https://facebook.com/someone",
        ],
    }
    assert meta_of(ld(article)).author == "Ann Lee, Bo Chen"
    profile = og("article:author", "https://facebook.com/ann")
    assert meta_of(profile + named("parsely-author", "Ann Lee")).author == "Ann Lee"
    assert meta_of(named("author", "Cy Dee")).author == "Cy Dee"


def test_published_prefers_article_published_time_then_json_ld_then_date_tags() -> None:
    article = ld({"@type": "Article", "datePublished": "2024-01-02"})
    stamp = og("article:published_time", "2024-03-04T05:06:07Z")
    assert meta_of(stamp + article).published == "2024-03-04T05:06:07+00:00"
    assert meta_of(article + named("date", "2020-01-01")).published == "2024-01-02"
    assert meta_of(named("date", "2020-01-01")).published == "2020-01-01"
    assert meta_of(named("parsely-pub-date", "2019-12-31T23:00:00Z")).published == (
        "2019-12-31T23:00:00+00:00"
    )
    # A value that is not a date is passed over for the next source.
    assert meta_of(og("article:published_time", "soon") + article).published == "2024-01-02"
    assert meta_of(named("date", "yesterday")).published is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-09-04", "2025-09-04"),
        ("2025-9-4", "2025-09-04"),
        ("2025-09-04T10:00:00Z", "2025-09-04T10:00:00+00:00"),
        ("2025-09-04T10:00:00.123456+02:00", "2025-09-04T10:00:00+02:00"),
        ("2025-09-04T10:00:00-0530", "2025-09-04T10:00:00-05:30"),
        ("2025-09-04T10:00", "2025-09-04T10:00:00"),
        ("2025-09-04 10:00:00 UTC", "2025-09-04T10:00:00+00:00"),
        ("2025-09-04 10:00:00 +0000 +0000", "2025-09-04T10:00:00+00:00"),
        ("20250904", "2025-09-04"),
        ("Thu, 04 Sep 2025 10:00:00 GMT", "2025-09-04T10:00:00+00:00"),
        ("Thu, 04 Sep 2025 10:00:00 -0700", "2025-09-04T10:00:00-07:00"),
        ("Thu, 04 Sep 2025 10:00:00 +0530", "2025-09-04T10:00:00+05:30"),
        ("March 4, 2025", "2025-03-04"),
        ("Dec 4th 2025", "2025-12-04"),
        ("4 September 2025", "2025-09-04"),
        ("2025-02-30", None),
        ("2025-09-04T25:00:00", None),
        ("2025-09-04T10:00:00+25:00", None),
        # offsets up to 18 hours and 59 minutes are offsets
        ("2025-09-04T10:00:00-18:00", "2025-09-04T10:00:00-18:00"),
        ("2025-09-04T10:00:00+19:00", None),
        ("2025-09-04T10:00:00+05:59", "2025-09-04T10:00:00+05:59"),
        ("2025-09-04T10:00:00+05:60", None),
        ("Thu, 04 Sep 2025", "2025-09-04"),  # no time given: none made up
        ("0001-01-01", None),
        ("0999-12-31", None),
        ("1000-01-01", "1000-01-01"),
        ("1693526400", None),
        ("May 2025", None),
        ("", None),
        ("soon", None),
    ],
)
def test_dates_are_normalized_to_iso_8601_as_precise_as_given(
    value: str, expected: str | None
) -> None:
    assert normalize_date(value) == expected


def test_the_web_pages_date_serves_when_the_entity_has_none() -> None:
    graph = {
        "@graph": [
            {"@type": "WebPage", "datePublished": "2024-05-17"},
            {"@type": "NewsArticle", "headline": "H"},
        ]
    }
    assert meta_of(ld(graph)).published == "2024-05-17"


def test_the_json_ld_is_read_for_what_only_it_gives() -> None:
    # The meta tags give the title, the description and the site's name: the JSON-LD is still
    # read for its author, and for its date where no article:published_time says one.
    metas = og("og:title", "T") + og("og:description", "D") + og("og:site_name", "S")
    authored = meta_of(metas + ld({"@type": "NewsArticle", "author": {"name": "Ana Ruiz"}}))
    assert authored.author == "Ana Ruiz"
    dated = meta_of(metas + ld({"@type": "NewsArticle", "datePublished": "2024-05-17"}))
    assert dated.published == "2024-05-17"
    stated = og("article:published_time", "2024-05-16")
    assert meta_of(metas + stated + ld({"datePublished": "2024-05-17"})).published == "2024-05-16"
    # And for the title or the description when the meta tags lack it.
    untitled = og("og:description", "D") + og("og:site_name", "S")
    assert meta_of(untitled + ld({"@type": "NewsArticle", "headline": "H"})).title == "H"
    undescribed = og("og:title", "T") + og("og:site_name", "S")
    described = ld({"@type": "NewsArticle", "description": "From JSON-LD"})
    assert meta_of(undescribed + described).description == "From JSON-LD"


def test_the_first_of_each_meta_tag_and_json_ld_site_wins() -> None:
    assert meta_of(og("og:title", "First") + og("og:title", "Second")).title == "First"
    spilled = og("og:title", "First") + og("og:title", "Second")
    assert meta_of("", body=spilled).title == "First"
    sites = {"@graph": [{"@type": "WebSite", "name": "Ours"}, {"@type": "WebSite", "name": "Else"}]}
    assert meta_of(ld(sites)).site_name == "Ours"


def test_json_ld_strings_may_hold_raw_line_breaks_and_tabs() -> None:
    # Not valid JSON, but what templates write, and what browsers' JSON-LD readers accept.
    script = '{"@type": "NewsArticle", "headline": "Two\nlines\tand a tab"}'
    head = f'<script type="application/ld+json">{script}</script>'
    assert meta_of(head).title == "Two lines and a tab"


def test_site_name_order() -> None:
    site = ld({"@type": "WebSite", "name": "From WebSite"})
    assert meta_of(og("og:site_name", "OG") + site).site_name == "OG"
    assert meta_of(site + named("application-name", "App")).site_name == "From WebSite"
    assert meta_of(named("application-name", "App")).site_name == "App"


def test_the_canonical_address_is_absolute_http() -> None:
    url = "https://news.example/a/b?utm=1"
    canonical = '<link rel="canonical" href="/a/b">'
    assert meta_of(canonical, url=url).canonical_url == "https://news.example/a/b"
    # without the page's address a relative one says nothing
    assert meta_of(canonical).canonical_url is None
    assert meta_of('<link rel="Canonical alternate" href="https://x.example/">').canonical_url == (
        "https://x.example/"
    )
    assert meta_of(og("og:url", "https://o.example/p")).canonical_url == "https://o.example/p"
    bad = '<link rel="canonical" href="javascript:alert(1)">'
    assert meta_of(bad + og("og:url", "https://o.example/p"), url=url).canonical_url == (
        "https://o.example/p"
    )
    assert (
        meta_of(f'<link rel="canonical" href="https://x.example/{"a" * 3000}">').canonical_url
        is None
    )
    # the cap is the longest address kept
    at_cap = "https://x.example/" + "a" * (CAPS["canonical_url"] - len("https://x.example/"))
    assert meta_of(f'<link rel="canonical" href="{at_cap}">').canonical_url == at_cap
    spaced = '<link rel="canonical" href=" https://x.example/a b\n">'
    assert meta_of(spaced).canonical_url == "https://x.example/a%20b"
    # Only a link whose rel names it canonical is the canonical one, however many come first.
    styles = '<link rel="stylesheet" href="https://cdn.example/s.css">'
    assert meta_of(styles + canonical, url=url).canonical_url == "https://news.example/a/b"
    assert meta_of(styles).canonical_url is None


def test_the_end_of_a_head_the_parser_put_in_the_body_is_read() -> None:
    """A tracking pixel in <head> ends the head: what follows it lands in the body."""
    html = (
        "<html><head><meta charset=utf-8><img src=/pixel.gif>"
        "<title>Spilled | Site</title>"
        + og("og:title", "Spilled")
        + og("og:type", "article")
        + ld({"@type": "NewsArticle", "author": {"name": "Ann Lee"}})
        + "</head><body><a href=/>Home</a>"
        + og("og:site_name", "Spilled site")
        + "<div><p>Text</p>"
        + og("og:description", "Nested: the page's, not the head's")
        + "</div></body></html>"
    )
    tree = parse(html)
    assert tree.body.css_first("meta") is not None  # the parser did put them there
    facts = read_head(tree)
    assert facts.metadata.title == "Spilled"
    assert facts.metadata.author == "Ann Lee"
    assert facts.metadata.site_name == "Spilled site"  # a body child, after another element
    assert facts.metadata.description is None
    # The page cues read the head alone, as they always have.
    assert facts.og_type is None and facts.schema_types == frozenset()


def test_the_spill_is_read_to_the_bodys_max_spill_th_child() -> None:
    def title_after(n: int) -> str | None:
        return meta_of("", body="<div></div>" * n + "<title>Late</title>").title

    assert title_after(MAX_SPILL - 1) == "Late"
    assert title_after(MAX_SPILL) is None
    # Child elements are counted, not the text between them.
    spaced = "<div></div>\n" * (MAX_SPILL - 1) + "<title>Late</title>"
    assert meta_of("", body=spaced).title == "Late"


def test_a_meta_key_is_read_with_white_space_around_it() -> None:
    assert meta_of('<meta property=" OG:Title " content="Spaced">').title == "Spaced"


# --- hostile heads ----------------------------------------------------------------------------


def test_every_value_is_one_line_and_capped() -> None:
    huge = "word " * 300_000
    head = f"<title>{huge}</title>" + og("og:description", huge) + named("author", huge)
    meta = meta_of(head)
    assert len(meta.title) <= CAPS["title"] and meta.title.startswith("word word")
    assert len(meta.description) <= CAPS["description"]
    assert len(meta.author) <= CAPS["author"]


def test_control_characters_entities_and_lone_surrogates_are_dropped() -> None:
    # C1 is Windows-1252 read as Latin-1 (pipeline.html.controls): U+0085 is "…", U+0092 "’".
    obj = {
        "@type": "Article",
        "headline": "A\u0000B\u0085C\ud800D &amp; E\u2028F",
        "author": {"name": "Ann\tO\u0092Lee\u0081\n"},
    }
    meta = meta_of(ld(obj))
    assert meta.title == "AB…CD & E F"
    assert meta.author == "Ann O’Lee"
    assert meta_of("<title>Fish &amp;amp; Chips</title>").title == "Fish & Chips"
    # Parquet can write every value
    pa.array([meta.title, meta.author], type=pa.string())


def test_malformed_and_deeply_nested_json_ld_never_fail_a_page() -> None:
    broken = '<script type="application/ld+json">{"@type": "Article", "headline": "x",,}</script>'
    deep = '<script type="application/ld+json">' + "[" * 100_000 + "]" * 100_000 + "</script>"
    nested = {"@type": "Article", "author": {"name": {"name": {"name": "x"}}}, "headline": 5}
    wide = {"@graph": [{"@type": "Thing", "name": str(i)} for i in range(20_000)]}
    for head in (broken, deep, ld(nested), ld(wide), ld([[[{"@type": "Article"}]]])):
        facts = head_of(head + "<title>T</title>")
        assert facts.metadata.title == "T"
    assert head_of(broken).schema_types == {"Article"}  # the cues still read its type


def test_the_entity_is_looked_for_in_the_first_max_nodes_nodes() -> None:
    def headline_after(things: int) -> str | None:
        # the block's top-level object is a node too, then each item of its @graph
        graph = [{"@type": "Thing"}] * things + [{"@type": "NewsArticle", "headline": "H"}]
        return meta_of(ld({"@graph": graph})).title

    assert headline_after(MAX_NODES - 2) == "H"
    assert headline_after(MAX_NODES - 1) is None


def test_a_catalogue_in_the_head_is_read_only_to_its_cap() -> None:
    filler = {"@type": "Article", "headline": "H", "x": "y" * (MAX_SCRIPT_CHARS + 10)}
    # cut at the cap, the block is no JSON: its headline is not read, the page still is
    facts = head_of(ld(filler) + "<title>T</title>")
    assert facts.metadata.title == "T"


_LINE = re.compile(r"[^\x00-\x1f\x7f-\x9f\ud800-\udfff]*")


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(st.text(max_size=60), min_size=6, max_size=6),
    keys=st.lists(
        st.sampled_from(
            ["og:title", "description", "author", "og:site_name", "date", "og:url", "og:type"]
        ),
        min_size=6,
        max_size=6,
    ),
    blob=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(["@type", "@id", "@graph", "name", "author", "headline", "x"]),
                inner,
                max_size=4,
            )
        ),
        max_leaves=30,
    ),
)
def test_any_head_gives_clean_bounded_values(values, keys, blob) -> None:
    import html as html_lib

    head = "".join(
        f'<meta name="{k}" content="{html_lib.escape(v)}">'
        for k, v in zip(keys, values, strict=True)
    )
    head += f"<title>{html_lib.escape(values[0])}</title>" + ld(blob)
    meta = head_of(head, url="https://h.example/p").metadata
    for name, cap in CAPS.items():
        value = getattr(meta, name)
        if value is not None:
            assert value and len(value) <= cap and _LINE.fullmatch(value), (name, value)
            assert (value == value.strip() and "  " not in value) or name == "canonical_url"
    if meta.published is not None:
        assert normalize_date(meta.published) == meta.published


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("  a \n b\t ", "a b"),
        ("", None),
        ("\u0000\u0001", None),
        ("caf\u00e9 \u00a0 ok", "café ok"),
        ("x" * 50, "x" * 10),
        ("a  b", "a b"),  # printable, but two spaces
    ],
)
def test_clean_value(value: str, expected: str | None) -> None:
    assert clean_value(value, 10 if len(value) == 50 else 100) == expected


# --- the page cues' inputs, bit for bit ---------------------------------------------------------

# The page cues' reading of the head as it was before the shared pass (765cfcf's
# `pipeline.html.page_cues.declared_types`), kept here as the oracle.
_OLD_SELECTOR = 'meta[property="og:type"], meta[name="og:type"], script[type="application/ld+json"]'
_OLD_TYPE = re.compile(r'"@type"\s*:\s*("(?:[^"\\]|\\.){0,200}"|\[[^\]]{0,2000}\])')
_OLD_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def old_declared_types(tree: LexborHTMLParser) -> tuple[str | None, frozenset[str]]:
    head = tree.head
    og_type = None
    if head is None:
        return og_type, frozenset()
    scripts = []
    for node in head.css(_OLD_SELECTOR):
        if node.tag == "script":
            scripts.append((node.text(deep=True) or "")[:100_000])
        elif og_type is None:
            og_type = (node.attributes.get("content") or "").strip().lower()
    if not scripts:
        return og_type, frozenset()
    values = _OLD_QUOTED.findall("]".join(_OLD_TYPE.findall("]".join(scripts))))
    types = {v.strip().rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1] for v in values}
    types.discard("")
    return og_type, frozenset(types)


_head_parts = st.sampled_from(
    [
        '<meta property="og:type" content="Article">',
        '<meta property="OG:TYPE" content="product">',
        '<meta name="og:type" content=" website ">',
        '<meta property="og:type">',
        '<meta name="og:type" property="og:title" content="x">',
        '<meta property="og:title" content="t">',
        '<script type="application/ld+json">{"@type": "Product"}</script>',
        '<script type="Application/LD+JSON">{"@type": ["NewsArticle", "x:Y"]}</script>',
        '<script type="application/ld+json">{"@type": "Recipe",,</script>',
        "<script>var x = {'@type': 'Article'}</script>",
        "<title>T</title>",
        '<link rel="canonical" href="/c">',
        "<img src=x>",
        "<noscript><meta property='og:type' content='article'></noscript>",
        "stray text",
        "<template><meta property='og:type' content='article'></template>",
    ]
)


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(_head_parts, max_size=8))
def test_the_shared_pass_reads_the_cues_inputs_as_before(parts: list[str]) -> None:
    tree = parse("<html><head>" + "".join(parts) + "</head><body><p>x</p></body></html>")
    assert read_head(tree)[:2] == old_declared_types(tree)


@pytest.mark.shared
def test_the_shared_pass_reads_the_cues_inputs_as_before_on_every_dev_page(
    wcxb_dir: Path, multilingual_dir: Path, daniel_dir: Path
) -> None:
    pages = [p for d in (wcxb_dir, multilingual_dir, daniel_dir) for p in d.glob("html/*.html.gz")]
    differ = []
    for path in pages:
        decoded = decode_html(gzip.decompress(path.read_bytes()), None)
        tree = parse(decoded.utf8 if decoded.utf8 is not None else decoded.html)
        if read_head(tree)[:2] != old_declared_types(tree):
            differ.append(path.name)
    assert len(pages) == 1358 + 297 + 1611 and differ == []
