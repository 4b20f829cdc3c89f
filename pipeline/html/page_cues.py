"""What kind of page this is, from what the page says about itself: the Open Graph type and the
schema.org JSON-LD types its head declares, and the shape of its URL.

The learned cleaner's hardest pages are the ones whose main content follows a convention of
their kind rather than of the text: a product page's content is its title, price and a few
facts, not the carousels of other products around them, while a collection page's repeated
items are its content. Blocks alone rarely show which kind a page is; its metadata often does
(on the WCXB dev pages, 75 of 92 product pages declare a schema.org Product, 84 of 112 forum
threads a DiscussionForumPosting or QAPage, two thirds of articles og:type "article"), and so
does its URL (``/products/``, ``/t/``, ``/docs/``, a long hyphenated slug). These cues are
page-level columns of `pipeline.learned.features` and so reach both the trees and the nets.

Every cue is a number, and a page without metadata or a URL simply has the "missing" values: a
page is never rejected for what it declares.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from pipeline.html.metadata import NO_HEAD, HeadFacts, read_head

_OG_TYPES = ("article", "product", "website")
# schema.org types grouped by the kind of page they declare. Nested types count too (an Offer
# inside a Product, a Comment inside a DiscussionForumPosting): they describe the same page.
_SCHEMA_FAMILIES: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "product",
        frozenset({"Product", "ProductGroup", "IndividualProduct", "Offer", "AggregateOffer"}),
    ),
    (
        "article",
        frozenset(
            {
                "Article",
                "NewsArticle",
                "BlogPosting",
                "TechArticle",
                "ReportageNewsArticle",
                "AnalysisNewsArticle",
                "OpinionNewsArticle",
                "ScholarlyArticle",
                "Report",
                "LiveBlogPosting",
            }
        ),
    ),
    (
        "forum",
        frozenset(
            {
                "DiscussionForumPosting",
                "QAPage",
                "Comment",
                "Question",
                "Answer",
                "SocialMediaPosting",
            }
        ),
    ),
    ("list", frozenset({"ItemList", "CollectionPage", "SearchResultsPage"})),
    ("faq", frozenset({"FAQPage"})),
    ("recipe", frozenset({"Recipe"})),
)
# Path segments that name a kind of page on most sites; matched on the lower-cased path.
_URL_FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("product", re.compile(r"/(?:products?|p|dp|item|shop|store)/")),
    (
        "forum",
        re.compile(
            r"/(?:forums?|threads?|t|topics?|questions|discussions?|community|viewtopic)[/.]"
        ),
    ),
    (
        "docs",
        re.compile(r"/(?:docs?|documentation|api|reference|manual|guides?|wiki|learn|help)[/.]"),
    ),
    (
        "collection",
        re.compile(r"/(?:collections?|category|categories|c|tags?|search|list|browse)/"),
    ),
    ("article", re.compile(r"/(?:news|blog|articles?|story|stories|posts?)/|/20[0-2]\d/")),
)
PAGE_CUE_NAMES: tuple[str, ...] = (
    *(f"cue_og_{t}" for t in _OG_TYPES),
    "cue_og_missing",
    *(f"cue_schema_{name}" for name, _ in _SCHEMA_FAMILIES),
    "cue_has_url",
    "cue_url_depth",
    "cue_url_slug_hyphens",
    "cue_url_slug_chars",
    "cue_url_long_number",
    "cue_url_query",
    *(f"cue_url_{name}" for name, _ in _URL_FAMILIES),
)
N_PAGE_CUES = len(PAGE_CUE_NAMES)

_LONG_NUMBER = re.compile(r"\d{4,}")
_EXTENSION = re.compile(r"\.(?:html?|php|aspx?|jsp)$")
# URL numbers are capped so that a pathological URL cannot push a column far outside what the
# model saw in training.
_MAX_DEPTH, _MAX_HYPHENS, _MAX_SLUG = 20, 30, 200


def declared_types(tree: LexborHTMLParser) -> tuple[str | None, frozenset[str]]:
    """The Open Graph type (lower-cased; None when absent) and the schema.org types of the JSON-LD
    that the page's ``<head>`` declares: the first two of `pipeline.html.metadata.read_head`'s
    facts, which a caller holding them passes to `page_cues` instead.

    Only the head is read: a selector pass over the head cost 0.06 ms a page on the WCXB pages,
    over the whole tree 0.12-0.17 ms for each selector, and scanning the markup for the markers
    0.1-0.2 ms for each marker; the whole cleaner has 5 ms. Malformed JSON-LD is read as far as its
    ``"@type"`` pairs go: pages often ship broken JSON, and the types are still what the site
    meant. Nested types count too."""
    facts = read_head(tree)
    return facts.og_type, facts.schema_types


_NO_URL = (0.0,) * (6 + len(_URL_FAMILIES))


def _url_cues(url: str | None) -> tuple[float, ...]:
    url = url.strip() if url else ""
    if not url:
        return _NO_URL
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unbalanced IPv6 bracket: no usable URL
        return _NO_URL
    path = parts.path.lower()
    segments = [s for s in path.split("/") if s]
    slug = _EXTENSION.sub("", segments[-1]) if segments else ""
    probe = path + "/"
    return (
        1.0,
        min(len(segments), _MAX_DEPTH),
        min(slug.count("-"), _MAX_HYPHENS),
        min(len(slug), _MAX_SLUG),
        1.0 if _LONG_NUMBER.search(path) else 0.0,
        1.0 if parts.query else 0.0,
        *(1.0 if pattern.search(probe) else 0.0 for _, pattern in _URL_FAMILIES),
    )


def page_cues(
    tree: LexborHTMLParser | None = None,
    url: str | None = None,
    head: HeadFacts | None = None,
) -> np.ndarray:
    """The `PAGE_CUE_NAMES` values of one page, a float64 vector, from its parsed tree and its
    URL. ``tree`` None reads as a page that declares nothing, ``url`` None as a page whose
    address is unknown; a ``url`` that is not a str is a TypeError (bytes would otherwise fail
    deep inside `urllib.parse` with a message about separators). ``head``: the tree's
    `pipeline.html.metadata.read_head` facts when the caller has them (then ``tree`` is not
    read again), so the cleaner reads the head once for the cues and the page's metadata."""
    if url is not None and not isinstance(url, str):
        raise TypeError(f"url must be a str or None, not {type(url).__name__}")
    if head is None:
        head = read_head(tree) if tree is not None else NO_HEAD
    og, types = head.og_type, head.schema_types
    values = [
        *(1.0 if og == t else 0.0 for t in _OG_TYPES),
        1.0 if og is None else 0.0,
        *(1.0 if types & family else 0.0 for _, family in _SCHEMA_FAMILIES),
        *_url_cues(url),
    ]
    return np.array(values, dtype=np.float64)
