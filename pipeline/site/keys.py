"""What the site stage compares: a block's site, the hash of its normalized text, and a page's.

**Normalized text.** A block's text is lower-cased (`str.lower`), every decimal digit of any
script (`str.isdecimal`: ASCII, Arabic-Indic, full-width ...) becomes ``0``, and every run of
white space (`str.isspace`, the no-break space included) becomes one space, with none at the
ends. So "© 2011 Example  Media" and "© 2012 Example Media" are the same text, as are a
teaser's "3 comments" and "12 comments"; words, punctuation and letters of other case-less
scripts stay as they are.

**Hashes.** The normalized text is never built: `hash_texts` folds its code points into a 64-bit
FNV-1a hash in one pass (compiled with Cython where the install can, `pipeline.site.keys` has a
``.pxd``; the Python source gives the same numbers). A block's key is that hash mixed with its
site's (`block_keys`): equal keys mean the same normalized text on the same site. A page's hash
mixes, in order, the hashes of the blocks the cleaner kept, normalized the same way except that
digits stay as they are (`page_keys`): equal page hashes mean the same kept text, which is what
`duplicate_of` compares (two daily reports that differ only in their figures are two
documents). With 64 bits, two
different texts of one output share a key with probability about n² / 2⁶⁵: some hundred pairs
among the ~10¹¹ distinct blocks of a Common Crawl snapshot, each merging the counts of two
blocks that would then also need K pages between them to change a label.

**Site.** The URL's host by default (lower-cased, without port or trailing dot): the unit a
template is served from (``news.example.com`` and ``shop.example.com`` often differ, and a host is
never shared by unrelated owners the way ``blogspot.com`` is). ``domain`` takes the registered
domain instead, by the Public Suffix List (`publicsuffixlist`, which ships the list): it joins
``www.example.com``, ``www2.example.com`` and ``m.example.com``, whose pages share boilerplate,
and keeps ``alice.blogspot.com`` apart from ``bob.blogspot.com`` (a private suffix). An IP
address, or a host the list cannot place, is its own site. A URL with no host makes its document
a site of its own (keyed by its record id), so that it counts against nothing.
"""

from __future__ import annotations

import functools
import ipaddress
from urllib.parse import urlsplit

import numpy as np
import pyarrow as pa

from pipeline.compiled import check_fresh

check_fresh(__name__, __file__)

# Both hashes straight from an Arrow array's UTF-8 bytes, where the build compiled the loop:
# making a Python string of every block and lower-casing it were most of the hashing's time.
try:
    from pipeline.site.utf8_hash import fill_utf8 as _fill_utf8
except ModuleNotFoundError as exc:  # an install without a C compiler
    if exc.name != "pipeline.site.utf8_hash":
        raise
    _fill_utf8 = None

__all__ = ["SITE_KEYS", "block_keys", "hash_strings", "hash_texts", "page_keys", "site_of"]

SITE_KEYS = ("host", "domain")

# FNV-1a, 64 bits, over code points: offset basis and prime.
_OFFSET = 0xCBF29CE484222325
_PRIME = 0x100000001B3
_MASK = 0xFFFFFFFFFFFFFFFF


def _fnv(text: str, fold_digits: bool) -> int:
    """The FNV-1a hash of ``text``'s normalized form (see the module), folded code point by
    code point without building that form; digits are kept as they are unless
    ``fold_digits``."""
    s = text.lower()
    if s.isascii():  # most text: one pass over its bytes
        return _fnv_ascii(s.encode("ascii"), fold_digits)
    h = _OFFSET
    started = False
    space = False
    for ch in s:
        if ch.isspace():
            space = started
            continue
        if space:
            h = ((h ^ 32) * _PRIME) & _MASK
            space = False
        c = 48 if fold_digits and ch.isdecimal() else ord(ch)
        h = ((h ^ c) * _PRIME) & _MASK
        started = True
    return h


def _fnv_ascii(data: bytes, fold_digits: bool) -> int:
    """`_fnv` of ASCII text, from its bytes: the same hash (ASCII white space is what
    `str.isspace` says of it, 9-13 and 28-32; its decimal digits are 48-57)."""
    h = _OFFSET
    started = False
    space = False
    for c in data:
        if c == 32 or 9 <= c <= 13 or 28 <= c <= 31:
            space = started
            continue
        if space:
            h = ((h ^ 32) * _PRIME) & _MASK
            space = False
        if fold_digits and 48 <= c <= 57:
            c = 48
        h = ((h ^ c) * _PRIME) & _MASK
        started = True
    return h


