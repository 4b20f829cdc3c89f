# cython: language_level=3
"""C loops over a page's UTF-8 bytes (compiled only): the pre-parse guard's scans, the decoder's
check that the bytes are valid UTF-8, and the page-type classifier's search for schema.org
markers and count of marker phrases (`find`, `count_each`).

`pipeline.html.guard.estimate` runs on every page before the parse. Its Python and numpy scans
(a "<" mask of the whole page, a block view of it for the attribute scan, regular expressions
per attribute, a loop per tag for inline SVG) cost about 0.3-0.4 ms a page on average over the
WCXB dev pages, most of it on the long tail of pages with big inline scripts, data URIs and icon
sets. Here each is one pass with ``memchr`` over the bytes. Every function gives exactly what the
corresponding Python code in guard.py gives (tests compare them on generated and real markup);
guard.py uses these where the build compiled them and keeps its own code as the fallback.

`utf8_valid` tells whether ``bytes.decode("utf-8")`` would succeed without building the text:
the parser reads a valid UTF-8 page's own bytes, so for most pages the decoded text was built
only to be thrown away (0.2 ms a page).
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE, PyBytes_FromStringAndSize
from libc.stdint cimport uint64_t
from libc.string cimport memchr, memcmp, memcpy

from pipeline.compiled import check_fresh

check_fresh(__name__, __file__)

from pipeline.html.tag_sets import BREAKOUT, FOREIGN_ROOTS, INTEGRATION, VOID_NAMES


cdef inline bint _is_letter(unsigned char c) nogil:
    return (65 <= c <= 90) or (97 <= c <= 122)


cdef inline bint _is_name_byte(unsigned char c) nogil:
    # guard._NAME_BYTE: letters, digits, ":" and "-"
    return _is_letter(c) or (48 <= c <= 57) or c == 58 or c == 45


cdef inline bint _is_space(unsigned char c) nogil:
    # The tokenizer's whitespace in guard's patterns: \t \n \f \r and space (not \v).
    return c == 9 or c == 10 or c == 12 or c == 13 or c == 32


cdef inline unsigned char _lower(unsigned char c) nogil:
    return c + 32 if 65 <= c <= 90 else c


cdef inline Py_ssize_t _next_lt(const unsigned char *p, Py_ssize_t pos, Py_ssize_t n) nogil:
    cdef const void *hit
    if pos >= n:
        return -1
    hit = memchr(p + pos, 60, n - pos)
    return -1 if hit == NULL else <Py_ssize_t>(<const unsigned char *>hit - p)


cdef Py_ssize_t _find(const unsigned char *p, Py_ssize_t pos, Py_ssize_t n, unsigned char c) nogil:
    cdef const void *hit
    if pos >= n:
        return -1
    hit = memchr(p + pos, c, n - pos)
    return -1 if hit == NULL else <Py_ssize_t>(<const unsigned char *>hit - p)


cdef bint _is_void(const unsigned char *p, Py_ssize_t start, Py_ssize_t n):
    """Whether the start tag whose name begins at ``p[start]`` names a void element: its name
    (letters, digits, ":" and "-") lower-cased, as guard._depth reads it from 7 bytes."""
    cdef Py_ssize_t end = start
    cdef char name[8]
    cdef Py_ssize_t k
    while end < n and end - start < 7 and _is_name_byte(p[end]):
        end += 1
    if end - start >= 7:
        return False  # void names have at most 6 letters
    for k in range(end - start):
        name[k] = <char>_lower(p[start + k])
    return PyBytes_FromStringAndSize(name, end - start) in VOID_NAMES


def lt_count_and_gaps(bytes data, Py_ssize_t block):
    """(the number of "<" in ``data``, the offsets of the "<" followed by a whole aligned
    ``block`` of bytes without one): block k (bytes k*block to (k+1)*block, full blocks only)
    holds no "<", and the first such block of each run belongs to the last "<" before it.
    ``block`` 0 lists no gaps, as the guard asks (it reads every start tag since issue 48:
    `attribute_scan`)."""
    cdef const unsigned char *p = <const unsigned char *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t full = (n // block) * block if block > 0 else 0
    cdef Py_ssize_t count = 0
    cdef Py_ssize_t at = _next_lt(p, 0, n)
    cdef Py_ssize_t nxt, limit
    gaps = []
    while at >= 0:
        count += 1
        nxt = _next_lt(p, at + 1, n)
        if full:
            limit = full if nxt < 0 or nxt > full else nxt
            # The first whole block after `at` starts at (at // block + 1) * block.
            if (at // block + 2) * block <= limit:
                gaps.append(at)
        at = nxt
    return count, gaps


def nesting_depth(bytes data):
    """guard.nesting_depth of UTF-8 bytes: every start tag but a void one opens a level, every
    end tag closes one, and the depth never goes below zero."""
    cdef const unsigned char *p = <const unsigned char *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t at = _next_lt(p, 0, n)
    cdef Py_ssize_t start
    cdef long depth = 0, deepest = 0
    cdef bint closing
    while at >= 0:
        closing = at + 1 < n and p[at + 1] == 47
        start = at + 1 + closing
        if start < n and _is_letter(p[start]):
            if closing:
                if depth > 0:
                    depth -= 1
            elif not _is_void(p, start, n):
                depth += 1
                if depth > deepest:
                    deepest = depth
        at = _next_lt(p, at + 1, n)
    return deepest


# Byte classes for the attribute scans' inner loops (one table load instead of up to eight
# compares a byte): the tokenizer's whitespace (as `_is_space`), "/", ">" and "=".
cdef enum:
    _WS = 1
    _SLASH = 2
    _GT = 4
    _EQ = 8
cdef unsigned char _CLASS[256]
cdef int _i
for _i in range(256):
    _CLASS[_i] = 0
for _byte in (9, 10, 12, 13, 32):
    _CLASS[_byte] = _WS
_CLASS[47] = _SLASH
_CLASS[62] = _GT
_CLASS[61] = _EQ


cdef Py_ssize_t _skip_attributes(
    const unsigned char *p, Py_ssize_t pos, Py_ssize_t n, Py_ssize_t limit, Py_ssize_t *count
) nogil:
    """Read attributes from ``pos`` as guard._ATTRIBUTE does, at most ``limit + 1``
    (``limit`` < 0: all); their number goes to ``count``, the offset after the last is
    returned."""
    cdef Py_ssize_t q, r
    cdef unsigned char quote
    cdef Py_ssize_t found = 0
    while limit < 0 or found <= limit:
        q = pos
        while q < n and _CLASS[p[q]] & (_WS | _SLASH):
            q += 1
        if q >= n or p[q] == 62:
            break
        q += 1  # the name's first byte may be anything else, "=" and quotes included
        while q < n and not _CLASS[p[q]] & (_WS | _SLASH | _GT | _EQ):
            q += 1
        r = q
        while r < n and _CLASS[p[r]] & _WS:
            r += 1
        if r < n and p[r] == 61:
            r += 1
            while r < n and _CLASS[p[r]] & _WS:
                r += 1
            if r < n and (p[r] == 34 or p[r] == 39):
                quote = p[r]
                r = _find(p, r + 1, n, quote)  # the closing quote, or the end of the data
                r = n if r < 0 else r + 1
            else:
                while r < n and not _CLASS[p[r]] & (_WS | _GT):
                    r += 1
            q = r
        found += 1
        pos = q
    count[0] = found
    return pos


cdef Py_ssize_t _after_name(const unsigned char *p, Py_ssize_t start, Py_ssize_t n) nogil:
    """The offset after the tag name of the start tag at ``p[start]`` ("<" then a letter, as
    guard._TAG_NAME reads it), or -1 when there is none there."""
    cdef Py_ssize_t q
    cdef unsigned char c
    if start + 1 >= n or p[start] != 60 or not _is_letter(p[start + 1]):
        return -1
    q = start + 2
    while q < n:
        c = p[q]
        if _is_space(c) or c == 47 or c == 62:
            break
        q += 1
    return q


def count_attributes(bytes data, Py_ssize_t start, Py_ssize_t limit):
    """guard.count_attributes: the attributes of the start tag at ``data[start]``, up to
    ``limit + 1``."""
    cdef const unsigned char *p = <const unsigned char *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t found = 0
    cdef Py_ssize_t pos = _after_name(p, start, n)
    if pos < 0 or limit < 0:
        return 0
    _skip_attributes(p, pos, n, limit, &found)
    return found


cdef bint _self_closed(const unsigned char *p, Py_ssize_t start, Py_ssize_t n):
    """guard._self_closed: the start tag at ``p[start]`` ends in "/>" (one cut by the end of
    the data does not)."""
    cdef Py_ssize_t found = 0
    cdef Py_ssize_t pos = _after_name(p, start, n)
    cdef Py_ssize_t q
    if pos < 0:
        return False
    pos = _skip_attributes(p, pos, n, -1, &found)
    q = pos
    while q < n and (_is_space(p[q]) or p[q] == 47):
        q += 1
    return q < n and p[q] == 62 and q > pos and p[q - 1] == 47


def foreign_aware_depth(bytes data):
    """guard.foreign_aware_depth: `nesting_depth`, except that self-closed start tags inside
    inline SVG or MathML open nothing, as in the parser."""
    cdef const unsigned char *p = <const unsigned char *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t at = _next_lt(p, 0, n)
    cdef Py_ssize_t start, end, k
    cdef long depth = 0, deepest = 0
    cdef bint closing, foreign = False
    switched = []  # the open elements that switched foreign content on or off: (name, state)
    while at >= 0:
        closing = at + 1 < n and p[at + 1] == 47
        start = at + 1 + closing
        if not (start < n and _is_letter(p[start])):
            at = _next_lt(p, at + 1, n)
            continue
        end = start + 1
        while end < n and _is_name_byte(p[end]):
            end += 1
        name = PyBytes_FromStringAndSize(<const char *>p + start, end - start)
        for k in range(end - start):
            if 65 <= p[start + k] <= 90:
                name = name.lower()
                break
        if closing:
            if depth > 0:
                depth -= 1
            if switched and switched[len(switched) - 1][0] == name:
                foreign = switched.pop()[1]
            elif foreign and (name == b"br" or name == b"p"):
                foreign = False
                switched.clear()
        elif name not in VOID_NAMES:
            if foreign and name in BREAKOUT:
                foreign = False
                switched.clear()
                depth += 1
            elif foreign or name in FOREIGN_ROOTS:
                if not _self_closed(p, at, n):
                    if name in FOREIGN_ROOTS:
                        switched.append((name, foreign))
                        foreign = True
                    elif name in INTEGRATION:
                        switched.append((name, foreign))
                        foreign = False
                    depth += 1
            else:
                depth += 1
            if depth > deepest:
                deepest = depth
        # A match of guard._ANY_TAG ends after the name: the next "<" is searched from there.
        at = _next_lt(p, end, n)
    return deepest


cdef Py_ssize_t _to_gt(const unsigned char *p, Py_ssize_t pos, Py_ssize_t n) nogil:
    cdef Py_ssize_t gt = _find(p, pos, n, 62)
    return n if gt < 0 else gt + 1


cdef Py_ssize_t _comment_end(const unsigned char *p, Py_ssize_t at, Py_ssize_t n) nogil:
    """guard._comment_end: after the comment (or bogus comment) that "<!" at ``at`` starts."""
    cdef Py_ssize_t k
    if not (at + 3 < n and p[at + 2] == 45 and p[at + 3] == 45):
        return _to_gt(p, at + 2, n)
    if at + 4 < n and p[at + 4] == 62:
        return at + 5  # "<!-->"
    if at + 5 < n and p[at + 4] == 45 and p[at + 5] == 62:
        return at + 6  # "<!--->"
    k = _find(p, at + 4, n, 45)
    while k >= 0:
        if k + 2 < n and p[k + 1] == 45 and p[k + 2] == 62:
            return k + 3  # "-->"
        if k + 3 < n and p[k + 1] == 45 and p[k + 2] == 33 and p[k + 3] == 62:
            return k + 4  # "--!>"
        k = _find(p, k + 1, n, 45)
    return n


cdef inline bint _tag_stop(unsigned char c) nogil:
    return _CLASS[c] & (_WS | _SLASH | _GT) != 0


cdef Py_ssize_t _raw_text_end(
    const unsigned char *p, Py_ssize_t pos, Py_ssize_t n, const unsigned char *tag, Py_ssize_t size
) nogil:
    """guard._raw_text_end: where the raw text from ``pos`` ends, at its element's end tag."""
    cdef Py_ssize_t at = _find(p, pos, n, 60)
    cdef Py_ssize_t k, end
    cdef bint same
    while at >= 0:
        if at + 1 < n and p[at + 1] == 47:
            end = at + 2 + size
            same = end <= n
            if same:
                for k in range(size):
                    if _lower(p[at + 2 + k]) != tag[k]:
                        same = False
                        break
            if same and (end >= n or _tag_stop(p[end])):
                return at
        at = _find(p, at + 1, n, 60)
    return n


