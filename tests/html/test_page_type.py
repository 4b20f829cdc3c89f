"""The page-type classifier (`pipeline.html.page_type`) and the evidence it reads
(`pipeline.html.page_cues`: schema.org types counted, kind words of the URL and title)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import clean_html
from pipeline.html import page_type
from pipeline.html.page_cues import (
    SCHEMA_COUNTED,
    TITLE_KIND_NAMES,
    URL_KIND_NAMES,
    schema_type_counts,
    title_kind_words,
    url_kind_words,
)
from pipeline.html.page_type import (
    PAGE_TYPES,
    SHAPE_NAMES,
    TYPE_FEATURE_NAMES,
    PageTypeError,
    PageTypeModel,
    shape_features,
    type_features,
)
from pipeline.html.segment import parse, segment


def ld(obj: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


def counts(markup: str) -> dict[str, int]:
    """The schema.org counts of ``markup`` back as whole numbers, only the non-zero ones."""
    values = schema_type_counts(markup)
    return {n: round(math.expm1(v)) for n, v in zip(SCHEMA_COUNTED, values, strict=True) if v}


def test_schema_types_are_counted_in_head_body_and_microdata():
    products = "".join(
        f'<div itemscope itemtype="https://schema.org/Product">{i}</div>' for i in range(3)
    )
    markup = (
        f"<html><head>{ld({'@type': 'ItemList', 'itemListElement': []})}</head><body>"
        f"{products}{ld({'@graph': [{'@type': ['Product', 'Thing']}, {'@type': 'Offer'}]})}"
        "</body></html>"
    )
    assert counts(markup) == {"ItemList": 1, "Product": 4, "Offer": 1}
    # The cleaner hands the scan the page's UTF-8 bytes when it has them: same counts.
    assert schema_type_counts(markup.encode()).tolist() == schema_type_counts(markup).tolist()


def test_unknown_and_broken_types_count_nothing():
    assert counts('<script type="application/ld+json">{"@type": "Thing", "@type": </script>') == {}
    assert counts('<div itemtype="http://schema.org/Unheard">x</div>') == {}
    assert counts("") == {}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_schema_scan_never_fails_on_any_text(text):
    for markup in (text, text.encode("utf-8", "surrogatepass")):
        values = schema_type_counts(markup)
        assert values.shape == (len(SCHEMA_COUNTED),) and np.all(values >= 0)


def url_words(url: str | None) -> set[str]:
    return {n for n, v in zip(URL_KIND_NAMES, url_kind_words(url), strict=True) if v}


def test_url_words_of_directories_and_last_segment():
    assert url_words("https://shop.example.com/category/shoes/red-sneaker-42") == {
        "url_dirs_product",
        "url_dirs_collection",
    }
    assert url_words("https://example.com/forum/viewtopic.php") == {
        "url_dirs_forum",
        "url_last_forum",
    }
    assert url_words("https://example.com/pricing") == {"url_last_service"}
    assert url_words(None) == url_words("") == url_words("http://[::1") == set()
    # Each is an indicator: 1 however many of its words the URL holds.
    values = url_kind_words("https://shop.example.com/shop/products/cart-product-shop")
    assert set(values.tolist()) == {0.0, 1.0}


def test_title_words_and_length():
    tree = parse("<html><head><title>API Reference | Docs</title></head><body></body></html>")
    values = dict(zip(TITLE_KIND_NAMES, title_kind_words(tree), strict=True))
    assert {n for n, v in values.items() if v and n != "title_chars"} == {"title_documentation"}
    assert {v for n, v in values.items() if n != "title_chars"} == {0.0, 1.0}
    assert values["title_chars"] == pytest.approx(math.log1p(len("api reference | docs")))
    assert not title_kind_words(parse("<p>no head</p>")).any()
    assert not title_kind_words(None).any()


def shop_page(items: int) -> str:
    cards = "".join(
        f'<div class="card"><h3>Item {i}</h3><p class="price">$1{i}.99</p>'
        f'<p class="cta">Add to cart</p></div>'
        for i in range(items)
    )
    return f"<html><head><title>Shoes</title></head><body>{cards}</body></html>"


def test_shape_counts_prices_phrases_and_repeats():
    blocks = segment(parse(shop_page(6)), record_runs=True)
    shape = dict(zip(SHAPE_NAMES, shape_features(blocks), strict=True))
    assert shape["prices"] == pytest.approx(math.log1p(6))
    assert shape["phrase_shop"] == pytest.approx(math.log1p(6))
    assert shape["repeated_groups"] > 0 and shape["repeated_share"] == pytest.approx(1.0)
    assert shape["subheadings"] == pytest.approx(math.log1p(6))
    assert not shape_features([]).any()


def test_has_price_needs_a_digit_beside_the_sign():
    assert page_type._has_price("$19.99")
    assert page_type._has_price("19 €")
    assert page_type._has_price("€ 5")
    assert not page_type._has_price("US$ only")
    assert not page_type._has_price("price on request")


def small_model(**changes) -> dict:
    """A model document weighing one column: the product type wins when prices are many."""
    width = len(TYPE_FEATURE_NAMES)
    coef = np.zeros((len(PAGE_TYPES), width))
    coef[PAGE_TYPES.index("product"), TYPE_FEATURE_NAMES.index("prices")] = 5.0
    doc = {
        "format": page_type.FORMAT,
        "classes": list(PAGE_TYPES),
        "features": list(TYPE_FEATURE_NAMES),
        "mean": [0.0] * width,
        "scale": [1.0] * width,
        "coef": coef.tolist(),
        "intercept": [1.0] + [0.0] * (len(PAGE_TYPES) - 1),
    }
    doc.update(changes)
    return doc


def test_model_is_a_softmax_over_the_columns():
    model = PageTypeModel(small_model())
    blocks = segment(parse(shop_page(6)), record_runs=True)
    kind = model.classify(type_features(blocks, markup=shop_page(6)))
    assert kind.name == "product" and kind.prob == max(kind.probs)
    assert sum(kind.probs) == pytest.approx(1.0)
    plain = model.classify(type_features(segment(parse("<p>Some words here.</p>"))))
    assert plain.name == "article"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"format": "other/1"}, "not a page-type model"),
        ({"classes": ["article"]}, "classes"),
        ({"features": ["prices"]}, "other columns"),
        ({"coef": [[0.0]]}, "do not match"),
        ({"scale": [0.0] * len(TYPE_FEATURE_NAMES)}, "malformed"),
        ({"mean": ["x"] * len(TYPE_FEATURE_NAMES)}, "malformed"),
        ({"mean": None}, "do not match"),
    ],
)
def test_malformed_models_are_refused_by_name(changes, message):
    with pytest.raises(PageTypeError, match=message):
        PageTypeModel(small_model(**changes))


def test_unreadable_model_file_is_a_clear_error(tmp_path):
    path = tmp_path / "page-type.json"
    path.write_text("{not json")
    with pytest.raises(PageTypeError, match="cannot read"):
        page_type.load_model(path)
    path.write_text("[]")
    with pytest.raises(PageTypeError, match="not a page-type model"):
        page_type.load_model(path)


def test_shipped_model_types_every_cleaned_page():
    assert page_type.load_model().metadata["test_accuracy"] >= 0.75
    result = clean_html(
        shop_page(8), url="https://shop.example.com/category/shoes", classify_page=True
    )
    assert result.page_type in PAGE_TYPES and 0 < result.page_type_prob <= 1
    other = clean_html(shop_page(8), cleaner="justext", classify_page=True)
    assert other.page_type in PAGE_TYPES
    # Off by default: the classification adds about a tenth to a page's cleaning.
    assert clean_html(shop_page(8)).page_type is None


def test_the_last_column_says_whether_the_page_is_english():
    blocks = segment(parse(shop_page(3)), record_runs=True)
    assert TYPE_FEATURE_NAMES[-1] == "language_english"
    assert type_features(blocks, language="en")[-1] == 1.0
    for other in ("de", "zh", None):
        assert type_features(blocks, language=other)[-1] == 0.0
    # The rest of the row does not depend on the language.
    assert type_features(blocks, language="en")[:-1].tolist() == type_features(blocks)[:-1].tolist()


def test_the_call_types_a_page_by_the_language_it_detected(monkeypatch):
    seen = []
    real = page_type.type_features

    def spy(*args, **kwargs):
        seen.append(args[5] if len(args) > 5 else kwargs.get("language"))
        return real(*args, **kwargs)

    monkeypatch.setattr(page_type, "type_features", spy)
    german = "<p>" + "Der Hund läuft schnell über die Straße und die Katze schläft. " * 6 + "</p>"
    clean_html(german, classify_page=True)
    clean_html(german, classify_page=True, language="en")
    assert seen == ["de", "en"]


@pytest.mark.shared
def test_magic_html_held_out_articles_and_threads_are_named_right(magic_html_dir):
    """magic-html's held-out test sites (articles and forum threads, most not in English), read
    as `clean_html` reads them: the model learnt non-English pages from its training sites."""
    from pipeline.evaluate.datasets import load_dataset

    ids = page_type.load_model().metadata["magic_html"]["test_ids"]
    pages = load_dataset(magic_html_dir, ids)
    right = sum(
        clean_html(p.read_html(), url=p.url, classify_page=True).page_type == p.page_type
        for p in pages
    )
    assert len(pages) >= 40 and sum(p.language != "en" for p in pages) >= 20
    assert right / len(pages) >= 0.85


@pytest.mark.shared
def test_type_named_right_on_three_in_four_held_out_wcxb_pages(wcxb_dir):
    """The held-out test sites of the shipped model, read from the pages as `clean_html` reads
    them (issue 49's target: at least 75%)."""
    from pipeline.evaluate.datasets import load_dataset

    ids = page_type.load_model().metadata["test_ids"]
    pages = load_dataset(wcxb_dir, ids)
    right = sum(
        clean_html(p.read_html(), url=p.url, classify_page=True).page_type == p.page_type
        for p in pages
    )
    assert len(pages) >= 250
    assert right / len(pages) >= 0.75


def shapes_by_hand(blocks) -> dict[str, float]:
    """`shape_features`' columns computed block by block, the plain way, as the oracle for the
    column-wise code."""
    n = len(blocks)
    short = [b.text for b in blocks if b.n_chars < page_type.SHORT_BLOCK]
    prices = sum(
        1 for b in blocks if b.n_chars < page_type.PRICE_BLOCK and page_type._has_price(b.text)
    )
    joined = "\n".join(short).lower()
    groups: dict[tuple[str, str], int] = {}
    for b in blocks:
        groups[(b.dom_path, b.style)] = groups.get((b.dom_path, b.style), 0) + 1
    repeated = [k for k in groups.values() if k >= page_type.REPEAT]
    chars = sum(b.n_chars for b in blocks)
    out = {
        "prices": math.log1p(prices),
        "price_share": prices / n,
        "repeated_groups": math.log1p(len(repeated)),
        "largest_group_share": max(groups.values()) / n,
        "repeated_share": sum(repeated) / n,
        "subheadings": math.log1p(sum(b.tag in ("h2", "h3") for b in blocks)),
        "code_blocks": math.log1p(sum(b.tag == "pre" for b in blocks)),
        "table_cells": math.log1p(sum(bool(b.shape and b.shape.table) for b in blocks)),
        "list_items": math.log1p(sum(bool(b.shape and b.shape.item) for b in blocks)),
        "log_blocks": math.log1p(n),
        "log_chars": math.log1p(chars),
        "link_density": sum(b.n_link_chars for b in blocks) / chars if chars else 0.0,
        "longest_share": max(b.n_chars for b in blocks) / chars if chars else 0.0,
    }
    for name, words in page_type.PHRASES:
        out[f"phrase_{name}"] = math.log1p(sum(joined.count(p) for p in words))
    return out


# Pieces of pages that reach every column: cards with prices and shop phrases, headings, code,
# tables, lists, links, phrases that overlap ("quote", "get a quote"), non-Latin text, long text.
PAGE_PIECES = [
    '<div class="card"><h3>Item</h3><p class="price">$19.99</p><p>Add to cart</p></div>',
    "<h2>Replies</h2><p>Reply · Quote · 12 views</p>", "<p>Get a quote — contact us</p>",
    "<pre>x = 1</pre>", "<table><tr><th>Plan</th><td>€ 5</td></tr></table>",
    "<ul><li>Sort by</li><li>Filter</li><li>Load more</li></ul>", "<p>19 £ and ¥</p>",
    '<p><a href="/x">View all products</a></p>', "<p>東京の記事 Read more</p>",
    "<p>" + "Long prose sentence about nothing in particular. " * 4 + "</p>",
    "<h3>Parameters</h3><p>Returns: the usage of the install</p>", "<p>İSTANBUL $ 5</p>",
    # Prices and phrases in blocks one character under, at and over the bounds (40 and 60).
    *(f"<p>{'a' * k}$19.99</p>" for k in (33, 34, 35)),
    *(f"<p>add to cart {'b' * k}</p>" for k in (47, 48, 49)),
]  # fmt: skip
pages_of_pieces = st.lists(st.sampled_from(PAGE_PIECES), min_size=1, max_size=30).map(
    lambda parts: f"<html><body>{''.join(parts)}</body></html>"
)


@settings(max_examples=150, deadline=None)
@given(pages_of_pieces)
def test_shape_columns_are_what_the_blocks_say(markup):
    blocks = segment(parse(markup), record_runs=True)
    expected = shapes_by_hand(blocks)
    shape = dict(zip(SHAPE_NAMES, shape_features(blocks).tolist(), strict=True))
    assert shape == pytest.approx(expected, abs=1e-12)
    # The phrase counts compiled (one pass) and in Python (a count per phrase) agree exactly.
    saved, page_type._count_each = page_type._count_each, None
    try:
        assert shape_features(blocks).tolist() == list(shape.values())
    finally:
        page_type._count_each = saved


# Markers of schema.org types, whole and broken, mixed into the page pieces.
TYPE_PIECES = [
    ld({"@type": "Product"}), ld({"@type": ["Offer", "Review"]}),
    '<div itemtype="https://schema.org/ItemList">', 'itemtype=Event "@type" @type', '"@type":',
]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*PAGE_PIECES, *TYPE_PIECES]), max_size=20).map("".join))
def test_schema_counts_on_bytes_are_the_same_compiled_or_not(markup):
    from pipeline.html import page_cues

    data = markup.encode()
    compiled = schema_type_counts(data).tolist()
    saved, page_cues._find_bytes = page_cues._find_bytes, None
    try:
        assert schema_type_counts(data).tolist() == compiled
    finally:
        page_cues._find_bytes = saved
    assert schema_type_counts(markup).tolist() == compiled


