"""What a page says about itself in its ``<head>``, read in one selector pass: its title,
description, author, publication date, site name and canonical address (`PageMetadata`), and the
Open Graph type and schema.org types that the learned cleaner's page cues read
(`pipeline.html.page_cues`).

Sources, and which wins when several say a thing (the first that gives a usable value):

- ``title``: ``og:title``, ``<title>``, ``twitter:title``, the JSON-LD main entity's
  ``headline`` (then its ``name``). ``og:title`` first: it is what the site wrote to show the page
  elsewhere, the page's own name without the `` | Site`` that most ``<title>``s carry.
- ``description``: ``og:description``, ``<meta name=description>``, ``twitter:description``,
  the main entity's ``description``.
- ``author``: the main entity's ``author`` (names of its Person/Organization values, ``@id``
  references followed inside the block, several joined by ", "), then ``<meta name=author>``,
  ``article:author``, ``parsely-author``, ``sailthru.author``, ``dc.creator``. JSON-LD first: its
  author is a structured name, where the meta tags often hold the site or a profile address
  (values that are addresses are never taken as names); on the 240 WCXB dev pages with both and
  an author in WCXB's truth, the two disagree on 6 and JSON-LD is right on 5.
- ``published``: ``article:published_time``, the main entity's ``datePublished`` (then
  ``dateCreated``), then the date meta tags (``datePublished`` as itemprop, ``date``,
  ``pubdate``, ``publishdate``, ``publish-date``, ``parsely-pub-date``, ``sailthru.date``,
  ``dc.date``, ``dc.date.issued``, ``dcterms.created``); normalized to ISO 8601 as precise as
  given (`normalize_date`), a value that is not a date is passed over. On WCXB's dev pages
  ``article:published_time`` is WCXB's day on 284 of 300, ``datePublished`` on 213 of 235.
- ``site_name``: ``og:site_name``, the JSON-LD ``WebSite``'s ``name``, the main entity's
  ``publisher`` name, ``application-name``.
- ``canonical_url``: ``<link rel=canonical>``, then ``og:url``; resolved against the page's URL
  and kept only as an absolute http(s) address.

The JSON-LD main entity is the first node (top level, ``@graph`` or a page's ``mainEntity``) of
an article-like type (`_ENTITY_TYPES`), else the first ``WebPage``. The JSON-LD is parsed only
when it can give something the meta tags did not (`_wants_json_ld`): on a quarter of WCXB's
pages, mostly for the author.

The head's end that the parser put in the body (`_read_spill`) counts for the metadata, never for
the page cues, which read the head alone as they always have: their values are bit for bit those
of the pass they replaced.

Hostile heads are bounded: each JSON-LD block is read to `MAX_SCRIPT_CHARS` and walked to
`MAX_NODES` nodes; malformed JSON gives no metadata but its ``@type`` pairs still count for the
cues; every value is one line (white space collapsed, control characters and lone surrogates
dropped, which Parquet could not write) cut at `CAPS` characters (an address over its cap is
dropped: a cut address is a wrong one).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from email.utils import parsedate_tz
from itertools import islice
from typing import Any, NamedTuple
from urllib.parse import urljoin

from pipeline.html.walk import node_text
from pipeline.types import NO_METADATA, PageMetadata

# Characters a value keeps at most. A title of a thousand characters is already a page's text
# poured into its head; descriptions run to a paragraph.
CAPS: dict[str, int] = {
    "title": 1000,
    "description": 2000,
    "author": 300,
    "published": 40,
    "site_name": 200,
    "canonical_url": 2048,
}
# A JSON-LD block is read this far: the page's own types and entity come first, and a catalogue
# dumped into the head must not cost more than the page's segmentation.
MAX_SCRIPT_CHARS = 100_000
# JSON-LD nodes looked at for the main entity and the @id references, over all blocks.
MAX_NODES = 500
# The body's child elements read as the end of the head (`_read_spill`): on the dev pages the
# body has 21 child nodes at the median, 75 at the 90th percentile.
MAX_SPILL = 200

# One selector pass over the head. The first two entries are the page cues' Open Graph type as
# they have always been matched; ``script`` is matched here, so every script returned is JSON-LD.
# Of the links, only those that may be the canonical one (`_Found.link` decides): a head links
# a score of style sheets, fonts and icons, and reading each one's attributes cost a fifth of
# the pass.
_HEAD_SELECTOR = (
    'meta[property="og:type"], meta[name="og:type"], script[type="application/ld+json"], '
    'title, meta[content], link[rel*="canonical" i][href]'
)
_JSON_TYPE = re.compile(r'"@type"\s*:\s*("(?:[^"\\]|\\.){0,200}"|\[[^\]]{0,2000}\])')
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')

# Meta keys (property, name or itemprop, lower-cased) read for each field, in the order they win
# among the meta tags; JSON-LD's place among them is in `read_head`.
_TITLE_KEYS = ("twitter:title",)
_DESCRIPTION_KEYS = ("og:description", "description", "twitter:description")
_AUTHOR_KEYS = ("author", "article:author", "parsely-author", "sailthru.author", "dc.creator")
_DATE_KEYS = (
    "datepublished",
    "date",
    "pubdate",
    "publishdate",
    "publish-date",
    "parsely-pub-date",
    "sailthru.date",
    "dc.date",
    "dc.date.issued",
    "dcterms.created",
)
_WANTED_KEYS = frozenset(
    (
        "og:title",
        "og:site_name",
        "og:url",
        "article:published_time",
        "application-name",
        *_TITLE_KEYS,
        *_DESCRIPTION_KEYS,
        *_AUTHOR_KEYS,
        *_DATE_KEYS,
    )
)

# schema.org's article types (`page_cues` reads the same set as a cue for an article page).
ARTICLE_TYPES = frozenset(
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
)
# schema.org types whose node is the page's main entity, in no order: the first such node wins.
_ENTITY_TYPES = ARTICLE_TYPES | frozenset(
    {
        "SocialMediaPosting",
        "DiscussionForumPosting",
        "Question",
        "Recipe",
        "HowTo",
        "Review",
        "Product",
        "Event",
        "Course",
        "JobPosting",
        "VideoObject",
        "Book",
    }
)
_PAGE_TYPES = frozenset(
    {
        "WebPage",
        "ItemPage",
        "AboutPage",
        "FAQPage",
        "QAPage",
        "CollectionPage",
        "ProfilePage",
        "ContactPage",
        "SearchResultsPage",
        "MedicalWebPage",
    }
)

# White space other than the space (collapsed first), C0 controls, lone surrogates (a JSON
# "\\ud800" escape makes one; pyarrow cannot encode it) and the two non-characters U+FFFE/U+FFFF.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
# Entities left after the parser decoded the markup's own: a value escaped twice ("&amp;amp;").
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_ISO_DATE = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?"
    r"\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?)?"
    r"(?![\d:])",
    re.IGNORECASE,
)
_COMPACT_DATE = re.compile(r"(\d{4})(\d{2})(\d{2})(?!\d)")
# English month names, as some sites write their dates: "March 4, 2025", "Dec 4th 2025",
# "4 September 2025".
_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for m in names
}
_MONTH = r"([a-z]{3,9})\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH_FIRST = re.compile(rf"{_MONTH}\s+{_DAY},?\s+(\d{{4}})(?!\d)", re.IGNORECASE)
_DAY_FIRST = re.compile(rf"{_DAY}\s+{_MONTH},?\s+(\d{{4}})(?!\d)", re.IGNORECASE)
# An absolute http(s) address: the scheme and a host.
_ABSOLUTE = re.compile(r"https?://[^/?#\s@]*[^/?#\s@:.]", re.IGNORECASE)
_OFFSET = re.compile(r"([+-])(\d{2}):?(\d{2})?")


class HeadFacts(NamedTuple):
    """What one pass over a page's head found: the page cues' inputs and the metadata."""

    og_type: str | None  # the first og:type's content, stripped and lower-cased
    schema_types: frozenset[str]  # schema.org types named anywhere in the head's JSON-LD
    metadata: PageMetadata
    # Every title the head gives (og:title, <title>, twitter:title, JSON-LD headline), as
    # cleaned, without repeats: what the page's title heading is matched against
    # (`pipeline.rules.title_heading`).
    titles: tuple[str, ...] = ()


NO_HEAD = HeadFacts(None, frozenset(), NO_METADATA)


def clean_value(value: str, cap: int) -> str | None:
    """``value`` as one line of at most ``cap`` characters (see the module's docstring); None
    when nothing is left."""
    if not value.isascii():
        # As the text's nodes are made (`pipeline.html.walk.node_text`): mojibake repaired, C1 as
        # Windows-1252 (U+0085 is "…" then, not a line break), other controls dropped.
        value = node_text(value[: 4 * cap])
    if len(value) <= cap and value.isprintable() and "  " not in value and "&" not in value:
        # the usual value, one clean line already (isprintable is False for every other space)
        return value.strip() or None
    value = value[: 4 * cap]
    if "&" in value and _ENTITY.search(value):
        value = html.unescape(value)
    value = " ".join(value.split())
    if not value.isprintable():
        # White space first, so that a line break still parts two words; what else cannot be
        # printed goes, and may leave spaces to collapse.
        value = " ".join(_UNPRINTABLE.sub("", value).split())
    if len(value) > cap:
        value = value[:cap].rstrip()
    return value or None


def _type_name(value: str) -> str:
    """``https://schema.org/Product`` and ``schema:Product`` -> ``Product``."""
    return value.strip().rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]


