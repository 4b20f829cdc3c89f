"""Words in class and id attributes that say what an element holds: the one table of them.

A class string is split into word pieces at every character other than a-z and 0-9, after
lower-casing ("site-footer__links" -> site, footer, links), and each piece is looked up here: a dict
look-up per piece rather than a regex per cue. Two uses, each a column per cue in
`pipeline.learned.features`: the block element's own classes (``style_*``, from `Block.style`) and
the classes and ids of every element enclosing it (``anc_*``, from `Block.ancestor_cues`, which the
segmentation walk gathers). And one rule after the model: the words that name a standfirst
(`LEAD_WORDS`, `pipeline.rules.lead_rescue`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

STYLE_CUES: tuple[tuple[str, str], ...] = (
    ("nav", "nav navbar navigation menu menubar dropdown topbar submenu"),
    ("footer", "footer foot bottom copyright legal"),
    ("header", "header masthead banner top"),
    ("comment", "comment comments reply replies respond discussion"),
    ("sidebar", "sidebar side widget widgets aside rail"),
    ("share", "share sharing social facebook twitter follow"),
    ("related", "related recommended popular trending more recirc teaser promo"),
    ("breadcrumb", "breadcrumb breadcrumbs crumbs pagination pager paging"),
    ("cookie", "cookie cookies consent gdpr privacy notice modal popup overlay"),
    ("ad", "ad ads advert advertisement sponsor sponsored dfp adslot"),
    ("content", "content article post entry body text story prose main blog"),
    ("meta", "author byline meta date time info tag tags category categories"),
    ("title", "title headline heading hero lead intro summary excerpt subtitle"),
    ("caption", "caption credit figure figcaption image photo img"),
    ("subscribe", "subscribe newsletter signup login register form search"),
    ("list", "list item card grid tile product price"),
)
# The enclosing elements' cues add two kinds of container that product pages wrap around text
# which is not the product's own (customer reviews, help tooltips over a spec table); on the
# block's own class they would only repeat what the text says.
ANCESTOR_CUES: tuple[tuple[str, str], ...] = (
    *STYLE_CUES,
    ("review", "review reviews rating ratings testimonial testimonials"),
    ("tooltip", "tooltip tooltips popover tip"),
)
# Class words that name an article's standfirst (the lead paragraph between headline and body),
# in English and in the local words some sites use (French chapo/chapeau, Portuguese sapo, Spanish
# entradilla and bajada, German vorspann), and those of more sources found with each language held
# out (issue 35: "epigraph", "preface", a news CMS's "desc"/"description" under the headline).
# Not a feature column: the "title" cue above already carries most of
# them for the model, which cannot tell a standfirst from a teaser of another article by the word
# alone; `pipeline.rules.lead_rescue` uses them with the block's place on the page.
LEAD_WORDS: frozenset[str] = frozenset(
    "lead lede intro standfirst deck dek excerpt summary subtitle subheadline abstract "
    "chapo chapeau sapo entradilla vorspann bajada epigraph preface desc description".split()
)
# What only the page rules read: bits after `ANCESTOR_CUES`' in `Block.ancestor_cues`, which the
# model's columns (`pipeline.learned.columns.ANCESTOR_NAMES`, one per `ANCESTOR_CUES` entry) leave
# out, so a rule can gate on them without a retrained model. "facet": a shop's or a search's
# filter panel (`pipeline.rules.facet_filters`).
RULE_CUES: tuple[tuple[str, str], ...] = (
    ("facet", "facet facets filter filters refine refinement refinements"),
)
ALL_ANCESTOR_CUES: tuple[tuple[str, str], ...] = (*ANCESTOR_CUES, *RULE_CUES)
ANCESTOR_WORDS: dict[str, int] = {
    word: i for i, (_, words) in enumerate(ALL_ANCESTOR_CUES) for word in words.split()
}
_SPLIT = re.compile(r"[^a-z0-9]+")

# Class strings repeat within a page and across a site's pages, so their cues are cached, but
# only short ones: a worker runs for days, and pages of long generated class strings, all
# distinct, must not grow a cache of whole strings (at most 16,384 of 256 characters: a few MB).
_CACHED_CHARS = 256


def cached_when_short(fn: Callable[[str], int]) -> Callable[[str], int]:
    """``fn`` with an LRU cache for arguments of up to `_CACHED_CHARS` characters; longer ones
    are computed every time. ``__wrapped__`` is ``fn``, ``cache`` the cached function."""
    cache = lru_cache(maxsize=16384)(fn)

    def call(value: str) -> int:
        return cache(value) if len(value) <= _CACHED_CHARS else fn(value)

    call.__wrapped__ = fn  # type: ignore[attr-defined]
    call.cache = cache  # type: ignore[attr-defined]
    call.__doc__ = fn.__doc__
    return call


@cached_when_short
def ancestor_cue_bits(value: str) -> int:
    """The `ANCESTOR_CUES` named in one class or id attribute value, bit i for cue i."""
    bits = 0
    get = ANCESTOR_WORDS.get
    for piece in _SPLIT.split(value.lower()):
        i = get(piece)
        if i is not None:
            bits |= 1 << i
    return bits


def has_lead_class(style: str) -> bool:
    """Whether a block's ``style`` (``tag.class.class``, `pipeline.types.Block.style`) names a
    standfirst: a class word of `LEAD_WORDS`, or "sub" and "title" as two words (``sub-title``;
    either alone is something else)."""
    # The first piece is the element's tag name, not a class.
    words = set(_SPLIT.split(style.lower())[1:])
    return not LEAD_WORDS.isdisjoint(words) or {"sub", "title"} <= words


def ancestor_cue_names(bits: int) -> list[str]:
    """The names of the `ALL_ANCESTOR_CUES` whose bits are set, in table order."""
    return [name for i, (name, _) in enumerate(ALL_ANCESTOR_CUES) if bits >> i & 1]


def cue_bit(name: str) -> int:
    """The bit of the `ALL_ANCESTOR_CUES` entry ``name`` in `Block.ancestor_cues`."""
    return 1 << next(i for i, (cue, _) in enumerate(ALL_ANCESTOR_CUES) if cue == name)