@pytest.mark.shared
def test_news_named_in_the_query_reads_as_news(daniel_dir):
    """daniel's news pages (every 8th: 202 pages on 121 sites) given addresses that name the
    story in their query, as many crawled sites do (WordPress's ``/?p=N``, a script's
    ``/article.php?id=N``): named articles as often as without an address, and cleaned no worse.
    Read as the site's home page or a section page with a query, 56% and 12% of all 1,611 were
    named articles, and their F1 fell 0.003 and 0.004 below the address-less pages'."""
    from pipeline.evaluate.datasets import load_dataset
    from pipeline.evaluate.scoring import score_text

    pages = load_dataset(daniel_dir)[::8]
    forms = {
        "none": lambda site, n: None,
        "plain": lambda site, n: f"https://{site}/?p={n}",
        "script": lambda site, n: f"https://{site}/article.php?id={n}",
    }
    named = dict.fromkeys(forms, 0)
    f1 = dict.fromkeys(forms, 0.0)
    for i, page in enumerate(pages):
        html = page.read_html()
        for name, address in forms.items():
            result = clean_html(
                html, url=address(page.site, i + 1), markdown=False, classify_page=True
            )
            named[name] += result.page_type == "article"
            f1[name] += score_text(page, result.text).f1 / len(pages)
    assert len(pages) >= 200 and len({p.site for p in pages}) >= 100
    assert named["none"] >= 0.8 * len(pages)
    assert min(named["plain"], named["script"]) >= named["none"]
    assert min(f1["plain"], f1["script"]) >= f1["none"]