def _declared_types(scripts: Sequence[str]) -> frozenset[str]:
    # One pass of each pattern over all the blocks rather than a pass per block and match (a
    # fifth less time). Joined with "]", which ends a type list, so that an unterminated list
    # cannot run into the next block.
    values = _QUOTED.findall("]".join(_JSON_TYPE.findall("]".join(scripts))))
    types = {_type_name(v) for v in values}
    types.discard("")
    return frozenset(types)


def normalize_date(value: str) -> str | None:
    """A date as ISO 8601, as precise as ``value`` gives it: ``YYYY-MM-DD``, or with the time
    ``YYYY-MM-DDTHH:MM:SS`` and the UTC offset when given (``Z``, ``UTC`` and ``GMT`` as
    ``+00:00``); fractions of a second are dropped. Read: ISO 8601 (``T`` or a space before the
    time, trailing text ignored), ``YYYYMMDD``, RFC 2822 (``Thu, 04 Sep 2025 10:00:00 GMT``) and
    English month names (``March 4, 2025``, ``Dec 4th 2025``, ``4 September 2025``: the day). None
    when ``value`` is none of these or names no real day."""
    value = value.strip()[:100]
    match = _ISO_DATE.match(value)
    if match is None:
        compact = _COMPACT_DATE.match(value)
        if compact is not None:
            return _format(*map(int, compact.groups()))
        return _rfc2822(value) or _named_month(value)
    year, month, day, hour, minute, second, zone = match.groups()
    if hour is None:
        return _format(int(year), int(month), int(day))
    return _format(
        int(year), int(month), int(day), int(hour), int(minute), int(second or 0), zone or ""
    )