def hash_texts(texts: list[str], *, fold_digits: bool = True) -> np.ndarray:
    """The normalized-text hash of each of ``texts`` (uint64); an empty normalized text (a
    block of white space) hashes to the FNV offset basis, `EMPTY`. ``fold_digits=False`` keeps
    digits apart (what `duplicate_of` compares: two reports that differ in their figures are
    two documents)."""
    out = np.empty(len(texts), dtype=np.uint64)
    _fill(texts, out, fold_digits)
    return out


def _fill(texts: list[str], out: np.ndarray, fold_digits: bool) -> None:
    view = out
    for i in range(len(texts)):
        view[i] = _fnv(texts[i], fold_digits)


def hash_strings(texts: pa.Array, exact: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`hash_texts` of the values of an Arrow string array without nulls and, where ``exact``
    (a boolean per value) is true, their hash with digits kept (``fold_digits=False``; 0
    elsewhere): the same numbers as `hash_texts` on ``texts.to_pylist()``, in one pass over the
    array's UTF-8 buffer where the build compiled it (`pipeline.site.utf8_hash`)."""
    n = len(texts)
    if texts.null_count:
        raise ValueError("hash_strings needs an array without nulls")
    if pa.types.is_string(texts.type):
        width = np.int32
    elif pa.types.is_large_string(texts.type):
        width = np.int64
    else:
        raise TypeError(f"hash_strings needs a string array, got {texts.type}")
    want = np.zeros(n, dtype=bool) if exact is None else np.asarray(exact, dtype=bool)
    folded = np.empty(n, dtype=np.uint64)
    kept = np.zeros(n, dtype=np.uint64)
    if _fill_utf8 is None or not n:
        values = texts.to_pylist()
        folded[:] = hash_texts(values)
        kept[want] = hash_texts([values[i] for i in np.flatnonzero(want)], fold_digits=False)
        return folded, kept
    buffers = texts.buffers()
    offsets = np.frombuffer(buffers[1], dtype=width)[texts.offset : texts.offset + n + 1]
    data = np.frombuffer(buffers[2] or b"", dtype=np.uint8)
    # The values the loop leaves to `str.lower` (see utf8_hash.pyx), hashed from their strings.
    for i in _fill_utf8(data, offsets.astype(np.int64), want.view(np.uint8), folded, kept):
        value = texts[i].as_py()
        folded[i] = _fnv(value, True)
        if want[i]:
            kept[i] = _fnv(value, False)
    return folded, kept


EMPTY = np.uint64(_OFFSET)

# splitmix64's finalizer: every input bit moves every output bit, so mixed sums stay spread.
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
        return x ^ (x >> np.uint64(31))


def block_keys(site_hashes: np.ndarray, text_hashes: np.ndarray) -> np.ndarray:
    """Each block's key: its site's hash (one per block) mixed with its text's hash."""
    with np.errstate(over="ignore"):
        return _mix(site_hashes ^ _mix(text_hashes + _GOLDEN))


def page_keys(text_hashes: np.ndarray, kept: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each document's page hash: its kept blocks' text hashes (``kept`` a boolean per block),
    each mixed with its place among them, summed. ``offsets`` are the documents' first block
    indices followed by the total (an Arrow list array's offsets). A document with no kept
    block, or only blank ones, gets 0: it is no one's copy."""
    n_docs = len(offsets) - 1
    kept = kept & (text_hashes != EMPTY)
    # The place of each kept block among its document's kept blocks: 0, 1, 2 ...
    running = np.cumsum(kept, dtype=np.int64)
    before = np.concatenate(([0], running))[offsets[:-1]]
    doc_of = np.repeat(np.arange(n_docs), np.diff(offsets))
    place = (running - 1 - before[doc_of]).astype(np.uint64)
    with np.errstate(over="ignore"):
        terms = np.where(kept, _mix(text_hashes ^ _mix(place * _GOLDEN + _GOLDEN)), 0)
        sums = np.zeros(n_docs, dtype=np.uint64)
        np.add.at(sums, doc_of[kept], terms[kept])
        keys = _mix(sums + _GOLDEN)
    has_kept = np.zeros(n_docs, dtype=bool)
    has_kept[doc_of[kept]] = True
    keys[~has_kept] = 0
    return keys


@functools.cache
def _suffixes():  # type: ignore[no-untyped-def]
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()


def site_of(url: str, record_id: str, by: str = "host") -> str:
    """The site ``url`` belongs to: its host, or (``by="domain"``) its registered domain."""
    try:
        host = urlsplit(url).hostname
    except ValueError:  # e.g. a malformed IPv6 literal
        host = None
    if host:
        host = host.rstrip(".")
    if not host:
        return "\x00" + record_id  # its own site: no host name can start with NUL
    if by == "host":
        return host
    if by != "domain":
        raise ValueError(f"site key must be one of {', '.join(SITE_KEYS)}, got {by!r}")
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    return _suffixes().privatesuffix(host) or host
