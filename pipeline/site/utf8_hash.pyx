# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The site stage's text hashes from an Arrow string array's UTF-8 bytes (compiled only).

`pipeline.site.keys.hash_texts` hashes Python strings: on an output's blocks, making those
strings (``to_pylist``) and lower-casing them (``str.lower``) took most of the hashing's time,
and the kept blocks were hashed a second time with their digits. Here one loop per value decodes
its UTF-8, lower-cases each code point with the Unicode database's simple mapping and folds both
hashes at once, giving exactly `keys._fnv`'s numbers (tests compare them on every code point and
on generated text). The simple mapping is `str.lower`'s for every code point but two: U+0130
lowers to two code points, and U+03A3 to a final or a medial sigma by its neighbours. A value
holding either, or bytes that are not UTF-8, is left to `keys._fnv` on its string.

The mapping and the two classes of each code point of the Basic Multilingual Plane are read from
a table filled at import with the same three functions: each is a lookup in the Unicode
database, and on non-Latin text those lookups took most of the loop's time.
"""

from libc.stdint cimport int64_t, uint32_t, uint64_t

from pipeline.compiled import check_fresh

check_fresh(__name__, __file__)

cdef extern from "Python.h":
    Py_UCS4 Py_UNICODE_TOLOWER(Py_UCS4 ch)
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    bint Py_UNICODE_ISDECIMAL(Py_UCS4 ch)

# FNV-1a, 64 bits (as in keys.py).
cdef uint64_t OFFSET = 0xCBF29CE484222325ULL
cdef uint64_t PRIME = 0x100000001B3ULL

# Per BMP code point: its lower case (below bit 21: no code point is larger), and flags for a
# lower case that is white space or a decimal digit. 256 kB, filled in about a millisecond.
cdef enum:
    SPACE_BIT = 0x40000000
    DIGIT_BIT = 0x20000000
    CODE_MASK = 0x1FFFFF
cdef uint32_t BMP[65536]


cdef void _fill_bmp() noexcept:
    cdef uint32_t c, low
    for c in range(65536):
        low = Py_UNICODE_TOLOWER(<Py_UCS4>c)
        BMP[c] = low
        if Py_UNICODE_ISSPACE(<Py_UCS4>low):
            BMP[c] |= SPACE_BIT
        if Py_UNICODE_ISDECIMAL(<Py_UCS4>low):
            BMP[c] |= DIGIT_BIT


_fill_bmp()


def fill_utf8(
    const unsigned char[::1] data,
    const int64_t[::1] offsets,
    const unsigned char[::1] want,
    uint64_t[::1] folded,
    uint64_t[::1] kept,
) -> list:
    """Value i spans ``data[offsets[i]:offsets[i + 1]]``: its hash with digits folded goes to
    ``folded[i]``, and where ``want[i]`` its hash with digits kept to ``kept[i]``. Returns the
    values it left to the caller (see the module)."""
    cdef Py_ssize_t i, j, b, n = folded.shape[0]
    cdef uint64_t h, e
    cdef uint32_t c, entry
    cdef bint started, space, plain, digit
    cdef list left = []
    # The loop reads without bounds checks: the spans must lie in ``data``, one per value.
    if offsets.shape[0] != n + 1 or want.shape[0] != n or kept.shape[0] != n:
        raise ValueError(
            f"fill_utf8: {n} values need {n + 1} offsets and {n} flags and slots, got "
            f"{offsets.shape[0]}, {want.shape[0]} and {kept.shape[0]}"
        )
    for i in range(n):
        if not 0 <= offsets[i] <= offsets[i + 1] <= data.shape[0]:
            raise ValueError(f"fill_utf8: value {i}'s span is not within the {data.shape[0]} bytes")
    for i in range(n):
        j = offsets[i]
        b = offsets[i + 1]
        h = OFFSET
        e = OFFSET
        started = False
        space = False
        plain = True
        while j < b:
            c = data[j]
            if c < 128:
                j += 1
                if c == 32 or 9 <= c <= 13 or 28 <= c <= 31:
                    space = started
                    continue
                if 65 <= c <= 90:
                    c += 32
                digit = 48 <= c <= 57
            else:
                if 0xC2 <= c <= 0xDF and j + 1 < b and _follows(data[j + 1]):
                    c = ((c & 0x1F) << 6) | (data[j + 1] & 0x3F)
                    j += 2
                elif (0xE0 <= c <= 0xEF and j + 2 < b and _follows(data[j + 1])
                      and _follows(data[j + 2])):
                    c = ((c & 0x0F) << 12) | ((data[j + 1] & 0x3F) << 6) | (data[j + 2] & 0x3F)
                    j += 3
                    if c < 0x800 or 0xD800 <= c <= 0xDFFF:  # overlong, or a surrogate
                        plain = False
                        break
                elif (0xF0 <= c <= 0xF4 and j + 3 < b and _follows(data[j + 1])
                      and _follows(data[j + 2]) and _follows(data[j + 3])):
                    c = (((c & 0x07) << 18) | ((data[j + 1] & 0x3F) << 12)
                         | ((data[j + 2] & 0x3F) << 6) | (data[j + 3] & 0x3F))
                    j += 4
                    if c < 0x10000 or c > 0x10FFFF:
                        plain = False
                        break
                else:
                    plain = False
                    break
                if c == 0x130 or c == 0x3A3:
                    plain = False
                    break
                if c < 65536:
                    entry = BMP[c]
                    if entry & SPACE_BIT:
                        space = started
                        continue
                    c = entry & CODE_MASK
                    digit = (entry & DIGIT_BIT) != 0
                else:
                    c = Py_UNICODE_TOLOWER(<Py_UCS4>c)
                    if Py_UNICODE_ISSPACE(<Py_UCS4>c):
                        space = started
                        continue
                    digit = Py_UNICODE_ISDECIMAL(<Py_UCS4>c)
            if space:
                h = (h ^ 32) * PRIME
                e = (e ^ 32) * PRIME
                space = False
            h = (h ^ (48 if digit else c)) * PRIME
            e = (e ^ c) * PRIME
            started = True
        if plain:
            folded[i] = h
            if want[i]:
                kept[i] = e
        else:
            left.append(i)
    return left


cdef inline bint _follows(unsigned char c) noexcept nogil:
    return (c & 0xC0) == 0x80
