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
from functools import partial
from urllib.parse import SplitResult, parse_qsl, urlsplit

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from pipeline.html.metadata import ARTICLE_TYPES, NO_HEAD, HeadFacts, read_head

# `bytes.find` as a C loop (markup_scan.pyx), where the build compiled it; tests set this to
# None to compare the two.
try:
    from pipeline.html.markup_scan import find as _find_bytes
except ModuleNotFoundError as exc:  # an install without a C compiler
    if exc.name != "pipeline.html.markup_scan":
        raise
    _find_bytes = None

_OG_TYPES = ("article", "product", "website")
# schema.org types grouped by the kind of page they declare. Nested types count too (an Offer
# inside a Product, a Comment inside a DiscussionForumPosting): they describe the same page.
_SCHEMA_FAMILIES: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "product",
        frozenset({"Product", "ProductGroup", "IndividualProduct", "Offer", "AggregateOffer"}),
    ),
    ("article", ARTICLE_TYPES),
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
# Queries naming a page are short; a longer one stays a query. Parsed, a record's 256 KiB address
# of "a=1&" pairs took 250 ms, 35 times a page's cleaning.
MAX_QUERY_READ = 1000


# Addresses that name the page in their query are read as the path they stand for (BENCHMARKS.md
# "Items named in the query"). Read as they are, a query-named news story is a section page or
# the home page with a query: daniel's 1,611 news pages given `/?p=N` addresses were cleaned to
# F1 0.905 (0.912 as `/N/`) and named articles on 56%, given `/article.php?id=N` 0.903 and 12%.
#
# WordPress's "plain" permalinks, at the site's root (`?p=123`, `?page_id=7`, `?cat=4`,
# WooCommerce's `?product=blue-shirt`): each key as the path of the pretty permalink it stands for.
# The keys are WordPress's own (its Codex, "Using Permalinks").
_PLAIN_ROOTS = frozenset({"", "/", "/index.php"})
_PLAIN_ID_KEYS = ("p", "page_id")
_PLAIN_KEYS: tuple[tuple[str, str], ...] = (
    ("cat", "/category/"),
    ("tag", "/tag/"),
    ("author", "/author/"),
    ("s", "/search/"),
    ("product", "/product/"),
    ("product_cat", "/product-category/"),
)
_PLAIN_VALUE = re.compile(r"[\w-]{1,200}")
# A script's page whose query gives a number (`/article.php?id=123`, `/viewtopic.php?t=9`,
# `Detail.aspx?NewsID=5`): the item's number as the script's last segment.
_SCRIPT = re.compile(r"\.(?:php\d?|aspx?|jsp|cgi|pl|cfm|do)$")


def _query_item(parts: SplitResult) -> tuple[str, bool] | None:
    """The lower-cased path that ``parts``' query stands for, and whether its last segment is an
    item's number; None for a URL whose query names no page."""
    if not parts.query or len(parts.query) > MAX_QUERY_READ:
        return None
    path = parts.path.lower()
    if path in _PLAIN_ROOTS:
        query = dict(parse_qsl(parts.query))
        for key in _PLAIN_ID_KEYS:
            if query.get(key, "").isdigit():
                return "/" + query[key], True
        for key, prefix in _PLAIN_KEYS:
            value = query.get(key, "").lower()
            if _PLAIN_VALUE.fullmatch(value):
                return prefix + value, False
    if _SCRIPT.search(path) is None:
        return None
    numbers = [v for _, v in parse_qsl(parts.query) if v.isdigit()]
    # the longest: "?f=20&t=487157" is topic 487157 of forum 20, "&postid=159166&pageid=3" its
    # post
    return (path + "/" + max(numbers, key=len), True) if numbers else None


def address_path(url: str | SplitResult) -> str:
    """The lower-cased path of ``url`` as the page is addressed: the path its query stands for
    when it names the page (a WordPress plain permalink's pretty one, ``/?product=desk``:
    ``/product/desk``; a script's item, ``/article.php?id=12``: ``/article.php/12``), else its own
    path. Raises ValueError for a URL that `urllib.parse.urlsplit` cannot read."""
    parts = urlsplit(url) if isinstance(url, str) else url
    item = _query_item(parts)
    return parts.path.lower() if item is None else item[0]