cdef bint _is_raw(const unsigned char *tag, Py_ssize_t k) nogil:
    if k == 6:
        return memcmp(tag, b"script", 6) == 0 or memcmp(tag, b"iframe", 6) == 0
    if k == 5:
        return memcmp(tag, b"style", 5) == 0 or memcmp(tag, b"title", 5) == 0
    if k == 3:
        return memcmp(tag, b"xmp", 3) == 0
    if k == 7:
        return memcmp(tag, b"noembed", 7) == 0
    if k == 8:
        return memcmp(tag, b"noframes", 8) == 0 or memcmp(tag, b"textarea", 8) == 0
    if k == 9:
        return memcmp(tag, b"plaintext", 9) == 0
    return False


cdef inline bint _no_quote(const unsigned char *p, Py_ssize_t start, Py_ssize_t end) nogil:
    """Whether ``p[start:end]`` holds neither kind of quote."""
    return (
        memchr(p + start, 34, end - start) == NULL and memchr(p + start, 39, end - start) == NULL
    )


def attribute_scan(bytes data, Py_ssize_t limit):
    """guard.attribute_scan: (most attributes on one element, sum of their squares over the
    elements with more than ``limit // 16``), over the start tags as HTML's tokenizer reads
    them; stops once over."""
    cdef const unsigned char *p = <const unsigned char *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t small = max(limit // 16, 1)
    cdef Py_ssize_t most = 0, count, pos = 0, at, name_end, k, j, gt
    cdef long long total = 0
    cdef unsigned char c
    cdef bint closing
    cdef unsigned char tag[10]
    while True:
        at = _find(p, pos, n, 60)
        if at < 0 or at + 1 >= n:
            return most, total
        c = p[at + 1]
        if _is_letter(c) or (c == 47 and at + 2 < n and _is_letter(p[at + 2])):
            closing = c == 47
            name_end = at + 2 + closing
            while name_end < n and not _tag_stop(p[name_end]):
                name_end += 1
            count = 0
            gt = _find(p, name_end, n, 62)
            if gt >= 0 and (closing or gt - name_end <= small) and _no_quote(p, name_end, gt):
                # Most tags: no quote before the first ">", so no value can hide one, and the
                # tag ends there; too short to hold more than `small` attributes (each takes a
                # byte at least), or an end tag, whose attributes never count.
                pos = gt + 1
            else:
                pos = _skip_attributes(p, name_end, n, limit, &count)
                while pos < n and (_is_space(p[pos]) or p[pos] == 47):
                    pos += 1
                if pos < n and p[pos] == 62:
                    pos += 1
            if closing:
                continue
            if count > small:
                if count > most:
                    most = count
                total += <long long>count * count
                if total > <long long>limit * limit:
                    return most, total  # over already: the rest cannot bring it back
            # raw text and RCDATA elements (guard.RAW_TEXT), by their lower-cased name
            k = name_end - at - 1
            if 3 <= k <= 9:
                for j in range(k):
                    tag[j] = _lower(p[at + 1 + j])
                if _is_raw(tag, k):
                    if k == 9 and memcmp(tag, b"plaintext", 9) == 0:
                        pos = n
                    else:
                        pos = _raw_text_end(p, pos, n, tag, k)
        elif c == 33:  # "<!"
            pos = _comment_end(p, at, n)
        elif c == 47 or c == 63:  # "</" not before a letter, "<?"
            if c == 47 and at + 2 < n and p[at + 2] == 62:
                pos = at + 3
            else:
                pos = _to_gt(p, at + 2, n)
        else:
            pos = at + 1


cdef inline bint _continues(const unsigned char *p, Py_ssize_t at, Py_ssize_t n) nogil:
    return at < n and (p[at] & 0xC0) == 0x80


def utf8_valid(bytes data):
    """Whether ``data.decode("utf-8")`` succeeds: the strict decoder's rules (no overlong forms,
    no surrogates, nothing above U+10FFFF), eight ASCII bytes a step."""
    return _utf8_valid(<const unsigned char *>PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data))