def _format(
    year: int,
    month: int,
    day: int,
    hour: int | None = None,
    minute: int = 0,
    second: int = 0,
    zone: str = "",
) -> str | None:
    # Year 1 placeholders ("0001-01-01") are no date; anything datetime takes from 1000 on is.
    if year < 1000:
        return None
    try:
        datetime(year, month, day, hour or 0, minute, second)  # a real day and time?
    except ValueError:
        return None
    date = f"{year:04d}-{month:02d}-{day:02d}"
    if hour is None:
        return date
    offset = _offset(zone) if zone else ""
    if offset is None:
        return None
    return f"{date}T{hour:02d}:{minute:02d}:{second:02d}{offset}"


def _offset(zone: str) -> str | None:
    """A UTC offset as ``+HH:MM``; None when it is none (beyond 18 hours, or not one)."""
    if zone.upper() in ("Z", "UTC", "GMT"):
        return "+00:00"
    match = _OFFSET.fullmatch(zone)
    if match is None:
        return None
    sign, hours, minutes = match.groups()
    if int(hours) > 18 or int(minutes or 0) > 59:
        return None
    return f"{sign}{hours}:{minutes or '00'}"


def _rfc2822(value: str) -> str | None:
    parts = parsedate_tz(value)
    if parts is None:
        return None
    year, month, day, hour, minute, second = parts[:6]
    offset = parts[9]
    zone = ""
    if offset is not None:
        sign = "-" if offset < 0 else "+"
        zone = f"{sign}{abs(offset) // 3600:02d}:{abs(offset) % 3600 // 60:02d}"
    # parsedate_tz reads a date without a time as midnight: only a value with a colon has one.
    if ":" not in value:
        return _format(year, month, day)
    return _format(year, month, day, hour, minute, second, zone)