def _url_cues(url: str | None) -> tuple[float, ...]:
    url = url.strip() if url else ""
    if not url:
        return _NO_URL
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unbalanced IPv6 bracket: no usable URL
        return _NO_URL
    item = _query_item(parts)
    path, numbered = (parts.path.lower(), False) if item is None else item
    segments = [s for s in path.split("/") if s]
    slug = _EXTENSION.sub("", segments[-1]) if segments else ""
    probe = path + "/"
    return (
        1.0,
        min(len(segments), _MAX_DEPTH),
        min(slug.count("-"), _MAX_HYPHENS),
        min(len(slug), _MAX_SLUG),
        # an id in the query names one item whatever its digits; in a path, short numbers are
        # page numbers and days as often as ids
        1.0 if numbered or _LONG_NUMBER.search(path) else 0.0,
        1.0 if parts.query and item is None else 0.0,
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


# --- What kind of page: the evidence the page-type classifier reads (`pipeline.html.page_type`)
#
# Beyond the head's cues above, three more things a page says about its kind, each cheap enough to
# read on every page: the schema.org types named anywhere in its markup (JSON-LD in the body too,
# and microdata's ``itemtype``), counted, since one Product is a product page and thirty are a
# shop's category; the words of its URL's path and host; and the words of its ``<title>``.

# The schema.org types counted, in column order. Families of the `_SCHEMA_FAMILIES` kind, kept
# apart here because a count of each tells more than their union: Offer beside one Product is a
# product page, ListItem beside BreadcrumbList is only a breadcrumb trail.
SCHEMA_COUNTED: tuple[str, ...] = (
    *("Product", "ProductGroup", "Offer", "AggregateOffer", "AggregateRating", "Review"),
    *("ItemList", "ListItem", "BreadcrumbList", "CollectionPage", "SearchResultsPage"),
    *("OfferCatalog", "Article", "NewsArticle", "BlogPosting", "TechArticle"),
    *("DiscussionForumPosting", "QAPage", "Question", "Answer", "Comment", "FAQPage", "HowTo"),
    *("Recipe", "Event", "Organization", "LocalBusiness", "Service", "ProfessionalService"),
    *("WebPage", "WebSite", "AboutPage", "ContactPage", "SoftwareApplication"),
    *("SoftwareSourceCode", "APIReference", "Course", "VideoObject", "Person", "JobPosting"),
    *("Place", "MedicalWebPage", "Brand", "ImageObject"),
)
_SCHEMA_COLUMN = {name: i for i, name in enumerate(SCHEMA_COUNTED)}
# A JSON-LD ``"@type"`` pair's value (a string or a list of them) and the strings in it, as
# `pipeline.html.metadata` reads the head's: malformed JSON is read as far as its pairs go.
_JSON_TYPE = re.compile(r'"@type"\s*:\s*("(?:[^"\\]|\\.){0,200}"|\[[^\]]{0,2000}\])')
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ITEMTYPE_PATTERN = r"""itemtype\s*=\s*["']?([^"'\s>]{1,200})"""
# (key, the pattern matched where the key is) for markup as text and as UTF-8 bytes: the cleaner
# has the page's bytes and decodes them to text only when it must (`pipeline.types.Decoded`).
_TYPE_PAIRS = ('"@type"', _JSON_TYPE)
_ITEMTYPES = ("itemtype", re.compile(_ITEMTYPE_PATTERN, re.IGNORECASE))
_TYPE_PAIRS_BYTES = (b'"@type"', re.compile(_JSON_TYPE.pattern.encode()))
_ITEMTYPES_BYTES = (b"itemtype", re.compile(_ITEMTYPE_PATTERN.encode(), re.IGNORECASE))
# A catalogue page may name thousands of types; past this many occurrences the counts are as
# telling as they will get, and the scan stops.
_MAX_TYPE_MENTIONS = 2000


def _mentions(markup: str | bytes, key_pattern: tuple) -> list[str]:
    """The first group of the pattern matched at each occurrence of the key in ``markup``:
    `str.find` jumps from one occurrence to the next, so a page pays one scan of its markup,
    not a regex tried at every character. On bytes, where the build compiled it,
    `pipeline.html.markup_scan.find` does the jumping: the same positions at a quarter of the
    cost."""
    key, pattern = key_pattern
    find = markup.find
    if _find_bytes is not None and isinstance(markup, bytes):
        find = partial(_find_bytes, markup)
    out = []
    pos = find(key, 0)
    while pos >= 0 and len(out) < _MAX_TYPE_MENTIONS:
        m = pattern.match(markup, pos)
        if m:
            value = m.group(1)
            out.append(value if isinstance(value, str) else value.decode("utf-8", "replace"))
        pos = find(key, pos + len(key))
    return out


def _type_name(value: str) -> str:
    """``https://schema.org/Product``, ``schema:Product`` and ``...#Product`` -> ``Product``."""
    return value.strip().rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].rsplit("#", 1)[-1]


