"""Block feature vectors for the learned cleaners, with the page context beside each block.

A block's own evidence (length, link density, stopwords, markup) decides most cases, but the
hard ones, short lines inside an article and long link-free lines in a footer, are decided by
what surrounds them. So every row holds the block's features, its neighbours' features (one and
two blocks away), averages over a narrow and a wide window, and page-level context: how the block
compares with the page's median block, and how much of the page's text sits under the same DOM
path, parent path and class string (main content is usually the one path holding most text).

A second set, `stack_features`, turns a first model's block probabilities into context for a
second ("stacked") model: the neighbours' probabilities and the mean over blocks that share a
path, parent path or class string (`pipeline.learned`).

Everything is computed over the whole page at once: the block fields are transposed with one
``zip``, the texts joined and classified per code point with table look-ups, and per-group sums
taken with `numpy.bincount` over integer ids of the distinct paths and class strings. Per-block
Python work is limited to stopword counting (jusText's own function: a whole-page version was
measured slower, hashing every token is the cost either way) and cues cached per distinct
class/path string.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain

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
    # Page context (see `_context_features`).
    "path_share",
    "path_blocks",
    "path_link_density",
    "path_stopword_density",
    "parent_share",
    "parent_link_density",
    "style_group_share",
    "style_group_link_density",
    "is_main_path",
    "is_main_parent",
    "rel_log_chars",
    "rel_link_density",
    "rel_stopword_density",
    "text_repeats",
    "offset_from_longest",
    "in_good_span",
    "good_chars_before",
    "style_group_blocks",
    "after_h1",
    "from_h1",
    "near_h1",
    # Page-level columns: what kind of page this is (an article, a list of links, a shop).
    "page_link_density",
    "page_good_share",
    "page_longest_share",
    "log_page_blocks",
    "log_page_chars",
)
# Page-level columns, the same for every block of a page: the neighbour copies would only repeat
# them.
_PAGE_COLUMNS = frozenset(
    {
        "has_stoplist",
        "page_link_density",
        "page_good_share",
        "page_longest_share",
        "log_page_blocks",
        "log_page_chars",
    }
)
_NEIGHBOUR_COLUMNS = tuple(i for i, f in enumerate(OWN_FEATURES) if f not in _PAGE_COLUMNS)
# Two blocks away only the strongest evidence is repeated, to keep the rows narrow.
_FAR_FEATURES = (
    "log_chars",
    "link_density",
    "text_density",
    "stopword_density",
    "cf_good",
    "cf_bad",
    "is_heading",
    "tag_p",
    "tag_li",
    "bte_fraction",
    "ends_sentence",
    "path_share",
    "after_h1",
)
WINDOWS = (3, 10)
_WINDOW_FEATURES = (
    "log_chars",
    "link_density",
    "stopword_density",
    "bte_fraction",
    "cf_good",
    "ends_sentence",
)

FEATURE_NAMES: tuple[str, ...] = (
    *OWN_FEATURES,
    *(f"prev_{OWN_FEATURES[i]}" for i in _NEIGHBOUR_COLUMNS),
    *(f"next_{OWN_FEATURES[i]}" for i in _NEIGHBOUR_COLUMNS),
    *(f"prev2_{name}" for name in _FAR_FEATURES),
    *(f"next2_{name}" for name in _FAR_FEATURES),
    *(f"win{w}_{name}" for w in WINDOWS for name in _WINDOW_FEATURES),
)
N_FEATURES = len(FEATURE_NAMES)
_OWN_INDEX = {name: i for i, name in enumerate(OWN_FEATURES)}
_FAR_COLUMNS = [_OWN_INDEX[name] for name in _FAR_FEATURES]
_WINDOW_COLUMNS = [_OWN_INDEX[name] for name in _WINDOW_FEATURES]


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


def _bte_fractions(
    runs_per_block: Sequence[tuple[int, ...] | None], words: np.ndarray
) -> np.ndarray:
    """Share of each block's tokens inside BTE's maximal stretch, with the paper's tag weight 1.0.

    The same stretch as `pipeline.bte.max_stretch` (earliest start, then earliest end, among the
    maximal ones), found with prefix sums in numpy instead of a Python loop over the runs.
    """
    n = len(runs_per_block)
    per_block: Sequence[tuple[int, ...]]
    if None in runs_per_block:  # segmented without runs: a block is one run of its words
        per_block = [
            r if r is not None else ((w,) if w else ())
            for r, w in zip(runs_per_block, words.astype(np.int64).tolist(), strict=True)
        ]
    else:
        per_block = runs_per_block  # type: ignore[assignment]
    counts = np.fromiter(map(len, per_block), np.int64, n)
    runs = np.fromiter(chain.from_iterable(per_block), np.float64, int(counts.sum()))
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


def _cf_classes(
    copyright: np.ndarray,
    select_path: np.ndarray,
    chars: np.ndarray,
    links: np.ndarray,
    densities: np.ndarray,
    stoplist: frozenset[str] | None,
) -> np.ndarray:
    """jusText's context-free class (`pipeline.justext.classify_context_free` with the default
    parameters) as an index into `_CF_ORDER`, computed over arrays. A test checks the two agree."""
    p = DEFAULT_PARAMS
    n = len(chars)
    low, high = (0.0, 0.0) if stoplist is None else (p.stopwords_low, p.stopwords_high)
    link_density = links / np.maximum(chars, 1.0)
    flagged = copyright | select_path
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
    return cls


def _char_stats(texts: Sequence[str], lengths: np.ndarray) -> np.ndarray:
    """Per block counts of digits, upper-case letters, punctuation, sentence ends and letters,
    whether the last character ends a sentence, and copyright marks (jusText's cue: the sign, or
    its entity left in the text), from one pass over the page's code points."""
    n = len(texts)
    counts = np.zeros((n, 7))
    joined = "".join(texts)
    if not joined:
        return counts
    cps = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    flags = _CHAR_FLAGS[np.minimum(cps, _TABLE_SIZE - 1)]
    flags[cps >= _TABLE_SIZE] = 0
    nonempty = lengths > 0
    ends = np.cumsum(lengths)
    starts = (ends - lengths)[nonempty]
    for j, bit in enumerate((1, 2, 4, 8, 16)):
        counts[nonempty, j] = np.add.reduceat((flags & bit).astype(bool), starts)
    counts[nonempty, 5] = (flags[ends[nonempty] - 1] & 8) > 0
    counts[nonempty, 6] = np.add.reduceat(cps == 0xA9, starts)
    if "&copy" in joined:
        counts[:, 6] += np.fromiter(("&copy" in t for t in texts), np.float64, n)
    return counts