def _named_month(value: str) -> str | None:
    match = _MONTH_FIRST.search(value)
    if match is not None:
        month, day, year = match.groups()
    else:
        match = _DAY_FIRST.search(value)
        if match is None:
            return None
        day, month, year = match.groups()
    number = _MONTHS.get(month.lower())
    return _format(int(year), number, int(day)) if number else None


def _absolute_url(value: str | None, base: str | None) -> str | None:
    if not value:
        return None
    value = value.strip()
    if not value.isprintable():
        # As a browser reads an address: tabs and line breaks dropped (spaces are escaped below),
        # any other control character makes it none.
        value = value.replace("\t", "").replace("\n", "").replace("\r", "")
        if _UNPRINTABLE.search(value):
            return None
    if " " in value:
        value = value.replace(" ", "%20")
    if len(value) > CAPS["canonical_url"]:
        return None
    if _ABSOLUTE.match(value) is None:
        if not base:
            return None
        try:
            value = urljoin(base, value)
        except ValueError:  # an unbalanced IPv6 bracket, a bad port
            return None
        if _ABSOLUTE.match(value) is None:
            return None
    return value if len(value) <= CAPS["canonical_url"] else None


# --- JSON-LD ------------------------------------------------------------------------------------


def _node_types(node: dict[str, Any]) -> set[str]:
    kind = node.get("@type")
    if isinstance(kind, str):
        return {_type_name(kind)}
    if isinstance(kind, list):
        return {_type_name(k) for k in kind[:20] if isinstance(k, str)}
    return set()


def _top_nodes(blocks: Iterable[Any]) -> list[dict[str, Any]]:
    """The nodes that can be the page's entity: each block's top-level objects, the items of
    their ``@graph``, and a page's ``mainEntity``, in document order, at most `MAX_NODES`."""
    out: list[dict[str, Any]] = []
    pending: list[Any] = list(blocks)
    pending.reverse()
    while pending and len(out) < MAX_NODES:
        item = pending.pop()
        if isinstance(item, list):
            pending.extend(reversed(item[:MAX_NODES]))
            continue
        if not isinstance(item, dict):
            continue
        out.append(item)
        inner = [item.get("mainEntity"), item.get("@graph")]
        pending.extend(x for x in reversed(inner) if isinstance(x, dict | list))
    return out


def _resolve(value: Any, by_id: dict[str, dict[str, Any]]) -> Any:
    if isinstance(value, dict) and "name" not in value:
        ref = value.get("@id")
        if isinstance(ref, str):
            return by_id.get(ref, value)
    return value


def _names(value: Any, by_id: dict[str, dict[str, Any]]) -> list[str]:
    """The names an ``author`` or ``publisher`` value gives: strings, objects' ``name``s,
    lists of either (the first 20)."""
    items = value[:20] if isinstance(value, list) else [value]
    names = []
    for item in items:
        item = _resolve(item, by_id)
        if isinstance(item, dict):
            item = item.get("name")
            if isinstance(item, list):
                item = next((n for n in item if isinstance(n, str)), None)
        if isinstance(item, str) and not _is_address(item):
            names.append(item)
    return names


def _is_address(value: str) -> bool:
    head = value.lstrip()[:8].lower()
    return head.startswith(("http://", "https://", "www.", "//"))


def _text(value: Any) -> str | None:
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str)), None)
    return value if isinstance(value, str) else None


class _JsonLd(NamedTuple):
    headline: str | None = None
    name: str | None = None
    description: str | None = None
    authors: tuple[str, ...] = ()
    published: str | None = None
    site_name: str | None = None
    publisher: str | None = None