def schema_type_counts(markup: str | bytes) -> np.ndarray:
    """How often the page's markup (its text or its UTF-8 bytes) names each type of
    `SCHEMA_COUNTED`, as log(1 + count), a float64 vector: JSON-LD ``"@type"`` pairs anywhere
    (head or body; malformed JSON read as far as its pairs go, as in `declared_types`) and
    microdata ``itemtype`` attributes."""
    counts = np.zeros(len(SCHEMA_COUNTED))
    get = _SCHEMA_COLUMN.get
    text = isinstance(markup, str)
    for value in _mentions(markup, _TYPE_PAIRS if text else _TYPE_PAIRS_BYTES):
        for name in _QUOTED.findall(value):
            i = get(_type_name(name))
            if i is not None:
                counts[i] += 1
    for value in _mentions(markup, _ITEMTYPES if text else _ITEMTYPES_BYTES):
        i = get(_type_name(value))
        if i is not None:
            counts[i] += 1
    return np.log1p(counts)


# Words that name a kind of page, in a URL's path or host or a page's title. A word list per kind
# rather than the URL families above: the classifier weighs each word family, the block model
# reads the families.
KIND_WORDS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (kind, frozenset(words.split()))
    for kind, words in (
        ("product", "product products p dp item items shop store buy sku"),
        (
            "collection",
            "collection collections category categories c browse catalog catalogue department "
            "search tag tags s",
        ),
        ("listing", "list lists listing listings directory jobs events archive top best results"),
        (
            "forum",
            "forum forums thread threads t topic topics questions question q discussion "
            "discussions community viewtopic showthread answers",
        ),
        (
            "documentation",
            "docs doc documentation api reference manual guide guides wiki learn help kb "
            "knowledge tutorial tutorials sdk developer developers support faq",
        ),
        (
            "service",
            "services service solutions solution pricing plans features about company contact "
            "enterprise business industries platform",
        ),
        ("article", "blog news article articles story stories post posts insights magazine"),
    )
)
URL_KIND_NAMES: tuple[str, ...] = tuple(
    f"url_{where}_{kind}" for kind, _ in KIND_WORDS for where in ("dirs", "last")
)
TITLE_KIND_NAMES: tuple[str, ...] = (*(f"title_{kind}" for kind, _ in KIND_WORDS), "title_chars")
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")
_NO_URL_WORDS = np.zeros(len(URL_KIND_NAMES))


def _kinds_named(words: set[str]) -> list[float]:
    return [0.0 if words.isdisjoint(kind_words) else 1.0 for _, kind_words in KIND_WORDS]


def url_kind_words(url: str | None) -> np.ndarray:
    """For each kind of `KIND_WORDS`, whether a word of it is in the URL's host or directories,
    and whether one is in its last path segment (the page's own name), as `URL_KIND_NAMES`."""
    url = url.strip() if url else ""
    if not url:
        return _NO_URL_WORDS.copy()
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return _NO_URL_WORDS.copy()
    segments = [s for s in address_path(parts).split("/") if s]
    dirs = set(_WORD_SPLIT.split(" ".join([host, *segments[:-1]])))
    last = set(_WORD_SPLIT.split(segments[-1])) if segments else set()
    out = []
    for a, b in zip(_kinds_named(dirs), _kinds_named(last), strict=True):
        out += [a, b]
    return np.array(out)


# A title is read this far: past it a title is no title but a page stuffed into one.
_MAX_TITLE_CHARS = 500


def title_kind_words(tree: LexborHTMLParser | None) -> np.ndarray:
    """For each kind of `KIND_WORDS`, whether a word of it is in the head's ``<title>``, then the
    title's length in characters as log(1 + n), as `TITLE_KIND_NAMES` (all 0 without a title)."""
    head = tree.head if tree is not None else None
    node = head.css_first("title") if head is not None else None
    title = (node.text(deep=True) or "")[:_MAX_TITLE_CHARS].strip().lower() if node else ""
    if not title:
        return np.zeros(len(TITLE_KIND_NAMES))
    return np.array([*_kinds_named(set(_WORD_SPLIT.split(title))), np.log1p(len(title))])