cdef bint _utf8_valid(const unsigned char *p, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i = 0
    cdef uint64_t word, a, b, c4, d
    cdef unsigned char c, low, high
    cdef int more
    while i < n:
        # Markup is mostly ASCII: 32 bytes a step (four words or-ed, which compilers vectorise),
        # then 8, then the byte at hand.
        while i + 32 <= n:
            memcpy(&a, p + i, 8)
            memcpy(&b, p + i + 8, 8)
            memcpy(&c4, p + i + 16, 8)
            memcpy(&d, p + i + 24, 8)
            if (a | b | c4 | d) & 0x8080808080808080ULL:
                break
            i += 32
        while i + 8 <= n:
            memcpy(&word, p + i, 8)
            if word & 0x8080808080808080ULL:
                break
            i += 8
        if i >= n:
            break
        c = p[i]
        if c < 0x80:
            i += 1
            continue
        # The second byte's range depends on the first (Unicode's table of well-formed
        # sequences); the rest are plain continuation bytes.
        low, high = 0x80, 0xBF
        if 0xC2 <= c <= 0xDF:
            more = 1
        elif c == 0xE0:
            more, low = 2, 0xA0
        elif 0xE1 <= c <= 0xEC or c == 0xEE or c == 0xEF:
            more = 2
        elif c == 0xED:
            more, high = 2, 0x9F
        elif c == 0xF0:
            more, low = 3, 0x90
        elif 0xF1 <= c <= 0xF3:
            more = 3
        elif c == 0xF4:
            more, high = 3, 0x8F
        else:
            return False
        if i + 1 >= n or not (low <= p[i + 1] <= high):
            return False
        if more >= 2 and not _continues(p, i + 2, n):
            return False
        if more == 3 and not _continues(p, i + 3, n):
            return False
        i += more + 1
    return True


# Bytes of the ASCII letters from the rarest in web pages' markup to the most common (measured on
# the WCXB dev pages: "y" 8 a kilobyte, "e" 63): `find` anchors its search on a key's rarest byte.
cdef const char *_RARITY = b"qjzxvkwyfbghmpduclsnrtoiea"


cdef Py_ssize_t _anchor(const unsigned char *k, Py_ssize_t m) nogil:
    """The offset in the key of the byte `find` looks for first: a byte that is neither a letter,
    a digit, a quote nor a space ("@" of '"@type"') when there is one, else its rarest letter."""
    cdef Py_ssize_t i, r, best = 0, rank, best_rank = 1000
    cdef unsigned char c
    for i in range(m):
        c = _lower(k[i])
        if not (_is_name_byte(c) or _is_space(c) or c == 34 or c == 39):
            return i
        rank = 100  # a digit, a quote, a space, ":" or "-"
        if _is_letter(c):
            for r in range(26):
                if <unsigned char>_RARITY[r] == c:
                    rank = r
                    break
        if rank < best_rank:
            best, best_rank = i, rank
    return best


def find(bytes data, bytes key, Py_ssize_t start):
    """``data.find(key, start)`` for a ``start`` of 0 or more, with ``memchr`` on the key's rarest
    byte: the page-type classifier looks for '"@type"' and "itemtype" in every page's markup, and
    `bytes.find` spent 0.1-0.2 ms a page on the two
    (`pipeline.html.page_cues.schema_type_counts`)."""
    cdef const unsigned char *p = <const unsigned char *>PyBytes_AS_STRING(data)
    cdef const unsigned char *k = <const unsigned char *>PyBytes_AS_STRING(key)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), m = PyBytes_GET_SIZE(key)
    cdef Py_ssize_t a, pos
    cdef const void *hit
    if start < 0:
        raise ValueError("start must be 0 or more")
    if m == 0:
        return start if start <= n else -1
    if start + m > n:
        return -1
    a = _anchor(k, m)
    # The anchor byte of a match at `pos` sits at `pos + a`: look for it from `start + a` on.
    pos = start + a
    while pos + m - a <= n:
        hit = memchr(p + pos, k[a], n - pos - (m - a - 1))
        if hit == NULL:
            return -1
        pos = <Py_ssize_t>(<const unsigned char *>hit - p)
        if memcmp(p + pos - a, k, m) == 0:
            return pos - a
        pos += 1
    return -1


