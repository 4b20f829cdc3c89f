"""Block feature vectors for the learned cleaners, with the neighbours' features beside each block.

A block's own evidence (length, link density, stopwords, markup) decides most cases, but the
hard ones, short lines inside an article and long link-free lines in a footer, are decided by
what surrounds them. So every row holds the block's features, its previous and next blocks'
features, and averages over a wider window.

Everything per character is computed over the whole page at once: the block texts are joined,
turned into a code point array, classified with table look-ups and summed per block with
`numpy.add.reduceat`. Per-block Python work is limited to what has no array form (stopword
counting, jusText's context-free class, regex cues cached per distinct class/path string).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from pipeline.justext import DEFAULT_PARAMS, stopword_densities
from pipeline.types import Block, CfClass

# Cues in the class names of a block's enclosing element (Block.style). The class string is split
# into word pieces at every non-alphanumeric character ("site-footer__links" -> site, footer,
# links), and each piece is looked up in this table: a dict look-up per piece rather than a
# regex per cue, which kept the style cues off the profile.
_STYLE_CUES: tuple[tuple[str, str], ...] = (
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
_STYLE_WORDS: dict[str, int] = {
    word: i for i, (_, words) in enumerate(_STYLE_CUES) for word in words.split()
}
_STYLE_SPLIT = re.compile(r"[^a-z0-9]+")
_PATH_CUES = ("nav", "footer", "header", "aside", "article", "main", "table", "ul", "ol", "a")
_TAG_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("p", frozenset({"p"})),
    ("li", frozenset({"li", "dd", "dt"})),
    ("cell", frozenset({"td", "th", "tr", "caption"})),
    ("div", frozenset({"div", "body", "center", "fieldset", "blockquote", "form"})),
    ("heading", frozenset(f"h{i}" for i in range(1, 7))),
    ("pre", frozenset({"pre"})),
)
_CF_ORDER = (CfClass.GOOD, CfClass.NEARGOOD, CfClass.SHORT, CfClass.BAD)

# Per-code-point classes for the first 0x10000 code points: 1 digit, 2 upper, 4 punctuation,
# 8 sentence end, 16 letter. Astral code points (emoji, rare CJK) count as none of them.
_TABLE_SIZE = 0x10000


def _char_table() -> np.ndarray:
    table = np.zeros(_TABLE_SIZE, dtype=np.uint8)
    for cp in range(_TABLE_SIZE):
        c = chr(cp)
        flags = 0
        if c.isdigit():
            flags |= 1
        if c.isupper():
            flags |= 2
        if not c.isalnum() and not c.isspace() and c.isprintable():
            flags |= 4
        if c in ".!?。！？।؟…":
            flags |= 8
        if c.isalpha():
            flags |= 16
        table[cp] = flags
    return table


_CHAR_FLAGS = _char_table()

OWN_FEATURES: tuple[str, ...] = (
    "log_chars",
    "log_words",
    "link_density",
    "text_density",
    "log_markup",
    "log_tags",
    "stopword_density",
    "has_stoplist",
    *(f"cf_{c.value}" for c in _CF_ORDER),
    "bte_fraction",
    "is_heading",
    *(f"tag_{name}" for name, _ in _TAG_GROUPS),
    *(f"path_{cue}" for cue in _PATH_CUES),
    "path_depth",
    *(f"style_{name}" for name, _ in _STYLE_CUES),
    "position",
    "chars_before",
    "digit_ratio",
    "upper_ratio",
    "punct_ratio",
    "letter_ratio",
    "sentence_ends",
    "ends_sentence",
    "share_of_page",
    "rel_to_longest",
    "same_style_as_longest",
    "path_prefix_with_longest",
    "log_page_chars",
)
# Of the block's own features, these are repeated for the neighbours (the page-level ones would
# only repeat themselves).
_NEIGHBOUR_COLUMNS = tuple(range(len(OWN_FEATURES) - 1))
WINDOW = 3
_WINDOW_FEATURES = ("log_chars", "link_density", "stopword_density", "bte_fraction", "cf_good")

FEATURE_NAMES: tuple[str, ...] = (
    *OWN_FEATURES,
    *(f"prev_{OWN_FEATURES[i]}" for i in _NEIGHBOUR_COLUMNS),
    *(f"next_{OWN_FEATURES[i]}" for i in _NEIGHBOUR_COLUMNS),
    *(f"win{WINDOW}_{name}" for name in _WINDOW_FEATURES),
)
N_FEATURES = len(FEATURE_NAMES)


@lru_cache(maxsize=65536)
def _style_cues(style: str) -> tuple[float, ...]:
    out = [0.0] * len(_STYLE_CUES)
    # The first piece is the element's tag name, not a class.
    for piece in _STYLE_SPLIT.split(style.lower())[1:]:
        i = _STYLE_WORDS.get(piece)
        if i is not None:
            out[i] = 1.0
    return tuple(out)


@lru_cache(maxsize=65536)
def _path_cues(dom_path: str) -> tuple[float, ...]:
    parts = dom_path.split(".")
    present = set(parts)
    tag = parts[-1]
    return (
        *(1.0 if tag in group else 0.0 for _, group in _TAG_GROUPS),
        *(1.0 if cue in present else 0.0 for cue in _PATH_CUES),
        min(len(parts), 48) / 16.0,
    )


def _bte_fractions(blocks: Sequence[Block]) -> np.ndarray:
    """Share of each block's tokens inside BTE's maximal stretch, with the paper's tag weight 1.0.

    The same stretch as `pipeline.bte.max_stretch` (earliest start, then earliest end, among the
    maximal ones), found with prefix sums in numpy instead of a Python loop over the runs.
    """
    n = len(blocks)
    per_block = [
        b.runs if b.runs is not None else ((b.n_words,) if b.n_words else ()) for b in blocks
    ]
    counts = np.fromiter((len(r) for r in per_block), np.int64, n)
    runs = np.fromiter((r for rs in per_block for r in rs), np.float64, int(counts.sum()))
    out = np.zeros(n)
    if runs.size == 0:
        return out
    prefix = np.concatenate(([0.0], np.cumsum(runs)))
    running_min = np.minimum.accumulate(prefix[:-1])
    scores = prefix[1:] - running_min
    end = int(np.argmax(scores))
    if scores[end] <= 0:
        return out
    start = int(np.argmax(prefix[: end + 1] == running_min[end]))
    owner = np.repeat(np.arange(n), counts)
    tokens = np.where(runs > 0, runs, 0.0)
    inside = tokens.copy()
    inside[:start] = 0.0
    inside[end + 1 :] = 0.0
    total = np.bincount(owner, weights=tokens, minlength=n)
    within = np.bincount(owner, weights=inside, minlength=n)
    np.divide(within, total, out=out, where=total > 0)
    return out


def _cf_onehot(
    blocks: Sequence[Block],
    chars: np.ndarray,
    links: np.ndarray,
    densities: np.ndarray,
    stoplist: frozenset[str] | None,
) -> np.ndarray:
    """jusText's context-free class (`pipeline.justext.classify_context_free` with the default
    parameters) as one-hot columns, computed over arrays. A test checks the two agree."""
    p = DEFAULT_PARAMS
    n = len(blocks)
    low, high = (0.0, 0.0) if stoplist is None else (p.stopwords_low, p.stopwords_high)
    link_density = links / np.maximum(chars, 1.0)
    flagged = np.fromiter(
        ("©" in b.text or "&copy" in b.text or "select" in b.dom_path for b in blocks), bool, n
    )
    bad = (link_density > p.max_link_density) | flagged
    short_zone = ~bad & (chars < p.length_low)
    long_zone = ~bad & ~short_zone
    cls = np.full(n, 3)  # bad
    cls[short_zone] = np.where(links[short_zone] > 0, 3, 2)
    dens = densities[long_zone]
    lengths = chars[long_zone]
    cls[long_zone] = np.where(
        dens >= high, np.where(lengths > p.length_high, 0, 1), np.where(dens >= low, 1, 3)
    )
    onehot = np.zeros((n, 4))
    onehot[np.arange(n), cls] = 1.0
    return onehot


def _char_stats(texts: Sequence[str], lengths: np.ndarray) -> np.ndarray:
    """Per block counts of digits, upper-case letters, punctuation, sentence ends and letters."""
    joined = "".join(texts)
    counts = np.zeros((len(texts), 5))
    if not joined:
        return counts
    cps = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    flags = _CHAR_FLAGS[np.minimum(cps, _TABLE_SIZE - 1)]
    flags[cps >= _TABLE_SIZE] = 0
    nonempty = lengths > 0
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[nonempty]
    for j, bit in enumerate((1, 2, 4, 8, 16)):
        counts[nonempty, j] = np.add.reduceat((flags & bit).astype(bool), starts)
    return counts


def _common_prefix_parts(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("."), b.split("."), strict=False):
        if x != y:
            break
        n += 1
    return n


def _per_distinct(values: list[str], fn: Callable[[str], tuple[float, ...]]) -> np.ndarray:
    """``fn`` applied once per distinct string, spread back to every position."""
    distinct: dict[str, int] = {}
    index = [distinct.setdefault(v, len(distinct)) for v in values]
    table = np.array([fn(v) for v in distinct], dtype=np.float64)
    return table[index]


def own_features(blocks: Sequence[Block], stoplist: frozenset[str] | None) -> np.ndarray:
    """One row per block of `OWN_FEATURES`: the block on its own, plus its place in the page."""
    n = len(blocks)
    x = np.zeros((n, len(OWN_FEATURES)))
    if n == 0:
        return x
    texts = [b.text for b in blocks]
    # Block is a NamedTuple: fields 5..10 are is_heading, n_chars, n_words, n_link_chars,
    # n_tags, n_markup_chars.
    counts = np.array([b[5:11] for b in blocks], dtype=np.float64)
    heading, chars, words, links, tags, markup = counts.T
    densities = np.asarray(stopword_densities(blocks, stoplist), dtype=np.float64)
    safe_chars = np.maximum(chars, 1.0)
    total = chars.sum()
    longest = int(np.argmax(chars))
    longest_style = blocks[longest].style
    longest_path = blocks[longest].dom_path
    depth = longest_path.count(".") + 1
    lengths = np.fromiter((len(t) for t in texts), np.int64, n)
    stats = _char_stats(texts, lengths)
    paths = [b.dom_path for b in blocks]
    styles = [b.style for b in blocks]

    columns: list[np.ndarray] = [
        np.log1p(chars)[:, None],
        np.log1p(words)[:, None],
        np.minimum(links / safe_chars, 1.0)[:, None],
        (chars / np.maximum(chars + markup, 1.0))[:, None],
        np.log1p(markup)[:, None],
        np.log1p(tags)[:, None],
        densities[:, None],
        np.full((n, 1), 0.0 if stoplist is None else 1.0),
        _cf_onehot(blocks, chars, links, densities, stoplist),
        _bte_fractions(blocks)[:, None],
        heading[:, None],
        _per_distinct(paths, _path_cues),
        _per_distinct(styles, _style_cues),
        (np.arange(n) / max(n - 1, 1))[:, None],
        ((np.cumsum(chars) - chars) / max(total, 1.0))[:, None],
        (stats[:, 0] / safe_chars)[:, None],
        (stats[:, 1] / np.maximum(stats[:, 4], 1.0))[:, None],
        (stats[:, 2] / safe_chars)[:, None],
        (stats[:, 4] / safe_chars)[:, None],
        (np.minimum(stats[:, 3], 20.0) / 20.0)[:, None],
        _ends_sentence(texts)[:, None],
        (chars / max(total, 1.0))[:, None],
        (chars / max(chars[longest], 1.0))[:, None],
        _per_distinct(styles, lambda s: (1.0 if s == longest_style else 0.0,)),
        _per_distinct(paths, lambda p: (_common_prefix_parts(p, longest_path) / depth,)),
        np.full((n, 1), np.log1p(total)),
    ]
    x = np.hstack(columns)
    if x.shape[1] != len(OWN_FEATURES):
        raise AssertionError(f"feature columns {x.shape[1]} != {len(OWN_FEATURES)} names")
    return x


def _ends_sentence(texts: list[str]) -> np.ndarray:
    last = np.fromiter((ord(t[-1]) if t else 0 for t in texts), np.int64, len(texts))
    flags = _CHAR_FLAGS[np.minimum(last, _TABLE_SIZE - 1)]
    return ((flags & 8) > 0).astype(np.float64) * (last < _TABLE_SIZE)


def page_features(blocks: Sequence[Block], stoplist: frozenset[str] | None) -> np.ndarray:
    """The full matrix, ``(len(blocks), N_FEATURES)``: own, previous, next and window features.

    The first block's "previous" and the last block's "next" are all zeros, which no real block
    produces (every real block has ``log_chars > 0`` or is empty), so the model can tell edges.
    """
    own = own_features(blocks, stoplist)
    n = len(blocks)
    neigh = own[:, _NEIGHBOUR_COLUMNS]
    prev = np.zeros_like(neigh)
    nxt = np.zeros_like(neigh)
    if n > 1:
        prev[1:] = neigh[:-1]
        nxt[:-1] = neigh[1:]
    idx = [OWN_FEATURES.index(name) for name in _WINDOW_FEATURES]
    win = np.zeros((n, len(idx)))
    if n:
        # Moving mean over [i - WINDOW, i + WINDOW] with prefix sums, clipped at the page edges.
        cums = np.vstack((np.zeros(len(idx)), np.cumsum(own[:, idx], axis=0)))
        lo = np.maximum(np.arange(n) - WINDOW, 0)
        hi = np.minimum(np.arange(n) + WINDOW + 1, n)
        win = (cums[hi] - cums[lo]) / (hi - lo)[:, None]
    return np.hstack((own, prev, nxt, win))