_NO_JSON_LD = _JsonLd()


def _json_ld(scripts: Sequence[str]) -> _JsonLd:
    blocks = []
    for script in scripts:
        try:
            blocks.append(json.loads(script, strict=False))
        except (ValueError, RecursionError):
            continue  # malformed (or cut at the cap): only its @type pairs count
    if not blocks:
        return _NO_JSON_LD
    nodes = _top_nodes(blocks)
    by_id: dict[str, dict[str, Any]] = {}
    entity = page = site = None
    for node in nodes:
        ref = node.get("@id")
        if isinstance(ref, str):
            by_id.setdefault(ref, node)
        types = _node_types(node)
        if entity is None and types & _ENTITY_TYPES:
            entity = node
        elif page is None and types & _PAGE_TYPES:
            page = node
        elif site is None and "WebSite" in types:
            site = node
    main = entity if entity is not None else page
    site_name = _text(site.get("name")) if site is not None else None
    if main is None:
        return _JsonLd(site_name=site_name)
    published = None
    for holder in (main, page):
        if holder is None:
            continue
        for key in ("datePublished", "dateCreated"):
            raw = _text(holder.get(key))
            published = normalize_date(raw) if raw else None
            if published:
                break
        if published:
            break
    publisher = _names(main.get("publisher"), by_id)
    return _JsonLd(
        headline=_text(main.get("headline")),
        name=_text(main.get("name")),
        description=_text(main.get("description")),
        authors=tuple(_names(main.get("author"), by_id)),
        published=published,
        site_name=site_name,
        publisher=publisher[0] if publisher else None,
    )


# --- the pass -----------------------------------------------------------------------------------


def _first(values: Iterable[str | None], cap: int) -> str | None:
    for value in values:
        if value:
            cleaned = clean_value(value, cap)
            if cleaned:
                return cleaned
    return None


def _author(names: Sequence[str], metas: dict[str, str]) -> str | None:
    cap = CAPS["author"]
    seen: list[str] = []
    for name in names:
        cleaned = clean_value(name, cap)
        if cleaned and cleaned not in seen:
            seen.append(cleaned)
    if seen:
        return clean_value(", ".join(seen), cap)
    return _first((metas.get(k) for k in _AUTHOR_KEYS if not _is_address(metas.get(k, ""))), cap)


def _published(metas: dict[str, str], json_ld: _JsonLd) -> str | None:
    first = metas.get("article:published_time")
    if first:
        date = normalize_date(first)
        if date:
            return date
    if json_ld.published:
        return json_ld.published
    for key in _DATE_KEYS:
        raw = metas.get(key)
        if raw:
            date = normalize_date(raw)
            if date:
                return date
    return None


class _Found:
    """The head's meta values, title, canonical link and JSON-LD texts, first of each kept."""

    __slots__ = ("canonical", "metas", "scripts", "title")

    def __init__(self) -> None:
        self.title: str | None = None
        self.canonical: str | None = None
        self.metas: dict[str, str] = {}
        self.scripts: list[str] = []

    def meta(self, attrs: dict[str, str | None], content: str | None) -> None:
        if content:
            key = attrs.get("property") or attrs.get("name") or attrs.get("itemprop")
            if key:
                key = key.strip().lower()
                if key in _WANTED_KEYS and key not in self.metas:
                    self.metas[key] = content

    def link(self, attrs: dict[str, str | None]) -> None:
        if self.canonical is None and "canonical" in (attrs.get("rel") or "").lower().split():
            self.canonical = attrs.get("href")


def _read_spill(body: Any, found: _Found) -> None:
    """The end of a head that the parser put in the body: an ``<img>``, an ``<a>``, a ``<div>``
    or stray text in ``<head>`` ends it there, and the meta tags, the ``<title>`` and the
    JSON-LD after it become the body's children, often after more such elements (51 of the
    3,266 dev pages have their ``<title>`` there, as far as the body's 150th child). The body's
    first `MAX_SPILL` child elements are read; what is nested deeper is the page's."""
    for node in islice(body.iter(include_text=False), MAX_SPILL):
        tag = node.tag
        if tag == "meta":
            attrs = node.attributes
            found.meta(attrs, attrs.get("content"))
        elif tag == "title":
            if found.title is None:
                found.title = node.text(deep=True) or ""
        elif tag == "link":
            found.link(node.attributes)
        elif tag == "script":
            kind = (node.attributes.get("type") or "").strip().lower()
            if kind == "application/ld+json":
                found.scripts.append((node.text(deep=True) or "")[:MAX_SCRIPT_CHARS])