def count_each(bytes data, tuple keys):
    """``[data.count(key) for key in keys]`` (non-overlapping occurrences of each key, counted
    apart) in one pass over ``data``: the page-type classifier counts 45 marker phrases in the
    text of a page's short blocks, and 45 scans of it were 0.1 ms a page
    (`pipeline.html.page_type.shape_features`). At most 64 keys, none empty."""
    cdef const unsigned char *p = <const unsigned char *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), k = len(keys), i, j, last
    # The keys that start with a byte, chained: first[byte], then then[key], -1 ending the chain.
    cdef Py_ssize_t first[256]
    cdef Py_ssize_t then[64]
    cdef const unsigned char *kp[64]
    cdef Py_ssize_t klen[64]
    cdef Py_ssize_t next_at[64]
    cdef Py_ssize_t counts[64]
    if k > 64:
        raise ValueError(f"at most 64 keys, not {k}")
    for i in range(256):
        first[i] = -1
    for j in range(k - 1, -1, -1):
        key = keys[j]
        if not isinstance(key, bytes) or not key:
            raise ValueError("every key must be non-empty bytes")
        kp[j] = <const unsigned char *>PyBytes_AS_STRING(key)
        klen[j] = PyBytes_GET_SIZE(key)
        next_at[j] = 0
        counts[j] = 0
        then[j] = first[kp[j][0]]
        first[kp[j][0]] = j
    with nogil:
        for i in range(n):
            j = first[p[i]]
            while j >= 0:
                last = i + klen[j] - 1
                # The key's last byte first: most candidates fail there, without a call.
                if (
                    last < n
                    and i >= next_at[j]
                    and p[last] == kp[j][klen[j] - 1]
                    and memcmp(p + i, kp[j], klen[j]) == 0
                ):
                    counts[j] += 1
                    next_at[j] = i + klen[j]
                j = then[j]
    return [counts[j] for j in range(k)]
