# cython: boundscheck=False, initializedcheck=False
"""Block feature vectors for the learned cleaners, with the page context beside each block.

A block's own evidence (length, link density, stopwords, markup) decides most cases, but the
hard ones, short lines inside an article and long link-free lines in a footer, are decided by
what surrounds them. So every row holds the block's features, its neighbours' features (one and
two blocks away), averages over a narrow and a wide window, and page-level context: how the block
compares with the page's median block, and how much of the page's text sits under the same DOM
path, parent path and class string (main content is usually the one path holding most text).
What the classes and ids of the elements around the block say (a review list, a sidebar, a
footer around a plain <p>: `Block.ancestor_cues`) is the block's own, not copied to neighbours.
Last come the page's cues (`pipeline.html.page_cues`): what its head declares it to be (Open Graph
and schema.org types) and its URL's shape, the same in every row. Which column is which is
`pipeline.learned.columns`; a stacked second pass's columns are `pipeline.learned.stacked`.

Speed: features run on every page, after segmentation, and cost more than the segmentation
itself when written as per-column numpy calls (a page has 100-300 blocks, so numpy's per-call
overhead dominates). The work is therefore split in two:

* per-character and per-token counts (character classes, stopwords, jusText's context-free
  class, BTE's stretch) come from plain loops (`_block_stats_loop`, `_bte_fractions`) that
  Cython compiles to C when the install can (hatch_build.py, features.pxd). An ASCII token is
  looked up in an open-addressing table keyed on its packed characters (`_stop_table`), so it
  never becomes a Python string; tokens with other characters are lower-cased and looked up as
  strings, and text in an unspaced script goes through `pipeline.lang.words.count_words`.
  Uncompiled, the per-character counts come from whole-page numpy instead (`_char_stats`,
  `stopword_densities`): a Python loop over every character would multiply the interpreted
  cost. Tests check that both give identical features. The per-block and per-run loops
  (`_cf_class`, `_bte_fractions`) are cheap enough interpreted to serve both.
* the page-level columns (group shares and densities, longest-block relations, good span, h1
  distances, text repeats, neighbours, windows, page aggregates): compiled, row-by-row loops
  over typed views of the preallocated float64 output (`_fill_own_loop`,
  `_fill_neighbours_loop`), with per-group sums taken in one pass over
  integer group ids; on pages of a few hundred blocks numpy's per-call overhead on ~100 column
  operations cost more than the arithmetic. Uncompiled, the same columns come from whole-column
  numpy (`numpy.bincount` per group), which is faster in the interpreter than the loops.

Both must reproduce the shipped model's features bit for bit, so every floating-point result is
computed with the same operations in the same order as before (integer counts are exact in
float64; only divisions, log1p and numpy's own sums touch non-integers). The loops add group and
prefix sums in page order, as `numpy.bincount` and `numpy.cumsum` do; logarithms, the median and
the pairwise sums of fractions stay numpy calls, because numpy's SIMD log1p can differ from the C
library's in the last bit (it does on AVX-512 machines).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from pipeline.cleaners.justext import DEFAULT_PARAMS, stopword_densities
from pipeline.compiled import check_fresh, is_compiled_file
from pipeline.html.class_cues import STYLE_CUES, cached_when_short
from pipeline.html.page_cues import PAGE_CUE_NAMES, page_cues
from pipeline.lang.words import UNSPACED_CHAR, count_words
from pipeline.learned.columns import (
    ANCESTOR_NAMES,
    FAR_COLUMNS,
    N_FEATURES,
    NEIGHBOUR_COLUMNS,
    OWN_FEATURES,
    OWN_INDEX,
    PATH_CUES,
    TAG_GROUPS,
    WINDOW_COLUMNS,
    WINDOWS,
)
from pipeline.types import Block, block_fields

# This module is compiled with Cython when the install can (see hatch_build.py and features.pxd).
check_fresh(__name__, __file__)
# The per-character loop pays off only as C; in the interpreter whole-page numpy is faster.
_COMPILED = is_compiled_file(__file__)

_STYLE_WORDS: dict[str, int] = {
    word: i for i, (_, words) in enumerate(STYLE_CUES) for word in words.split()
}
_STYLE_SPLIT = re.compile(r"[^a-z0-9]+")

# Per-code-point classes for the first 0x10000 code points: 1 digit, 2 upper, 4 punctuation,
# 8 sentence end, 16 letter, 32 whitespace (what str.split() splits at), 64 a script written
# without spaces (`UNSPACED_CHAR`). Astral code points (emoji, rare CJK) count as none of them.
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
        if UNSPACED_CHAR.match(c):
            flags |= 64
        table[cp] = flags
    return table


_CHAR_FLAGS = _char_table()


# Every ASCII character a class-string piece cannot contain, mapped to a space: for ASCII class
# strings, `str.translate` and `str.split` find the same pieces as `_STYLE_SPLIT` (apart from
# empty ones, which match no cue) at a fraction of the regex's cost on long WordPress strings.
_STYLE_SEPARATORS = str.maketrans(
    {chr(c): " " for c in range(128) if not ("a" <= chr(c) <= "z" or "0" <= chr(c) <= "9")}
)


@cached_when_short
def _style_bits(style: str) -> int:
    """The `STYLE_CUES` present in a class string, bit i for cue i."""
    if _COMPILED:
        # An ASCII string is lower-cased inside the loop, without a lower-cased copy.
        return _style_bits_loop(style if style.isascii() else style.lower())
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


_LONGEST_STYLE_WORD = max(map(len, _STYLE_WORDS))


def _first_lengths() -> tuple[int, ...]:
    """Per ASCII code: bit L set when a cue word of L characters starts with that character (a
    tuple: a typed view of an array would cost more to take on each call than the look-ups)."""
    table = [0] * 128
    for word in _STYLE_WORDS:
        table[ord(word[0])] |= 1 << len(word)
    return tuple(table)


_STYLE_FIRST_LENGTHS = _first_lengths()


def _piece_bit(
    words: dict[str, int], text: str, start: int, end: int, first: int, upper: bool
) -> int:
    """The cue bit of the piece ``text[start:end]`` (first letter ``first``, lower-cased; with
    ``upper``, A-Z in it) among ``words``, 0 when it is none. Only a piece as long as a cue word
    that starts with its letter becomes a string to look up."""
    length = end - start
    if length > _LONGEST_STYLE_WORD:
        return 0
    lengths = _STYLE_FIRST_LENGTHS[first]
    if not (lengths >> length) & 1:
        return 0
    piece = text[start:end]
    found = words.get(piece.lower() if upper else piece)
    if found is None:
        return 0
    index = found
    return 1 << index


def _style_bits_loop(text: str) -> int:
    """`_style_bits` of a class string in one pass over its characters (fast only when compiled:
    a C loop over the code points; the class strings of new sites miss the cache, most of them
    on most pages): a piece is a run of a-z0-9, as between `_STYLE_SPLIT`'s separators, and the
    one at the very start is the tag name. ``text`` is lower-cased already, or ASCII: its A-Z
    then count as the letters ``str.lower`` maps them to, which saves a lower-cased copy
    (outside ASCII, lower-casing can make ASCII letters: the Kelvin sign)."""
    words = _STYLE_WORDS
    bits = 0
    start = -1
    first = 0
    upper = False
    for k, ch in enumerate(text):
        c = ord(ch)
        if 65 <= c <= 90:
            c += 32
            upper = True
        if 97 <= c <= 122 or 48 <= c <= 57:
            if start < 0:
                start = k
                first = c
            continue
        if start > 0:
            bits |= _piece_bit(words, text, start, k, first, upper)
        start = -1
    if start > 0:
        bits |= _piece_bit(words, text, start, len(text), first, upper)
    return bits


# Bit of each block tag's group and of each path cue, in `_TAG_COLUMNS` order.
_TAG_BITS = {tag: 1 << i for i, (_, group) in enumerate(TAG_GROUPS) for tag in group}
_PATH_CUE_BITS = {cue: 1 << i for i, cue in enumerate(PATH_CUES, len(TAG_GROUPS))}


@lru_cache(maxsize=65536)
def _path_bits(dom_path: str) -> tuple[int, float]:
    """The block tag's `TAG_GROUPS` and the `PATH_CUES` on its path, bit i for the i-th of
    them in that order, and the path depth column."""
    parts = dom_path.split(".")
    bits = _TAG_BITS.get(parts[-1], 0)
    get = _PATH_CUE_BITS.get
    for part in parts:
        bits |= get(part, 0)
    return bits, min(len(parts), 48) / 16.0


# One bit per column: the cue tables are built from the bit masks with one numpy operation.
_STYLE_SHIFTS = np.arange(len(STYLE_CUES))
_PATH_SHIFTS = np.arange(len(TAG_GROUPS) + len(PATH_CUES))
_N_PATH_BITS = len(TAG_GROUPS) + len(PATH_CUES)
_N_STYLE_BITS = len(STYLE_CUES)


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
_UNSPACED = 64  # its unspaced-script bit
_KEY_CHARS = 8  # ASCII characters packed into a token key, 7 bits each (56 bits)
_KEY_LENGTH_SHIFT = 56  # the token's length fills the key's top byte
_KEY_MAX_LENGTH = 255  # longer tokens (and entries) are looked up as strings


def _slot_of(key: int, mask: int) -> int:
    """Start slot of a token key in `_stop_table` (shifts and xors only: the same value as a
    C unsigned integer and as a Python int)."""
    return (key ^ (key >> 11) ^ (key >> 23) ^ (key >> 37) ^ (key >> 51)) & mask


@lru_cache(maxsize=16)
def _stop_table(stoplist: frozenset[str]) -> tuple[array, array, str, int]:
    """An open-addressing table of the stoplist entries an ASCII token can equal.

    A lower-cased ASCII token can only equal an entry that is ASCII, lower-case and free of
    whitespace, so only those are stored. A token's key packs its first `_KEY_CHARS`
    characters, 7 bits each, under its length; it identifies a token of up to that many
    characters exactly, so only longer ones are compared character by character, and never
    is 0. Returns ``(keys, starts, entries, mask)``: ``keys`` holds the entries' keys at their
    slots (linear probing from `_slot_of`), 0 in an empty one; ``starts`` the offset of the
    entry in ``entries`` (all entries concatenated) at the same slot. The table is at most a
    quarter full: a look-up ends at its first slot almost always, so whether a token is a
    stopword is counted without a branch the processor would mispredict on every other token.
    Keyed on the frozenset itself: `pipeline.lang.stoplists.stoplist` returns the same object
    every time and CPython caches a frozenset's hash.
    """
    words = sorted(
        w
        for w in stoplist
        if w.isascii() and w == w.lower() and w.split() == [w] and len(w) < _KEY_MAX_LENGTH
    )
    size = 8
    while size < 4 * len(words) + 1:
        size *= 2
    mask = size - 1
    keys = array("Q", bytes(8 * size))
    starts = array("i", bytes(4 * size))
    offset = 0
    for word in words:
        key = 0
        for c in map(ord, word[:_KEY_CHARS]):
            key = key * 128 + c
        key |= len(word) << _KEY_LENGTH_SHIFT
        slot = _slot_of(key, mask)
        while keys[slot]:
            slot = (slot + 1) & mask
        keys[slot] = key
        starts[slot] = offset
        offset += len(word)
    return keys, starts, "".join(words), mask


_NO_TABLE = _stop_table(frozenset())


# The character table as an array of Python ints (numpy's uint8 scalars would wrap in sums).
_CHAR_FLAG_ARRAY = array("B", _CHAR_FLAGS.tobytes())


_MAX_LINK_DENSITY = DEFAULT_PARAMS.max_link_density
_LENGTH_LOW = DEFAULT_PARAMS.length_low
_LENGTH_HIGH = DEFAULT_PARAMS.length_high


def _cf_class(
    chars: float, links: float, density: float, flagged: bool, low: float, high: float
) -> int:
    """jusText's context-free class (`pipeline.cleaners.justext.classify_context_free` with the
    default parameters) as an index into `CF_ORDER`; ``flagged``: a copyright mark or a ``select``
    in the path. ``low``/``high`` are the stopword thresholds (0 without a stoplist). A test checks
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
            # Through a C integer: a Python int converted straight to a double goes through a
            # temporary float object, which cost more than the whole character loop.
            count = column[i]
            view[row, i] = count
    table = _CHAR_FLAG_ARRAY
    counting = bool(stoplist)
    keys, starts, entries, mask = _stop_table(stoplist) if stoplist else _NO_TABLE
    # Blocks share their path strings (`pipeline.html.segment`): runs of siblings have the same
    # object, whose "select" test is not repeated.
    last_path = None
    selected = False
    for i in range(n):
        text = texts[i]
        size = len(text)
        # Tokens are scanned until a character of an unspaced script turns up; such a text is
        # counted by `count_words` instead (below), as `stopword_densities` does.
        scan_tokens = counting
        digits = upper = punct = ends = letters = marks = 0
        tokens = stops = 0
        token_start = -1
        token_ascii = True
        key = 0
        ampersand = False
        # A space after the text ends its last token like any other; it counts as none of the
        # character classes.
        offset = 0
        for part in (text, " "):
            for at, ch in enumerate(part):
                k = offset + at
                c = ord(ch)
                if c < _TABLE_SIZE:
                    flags = table[c]
                else:
                    flags = 0
                    if scan_tokens and UNSPACED_CHAR.match(ch) is not None:
                        scan_tokens = False  # CJK beyond the table: rare
                # Without branches: which class a character is in is unpredictable.
                digits += flags & 1
                upper += (flags >> 1) & 1
                punct += (flags >> 2) & 1
                ends += (flags >> 3) & 1
                letters += (flags >> 4) & 1
                if c == 0xA9:
                    marks += 1
                elif c == 38:
                    ampersand = True  # only then can the text hold "&copy"
                if not scan_tokens:
                    continue
                if flags & _UNSPACED:
                    scan_tokens = False
                    continue
                if not flags & _SPACE:
                    if token_start < 0:
                        token_start = k
                        token_ascii = True
                        key = 0
                    if c >= 128:
                        token_ascii = False
                    elif k - token_start < _KEY_CHARS:
                        # The upper-case bit marks exactly A-Z among ASCII characters.
                        key = key * 128 + c + (((flags >> 1) & 1) << 5)
                    continue
                if token_start < 0:
                    continue
                tokens += 1
                length = k - token_start
                if not token_ascii or length >= _KEY_MAX_LENGTH:
                    if text[token_start:k].lower() in stoplist:
                        stops += 1
                    token_start = -1
                    continue
                key |= length << _KEY_LENGTH_SHIFT
                slot = _slot_of(key, mask)
                found = keys[slot]
                while found != key and found != 0:
                    slot = (slot + 1) & mask
                    found = keys[slot]
                if length <= _KEY_CHARS:
                    # Counted without a branch on the outcome, which is unpredictable.
                    stops += found == key
                else:
                    # Entries of the token's length and first characters: the rest decides.
                    while found:
                        if found == key:
                            first = starts[slot]
                            j = _KEY_CHARS
                            while j < length:
                                d = ord(text[token_start + j])
                                if 65 <= d <= 90:
                                    d += 32
                                if d != ord(entries[first + j]):
                                    break
                                j += 1
                            if j == length:
                                stops += 1
                                break
                        slot = (slot + 1) & mask
                        found = keys[slot]
                token_start = -1
            offset = size
        view[_DIGITS, i] = digits
        view[_UPPER, i] = upper
        view[_PUNCT, i] = punct
        view[_SENTENCE_ENDS, i] = ends
        view[_LETTERS, i] = letters
        if size:
            c = ord(text[size - 1])
            if c < _TABLE_SIZE and table[c] & 8:
                view[_ENDS_SENTENCE, i] = 1.0
        if ampersand and "&copy" in text:
            marks += 1
        view[_COPYRIGHT, i] = marks
        if scan_tokens:
            if tokens:
                view[_DENSITY, i] = stops / tokens
        elif counting:
            words, stopwords = count_words(text, stoplist)
            if words:
                view[_DENSITY, i] = stopwords / words
        path = paths[i]
        if path is not last_path:
            last_path = path
            selected = "select" in path
        view[_CF, i] = _cf_class(
            view[_CHARS, i],
            view[_LINKS, i],
            view[_DENSITY, i],
            marks > 0 or selected,
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


def _count_stats(fields: Sequence[Sequence]) -> np.ndarray:
    """`_block_stats` for the cheap feature set: the walk's counts, every other row 0 (no
    digits, letters or stopwords counted; every block of jusText's first class)."""
    n = len(fields[1])
    out = np.zeros((_N_STATS, n))
    if not _COMPILED:
        out[:_DIGITS] = fields[5:11]
        return out
    view = out
    for row in range(_DIGITS):
        column = fields[5 + row]
        for i in range(n):
            # Through a C integer, as in `_block_stats_loop`.
            count = column[i]
            view[row, i] = count
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

    The same stretch as `pipeline.cleaners.bte.max_stretch` (earliest start, then earliest end,
    among the maximal ones), found in three passes over the page's runs without building one list of
    them: a Python loop over a few thousand integers, C when compiled. A test checks it against the
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


def group_ids(values: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Integer id of every value (ids in order of first appearance) and the distinct values."""
    lookup: dict[str, int] = {}
    n = len(values)
    ids = np.empty(n, dtype=np.int64)
    view = ids  # a typed view when compiled: one dict look-up and a C store per value
    for i in range(n):
        value = values[i]
        found = lookup.get(value)
        if found is None:
            found = len(lookup)
            lookup[value] = found
        view[i] = found
    return ids, list(lookup)


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


def own_features(
    blocks: Sequence[Block], stoplist: frozenset[str] | None, cues: np.ndarray | None = None
) -> np.ndarray:
    """One row per block of `OWN_FEATURES`: the block on its own, plus its place in the page.
    ``cues`` are the page's `pipeline.html.page_cues.page_cues`; None stands for a page that
    declares nothing and has no known URL."""
    x = np.empty((len(blocks), len(OWN_FEATURES)))
    if blocks:
        _fill_own(blocks, stoplist, x, cues)
    return x


_O = OWN_INDEX
_TAG_COLUMNS = slice(_O[f"tag_{TAG_GROUPS[0][0]}"], _O["path_depth"] + 1)
_STYLE_COLUMNS = slice(_O[f"style_{STYLE_CUES[0][0]}"], _O[f"style_{STYLE_CUES[-1][0]}"] + 1)
_CF_FIRST = _O["cf_good"]
_CONTEXT_FIRST = _O["path_share"]
_H1_FIRST = _O["after_h1"]
_PAGE_FIRST = _O["page_link_density"]
_CUES_FIRST = _O[PAGE_CUE_NAMES[0]]
_ANCESTOR_COLUMNS = slice(_O[ANCESTOR_NAMES[0]], _O[ANCESTOR_NAMES[-1]] + 1)
_ANCESTOR_SHIFTS = np.arange(len(ANCESTOR_NAMES))
_N_ANCESTOR_BITS = len(ANCESTOR_NAMES)


_NO_CUES = page_cues()


def _fill_own(
    blocks: Sequence[Block],
    stoplist: frozenset[str] | None,
    x: np.ndarray,
    cues: np.ndarray | None,
    fields: Sequence[Sequence] | None = None,
    cheap: bool = False,
) -> None:
    """Write `own_features` into ``x`` (``n`` rows, at least ``len(OWN_FEATURES)`` columns);
    ``fields``: the blocks' `block_fields`, None to transpose them here; ``cheap``: see
    `page_features`."""
    cues = _NO_CUES if cues is None else np.asarray(cues, dtype=np.float64)
    if cues.shape != _NO_CUES.shape:
        raise ValueError(f"page cues have shape {cues.shape}, expected {_NO_CUES.shape}")
    n = len(blocks)
    o = _O
    if fields is None:
        fields = block_fields(blocks)
    texts: tuple[str, ...] = fields[1]
    paths: tuple[str, ...] = fields[3]
    styles: tuple[str, ...] = fields[4]
    if cheap:
        stats = _count_stats(fields)
        bte = np.zeros(n)
    else:
        stats = _block_stats(blocks, fields, stoplist)
        runs = fields[11] if len(fields) > 11 else (None,) * n
        bte = _bte_fractions(runs, fields[7])
    heading, chars, _, links, _, markup = stats[:_DIGITS]
    longest = int(np.argmax(chars))
    path_ids, distinct_paths = group_ids(paths)
    style_ids, distinct_styles = group_ids(styles)
    longest_parts = paths[longest].split(".")
    path_bits, depths = zip(*map(_path_bits, distinct_paths), strict=True)
    style_bits = np.fromiter(map(_style_bits, distinct_styles), np.int64, len(distinct_styles))
    longest_path = paths[longest]
    if _COMPILED:  # compares characters in C instead of splitting every path
        shared = [_shared_parts(p, longest_path) for p in distinct_paths]
    else:
        shared = [_common_prefix_parts(p.split("."), longest_parts) for p in distinct_paths]
    # Python's int / int is correctly rounded, as numpy's float division of the same values.
    prefixes = [parts / len(longest_parts) for parts in shared]
    if _COMPILED:
        parent_of_path, _ = group_ids([p.rpartition(".")[0] for p in distinct_paths])
        text_ids, distinct_texts = group_ids(texts)
        try:
            h1 = fields[2].index("h1")
        except ValueError:
            h1 = -1
        _fill_own_loop(
            x,
            stats,
            bte,
            path_ids,
            parent_of_path[path_ids],
            style_ids,
            text_ids,
            np.array(path_bits, dtype=np.int64),
            np.array(depths),
            np.array(prefixes),
            style_bits,
            len(parent_of_path),
            len(distinct_texts),
            longest,
            h1,
            stoplist is not None,
            fields[12],
            np.ascontiguousarray(cues),
        )
        return
    x[:, _CUES_FIRST:_N_OWN] = cues
    ancestors = np.fromiter(fields[12], np.int64, n)
    x[:, _ANCESTOR_COLUMNS] = (ancestors[:, None] >> _ANCESTOR_SHIFTS) & 1
    cf = stats[_CF].astype(np.int64)
    safe_chars = np.maximum(chars, 1.0)
    total = float(chars.sum())
    page_chars = max(total, 1.0)
    densities = stats[_DENSITY]

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
    x[:, o["bte_fraction"]] = bte
    x[:, o["is_heading"]] = heading
    path_cues = x[:, _TAG_COLUMNS]
    path_cues[:, :-1] = (np.array(path_bits)[path_ids, None] >> _PATH_SHIFTS) & 1
    path_cues[:, -1] = np.array(depths)[path_ids]
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
    x[:, o["path_prefix_with_longest"]] = np.array(prefixes)[path_ids]
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


# Rows of the integer counts whose log1p `_fill_own_loop` takes in one numpy call: numpy's
# log1p (vectorised, SIMD where the CPU has it) can differ from the C library's in the last bit,
# so every logarithm comes from numpy, on contiguous rows as in the numpy implementation.
_LOG_CHARS, _LOG_WORDS, _LOG_LINKS, _LOG_TAGS, _LOG_MARKUP = range(5)
_LOG_PATH_BLOCKS, _LOG_STYLE_BLOCKS, _LOG_REPEATS = range(5, 8)


def _fill_own_loop(
    x: np.ndarray,
    stats: np.ndarray,
    bte: np.ndarray,
    path_ids: np.ndarray,
    parent_ids: np.ndarray,
    style_ids: np.ndarray,
    text_ids: np.ndarray,
    path_bits: np.ndarray,
    path_depths: np.ndarray,
    path_prefixes: np.ndarray,
    style_bits: np.ndarray,
    n_parents: int,
    n_texts: int,
    longest: int,
    h1: int,
    has_stoplist: bool,
    ancestors: Sequence[int],
    cues: np.ndarray,
) -> None:
    """`_fill_own` for the compiled module: the same columns from two passes over the blocks
    (group sums, then one row at a time) instead of ~80 whole-column numpy calls, which cost more
    than the arithmetic on pages of a few hundred blocks. ``path_*`` are per distinct path,
    ``style_bits`` per distinct class string; ``h1`` is the first h1 block or -1;
    ``ancestors`` the blocks' `Block.ancestor_cues`, ``cues`` the page's cues (every row's last
    columns). Those two are written row by row too: as numpy (an int64 array built from the
    blocks' ints, a shift to an (n, 18) array, two 2-D assignments) they cost 3% of the label
    stage, more than the loop's arithmetic for them.

    Bit-identical to the numpy implementation: group sums add the blocks in page order as
    `numpy.bincount` does, page totals of integer counts are exact in any order, and the one
    total of fractions (stopword characters) and every logarithm and median are still numpy's.
    """
    n = x.shape[0]
    n_paths = path_bits.shape[0]
    n_styles = style_bits.shape[0]
    # Per group: link-free characters, link characters, characters, blocks; paths also
    # stopword characters. One (rows, groups) array each, zeroed like bincount's bins.
    path_sums = np.zeros((5, n_paths))
    parent_sums = np.zeros((3, n_parents))
    style_sums = np.zeros((4, n_styles))
    text_counts = np.zeros(n_texts)
    stop_chars = np.empty(n)
    counts = np.empty((8, n))
    ps = path_sums
    qs = parent_sums
    ss = style_sums
    ts = text_counts
    sc = stop_chars
    cv = counts
    cv_cues = cues
    st = stats
    total = links_total = plain_total = good_total = 0.0
    good_first = good_last = -1
    for i in range(n):
        chars = st[_CHARS, i]
        links = st[_LINKS, i]
        plain = chars - links
        if plain < 0.0:
            plain = 0.0
        stop = st[_DENSITY, i] * chars
        sc[i] = stop
        g = path_ids[i]
        ps[0, g] += plain
        ps[1, g] += links
        ps[2, g] += chars
        ps[3, g] += 1.0
        ps[4, g] += stop
        g = parent_ids[i]
        qs[0, g] += plain
        qs[1, g] += links
        qs[2, g] += chars
        g = style_ids[i]
        ss[0, g] += plain
        ss[1, g] += links
        ss[2, g] += chars
        ss[3, g] += 1.0
        ts[text_ids[i]] += 1.0
        # Sums of integer counts: exact whatever the order.
        total += chars
        links_total += links
        plain_total += plain
        if st[_CF, i] == 0.0:
            good_total += chars
            if good_first < 0:
                good_first = i
            good_last = i
    for i in range(n):
        for k in range(5):
            cv[k, i] = st[_CHARS + k, i]
        cv[_LOG_PATH_BLOCKS, i] = ps[3, path_ids[i]]
        cv[_LOG_STYLE_BLOCKS, i] = ss[3, style_ids[i]]
        cv[_LOG_REPEATS, i] = ts[text_ids[i]] - 1.0 if st[_CHARS, i] > 0.0 else 0.0
    logs_array = np.log1p(counts)
    logs = logs_array
    nonempty = stats[_CHARS] > 0.0
    median_log = _median(logs_array[_LOG_CHARS][nonempty]) if nonempty.any() else 0.0
    stop_total = float(stop_chars.sum())  # numpy's pairwise sum, as in the numpy version
    main_path = _first_max(ps, 0)
    main_parent = _first_max(qs, 0)
    page_chars = max(total, 1.0)
    plain_page = max(plain_total, 1.0)
    good_page = max(good_total, 1.0)
    longest_chars = max(st[_CHARS, longest], 1.0)
    longest_style = style_ids[longest]
    page_link_density = links_total / page_chars
    rel_links = links_total / max(total, 1.0)
    rel_stops = stop_total / max(total, 1.0)
    log_blocks = float(np.log1p(n))
    log_total = float(np.log1p(total))
    last = max(n - 1, 1)
    good_before = chars_before = 0.0
    for i in range(n):
        chars = st[_CHARS, i]
        links = st[_LINKS, i]
        safe = max(chars, 1.0)
        density = st[_DENSITY, i]
        link_density = min(links / safe, 1.0)
        c = 0
        # In `OWN_FEATURES` order; the final check catches a column added there only.
        x[i, c] = logs[_LOG_CHARS, i]
        x[i, c + 1] = logs[_LOG_WORDS, i]
        x[i, c + 2] = link_density
        x[i, c + 3] = chars / max(chars + st[_MARKUP, i], 1.0)
        x[i, c + 4] = logs[_LOG_MARKUP, i]
        x[i, c + 5] = logs[_LOG_TAGS, i]
        x[i, c + 6] = density
        x[i, c + 7] = 1.0 if has_stoplist else 0.0
        c += 8
        cf = st[_CF, i]
        for k in range(4):
            x[i, c + k] = 1.0 if k == cf else 0.0
        c += 4
        x[i, c] = bte[i]
        x[i, c + 1] = st[_HEADING, i]
        c += 2
        g = path_ids[i]
        bits = path_bits[g]
        for k in range(_N_PATH_BITS):
            x[i, c + k] = (bits >> k) & 1
        c += _N_PATH_BITS
        x[i, c] = path_depths[g]
        c += 1
        bits = style_bits[style_ids[i]]
        for k in range(_N_STYLE_BITS):
            x[i, c + k] = (bits >> k) & 1
        c += _N_STYLE_BITS
        x[i, c] = i / last
        x[i, c + 1] = chars_before / page_chars
        chars_before += chars
        x[i, c + 2] = st[_DIGITS, i] / safe
        x[i, c + 3] = st[_UPPER, i] / max(st[_LETTERS, i], 1.0)
        x[i, c + 4] = st[_PUNCT, i] / safe
        x[i, c + 5] = st[_LETTERS, i] / safe
        x[i, c + 6] = min(st[_SENTENCE_ENDS, i], 20.0) / 20.0
        x[i, c + 7] = st[_ENDS_SENTENCE, i]
        x[i, c + 8] = chars / page_chars
        x[i, c + 9] = chars / longest_chars
        x[i, c + 10] = 1.0 if style_ids[i] == longest_style else 0.0
        x[i, c + 11] = path_prefixes[g]
        c += 12
        # Page context (`_fill_context`).
        x[i, c] = ps[0, g] / plain_page
        x[i, c + 1] = logs[_LOG_PATH_BLOCKS, i]
        x[i, c + 2] = ps[1, g] / max(ps[2, g], 1.0)
        x[i, c + 3] = ps[4, g] / max(ps[2, g], 1.0)
        q = parent_ids[i]
        x[i, c + 4] = qs[0, q] / plain_page
        x[i, c + 5] = qs[1, q] / max(qs[2, q], 1.0)
        s = style_ids[i]
        x[i, c + 6] = ss[0, s] / plain_page
        x[i, c + 7] = ss[1, s] / max(ss[2, s], 1.0)
        x[i, c + 8] = 1.0 if g == main_path else 0.0
        x[i, c + 9] = 1.0 if q == main_parent else 0.0
        x[i, c + 10] = logs[_LOG_CHARS, i] - median_log
        x[i, c + 11] = link_density - rel_links
        x[i, c + 12] = density - rel_stops
        x[i, c + 13] = logs[_LOG_REPEATS, i]
        x[i, c + 14] = (i - longest) / max(n, 1)
        x[i, c + 15] = 1.0 if good_first >= 0 and good_first <= i <= good_last else 0.0
        x[i, c + 16] = good_before / good_page
        if cf == 0.0:
            good_before += chars
        x[i, c + 17] = logs[_LOG_STYLE_BLOCKS, i]
        c += 18
        # Against the first h1 (`_fill_h1`).
        if h1 < 0:
            x[i, c] = 0.5
            x[i, c + 1] = 0.0
            x[i, c + 2] = 0.0
        else:
            x[i, c] = 1.0 if i >= h1 else 0.0
            x[i, c + 1] = (i - h1) / n
            x[i, c + 2] = 1.0 / (1.0 + abs(i - h1))
        c += 3
        x[i, c] = page_link_density
        x[i, c + 1] = good_total / page_chars
        x[i, c + 2] = st[_CHARS, longest] / page_chars
        x[i, c + 3] = log_blocks
        x[i, c + 4] = log_total
        c += 5
        bits = ancestors[i]
        for k in range(_N_ANCESTOR_BITS):
            x[i, c + k] = (bits >> k) & 1
        c += _N_ANCESTOR_BITS
        if c != _CUES_FIRST:
            raise AssertionError(f"own feature columns {c} != {_CUES_FIRST} names")
        for k in range(_N_OWN - _CUES_FIRST):
            x[i, c + k] = cv_cues[k]


def _first_max(sums: np.ndarray, row: int) -> int:
    """`numpy.argmax` of one row: the first group holding the largest sum."""
    best = 0
    for g in range(1, sums.shape[1]):
        if sums[row, g] > sums[row, best]:
            best = g
    return best


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
    parent_of_path, _ = group_ids([p.rpartition(".")[0] for p in distinct_paths])
    parent_ids = parent_of_path[path_ids]
    path_plain = np.bincount(path_ids, weights=plain)
    parent_plain = np.bincount(parent_ids, weights=plain)
    main_path = int(np.argmax(path_plain))
    main_parent = int(np.argmax(parent_plain))
    stop_chars = densities * chars
    log_chars = np.log1p(chars)
    nonempty = chars > 0
    median_log = _median(log_chars[nonempty]) if nonempty.any() else 0.0
    text_ids, _ = group_ids(texts)
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


def _shared_parts(a: str, b: str) -> int:
    """``_common_prefix_parts(a.split("."), b.split("."))`` without splitting: the dots before
    the first differing character, plus one if the part it falls in ends there in both."""
    size = min(len(a), len(b))
    shared = 0
    k = 0
    while k < size and a[k] == b[k]:
        if a[k] == ".":
            shared += 1
        k += 1
    if (k == len(a) or a[k] == ".") and (k == len(b) or b[k] == "."):
        shared += 1
    return shared


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
_N_NEIGHBOUR = len(NEIGHBOUR_COLUMNS)
_N_FAR = len(FAR_COLUMNS)
_NEIGHBOUR_RUNS = _column_runs(NEIGHBOUR_COLUMNS)
# Where each block of `FEATURE_NAMES` starts.
_PREV = _N_OWN
_NEXT = _PREV + _N_NEIGHBOUR
_PREV2 = _NEXT + _N_NEIGHBOUR
_NEXT2 = _PREV2 + _N_FAR
_WINDOWS_FIRST = _NEXT2 + _N_FAR


_WINDOW_REACH = max(WINDOWS)
_WINDOW_SPANS = np.array(WINDOWS, dtype=np.int64)


def padded_prefix_sums(values: np.ndarray, reach: int) -> np.ndarray:
    """Prefix sums of ``values`` along axis 0 (row j: the sum of rows before j, j = 0..n),
    padded with ``reach`` copies of the first and the last row.

    Moving means over [i - w, i + w], clipped at the page edges, are then differences of two
    slices (`window_sums`) instead of two fancy-index gathers."""
    n = len(values)
    sums = np.empty((n + 1 + 2 * reach, *values.shape[1:]))
    sums[: reach + 1] = 0.0
    np.cumsum(values, 0, out=sums[reach + 1 : reach + 1 + n])
    sums[reach + 1 + n :] = sums[reach + n]
    return sums


def window_sums(sums: np.ndarray, w: int, reach: int, n: int) -> np.ndarray:
    """Row i: the sum of rows max(i - w, 0) .. min(i + w, n - 1) (``sums`` from
    `padded_prefix_sums`)."""
    return sums[reach + w + 1 : reach + w + 1 + n] - sums[reach - w : reach - w + n]


@lru_cache(maxsize=4096)
def window_sizes(n: int, w: int) -> np.ndarray:
    """How many rows each row's window [i - w, i + w] covers on a page of ``n`` rows."""
    index = np.arange(n)
    sizes = (np.minimum(index + w + 1, n) - np.maximum(index - w, 0)).astype(np.float64)
    sizes.flags.writeable = False
    return sizes


# The column lists as int arrays, for the compiled loops' typed views.
_NEIGHBOUR_INDEX = np.array(NEIGHBOUR_COLUMNS, dtype=np.int64)
_FAR_INDEX = np.array(FAR_COLUMNS, dtype=np.int64)
_WINDOW_INDEX = np.array(WINDOW_COLUMNS, dtype=np.int64)


def _fill_neighbours_loop(
    x: np.ndarray, neighbour: np.ndarray, far: np.ndarray, window: np.ndarray, spans: np.ndarray
) -> None:
    """The neighbour and window columns of `page_features` from the own columns of ``x``, row by
    row (the compiled module's way). Window sums are differences of prefix sums accumulated in
    page order, each one exactly as `numpy.cumsum` adds them, divided by the window's size."""
    n = x.shape[0]
    n_neighbour = neighbour.shape[0]
    n_far = far.shape[0]
    width = window.shape[0]
    for i in range(n):
        for k in range(n_neighbour):
            c = neighbour[k]
            x[i, _PREV + k] = x[i - 1, c] if i >= 1 else 0.0
            x[i, _NEXT + k] = x[i + 1, c] if i + 1 < n else 0.0
        for k in range(n_far):
            c = far[k]
            x[i, _PREV2 + k] = x[i - 2, c] if i >= 2 else 0.0
            x[i, _NEXT2 + k] = x[i + 2, c] if i + 2 < n else 0.0
    # Row j: the sum of the rows before j.
    prefix_array = np.empty((n + 1, width))
    prefix = prefix_array
    for k in range(width):
        prefix[0, k] = 0.0
        prefix[1, k] = x[0, window[k]]
    for j in range(1, n):
        for k in range(width):
            prefix[j + 1, k] = prefix[j, k] + x[j, window[k]]
    for i in range(n):
        for m in range(spans.shape[0]):
            w = spans[m]
            low = i - w if i > w else 0
            high = i + w + 1 if i + w + 1 < n else n
            size = high - low
            first = _WINDOWS_FIRST + m * width
            for k in range(width):
                x[i, first + k] = (prefix[high, k] - prefix[low, k]) / size


def page_features(
    blocks: Sequence[Block],
    stoplist: frozenset[str] | None,
    cues: np.ndarray | None = None,
    fields: Sequence[Sequence] | None = None,
    cheap: bool = False,
) -> np.ndarray:
    """The full matrix, ``(len(blocks), N_FEATURES)``: own, neighbour and window features, with
    the page's ``cues`` (`pipeline.html.page_cues.page_cues`; None: a page that declares nothing and
    has no known URL) in every row. ``fields``: the blocks' `block_fields`, when the caller has
    them already (the learned cleaner's page rule reads the texts and sizes too).

    ``cheap``: compute only `pipeline.learned.columns.CHEAP_COLUMNS`, from the walk's counts,
    without the pass over every character and token (or the walk's token runs); those columns
    equal the full matrix's, the others hold placeholders with no counts behind them, which no
    model may read (the fast model's loader checks). The stoplist is not read.

    The first block's "previous" and the last block's "next" are all zeros, which no real block
    produces (every real block has ``log_chars > 0`` or is empty), so the model can tell edges.
    """
    n = len(blocks)
    x = np.empty((n, N_FEATURES))
    if n == 0:
        return x
    _fill_own(blocks, None if cheap else stoplist, x, cues, fields, cheap)
    if _COMPILED:
        _fill_neighbours_loop(x, _NEIGHBOUR_INDEX, _FAR_INDEX, _WINDOW_INDEX, _WINDOW_SPANS)
        return x
    # Neighbours one block away: the own columns moved down (prev) or up (next) by one row.
    for start, stop, offset in _NEIGHBOUR_RUNS:
        prev = x[:, _PREV + offset : _PREV + offset + stop - start]
        nxt = x[:, _NEXT + offset : _NEXT + offset + stop - start]
        prev[1:] = x[:-1, start:stop]
        prev[:1] = 0.0
        nxt[:-1] = x[1:, start:stop]
        nxt[-1:] = 0.0
    far = x[:, FAR_COLUMNS]
    prev2 = x[:, _PREV2:_NEXT2]
    next2 = x[:, _NEXT2:_WINDOWS_FIRST]
    prev2[2:] = far[:-2]
    prev2[:2] = 0.0
    next2[:-2] = far[2:]
    next2[-2:] = 0.0
    width = len(WINDOW_COLUMNS)
    sums = padded_prefix_sums(x[:, WINDOW_COLUMNS], _WINDOW_REACH)
    for k, w in enumerate(WINDOWS):
        first = _WINDOWS_FIRST + k * width
        x[:, first : first + width] = (
            window_sums(sums, w, _WINDOW_REACH, n) / window_sizes(n, w)[:, None]
        )
    return x