def _wants_json_ld(found: _Found) -> bool:
    """Whether the JSON-LD can give a value the meta tags did not (or the author, where it
    wins): parsing it costs as much as the rest of the head together."""
    text = "".join(found.scripts)
    metas = found.metas
    return (
        '"author"' in text
        or (
            "article:published_time" not in metas
            and ('"datePublished"' in text or '"dateCreated"' in text)
        )
        or ("og:site_name" not in metas and ('"WebSite"' in text or '"publisher"' in text))
        or not (found.title or "og:title" in metas or "twitter:title" in metas)
        or not any(k in metas for k in _DESCRIPTION_KEYS)
    )


def read_head(tree: Any, url: str | None = None) -> HeadFacts:
    """What the parsed page ``tree``'s ``<head>`` says (`HeadFacts`), in one selector pass;
    ``url``, the page's address when known, resolves a relative canonical address.

    Only the head is read (and the end of it that the parser may have put in the body,
    `_read_spill`): a selector pass over the head costs a fraction of one over the whole tree,
    and the head holds the Open Graph and other meta tags by definition and most JSON-LD (540 of
    the 658 blocks on 300 WCXB pages); JSON-LD deeper in the body and microdata are not read."""
    head = tree.head if tree is not None else None
    if head is None:
        return NO_HEAD
    og_type: str | None = None
    found = _Found()
    metas = found.metas
    for node in head.css(_HEAD_SELECTOR):
        tag = node.tag
        if tag == "meta":
            attrs = node.attributes
            content = attrs.get("content")
            key = attrs.get("property")
            name = attrs.get("name")
            # Exactly as the page cues have always matched og:type (`pipeline.html.page_cues`).
            if og_type is None and (key == "og:type" or name == "og:type"):
                og_type = (content or "").strip().lower()
            if content:
                key = key or name or attrs.get("itemprop")
                if key:
                    key = key.lower()
                    if key not in _WANTED_KEYS:
                        key = key.strip()
                    if key in _WANTED_KEYS and key not in metas:
                        metas[key] = content
        elif tag == "script":
            found.scripts.append((node.text(deep=True) or "")[:MAX_SCRIPT_CHARS])
        elif tag == "title":
            if found.title is None:
                found.title = node.text(deep=True) or ""
        else:
            found.link(node.attributes)
    # The cues read the head's own JSON-LD, as they always have; the metadata the spill's too.
    types = _declared_types(found.scripts) if found.scripts else frozenset()
    if tree.body is not None:
        _read_spill(tree.body, found)
    json_ld = _json_ld(found.scripts) if found.scripts and _wants_json_ld(found) else _NO_JSON_LD
    cap = CAPS["title"]
    titles: list[str] = []
    for value in (metas.get("og:title"), found.title, metas.get("twitter:title"), json_ld.headline):
        cleaned = clean_value(value, cap) if value else None
        if cleaned and cleaned not in titles:
            titles.append(cleaned)
    metadata = PageMetadata(
        title=titles[0] if titles else _first((json_ld.name,), cap),
        description=_first(
            (*(metas.get(k) for k in _DESCRIPTION_KEYS), json_ld.description),
            CAPS["description"],
        ),
        author=_author(json_ld.authors, metas),
        published=_published(metas, json_ld),
        site_name=_first(
            (
                metas.get("og:site_name"),
                json_ld.site_name,
                json_ld.publisher,
                metas.get("application-name"),
            ),
            CAPS["site_name"],
        ),
        canonical_url=_absolute_url(found.canonical, url)
        or _absolute_url(metas.get("og:url"), url),
    )
    return HeadFacts(
        og_type=og_type,
        schema_types=types,
        metadata=metadata if metadata != NO_METADATA else NO_METADATA,
        titles=tuple(titles),
    )