def _ids(values: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Integer id of every value (ids in order of first appearance) and the distinct values."""
    distinct = list(dict.fromkeys(values))
    lookup = {v: i for i, v in enumerate(distinct)}
    return np.fromiter(map(lookup.__getitem__, values), np.int64, len(values)), distinct


def _group_share(ids: np.ndarray, weights: np.ndarray, total: float) -> np.ndarray:
    return np.bincount(ids, weights=weights)[ids] / max(total, 1.0)


def _group_ratio(ids: np.ndarray, num: np.ndarray, den: np.ndarray) -> np.ndarray:
    top = np.bincount(ids, weights=num)
    bottom = np.bincount(ids, weights=den)
    return (top / np.maximum(bottom, 1.0))[ids]


def own_features(blocks: Sequence[Block], stoplist: frozenset[str] | None) -> np.ndarray:
    """One row per block of `OWN_FEATURES`: the block on its own, plus its place in the page."""
    n = len(blocks)
    if n == 0:
        return np.zeros((0, len(OWN_FEATURES)))
    # One C-level transpose of the NamedTuples instead of a Python loop per field.
    fields = list(zip(*blocks, strict=True))
    texts: tuple[str, ...] = fields[1]
    paths: tuple[str, ...] = fields[3]
    styles: tuple[str, ...] = fields[4]
    counts = np.array(fields[5:11], dtype=np.float64)
    heading, chars, words, links, tags, markup = counts
    runs = fields[11] if len(fields) > 11 else (None,) * n
    safe_chars = np.maximum(chars, 1.0)
    total = float(chars.sum())
    longest = int(np.argmax(chars))
    lengths = np.fromiter(map(len, texts), np.int64, n)
    densities = np.asarray(stopword_densities(blocks, stoplist), dtype=np.float64)
    stats = _char_stats(texts, lengths)
    path_ids, distinct_paths = _ids(paths)
    style_ids, distinct_styles = _ids(styles)
    select_path = np.fromiter(("select" in d for d in distinct_paths), bool, len(distinct_paths))
    cf = _cf_classes(stats[:, 6] > 0, select_path[path_ids], chars, links, densities, stoplist)
    cf_onehot = np.zeros((n, 4))
    cf_onehot[np.arange(n), cf] = 1.0
    path_table = np.array([_path_cues(p) for p in distinct_paths])
    style_table = np.array([_style_cues(s) for s in distinct_styles])
    longest_path = paths[longest]
    longest_parts = longest_path.split(".")
    prefix_table = np.array(
        [_common_prefix_parts(p.split("."), longest_parts) for p in distinct_paths], dtype=float
    ) / len(longest_parts)

    columns: list[np.ndarray] = [
        np.log1p(chars)[:, None],
        np.log1p(words)[:, None],
        np.minimum(links / safe_chars, 1.0)[:, None],
        (chars / np.maximum(chars + markup, 1.0))[:, None],
        np.log1p(markup)[:, None],
        np.log1p(tags)[:, None],
        densities[:, None],
        np.full((n, 1), 0.0 if stoplist is None else 1.0),
        cf_onehot,
        _bte_fractions(runs, words)[:, None],
        heading[:, None],
        path_table[path_ids],
        style_table[style_ids],
        (np.arange(n) / max(n - 1, 1))[:, None],
        ((np.cumsum(chars) - chars) / max(total, 1.0))[:, None],
        (stats[:, 0] / safe_chars)[:, None],
        (stats[:, 1] / np.maximum(stats[:, 4], 1.0))[:, None],
        (stats[:, 2] / safe_chars)[:, None],
        (stats[:, 4] / safe_chars)[:, None],
        (np.minimum(stats[:, 3], 20.0) / 20.0)[:, None],
        stats[:, 5:6],
        (chars / max(total, 1.0))[:, None],
        (chars / max(chars[longest], 1.0))[:, None],
        (style_ids == style_ids[longest]).astype(np.float64)[:, None],
        prefix_table[path_ids][:, None],
        _context_features(
            distinct_paths, path_ids, style_ids, chars, links, densities, cf, texts, longest, total
        ),
        np.log1p(np.bincount(style_ids)[style_ids])[:, None],
        _h1_features(fields[2]),
        np.broadcast_to(
            [
                links.sum() / max(total, 1.0),
                chars[cf == 0].sum() / max(total, 1.0),
                chars[longest] / max(total, 1.0),
                np.log1p(n),
                np.log1p(total),
            ],
            (n, 5),
        ),
    ]
    x = np.hstack(columns)
    if x.shape[1] != len(OWN_FEATURES):
        raise AssertionError(f"feature columns {x.shape[1]} != {len(OWN_FEATURES)} names")
    return x


def _context_features(
    distinct_paths: Sequence[str],
    path_ids: np.ndarray,
    style_ids: np.ndarray,
    chars: np.ndarray,
    links: np.ndarray,
    densities: np.ndarray,
    cf: np.ndarray,
    texts: Sequence[str],
    longest: int,
    total: float,
) -> np.ndarray:
    """The block against its page: the columns from ``path_share`` to ``good_chars_before``.

    Main content is the path (and parent path) holding most of the page's link-free text, so the
    share of that text under a block's own path, parent path and class string, and the link and
    stopword density of those groups, separate an article's short lines (a big, wordy group)
    from a menu's (a big, linked group) and a footer's (a small group). The page-relative
    columns measure a block against the page's median block, which differs a lot between a
    forum thread and a product page. Repeated texts ("Reply", "Read more") are boilerplate.
    """
    n = len(path_ids)
    plain = np.maximum(chars - links, 0.0)  # link-free characters
    plain_total = float(plain.sum())
    parent_of_path, _ = _ids([p.rpartition(".")[0] for p in distinct_paths])
    parent_ids = parent_of_path[path_ids]
    path_plain = np.bincount(path_ids, weights=plain)
    parent_plain = np.bincount(parent_ids, weights=plain)
    main_path = int(np.argmax(path_plain))
    main_parent = int(np.argmax(parent_plain))
    stop_chars = densities * chars
    log_chars = np.log1p(chars)
    nonempty = chars > 0
    median_log = float(np.median(log_chars[nonempty])) if nonempty.any() else 0.0
    text_ids, _ = _ids(texts)
    repeats = np.bincount(text_ids)[text_ids] - 1
    good = cf == 0
    good_index = np.flatnonzero(good)
    index = np.arange(n)
    if good_index.size:
        in_span = (index >= good_index[0]) & (index <= good_index[-1])
    else:
        in_span = np.zeros(n, bool)
    good_chars = np.where(good, chars, 0.0)
    good_total = float(good_chars.sum())
    good_before = (np.cumsum(good_chars) - good_chars) / max(good_total, 1.0)
    return np.column_stack(
        (
            path_plain[path_ids] / max(plain_total, 1.0),
            np.log1p(np.bincount(path_ids)[path_ids]),
            _group_ratio(path_ids, links, chars),
            _group_ratio(path_ids, stop_chars, chars),
            parent_plain[parent_ids] / max(plain_total, 1.0),
            _group_ratio(parent_ids, links, chars),
            _group_share(style_ids, plain, plain_total),
            _group_ratio(style_ids, links, chars),
            (path_ids == main_path).astype(np.float64),
            (parent_ids == main_parent).astype(np.float64),
            log_chars - median_log,
            np.minimum(links / np.maximum(chars, 1.0), 1.0) - links.sum() / max(total, 1.0),
            densities - stop_chars.sum() / max(total, 1.0),
            np.log1p(np.where(nonempty, repeats, 0)),
            (index - longest) / max(n, 1),
            in_span.astype(np.float64),
            good_before,
        )
    )


def _h1_features(tags: Sequence[str]) -> np.ndarray:
    """Where the block sits against the page's first h1: main content starts at the title on
    most pages (articles, products, threads), and what precedes it is header and navigation.
    Columns: after (1), before (0) or no h1 (0.5); signed distance in blocks over the page
    length; closeness 1 / (1 + |distance|)."""
    n = len(tags)
    h1 = np.flatnonzero(np.fromiter(map("h1".__eq__, tags), bool, n))
    if h1.size == 0:
        return np.column_stack((np.full(n, 0.5), np.zeros(n), np.zeros(n)))
    offset = np.arange(n) - h1[0]
    return np.column_stack(
        ((offset >= 0).astype(np.float64), offset / n, 1.0 / (1.0 + np.abs(offset)))
    )


def _common_prefix_parts(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _shifted(values: np.ndarray, by: int) -> np.ndarray:
    """Rows moved down by ``by`` (up when negative), zeros shifted in at the page edge."""
    out = np.zeros_like(values)
    n = len(values)
    if by > 0 and n > by:
        out[by:] = values[:-by]
    elif by < 0 and n > -by:
        out[:by] = values[-by:]
    return out


def page_features(blocks: Sequence[Block], stoplist: frozenset[str] | None) -> np.ndarray:
    """The full matrix, ``(len(blocks), N_FEATURES)``: own, neighbour and window features.

    The first block's "previous" and the last block's "next" are all zeros, which no real block
    produces (every real block has ``log_chars > 0`` or is empty), so the model can tell edges.
    """
    own = own_features(blocks, stoplist)
    n = len(blocks)
    neigh = own[:, _NEIGHBOUR_COLUMNS]
    far = own[:, _FAR_COLUMNS]
    parts = [own, _shifted(neigh, 1), _shifted(neigh, -1), _shifted(far, 2), _shifted(far, -2)]
    if n:
        # Moving means over [i - w, i + w] with prefix sums, clipped at the page edges.
        cums = np.vstack((np.zeros(len(_WINDOW_COLUMNS)), np.cumsum(own[:, _WINDOW_COLUMNS], 0)))
        index = np.arange(n)
        for w in WINDOWS:
            lo = np.maximum(index - w, 0)
            hi = np.minimum(index + w + 1, n)
            parts.append((cums[hi] - cums[lo]) / (hi - lo)[:, None])
    else:
        parts.extend(np.zeros((0, len(_WINDOW_COLUMNS))) for _ in WINDOWS)
    return np.hstack(parts)


# Pass-2 ("stacked") columns: the first model's content probability of the block, of its
# neighbours, over windows, and over the blocks sharing its path, parent path and class string.
# A menu item between two paragraphs and a paragraph inside a list of teasers look alike on their
# own; what the first pass concluded about their surroundings and their structural siblings
# separates them, and pulls a page's repeated items (a listing's entries) in or out together.
STACK_FEATURES: tuple[str, ...] = (
    "p1",
    "prev_p1",
    "next_p1",
    "prev2_p1",
    "next2_p1",
    "win2_p1",
    "win5_p1",
    "win15_p1",
    "path_p1",
    "parent_p1",
    "style_p1",
    "page_max_p1",
    "page_mean_p1",
)
_STACK_WINDOWS = (2, 5, 15)


def stack_features(blocks: Sequence[Block], probs: np.ndarray) -> np.ndarray:
    """``(len(blocks), len(STACK_FEATURES))`` from first-pass probabilities ``probs``.

    Group means are weighted by characters (+1, so empty blocks count a little): a long
    paragraph says more about its path than an empty wrapper does.
    """
    n = len(blocks)
    if n == 0:
        return np.zeros((0, len(STACK_FEATURES)))
    p = np.asarray(probs, dtype=np.float64)
    fields = list(zip(*blocks, strict=True))
    weight = np.array(fields[6], dtype=np.float64) + 1.0
    path_ids, distinct_paths = _ids(fields[3])
    parent_of_path, _ = _ids([d.rpartition(".")[0] for d in distinct_paths])
    style_ids, _ = _ids(fields[4])
    weighted = p * weight

    def group_mean(ids: np.ndarray) -> np.ndarray:
        return (np.bincount(ids, weights=weighted) / np.bincount(ids, weights=weight))[ids]

    column = p[:, None]
    cums = np.concatenate(([0.0], np.cumsum(p)))
    index = np.arange(n)
    windows = []
    for w in _STACK_WINDOWS:
        lo = np.maximum(index - w, 0)
        hi = np.minimum(index + w + 1, n)
        windows.append((cums[hi] - cums[lo]) / (hi - lo))
    return np.column_stack(
        (
            p,
            _shifted(column, 1)[:, 0],
            _shifted(column, -1)[:, 0],
            _shifted(column, 2)[:, 0],
            _shifted(column, -2)[:, 0],
            *windows,
            group_mean(path_ids),
            group_mean(parent_of_path[path_ids]),
            group_mean(style_ids),
            np.full(n, p.max()),
            np.full(n, weighted.sum() / weight.sum()),
        )
    )
