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

Speed: features run on every page, after segmentation, and cost more than the segmentation
itself when written as per-column numpy calls (a page has 100-300 blocks, so numpy's per-call
overhead dominates). The work is therefore split in two:

* per-character and per-token counts (character classes, stopwords, jusText's context-free
  class, BTE's stretch) come from plain loops (`_block_stats_loop`, `_bte_fractions`) that
  Cython compiles to C when the install can (hatch_build.py, features.pxd). An ASCII token is
  looked up in an open-addressing table keyed on its packed characters (`_stop_table`), so it
  never becomes a Python string; tokens with other characters are lower-cased and looked up as
  strings, and text in an unspaced script goes through `pipeline.words.count_words`.
  Uncompiled, the per-character counts come from whole-page numpy instead (`_char_stats`,
  `stopword_densities`): a Python loop over every character would multiply the interpreted
  cost. Tests check that both give identical features. The per-block and per-run loops
  (`_cf_class`, `_bte_fractions`) are cheap enough interpreted to serve both.
* everything else is whole-column numpy written straight into one preallocated matrix, with
  per-group sums from `numpy.bincount` over integer ids of the distinct paths and class strings.

Both must reproduce the shipped model's features bit for bit, so every floating-point result is
computed with the same operations in the same order as before (integer counts are exact in
float64; only divisions, log1p and numpy's own sums touch non-integers).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from functools import lru_cache
from operator import itemgetter

import numpy as np

from pipeline.compiled import check_fresh, is_compiled_file
from pipeline.justext import DEFAULT_PARAMS, stopword_densities
from pipeline.types import Block, CfClass
from pipeline.words import UNSPACED_CHAR, count_words

# This module is compiled with Cython when the install can (see hatch_build.py and features.pxd).
check_fresh(__name__, __file__)
# The per-character loop pays off only as C; in the interpreter whole-page numpy is faster.
_COMPILED = is_compiled_file(__file__)

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
# 8 sentence end, 16 letter, 32 whitespace (what str.split() splits at). Astral code points
# (emoji, rare CJK) count as none of them.
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
        if c.isspace():
            flags |= 32
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


# Every ASCII character a class-string piece cannot contain, mapped to a space: for ASCII class
# strings, `str.translate` and `str.split` find the same pieces as `_STYLE_SPLIT` (apart from
# empty ones, which match no cue) at a fraction of the regex's cost on long WordPress strings.
_STYLE_SEPARATORS = str.maketrans(
    {chr(c): " " for c in range(128) if not ("a" <= chr(c) <= "z" or "0" <= chr(c) <= "9")}
)


@lru_cache(maxsize=65536)
def _style_bits(style: str) -> int:
    """The `_STYLE_CUES` present in a class string, bit i for cue i."""
    lowered = style.lower()
    if lowered.isascii():
        pieces = lowered.translate(_STYLE_SEPARATORS).split()
        # The first piece is the element's tag name, not a class.
        if pieces and lowered.startswith(pieces[0]):
            del pieces[0]
    else:
        pieces = _STYLE_SPLIT.split(lowered)[1:]
    bits = 0
    get = _STYLE_WORDS.get
    for piece in pieces:
        i = get(piece)
        if i is not None:
            bits |= 1 << i
    return bits


# Bit of each block tag's group and of each path cue, in `_TAG_COLUMNS` order.
_TAG_BITS = {tag: 1 << i for i, (_, group) in enumerate(_TAG_GROUPS) for tag in group}
_PATH_CUE_BITS = {cue: 1 << i for i, cue in enumerate(_PATH_CUES, len(_TAG_GROUPS))}


@lru_cache(maxsize=65536)
def _path_bits(dom_path: str) -> tuple[int, float]:
    """The block tag's `_TAG_GROUPS` and the `_PATH_CUES` on its path, bit i for the i-th of
    them in that order, and the path depth column."""
    parts = dom_path.split(".")
    bits = _TAG_BITS.get(parts[-1], 0)
    get = _PATH_CUE_BITS.get
    for part in parts:
        bits |= get(part, 0)
    return bits, min(len(parts), 48) / 16.0


# One bit per column: the cue tables are built from the bit masks with one numpy operation.
_STYLE_SHIFTS = np.arange(len(_STYLE_CUES))
_PATH_SHIFTS = np.arange(len(_TAG_GROUPS) + len(_PATH_CUES))


# Layout of the per-block numbers (`_block_stats`), one row per quantity so that every row is a
# contiguous array: the Block counts first, in field order, then the text's own counts.
(
    _HEADING,
    _CHARS,
    _WORDS,
    _LINKS,
    _TAGS,
    _MARKUP,
    _DIGITS,
    _UPPER,
    _PUNCT,
    _SENTENCE_ENDS,
    _LETTERS,
    _ENDS_SENTENCE,
    _COPYRIGHT,
    _DENSITY,
    _CF,
) = range(15)
_N_STATS = 15
_SPACE = 32  # the whitespace bit of `_CHAR_FLAGS`
_PACKED_CHARS = 9  # ASCII characters that fit in a token key (7 bits each, 63 bits)


def _slot_of(key: int, mask: int) -> int:
    """Start slot of a token key in `_stop_table` (shifts and xors only: the same value as a
    C unsigned integer and as a Python int)."""
    return (key ^ (key >> 11) ^ (key >> 23) ^ (key >> 37) ^ (key >> 51)) & mask


@lru_cache(maxsize=16)
def _stop_table(stoplist: frozenset[str]) -> tuple[array, array, array, array, str, int]:
    """An open-addressing table of the stoplist entries an ASCII token can equal.

    A lower-cased ASCII token can only equal an entry that is ASCII, lower-case and free of
    whitespace, so only those are stored. A token's key packs its first `_PACKED_CHARS`
    characters, 7 bits each; with the length it identifies a token of up to that many
    characters exactly, so only longer ones are compared character by character. Returns
    ``(slots, keys, lengths, starts, entries, mask)``: ``slots[_slot_of(key, mask)]`` (linear
    probing) holds 1 + an entry's number, or 0 for empty; ``keys``, ``lengths`` and ``starts``
    (offset in ``entries``, all entries concatenated) describe the entries. Keyed on the
    frozenset itself: `pipeline.stoplists.stoplist` returns the same object every time and
    CPython caches a frozenset's hash.
    """
    words = sorted(w for w in stoplist if w.isascii() and w == w.lower() and w.split() == [w])
    size = 8
    while size < 2 * len(words) + 1:
        size *= 2
    mask = size - 1
    slots = array("i", bytes(4 * size))
    keys = array("Q")
    lengths = array("i")
    starts = array("i")
    offset = 0
    for i, word in enumerate(words):
        key = 0
        for c in map(ord, word[:_PACKED_CHARS]):
            key = key * 128 + c
        keys.append(key)
        lengths.append(len(word))
        starts.append(offset)
        offset += len(word)
        slot = _slot_of(key, mask)
        while slots[slot]:
            slot = (slot + 1) & mask
        slots[slot] = i + 1
    # Memoryviews of the compiled loop need at least one element.
    for table in (keys, lengths, starts):
        table.append(0)
    return slots, keys, lengths, starts, "".join(words), mask


_NO_TABLE = _stop_table(frozenset())
# The character table as an array of Python ints (numpy's uint8 scalars would wrap in sums).
_CHAR_FLAG_ARRAY = array("B", _CHAR_FLAGS.tobytes())


_MAX_LINK_DENSITY = DEFAULT_PARAMS.max_link_density
_LENGTH_LOW = DEFAULT_PARAMS.length_low
_LENGTH_HIGH = DEFAULT_PARAMS.length_high


def _cf_class(
    chars: float, links: float, density: float, flagged: bool, low: float, high: float
) -> int:
    """jusText's context-free class (`pipeline.justext.classify_context_free` with the default
    parameters) as an index into `_CF_ORDER`; ``flagged``: a copyright mark or a ``select`` in
    the path. ``low``/``high`` are the stopword thresholds (0 without a stoplist). A test checks
    it against jusText's own function."""
    if links / max(chars, 1.0) > _MAX_LINK_DENSITY or flagged:
        return 3
    if chars < _LENGTH_LOW:
        return 3 if links > 0 else 2
    if density >= high:
        return 0 if chars > _LENGTH_HIGH else 1
    return 1 if density >= low else 3


def _stopword_thresholds(stoplist: frozenset[str] | None) -> tuple[float, float]:
    if stoplist is None:
        return 0.0, 0.0
    return DEFAULT_PARAMS.stopwords_low, DEFAULT_PARAMS.stopwords_high


def _block_stats_loop(fields: Sequence[Sequence], stoplist: frozenset[str] | None) -> np.ndarray:
    """`_block_stats` from the transposed Block fields, in one pass over every block's
    characters (fast only when compiled).

    Stopwords are counted during the same pass, as `stopword_densities` defines them:
    lower-cased whitespace-separated tokens found in the stoplist. An ASCII token is looked up
    in `_stop_table` without building a string; a token with other characters is lower-cased
    and looked up as a string (lower-casing token by token equals lower-casing the text, since
    no case mapping involves whitespace and the final-sigma rule stops at it). Text in an
    unspaced script goes to `count_words`, as in `stopword_densities`.
    """
    texts = fields[1]
    paths = fields[3]
    n = len(texts)
    out = np.zeros((_N_STATS, n))
    view = out
    low, high = _stopword_thresholds(stoplist)
    for row in range(_DIGITS):
        column = fields[5 + row]
        for i in range(n):
            view[row, i] = column[i]
    table = _CHAR_FLAG_ARRAY
    counting = bool(stoplist)
    slots, keys, lengths, starts, entries, mask = _stop_table(stoplist) if stoplist else _NO_TABLE
    for i in range(n):
        text = texts[i]
        size = len(text)
        scan_tokens = counting and (text.isascii() or UNSPACED_CHAR.search(text) is None)
        digits = upper = punct = ends = letters = marks = 0
        tokens = stops = 0
        token_start = -1
        token_ascii = True
        key = 0
        # A final space ends the last token; it counts as none of the character classes.
        padded = text + " " if scan_tokens else text
        for k, ch in enumerate(padded):
            c = ord(ch)
            flags = table[c] if c < _TABLE_SIZE else 0
            # Without branches: which class a character is in is unpredictable.
            digits += flags & 1
            upper += (flags >> 1) & 1
            punct += (flags >> 2) & 1
            ends += (flags >> 3) & 1
            letters += (flags >> 4) & 1
            if c == 0xA9:
                marks += 1
            if not scan_tokens:
                continue
            if not flags & _SPACE:
                if token_start < 0:
                    token_start = k
                    token_ascii = True
                    key = 0
                if c >= 128:
                    token_ascii = False
                elif k - token_start < _PACKED_CHARS:
                    # The upper-case bit marks exactly A-Z among ASCII characters.
                    key = key * 128 + c + (((flags >> 1) & 1) << 5)
                continue
            if token_start < 0:
                continue
            tokens += 1
            if token_ascii:
                length = k - token_start
                slot = _slot_of(key, mask)
                e = slots[slot]
                while e:
                    e -= 1
                    if keys[e] == key and lengths[e] == length:
                        j = _PACKED_CHARS
                        first = starts[e]
                        while j < length:
                            d = ord(text[token_start + j])
                            if 65 <= d <= 90:
                                d += 32
                            if d != ord(entries[first + j]):
                                break
                            j += 1
                        if j >= length:
                            stops += 1
                            break
                    slot = (slot + 1) & mask
                    e = slots[slot]
            elif text[token_start:k].lower() in stoplist:
                stops += 1
            token_start = -1
        view[_DIGITS, i] = digits
        view[_UPPER, i] = upper
        view[_PUNCT, i] = punct
        view[_SENTENCE_ENDS, i] = ends
        view[_LETTERS, i] = letters
        if size:
            c = ord(text[size - 1])
            if c < _TABLE_SIZE and table[c] & 8:
                view[_ENDS_SENTENCE, i] = 1.0
        if "&copy" in text:
            marks += 1
        view[_COPYRIGHT, i] = marks
        if scan_tokens:
            if tokens:
                view[_DENSITY, i] = stops / tokens
        elif counting:
            words, stopwords = count_words(text, stoplist)
            if words:
                view[_DENSITY, i] = stopwords / words
        view[_CF, i] = _cf_class(
            view[_CHARS, i],
            view[_LINKS, i],
            view[_DENSITY, i],
            marks > 0 or "select" in paths[i],
            low,
            high,
        )
    return out


def _block_stats(
    blocks: Sequence[Block], fields: Sequence[Sequence], stoplist: frozenset[str] | None
) -> np.ndarray:
    """``(_N_STATS, n)`` per block: the Block counts (heading, characters, words, link
    characters, tags, markup characters), then digits, upper-case letters, punctuation, sentence
    ends, letters, whether the last character ends a sentence, copyright marks (jusText's cue:
    the sign, or its entity left in the text), the stopword density (`stopword_densities`) and
    the context-free class (`_cf_class`). ``fields`` are the blocks' fields transposed."""
    if _COMPILED:
        return _block_stats_loop(fields, stoplist)
    texts = fields[1]
    n = len(texts)
    out = np.empty((_N_STATS, n))
    out[:_DIGITS] = fields[5:11]
    out[_DIGITS:_DENSITY] = _char_stats(texts, np.fromiter(map(len, texts), np.int64, n)).T
    out[_DENSITY] = stopword_densities(blocks, stoplist)
    low, high = _stopword_thresholds(stoplist)
    out[_CF] = [
        _cf_class(chars, links, density, marks > 0 or "select" in path, low, high)
        for chars, links, density, marks, path in zip(
            out[_CHARS].tolist(),
            out[_LINKS].tolist(),
            out[_DENSITY].tolist(),
            out[_COPYRIGHT].tolist(),
            fields[3],
            strict=True,
        )
    ]
    return out


def _char_stats(texts: Sequence[str], lengths: np.ndarray) -> np.ndarray:
    """``(n, 7)``: the character columns of `_block_stats`, from one numpy pass over the page's
    code points (the uncompiled module's way)."""
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


def _block_runs(runs: tuple[int, ...] | None, words: int) -> tuple[int, ...]:
    # Segmented without runs: a block is one run of its words.
    if runs is not None:
        return runs
    return (words,) if words else ()


def _bte_fractions(
    runs_per_block: Sequence[tuple[int, ...] | None], words: Sequence[int]
) -> np.ndarray:
    """Share of each block's tokens inside BTE's maximal stretch, with the paper's tag weight 1.0.

    The same stretch as `pipeline.bte.max_stretch` (earliest start, then earliest end, among the
    maximal ones), found in three passes over the page's runs without building one list of them:
    a Python loop over a few thousand integers, C when compiled. A test checks it against the
    BTE cleaner's own `max_stretch`."""
    n = len(runs_per_block)
    out = np.zeros(n)
    view = out
    # The maximal stretch: the run index where the best score ends, and the lowest prefix sum
    # before it (the stretch starts where the prefix sum first reaches that low).
    prefix = low = best = end_low = 0
    end = -1
    k = 0
    for i in range(n):
        for run in _block_runs(runs_per_block[i], words[i]):
            if prefix < low:
                low = prefix
            prefix += run
            if end < 0 or prefix - low > best:
                best = prefix - low
                end = k
                end_low = low
            k += 1
    if end < 0 or best <= 0:
        return out
    prefix = 0
    start = 0
    k = 0
    if prefix != end_low:
        for i in range(n):
            for run in _block_runs(runs_per_block[i], words[i]):
                prefix += run
                k += 1
                if prefix == end_low:
                    start = k
                    break
            if start:
                break
    k = 0
    for i in range(n):
        total = within = 0
        for run in _block_runs(runs_per_block[i], words[i]):
            if run > 0:
                total += run
                if start <= k <= end:
                    within += run
            k += 1
        if total > 0:
            view[i] = within / total
    return out


def _ids(values: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Integer id of every value (ids in order of first appearance) and the distinct values."""
    lookup: dict[str, int] = {}
    setdefault = lookup.setdefault
    ids = [setdefault(v, len(lookup)) for v in values]
    return np.array(ids, dtype=np.int64), list(lookup)


def _median(values: np.ndarray) -> float:
    """``float(np.median(values))`` for a non-empty 1-d float array, without its overhead: the
    middle value, or the two middle values' sum halved, exactly as numpy's mean of them."""
    m = len(values)
    ordered = np.sort(values)
    if m % 2:
        return float(ordered[m // 2])
    return float((ordered[m // 2 - 1] + ordered[m // 2]) / 2.0)


def _group_ratio(ids: np.ndarray, num: np.ndarray, den: np.ndarray) -> np.ndarray:
    top = np.bincount(ids, weights=num)
    bottom = np.bincount(ids, weights=den)
    return (top / np.maximum(bottom, 1.0))[ids]


def own_features(blocks: Sequence[Block], stoplist: frozenset[str] | None) -> np.ndarray:
    """One row per block of `OWN_FEATURES`: the block on its own, plus its place in the page."""
    x = np.empty((len(blocks), len(OWN_FEATURES)))
    if blocks:
        _fill_own(blocks, stoplist, x)
    return x


_O = _OWN_INDEX
_TAG_COLUMNS = slice(_O[f"tag_{_TAG_GROUPS[0][0]}"], _O["path_depth"] + 1)
_STYLE_COLUMNS = slice(_O[f"style_{_STYLE_CUES[0][0]}"], _O[f"style_{_STYLE_CUES[-1][0]}"] + 1)
_CF_FIRST = _O["cf_good"]
_CONTEXT_FIRST = _O["path_share"]
_H1_FIRST = _O["after_h1"]
_PAGE_FIRST = _O["page_link_density"]


def _fill_own(blocks: Sequence[Block], stoplist: frozenset[str] | None, x: np.ndarray) -> None:
    """Write `own_features` into ``x`` (``n`` rows, at least ``len(OWN_FEATURES)`` columns)."""
    n = len(blocks)
    o = _O
    # One C-level transpose of the NamedTuples instead of a Python loop per field.
    fields = list(zip(*blocks, strict=True))
    texts: tuple[str, ...] = fields[1]
    paths: tuple[str, ...] = fields[3]
    styles: tuple[str, ...] = fields[4]
    stats = _block_stats(blocks, fields, stoplist)
    heading, chars, _, links, _, markup = stats[:_DIGITS]
    runs = fields[11] if len(fields) > 11 else (None,) * n
    safe_chars = np.maximum(chars, 1.0)
    total = float(chars.sum())
    page_chars = max(total, 1.0)
    longest = int(np.argmax(chars))
    densities = stats[_DENSITY]
    path_ids, distinct_paths = _ids(paths)
    style_ids, distinct_styles = _ids(styles)
    cf = stats[_CF].astype(np.int64)
    longest_parts = paths[longest].split(".")

    logs = np.log1p(stats[_CHARS:_DIGITS])  # chars, words, links, tags, markup
    x[:, o["log_chars"]] = logs[0]
    x[:, o["log_words"]] = logs[1]
    x[:, o["link_density"]] = np.minimum(links / safe_chars, 1.0)
    x[:, o["text_density"]] = chars / np.maximum(chars + markup, 1.0)
    x[:, o["log_markup"]] = logs[4]
    x[:, o["log_tags"]] = logs[3]
    x[:, o["stopword_density"]] = densities
    x[:, o["has_stoplist"]] = 0.0 if stoplist is None else 1.0
    cf_onehot = x[:, _CF_FIRST : _CF_FIRST + 4]
    cf_onehot[:] = 0.0
    cf_onehot[np.arange(n), cf] = 1.0
    x[:, o["bte_fraction"]] = _bte_fractions(runs, fields[7])
    x[:, o["is_heading"]] = heading
    path_bits, depths = zip(*map(_path_bits, distinct_paths), strict=True)
    path_cues = x[:, _TAG_COLUMNS]
    path_cues[:, :-1] = (np.array(path_bits)[path_ids, None] >> _PATH_SHIFTS) & 1
    path_cues[:, -1] = np.array(depths)[path_ids]
    style_bits = np.fromiter(map(_style_bits, distinct_styles), np.int64, len(distinct_styles))
    x[:, _STYLE_COLUMNS] = (style_bits[style_ids, None] >> _STYLE_SHIFTS) & 1
    x[:, o["position"]] = np.arange(n) / max(n - 1, 1)
    x[:, o["chars_before"]] = (np.cumsum(chars) - chars) / page_chars
    x[:, o["digit_ratio"]] = stats[_DIGITS] / safe_chars
    x[:, o["upper_ratio"]] = stats[_UPPER] / np.maximum(stats[_LETTERS], 1.0)
    x[:, o["punct_ratio"]] = stats[_PUNCT] / safe_chars
    x[:, o["letter_ratio"]] = stats[_LETTERS] / safe_chars
    x[:, o["sentence_ends"]] = np.minimum(stats[_SENTENCE_ENDS], 20.0) / 20.0
    x[:, o["ends_sentence"]] = stats[_ENDS_SENTENCE]
    x[:, o["share_of_page"]] = chars / page_chars
    x[:, o["rel_to_longest"]] = chars / max(chars[longest], 1.0)
    x[:, o["same_style_as_longest"]] = style_ids == style_ids[longest]
    x[:, o["path_prefix_with_longest"]] = (
        np.array(
            [_common_prefix_parts(p.split("."), longest_parts) for p in distinct_paths],
            dtype=float,
        )
        / len(longest_parts)
    )[path_ids]
    _fill_context(
        x, distinct_paths, path_ids, style_ids, chars, links, densities, cf, texts, longest, total
    )
    x[:, o["style_group_blocks"]] = np.log1p(np.bincount(style_ids)[style_ids])
    _fill_h1(x, fields[2])
    x[:, _PAGE_FIRST : _PAGE_FIRST + 5] = (
        links.sum() / page_chars,
        chars[cf == 0].sum() / page_chars,
        chars[longest] / page_chars,
        np.log1p(n),
        np.log1p(total),
    )


def _fill_context(
    x: np.ndarray,
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
) -> None:
    """The block against its page: the columns from ``path_share`` to ``good_chars_before``.

    Main content is the path (and parent path) holding most of the page's link-free text, so the
    share of that text under a block's own path, parent path and class string, and the link and
    stopword density of those groups, separate an article's short lines (a big, wordy group)
    from a menu's (a big, linked group) and a footer's (a small group). The page-relative
    columns measure a block against the page's median block, which differs a lot between a
    forum thread and a product page. Repeated texts ("Reply", "Read more") are boilerplate.
    """
    n = len(path_ids)
    o = _O
    plain = np.maximum(chars - links, 0.0)  # link-free characters
    plain_total = max(float(plain.sum()), 1.0)
    parent_of_path, _ = _ids([p.rpartition(".")[0] for p in distinct_paths])
    parent_ids = parent_of_path[path_ids]
    path_plain = np.bincount(path_ids, weights=plain)
    parent_plain = np.bincount(parent_ids, weights=plain)
    main_path = int(np.argmax(path_plain))
    main_parent = int(np.argmax(parent_plain))
    stop_chars = densities * chars
    log_chars = np.log1p(chars)
    nonempty = chars > 0
    median_log = _median(log_chars[nonempty]) if nonempty.any() else 0.0
    text_ids, _ = _ids(texts)
    repeats = np.bincount(text_ids)[text_ids] - 1
    good = cf == 0
    good_index = np.flatnonzero(good)
    index = np.arange(n)
    good_chars = np.where(good, chars, 0.0)
    good_total = float(good_chars.sum())
    x[:, o["path_share"]] = path_plain[path_ids] / plain_total
    x[:, o["path_blocks"]] = np.log1p(np.bincount(path_ids)[path_ids])
    x[:, o["path_link_density"]] = _group_ratio(path_ids, links, chars)
    x[:, o["path_stopword_density"]] = _group_ratio(path_ids, stop_chars, chars)
    x[:, o["parent_share"]] = parent_plain[parent_ids] / plain_total
    x[:, o["parent_link_density"]] = _group_ratio(parent_ids, links, chars)
    x[:, o["style_group_share"]] = np.bincount(style_ids, weights=plain)[style_ids] / plain_total
    x[:, o["style_group_link_density"]] = _group_ratio(style_ids, links, chars)
    x[:, o["is_main_path"]] = path_ids == main_path
    x[:, o["is_main_parent"]] = parent_ids == main_parent
    x[:, o["rel_log_chars"]] = log_chars - median_log
    x[:, o["rel_link_density"]] = np.minimum(
        links / np.maximum(chars, 1.0), 1.0
    ) - links.sum() / max(total, 1.0)
    x[:, o["rel_stopword_density"]] = densities - stop_chars.sum() / max(total, 1.0)
    x[:, o["text_repeats"]] = np.log1p(np.where(nonempty, repeats, 0))
    x[:, o["offset_from_longest"]] = (index - longest) / max(n, 1)
    if good_index.size:
        x[:, o["in_good_span"]] = (index >= good_index[0]) & (index <= good_index[-1])
    else:
        x[:, o["in_good_span"]] = 0.0
    x[:, o["good_chars_before"]] = (np.cumsum(good_chars) - good_chars) / max(good_total, 1.0)


def _fill_h1(x: np.ndarray, tags: Sequence[str]) -> None:
    """Where the block sits against the page's first h1: main content starts at the title on
    most pages (articles, products, threads), and what precedes it is header and navigation.
    Columns: after (1), before (0) or no h1 (0.5); signed distance in blocks over the page
    length; closeness 1 / (1 + |distance|)."""
    n = len(tags)
    try:
        first = tags.index("h1")
    except ValueError:
        x[:, _H1_FIRST] = 0.5
        x[:, _H1_FIRST + 1 : _H1_FIRST + 3] = 0.0
        return
    offset = np.arange(n) - first
    x[:, _H1_FIRST] = offset >= 0
    x[:, _H1_FIRST + 1] = offset / n
    x[:, _H1_FIRST + 2] = 1.0 / (1.0 + np.abs(offset))


def _common_prefix_parts(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _column_runs(columns: Sequence[int]) -> tuple[tuple[int, int, int], ...]:
    """``columns`` as maximal runs of consecutive indices: (source start, source stop, offset
    of the run in ``columns``), so a gather of those columns becomes a few slice copies."""
    runs: list[tuple[int, int, int]] = []
    for offset, c in enumerate(columns):
        if runs and runs[-1][1] == c:
            start, _, first = runs[-1]
            runs[-1] = (start, c + 1, first)
        else:
            runs.append((c, c + 1, offset))
    return tuple(runs)


_N_OWN = len(OWN_FEATURES)
_N_NEIGHBOUR = len(_NEIGHBOUR_COLUMNS)
_N_FAR = len(_FAR_COLUMNS)
_NEIGHBOUR_RUNS = _column_runs(_NEIGHBOUR_COLUMNS)
# Where each block of `FEATURE_NAMES` starts.
_PREV = _N_OWN
_NEXT = _PREV + _N_NEIGHBOUR
_PREV2 = _NEXT + _N_NEIGHBOUR
_NEXT2 = _PREV2 + _N_FAR
_WINDOWS_FIRST = _NEXT2 + _N_FAR


_WINDOW_REACH = max(WINDOWS)


def _padded_prefix_sums(values: np.ndarray, reach: int) -> np.ndarray:
    """Prefix sums of ``values`` along axis 0 (row j: the sum of rows before j, j = 0..n),
    padded with ``reach`` copies of the first and the last row.

    Moving means over [i - w, i + w], clipped at the page edges, are then differences of two
    slices (`_window_sums`) instead of two fancy-index gathers."""
    n = len(values)
    sums = np.empty((n + 1 + 2 * reach, *values.shape[1:]))
    sums[: reach + 1] = 0.0
    np.cumsum(values, 0, out=sums[reach + 1 : reach + 1 + n])
    sums[reach + 1 + n :] = sums[reach + n]
    return sums


def _window_sums(sums: np.ndarray, w: int, reach: int, n: int) -> np.ndarray:
    """Row i: the sum of rows max(i - w, 0) .. min(i + w, n - 1) (``sums`` from
    `_padded_prefix_sums`)."""
    return sums[reach + w + 1 : reach + w + 1 + n] - sums[reach - w : reach - w + n]


@lru_cache(maxsize=4096)
def _window_sizes(n: int, w: int) -> np.ndarray:
    """How many rows each row's window [i - w, i + w] covers on a page of ``n`` rows."""
    index = np.arange(n)
    sizes = (np.minimum(index + w + 1, n) - np.maximum(index - w, 0)).astype(np.float64)
    sizes.flags.writeable = False
    return sizes


def page_features(blocks: Sequence[Block], stoplist: frozenset[str] | None) -> np.ndarray:
    """The full matrix, ``(len(blocks), N_FEATURES)``: own, neighbour and window features.

    The first block's "previous" and the last block's "next" are all zeros, which no real block
    produces (every real block has ``log_chars > 0`` or is empty), so the model can tell edges.
    """
    n = len(blocks)
    x = np.empty((n, N_FEATURES))
    if n == 0:
        return x
    _fill_own(blocks, stoplist, x)
    # Neighbours one block away: the own columns moved down (prev) or up (next) by one row.
    for start, stop, offset in _NEIGHBOUR_RUNS:
        prev = x[:, _PREV + offset : _PREV + offset + stop - start]
        nxt = x[:, _NEXT + offset : _NEXT + offset + stop - start]
        prev[1:] = x[:-1, start:stop]
        prev[:1] = 0.0
        nxt[:-1] = x[1:, start:stop]
        nxt[-1:] = 0.0
    far = x[:, _FAR_COLUMNS]
    prev2 = x[:, _PREV2:_NEXT2]
    next2 = x[:, _NEXT2:_WINDOWS_FIRST]
    prev2[2:] = far[:-2]
    prev2[:2] = 0.0
    next2[:-2] = far[2:]
    next2[-2:] = 0.0
    width = len(_WINDOW_COLUMNS)
    sums = _padded_prefix_sums(x[:, _WINDOW_COLUMNS], _WINDOW_REACH)
    for k, w in enumerate(WINDOWS):
        first = _WINDOWS_FIRST + k * width
        x[:, first : first + width] = (
            _window_sums(sums, w, _WINDOW_REACH, n) / _window_sizes(n, w)[:, None]
        )
    return x


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
_DOM_PATH = itemgetter(3)
_STYLE = itemgetter(4)
_N_CHARS = itemgetter(6)


def stack_features(blocks: Sequence[Block], probs: np.ndarray) -> np.ndarray:
    """``(len(blocks), len(STACK_FEATURES))`` from first-pass probabilities ``probs``.

    Group means are weighted by characters (+1, so empty blocks count a little): a long
    paragraph says more about its path than an empty wrapper does.
    """
    n = len(blocks)
    out = np.zeros((n, len(STACK_FEATURES)))
    if n == 0:
        return out
    p = np.asarray(probs, dtype=np.float64)
    # Three fields only: mapping item getters costs half of transposing all of them.
    weight = np.array(list(map(_N_CHARS, blocks)), dtype=np.float64) + 1.0
    path_ids, distinct_paths = _ids(list(map(_DOM_PATH, blocks)))
    parent_of_path, _ = _ids([d.rpartition(".")[0] for d in distinct_paths])
    style_ids, _ = _ids(list(map(_STYLE, blocks)))
    weighted = p * weight
    out[:, 0] = p
    out[1:, 1] = p[:-1]
    out[:-1, 2] = p[1:]
    out[2:, 3] = p[:-2]
    out[:-2, 4] = p[2:]
    reach = _STACK_WINDOWS[-1]
    sums = _padded_prefix_sums(p, reach)
    for k, w in enumerate(_STACK_WINDOWS):
        out[:, 5 + k] = _window_sums(sums, w, reach, n) / _window_sizes(n, w)
    for k, ids in enumerate((path_ids, parent_of_path[path_ids], style_ids)):
        out[:, 8 + k] = (np.bincount(ids, weights=weighted) / np.bincount(ids, weights=weight))[ids]
    out[:, 11] = p.max()
    out[:, 12] = weighted.sum() / weight.sum()
    return out
