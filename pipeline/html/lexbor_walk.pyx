# cython: language_level=3
"""`pipeline.html.segment.segment`'s walk, reading lexbor's node structs directly (compiled only).

The Python walk in walk.py asks selectolax for every node: each ``first_child``/``next``
builds a `LexborNode` object and each element's ``attributes`` builds a dict, which profiling
put at about 60% of segmentation. This module walks the same tree through the same pointers,
reading the struct fields those properties read (layout in lexbor_layout.h), with the same state
machine as `walk.walk` and walk.py's own helpers for paths and checkpoints (cimported); text
is measured and normalised on lexbor's UTF-8 bytes by walk.py's rules (see `_add_text`), so it
returns identical blocks, about 2.5 times faster (bench/segment.py). Blocks, their BTE runs and
their shapes are filled in place (`_block`), and block paths are shared (`_dom_path`).
segment.py decides when it may run (lexbor version, a self-check against the Python walk on
probe pages, the WARCCLEAN_PURE_WALK variable) and falls back to the Python walk whenever this
returns None.

Mapping ids to names without calling lexbor: a tag or attribute id below lexbor's static-table
size names a predefined name; this module learns those names at import by asking selectolax's
public API about known names (see `_learn_names`). Larger ids are pointers to a record that
starts with a hash entry holding the name, as lexbor itself reads them. A predefined id that
was not learned makes the walk give up on that page (counted in `fallback_counts`).
"""

from cpython.long cimport PyLong_FromSsize_t
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_DecodeUTF8, Py_UNICODE_ISSPACE
from libc.stdint cimport uint64_t, uintptr_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcmp, memcpy, strchr

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(void *op)

cdef extern from *:
    """
    /* A new, empty instance of a tuple subclass: what tuple.__new__(cls, items) allocates
       before copying ``items`` into it (its type's tp_alloc). */
    static PyObject *wc_alloc_tuple(PyObject *type, Py_ssize_t n) {
        return ((PyTypeObject *) type)->tp_alloc((PyTypeObject *) type, n);
    }
    """
    object _alloc_tuple "wc_alloc_tuple" (object type, Py_ssize_t n)

cdef extern from "string.h":
    void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen)

from pipeline.html.structure cimport ShapeTracker
from pipeline.html.walk cimport _next_checkpoint, node_text, _normalized, _path_string

from selectolax.lexbor import LexborHTMLParser

from pipeline.html import walk as _python_walk

from pipeline.html.class_cues import ANCESTOR_WORDS, ancestor_cue_bits
from pipeline.html import mojibake
from pipeline.html.controls import C1_AS_CP1252, CONTROLS
from pipeline.html.structure import (
    LINE_TAGS, PRE_EDGE, PRE_LINE_END, code_language, names_line, pre_language, pre_shown,
    with_raw, with_spans,
)
from pipeline.compiled import check_fresh
from pipeline.types import Block, Shape
from pipeline.lang.words import count_words

check_fresh(__name__, __file__)


cdef extern from "lexbor_layout.h":
    int WC_LEXBOR_VERSION_MAJOR
    int WC_LEXBOR_VERSION_MINOR
    int WC_NODE_ELEMENT
    int WC_NODE_TEXT
    uintptr_t WC_TAG_LAST_ENTRY
    uintptr_t WC_TAG_TEXT
    uintptr_t WC_TAG_DOCUMENT
    uintptr_t WC_TAG_COMMENT
    uintptr_t WC_TAG_DOCTYPE
    uintptr_t WC_ATTR_LAST_ENTRY

    ctypedef struct wc_str:
        unsigned char *data
        size_t length

    ctypedef struct wc_hash_entry:
        size_t length

    ctypedef struct wc_node:
        uintptr_t local_name
        wc_node *next
        wc_node *parent
        wc_node *first_child
        int type

    ctypedef struct wc_attr:
        wc_node node
        uintptr_t qualified_name
        wc_str *value
        wc_attr *next

    ctypedef struct wc_element:
        wc_node node
        uintptr_t qualified_name
        wc_attr *first_attr

    ctypedef struct wc_character_data:
        wc_node node
        wc_str data

    const unsigned char *wc_hash_entry_str(const wc_hash_entry *entry)


# The lexbor version lexbor_layout.h describes.
LAYOUT_VERSION = (WC_LEXBOR_VERSION_MAJOR, WC_LEXBOR_VERSION_MINOR)

# walk.py's tag flags (walk.pxd declares them C-only there, so they are restated here;
# a test checks both agree).
cdef enum:
    _BLOCK = 1
    _KILLED = 2
    _UNWRAPPED = 4
    _VOID = 8
    _HEADING = 16
    _BR = 32
    _LINK = 64
    _SHAPE = 128
    _SPECIAL = 256
    _LINE_SPAN = 512
    _SKIPPED = _KILLED | _UNWRAPPED
    _PRE_MASK = ~(_BLOCK | _SHAPE | _SPECIAL)
    _CUE_SHIFT = 10

# For the test that checks them against walk.py's.
FLAGS = {
    "_BLOCK": _BLOCK, "_KILLED": _KILLED, "_UNWRAPPED": _UNWRAPPED, "_VOID": _VOID,
    "_HEADING": _HEADING, "_BR": _BR, "_LINK": _LINK, "_SHAPE": _SHAPE, "_SPECIAL": _SPECIAL,
    "_LINE_SPAN": _LINE_SPAN, "_CUE_SHIFT": _CUE_SHIFT,
}

# Same per-page cache split as the Python walk: predefined ids by list index, others by dict.
cdef enum:
    IDS_LISTED = 256

# The names the walk can meet as predefined ids: every HTML element name, current and obsolete,
# and the SVG and MathML element names an HTML parser knows. Only those lexbor predefines get a
# small id; the rest are harmless here.
_ELEMENT_NAMES = """
a abbr acronym address applet area article aside audio b base basefont bdi bdo bgsound big
blink blockquote body br button canvas caption center cite code col colgroup data datalist dd
del details dfn dialog dir div dl dt em embed fieldset figcaption figure font footer form frame
frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe image img input ins isindex kbd
keygen label legend li link listing main map mark marquee menu menuitem meta meter multicol nav
nextid nobr noembed noframes noscript object ol optgroup option output p param picture
plaintext pre progress q rb rp rt rtc ruby s samp script search section select selectedcontent
slot small source spacer span strike strong style sub summary sup table tbody td template
textarea tfoot th thead time title tr track tt u ul var video wbr xmp
svg altglyph altglyphdef altglyphitem animate animatecolor animatemotion animatetransform
circle clippath cursor defs desc ellipse feblend fecolormatrix fecomponenttransfer fecomposite
feconvolvematrix fediffuselighting fedisplacementmap fedistantlight fedropshadow feflood
fefunca fefuncb fefuncg fefuncr fegaussianblur feimage femerge femergenode femorphology
feoffset fepointlight fespecularlighting fespotlight fetile feturbulence filter font-face
foreignobject g glyph glyphref hkern line lineargradient marker mask metadata mpath path
pattern polygon polyline radialgradient rect set stop switch symbol text textpath tref tspan
use view vkern
math annotation annotation-xml maction malignmark maligngroup menclose merror mfenced mfrac
mglyph mi mlabeledtr mlongdiv mmultiscripts mn mo mover mpadded mphantom mprescripts mroot
mrow ms mscarries mscarry msgroup msline mspace msqrt msrow mstack mstyle msub msubsup msup
mtable mtd mtext mtr munder munderover none semantics
""".split()

# Attribute names lexbor may predefine: HTML's, current and obsolete.
_ATTRIBUTE_NAMES = """
abbr accept accept-charset accesskey action active align alink allow alt archive async
autocapitalize autocomplete autofocus autoplay axis background bgcolor border cellpadding
cellspacing char charoff charset checked cite class classid clear code codebase codetype color
cols colspan compact content contenteditable controls coords crossorigin data datetime declare
decoding default defer dir direction dirname disabled download draggable enctype enterkeyhint
face focus for form formaction formenctype formmethod formnovalidate formtarget frame
frameborder headers height hidden high hover href hreflang hspace html http-equiv id inert
inputmode integrity is ismap itemid itemprop itemref itemscope itemtype kind label lang
language link list loading longdesc loop low marginheight marginwidth max maxlength media
method min minlength multiple muted name nohref nomodule nonce noresize noshade novalidate
nowrap open optimum pattern ping placeholder playsinline pool poster preload profile public
readonly referrerpolicy rel required rev reversed rows rowspan rules sandbox scheme scope
scrolling selected shape size sizes slot span spellcheck src srcdoc srclang srcset standby
start step style summary system tabindex target text title translate type usemap valign value
valuetype version vlink vspace width wrap xmlns
""".split()

# Predefined id -> name, and for attributes only what the walk needs: the name's length, and
# which id is "class". Filled once by `_learn_names`.
cdef list _tag_names = [None] * WC_TAG_LAST_ENTRY
cdef Py_ssize_t _attr_name_length[256]
cdef uintptr_t _class_attr_id = 0
cdef uintptr_t _id_attr_id = 0
cdef uintptr_t _type_attr_id = 0
cdef uintptr_t _alt_attr_id = 0
cdef uintptr_t _src_attr_id = 0
cdef uintptr_t _img_tag_id = 0
# Why pages went to the Python walk, for the bench and the tests.
cdef dict _fallbacks = {}


def _learn_names() -> None:
    """Predefined ids from selectolax's public API: `create_node` gives a known name's tag id;
    an element parsed with known attributes gives their ids, read off its attribute list."""
    global _class_attr_id, _id_attr_id, _type_attr_id, _alt_attr_id, _src_attr_id, _img_tag_id
    parser = LexborHTMLParser("<p></p>")
    for name in _ELEMENT_NAMES:
        node = parser.create_node(name)
        tag_id = node.tag_id
        # The name as `LexborNode.tag` reports an element of this id that has no qualified
        # name of its own (which is what the walk meets).
        if tag_id < WC_TAG_LAST_ENTRY and node.tag == name:
            _tag_names[tag_id] = name
            if name == "img":
                _img_tag_id = tag_id
    for i in range(256):
        _attr_name_length[i] = -1
    probe = LexborHTMLParser(
        "<div " + " ".join(f"{n}=v" for n in _ATTRIBUTE_NAMES) + "></div>"
    ).css_first("div")
    if probe is None or list(probe.attributes) != _ATTRIBUTE_NAMES:
        return  # names never learned: every page falls back, and the self-check fails
    cdef wc_attr *attr = (<wc_element *> <uintptr_t> probe.mem_id).first_attr
    cdef uintptr_t attr_id
    for name in _ATTRIBUTE_NAMES:
        if attr == NULL:
            break
        attr_id = attr.qualified_name if attr.qualified_name else attr.node.local_name
        if attr_id < WC_ATTR_LAST_ENTRY:
            _attr_name_length[attr_id] = len(name)
            if name == "class":
                _class_attr_id = attr_id
            elif name == "id":
                _id_attr_id = attr_id
            elif name == "type":
                _type_attr_id = attr_id
            elif name == "alt":
                _alt_attr_id = attr_id
            elif name == "src":
                _src_attr_id = attr_id
        attr = attr.next


_learn_names()


# `pipeline.html.class_cues.ANCESTOR_WORDS` as an open-addressing table of byte strings, so that an
# ASCII class or id value, which most elements carry, is split and looked up without creating a
# Python object (the C walk exists to avoid one per node).
cdef enum:
    CUE_SLOTS = 1024  # a power of two, several times the number of words
    CUE_MAX_WORD = 16
cdef unsigned char _cue_words[CUE_SLOTS][CUE_MAX_WORD]
cdef Py_ssize_t _cue_lengths[CUE_SLOTS]  # 0: an empty slot
cdef int _cue_values[CUE_SLOTS]


cdef inline unsigned int _cue_hash(const unsigned char *p, Py_ssize_t n) noexcept:
    cdef unsigned int h = 2166136261u  # FNV-1a
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ p[i]) * 16777619u
    return h


def _learn_cues() -> None:
    cdef Py_ssize_t slot, n
    cdef bytes word
    for i in range(CUE_SLOTS):
        _cue_lengths[i] = 0
    for text, bit in ANCESTOR_WORDS.items():
        word = text.encode("ascii")
        n = len(word)
        if not 0 < n <= CUE_MAX_WORD:
            raise ValueError(f"class cue word {text!r} must have 1 to {CUE_MAX_WORD} characters")
        slot = _cue_hash(word, n) & (CUE_SLOTS - 1)
        while _cue_lengths[slot]:
            slot = (slot + 1) & (CUE_SLOTS - 1)
        memcpy(_cue_words[slot], <const unsigned char *> word, n)
        _cue_lengths[slot] = n
        _cue_values[slot] = 1 << bit


_learn_cues()


cdef inline bint _is_named(
    uintptr_t attr_id, wc_hash_entry *entry, uintptr_t known, const char *name, size_t length
) noexcept:
    """Whether an attribute (its id, and its hash entry when the id is not predefined) has this
    name, whose predefined id is ``known``."""
    if attr_id < WC_ATTR_LAST_ENTRY:
        return attr_id == known
    return entry.length == length and memcmp(wc_hash_entry_str(entry), name, length) == 0


cdef int _cue_bits(const unsigned char *data, Py_ssize_t length) except -1:
    """`pipeline.html.class_cues.ancestor_cue_bits` of an attribute value's UTF-8 bytes."""
    cdef unsigned char piece[CUE_MAX_WORD]
    cdef Py_ssize_t i, n = 0, slot
    cdef int bits = 0
    cdef unsigned char c
    for i in range(length):
        if data[i] >= 0x80:
            # str.lower() maps a few non-ASCII letters to ASCII ones: the Python rules decide.
            return ancestor_cue_bits(_decode(data, length))
    for i in range(length + 1):
        c = data[i] if i < length else 0
        if 65 <= c <= 90:  # A-Z
            c += 32
        if 97 <= c <= 122 or 48 <= c <= 57:  # a-z, 0-9
            if n < CUE_MAX_WORD:
                piece[n] = c
            n += 1
        else:
            if 0 < n <= CUE_MAX_WORD:
                slot = _cue_hash(piece, n) & (CUE_SLOTS - 1)
                while _cue_lengths[slot]:
                    if _cue_lengths[slot] == n and memcmp(_cue_words[slot], piece, n) == 0:
                        bits |= _cue_values[slot]
                        break
                    slot = (slot + 1) & (CUE_SLOTS - 1)
            n = 0
    return bits


# Elements repeat their class and id values (a page of 660 values holds 270 distinct ones): each
# value's cues are worked out once per page, and a repeat costs a hash of its bytes, 8 at a time,
# and one comparison instead of a split into words with a look-up of each. The entries point
# into lexbor's attribute values, which live as long as the tree the walk reads.
cdef struct CueEntry:
    const unsigned char *data  # NULL: an empty slot
    Py_ssize_t length
    uint64_t hash
    int bits


cdef struct CueCache:
    CueEntry *entries
    Py_ssize_t capacity  # a power of two
    Py_ssize_t count


cdef inline uint64_t _value_hash(const unsigned char *data, Py_ssize_t length) noexcept:
    cdef uint64_t h = <uint64_t> length * 0x9E3779B97F4A7C15ULL
    cdef uint64_t word
    cdef Py_ssize_t i = 0
    while i + 8 <= length:
        memcpy(&word, data + i, 8)
        h = (h ^ word) * 0xFF51AFD7ED558CCDULL
        h ^= h >> 32
        i += 8
    if i < length:
        word = 0
        memcpy(&word, data + i, length - i)
        h = (h ^ word) * 0xFF51AFD7ED558CCDULL
        h ^= h >> 32
    return h ^ (h >> 29)


cdef int _grow_cues(CueCache *cache) except -1:
    """Double the table (or make its first one) and re-insert its entries."""
    cdef Py_ssize_t capacity = 2 * cache.capacity if cache.capacity else 512
    cdef Py_ssize_t i, slot
    cdef CueEntry *entries = <CueEntry *> calloc(capacity, sizeof(CueEntry))
    if entries == NULL:
        raise MemoryError()
    for i in range(cache.capacity):
        if cache.entries[i].data != NULL:
            slot = cache.entries[i].hash & (capacity - 1)
            while entries[slot].data != NULL:
                slot = (slot + 1) & (capacity - 1)
            entries[slot] = cache.entries[i]
    free(cache.entries)
    cache.entries = entries
    cache.capacity = capacity
    return 0


cdef int _cached_cue_bits(
    CueCache *cache, const unsigned char *data, Py_ssize_t length
) except -1:
    """`_cue_bits` of an attribute value, from ``cache`` when the page had the value before."""
    cdef uint64_t h
    cdef Py_ssize_t slot
    cdef CueEntry *entry
    cdef int bits
    if length == 0:
        return 0
    if 2 * (cache.count + 1) > cache.capacity:
        _grow_cues(cache)
    h = _value_hash(data, length)
    slot = h & (cache.capacity - 1)
    while True:
        entry = &cache.entries[slot]
        if entry.data == NULL:
            break
        if entry.hash == h and entry.length == length and (
            memcmp(entry.data, data, length) == 0
        ):
            return entry.bits
        slot = (slot + 1) & (cache.capacity - 1)
    bits = _cue_bits(data, length)
    entry.data = data
    entry.length = length
    entry.hash = h
    entry.bits = bits
    cache.count += 1
    return bits


def learned_ids() -> tuple[int, int]:
    """How many predefined tag and attribute ids have a known name (coverage, for tests)."""
    tags = sum(1 for name in _tag_names if name is not None)
    attrs = sum(1 for i in range(WC_ATTR_LAST_ENTRY) if _attr_name_length[i] >= 0)
    return tags, attrs


def _set_tag_name(tag_id: int, name: str | None) -> str | None:
    """Replace the learned name of a predefined tag id, returning the old one (tests use it to
    make an id unknown)."""
    old = _tag_names[tag_id]
    _tag_names[tag_id] = name
    return old


def fallback_counts() -> dict[str, int]:
    """Pages this process handed to the Python walk, by reason."""
    return dict(_fallbacks)


def reset_fallback_counts() -> None:
    _fallbacks.clear()


cdef inline str _decode(const unsigned char *data, size_t length):
    # selectolax decodes every name, value and text it returns this way.
    return PyUnicode_DecodeUTF8(<const char *> data, length, "replace")


cdef Py_ssize_t _text_length(const unsigned char *data, size_t length) except -1:
    """``len()`` of the str selectolax would decode these bytes to."""
    cdef size_t i = 0
    cdef uint64_t word
    # Attribute values can be long (inline styles, srcset, JSON): test 8 bytes at a time.
    while i + 8 <= length:
        memcpy(&word, data + i, 8)
        if word & 0x8080808080808080ULL:
            break
        i += 8
    while i < length:
        if data[i] >= 0x80:
            # Invalid bytes become U+FFFD by the decoder's own rules: let it count.
            return len(_decode(data, length))
        i += 1
    return <Py_ssize_t> length


cdef bint _is_strict_utf8(const unsigned char *data, size_t length):
    cdef size_t i
    for i in range(length):
        if data[i] >= 0x80:
            try:
                PyUnicode_DecodeUTF8(<const char *> data, length, "strict")
            except UnicodeDecodeError:
                return False
            return True
    return True


cdef inline bint _is_ascii_blank(const unsigned char *data, size_t length):
    """selectolax's `is_empty_text_node` test: only HTML's ASCII whitespace (or nothing)."""
    cdef size_t i
    cdef unsigned char c
    if data == NULL:
        return True
    for i in range(length):
        c = data[i]
        if c != 32 and c != 9 and c != 10 and c != 12 and c != 13:
            return False
    return True


cdef object _tag_name(wc_node *node):
    """`LexborNode.tag` for ``node``, or False when its id names nothing this module knows."""
    cdef uintptr_t tag_id = node.local_name
    cdef wc_hash_entry *entry
    if tag_id == WC_TAG_TEXT:
        return "-text"
    if tag_id == WC_TAG_DOCUMENT:
        return "-document"
    if tag_id == WC_TAG_COMMENT:
        return "-comment"
    if tag_id == WC_TAG_DOCTYPE:
        return "-doctype"
    if node.type != WC_NODE_ELEMENT:
        return None
    element = <wc_element *> node
    if element.qualified_name:
        tag_id = element.qualified_name
    if tag_id < WC_TAG_LAST_ENTRY:
        name = _tag_names[tag_id]
        return False if name is None else name
    if tag_id == WC_TAG_LAST_ENTRY:
        return False  # lexbor's "no such tag"
    entry = <wc_hash_entry *> tag_id
    return _decode(wc_hash_entry_str(entry), entry.length)



# Text is handled as lexbor stores it, UTF-8, without a str per text node: each text node is
# scanned once, its words copied into the block's buffer already whitespace-normalised (the
# separator before a word decided by the whitespace run before it, which may span nodes), and
# the block's str is decoded once from that buffer. The rules are walk.py's (`_normalized`,
# `_spaced_words`, `_squeezed_length`, `_is_blank`), applied per code point with str.split's
# whitespace test (Py_UNICODE_ISSPACE). A node whose bytes are not strict UTF-8 is first decoded
# as selectolax decodes it (U+FFFD for bad bytes) and re-encoded, so every count is of the str
# the Python walk sees.
cdef bytes _UNSPACED_BMP = _python_walk._unspaced_bmp()
cdef const unsigned char *_unspaced_bmp = _UNSPACED_BMP
# walk._UNSPACED_FROM, C-only in the compiled walk (a test checks both agree).
cdef unsigned int _UNSPACED_FROM = 0x0E00
UNSPACED_FROM = _UNSPACED_FROM
# What a code point below 128 is to the walk, in one table that a word's tight loop reads once
# per character: _WORD; _SPACE (str.isspace: \t \n \v \f \r, \x1c-\x1f and the space); or
# _CONTROL (controls.CONTROLS: dropped from text as if never there).
cdef enum:
    _WORD = 0
    _SPACE = 1
    _CONTROL = 2
cdef unsigned char _ASCII_KIND[128]
for _i in range(128):
    _ASCII_KIND[_i] = _SPACE if chr(_i).isspace() else _CONTROL if chr(_i) in CONTROLS else _WORD
# controls.CONTROLS from 128 on (C1): the Windows-1252 character each stands for, as its code point
# and its UTF-8 bytes (length 0: undefined there, dropped).
cdef unsigned int _C1_CP[32]
cdef unsigned char _C1_UTF8[32][4]
cdef Py_ssize_t _C1_LENGTH[32]
for _i in range(32):
    _c1 = C1_AS_CP1252[0x80 + _i]
    _C1_CP[_i] = ord(_c1) if _c1 else 0
    _c1_bytes = _c1.encode("utf-8") if _c1 else b""
    _C1_LENGTH[_i] = len(_c1_bytes)
    for _j in range(len(_c1_bytes)):
        _C1_UTF8[_i][_j] = _c1_bytes[_j]


# pipeline.html.mojibake's test, as C tables: for each lead U+00C2 + i, the continuations it
# needs and the kinds its first may be; the kind of each continuation character (U+0080-U+00BF
# in a table, the rest of Windows-1252's in a short list).
cdef int _MOJI_FIRST_LEAD = mojibake.FIRST_LEAD
cdef int _MOJI_LAST_LEAD = mojibake.LAST_LEAD
cdef int _MOJI_ANY = mojibake.ANY
cdef unsigned char _MOJI_NEED[64]
cdef unsigned char _MOJI_ACCEPTS[64]
cdef unsigned char _MOJI_LOW_KIND[64]
cdef unsigned int _MOJI_HIGH_CP[32]
cdef unsigned char _MOJI_HIGH_KIND[32]
cdef Py_ssize_t _MOJI_HIGHS = 0
for _i, (_need, _accepts) in enumerate(mojibake.LEADS):
    _MOJI_NEED[_i] = _need
    _MOJI_ACCEPTS[_i] = _accepts
for _cp, _kind in sorted(mojibake.CONTINUATION.items()):
    if 0x80 <= _cp < 0xC0:
        _MOJI_LOW_KIND[_cp - 0x80] = _kind
    else:
        _MOJI_HIGH_CP[_MOJI_HIGHS] = _cp
        _MOJI_HIGH_KIND[_MOJI_HIGHS] = _kind
        _MOJI_HIGHS += 1


cdef inline int _moji_kind(unsigned int cp) noexcept:
    cdef Py_ssize_t k
    if 0x80 <= cp < 0xC0:
        return _MOJI_LOW_KIND[cp - 0x80]
    for k in range(_MOJI_HIGHS):
        if _MOJI_HIGH_CP[k] == cp:
            return _MOJI_HIGH_KIND[k]
    return 0


cdef struct Text:
    # The block being built: normalised UTF-8, and the state of the whitespace run at its end.
    char *data
    Py_ssize_t length
    Py_ssize_t capacity
    Py_ssize_t words
    bint gap  # the text so far ends in whitespace (a word that follows is a new word)
    bint newline  # ... and that whitespace holds a line break


cdef struct NodeStats:
    # One text node, as the Python walk measures its str (made as pipeline.html.controls says).
    Py_ssize_t words  # len(content.split())
    Py_ssize_t chars  # code points that are not whitespace
    bint first_space  # content[0].isspace()
    bint last_space
    bint unspaced  # holds a letter of a script only `count_words` segments (Thai, CJK, ...)
    bint spaces  # holds whitespace (a node of controls alone is no text at all)
    bint controls  # held controls, which the walk dropped


cdef inline Py_ssize_t _next_code_point(
    const unsigned char *p, Py_ssize_t i, Py_ssize_t n, unsigned int *out
) noexcept:
    """Decode the code point at ``p[i]`` (not ASCII) into ``out``; the index after it, or -1
    where the bytes are not strict UTF-8 (what Python's decoder would reject)."""
    cdef unsigned char c = p[i]
    cdef unsigned char lo = 0x80, hi = 0xBF
    cdef Py_ssize_t more
    cdef unsigned int cp
    if 0xC2 <= c <= 0xDF:
        more = 1
        cp = c & 0x1F
    elif 0xE0 <= c <= 0xEF:
        more = 2
        cp = c & 0x0F
        if c == 0xE0:
            lo = 0xA0  # no overlong forms
        elif c == 0xED:
            hi = 0x9F  # no surrogates
    elif 0xF0 <= c <= 0xF4:
        more = 3
        cp = c & 0x07
        if c == 0xF0:
            lo = 0x90
        elif c == 0xF4:
            hi = 0x8F  # nothing above U+10FFFF
    else:
        return -1
    if i + more >= n:
        return -1
    i += 1
    c = p[i]
    if c < lo or c > hi:
        return -1
    cp = (cp << 6) | (c & 0x3F)
    while more > 1:
        i += 1
        more -= 1
        c = p[i]
        if c < 0x80 or c > 0xBF:
            return -1
        cp = (cp << 6) | (c & 0x3F)
    out[0] = cp
    return i + 1


cdef int _reserve(Text *text, Py_ssize_t extra) except -1:
    cdef Py_ssize_t capacity
    cdef char *grown
    if text.length + extra > text.capacity:
        capacity = max(2 * text.capacity, text.length + extra, 1024)
        grown = <char *> realloc(text.data, capacity)
        if grown == NULL:
            raise MemoryError()
        text.data = grown
        text.capacity = capacity
    return 0


cdef int _add_text(Text *text, const unsigned char *p, Py_ssize_t n, NodeStats *stats) except -1:
    """Append a text node's words to ``text``, and measure the node; 0 when done, 1 when the
    bytes are not strict UTF-8, 2 when they hold a stretch that passes pipeline.html.mojibake's
    test, which only the Python walk repairs (``text`` is then as it was)."""
    cdef Py_ssize_t i = 0, start, nxt, c1 = -1
    cdef Py_ssize_t moji_at = -1  # where a mojibake sequence's next continuation would start
    cdef int moji_need = 0, moji_accepts = 0
    cdef unsigned int cp
    cdef bint space, gap = True, newline = False, unspaced = False, spaces = False
    cdef bint controls = False, first_space = False
    cdef unsigned char c
    # Normalised text is never longer than its source, plus one separator in front, but for a
    # C1 character (two bytes) read as Windows-1252 (up to three).
    _reserve(text, n + 1 + n // 2)
    # Counters in locals: stores through ``out`` could alias the struct's fields.
    cdef unsigned char *out = <unsigned char *> text.data + text.length
    cdef unsigned char *out_start = out
    cdef Py_ssize_t chars = 0, words = 0, text_words = text.words
    while i < n:
        start = i
        c = p[i]
        if c < 0x80:
            cp = c
            i += 1
            if _ASCII_KIND[c] == _CONTROL:
                controls = True
                continue
            space = _ASCII_KIND[c] == _SPACE
        else:
            nxt = _next_code_point(p, i, n, &cp)
            if nxt < 0:
                return 1  # nothing was committed to ``text`` yet
            # The mojibake test (walk._text_flags) on the code point as the node has it: ASCII
            # between two code points parts them, since it never starts where one ended.
            if start == moji_at and _moji_kind(cp) & moji_accepts:
                moji_need -= 1
                if not moji_need:
                    return 2
                moji_accepts = _MOJI_ANY
                moji_at = nxt
            elif _MOJI_FIRST_LEAD <= cp <= _MOJI_LAST_LEAD:
                moji_need = _MOJI_NEED[cp - _MOJI_FIRST_LEAD]
                moji_accepts = _MOJI_ACCEPTS[cp - _MOJI_FIRST_LEAD]
                moji_at = nxt
            i = nxt
            if 0x80 <= cp < 0xA0:
                controls = True
                c1 = cp - 0x80
                if _C1_LENGTH[c1] == 0:
                    continue
                cp = _C1_CP[c1]  # never whitespace
            else:
                c1 = -1
            space = Py_UNICODE_ISSPACE(<Py_UCS4> cp)
        if space:
            if not spaces and not words:
                first_space = True  # the first code point the Python walk sees
            spaces = True
            gap = True
            if c == 10 or c == 13:
                newline = True
            continue
        if gap:
            words += 1
            if words == 1:
                # The run before the node's first word may start in earlier nodes.
                newline = newline or text.newline
                gap = spaces or text.gap  # only whitespace can precede the first word
            if gap and text_words:
                out[0] = 10 if newline else 32
                out += 1
            if gap or not text_words:
                text_words += 1
            gap = newline = False
        chars += 1
        if c < 0x80:
            out[0] = c
            out += 1
            # The rest of an ASCII word, in a tight loop.
            while i < n:
                c = p[i]
                if c >= 0x80 or _ASCII_KIND[c] != _WORD:
                    break
                out[0] = c
                out += 1
                i += 1
                chars += 1
        else:
            if cp >= _UNSPACED_FROM and (cp > 0xFFFF or _unspaced_bmp[cp]):
                unspaced = True
            if c1 >= 0:
                memcpy(out, _C1_UTF8[c1], _C1_LENGTH[c1])
                out += _C1_LENGTH[c1]
            else:
                memcpy(out, p + start, i - start)
                out += i - start
    stats.words = words
    stats.chars = chars
    stats.unspaced = unspaced
    stats.spaces = spaces
    stats.controls = controls
    if words:
        text.length += out - out_start
        text.words = text_words
        text.gap = gap
        text.newline = newline
        stats.first_space = first_space
        stats.last_space = gap
    return 0


# Inline code's edges, marked in a block's normalised text as it is built: two noncharacters,
# which `_unmark` takes out again, turning them into spans. Marked text is normalised once more
# by the Python walk's own rule (`walk._normalized_spans`), so both walks give the same text and
# spans; a page that holds these characters itself goes to the Python walk (`_unmark`).
_OPEN_CHAR, _CLOSE_CHAR = "\ufdd0", "\ufdd1"
cdef bytes _OPEN_MARK_BYTES = _OPEN_CHAR.encode("utf-8")
cdef bytes _CLOSE_MARK_BYTES = _CLOSE_CHAR.encode("utf-8")
cdef const unsigned char *_OPEN_MARK = _OPEN_MARK_BYTES
cdef const unsigned char *_CLOSE_MARK = _CLOSE_MARK_BYTES
_PLAIN = Shape()


class _MarkedText(Exception):
    """The page's own text holds the characters that mark inline code."""


def _unmark(str text, Py_ssize_t marks):
    """The block's text without its marks, its word count, and the inline code spans the marks
    stood for (walk._block's result for the same block)."""
    cdef list pieces = [], spans = []
    cdef Py_ssize_t at = 0, length = 0, start = -1, i, found = 0
    while True:
        i = _next_mark(text, at)
        if i < 0:
            break
        found += 1
        pieces.append(text[at:i])
        length += i - at
        if text[i] == _OPEN_CHAR:
            start = length
        elif start >= 0:
            spans.append((start, length, "code"))
            start = -1
        at = i + 1
    if found != marks:
        raise _MarkedText()
    pieces.append(text[at:])
    text = "".join(pieces)
    # The marked text was normalised, so taking the marks out can only leave two blanks side by
    # side or one at an end. Without those, and with no span edge on a blank (which the Python
    # walk's rule would move), the text and spans stand as they are: the word-by-word rule costs
    # a regex match per word, and code pages have long paragraphs.
    if not (
        "  " in text or " \n" in text or "\n " in text or "\n\n" in text
        or text[:1].isspace() or text[-1:].isspace()
        or any(s < e and (text[s].isspace() or text[e - 1].isspace()) for s, e, _ in spans)
    ):
        return text, _count_words(text), tuple(sp for sp in spans if sp[0] < sp[1])
    return _python_walk._normalized_spans(text, spans)


cdef Py_ssize_t _count_words(str text):
    """The words of a normalised text: one blank between each two."""
    if not text:
        return 0
    return text.count(" ") + text.count("\n") + 1


cdef Py_ssize_t _next_mark(str text, Py_ssize_t at):
    cdef Py_ssize_t a = text.find(_OPEN_CHAR, at), b = text.find(_CLOSE_CHAR, at)
    if a < 0:
        return b
    if b < 0:
        return a
    return a if a < b else b


cdef bint _draws_math(const unsigned char *data, Py_ssize_t length) noexcept:
    """Whether a class value may name a formula's drawing (walk._draws_math decides, on the
    Python walk: such a page goes there)."""
    # One pass keyed on the first letters rather than a memmem per name: this runs on every
    # class attribute of every page, and two memmem calls were a twentieth of the walk.
    cdef Py_ssize_t i
    cdef unsigned char c
    for i in range(length - 6):
        c = data[i]
        if c == 77:  # "M"
            if memcmp(data + i, b"MathJax", 7) == 0:
                return True
        elif c == 107:  # "k"
            if i + 10 <= length and memcmp(data + i, b"katex-html", 10) == 0:
                return True
    return False


cdef inline unsigned char _lower(unsigned char c) noexcept:
    return c + 32 if 65 <= c <= 90 else c


cdef bint _at(const unsigned char *v, Py_ssize_t n, Py_ssize_t i, const char *word,
              Py_ssize_t m) noexcept:
    """Whether ``word`` (lower case) is at ``v[i]``, in any case."""
    cdef Py_ssize_t j
    if i + m > n:
        return False
    for j in range(m):
        if _lower(v[i + j]) != <unsigned char> word[j]:
            return False
    return True


cdef bint _word_at(const unsigned char *v, Py_ssize_t n, Py_ssize_t i, const char *word,
                   Py_ssize_t m, const char *after) noexcept:
    """``word`` at ``v[i]``, at the end or followed by a byte of ``after`` (by anything but an
    ASCII letter when ``after`` is empty), as math_images._followed_by."""
    cdef unsigned char c
    if not _at(v, n, i, word, m):
        return False
    if i + m == n:
        return True
    c = _lower(v[i + m])
    if after[0] == 0:
        return not (97 <= c <= 122)
    return strchr(after, c) != NULL and c != 0


cdef bint _math_image_hint(
    uintptr_t attr_id, wc_hash_entry *entry, const unsigned char *v, Py_ssize_t n
) noexcept:
    """`pipeline.html.math_images.may_be_math_image`'s test of one attribute of an <img>."""
    cdef Py_ssize_t i
    cdef unsigned char c
    if n == 0:
        return False
    if _is_named(attr_id, entry, _alt_attr_id, b"alt", 3):
        return (v[0] == 36 and v[n - 1] == 36 and n > 1) or v[0] == 92  # "$...$", a backslash
    if _is_named(attr_id, entry, _class_attr_id, b"class", 5):
        for i in range(n):
            c = _lower(v[i])
            if c == 116:  # t
                if _word_at(v, n, i, b"tex", 3, b""):
                    return True
            elif c == 109:  # m
                if _at(v, n, i, b"mathcode", 8) or _word_at(v, n, i, b"math", 4, b""):
                    return True
            elif c == 113 or c == 101:  # q, e
                if _at(v, n, i, b"ql-img", 6) or _at(v, n, i, b"ee_img", 6):
                    return True
        return False
    if not (
        _is_named(attr_id, entry, _src_attr_id, b"src", 3)
        or _is_named(attr_id, entry, WC_ATTR_LAST_ENTRY, b"data-src", 8)
        or _is_named(attr_id, entry, WC_ATTR_LAST_ENTRY, b"data-lazy-src", 13)
        or _is_named(attr_id, entry, WC_ATTR_LAST_ENTRY, b"data-original", 13)
    ) or _at(v, n, 0, b"data:", 5):
        return False
    for i in range(n):
        c = _lower(v[i])
        if c == 108:  # l
            if _word_at(v, n, i, b"latex", 5, b".?/="):
                return True
        elif c == 116:  # t
            if _at(v, n, i, b"tex=", 4) or _at(v, n, i, b"tex.cgi", 7):
                return True
        elif c == 109:  # m
            if _at(v, n, i, b"math/", 5):
                return True
    return False


cdef bint _is_tex_script(wc_node *node):
    """Whether a <script> is MathJax's formula source ("math/tex" in its type, any case)."""
    cdef wc_attr *attr = (<wc_element *> node).first_attr
    cdef uintptr_t attr_id
    cdef wc_hash_entry *entry
    while attr != NULL:
        attr_id = attr.qualified_name if attr.qualified_name else attr.node.local_name
        if attr_id != WC_ATTR_LAST_ENTRY:
            entry = NULL if attr_id < WC_ATTR_LAST_ENTRY else <wc_hash_entry *> attr_id
            if _is_named(attr_id, entry, _type_attr_id, b"type", 4):
                if attr.value != NULL and attr.value.data != NULL:
                    if "math/tex" in _decode(attr.value.data, attr.value.length).lower():
                        return True
        attr = attr.next
    return False


cdef object _block(
    Py_ssize_t index, Text *raw, str tag, str dom_path, str style_text, bint heading,
    Py_ssize_t link_chars, Py_ssize_t tags, Py_ssize_t markup, Runs *runs, Py_ssize_t run,
    int ancestor_cues, object shape, object pre_raw, Py_ssize_t marks, list tex,
):
    # walk._block, with the text already normalised; empties ``raw`` for the next block. None
    # when the block held nothing but the marks of empty inline code (the Python walk makes no
    # block there).
    text = PyUnicode_DecodeUTF8(raw.data, raw.length, NULL)
    n_words = raw.words
    raw.length = raw.words = 0
    raw.gap = True
    raw.newline = False
    if pre_raw is not None:
        # A <pre> inside inline code holds the code's marks even when it is empty, and the
        # Python walk makes no block for it (hypothesis found "<code><pre>"; a <br> inside
        # adds a line break to those marks: "<code><pre><br><br>").
        if marks and not text.replace(_OPEN_CHAR, "").replace(_CLOSE_CHAR, "").strip():
            return None
        # See walk._block: a <pre>'s text is what the browser shows.
        text, n_words = _normalized(pre_raw)
        if link_chars > len(text):
            link_chars = len(text)
        if shape is not None:
            shape = with_raw(shape, pre_raw)
    else:
        if marks:
            text, n_words, spans = _unmark(text, marks)
            if not text:
                return None
            if spans:
                shape = with_spans(shape or _PLAIN, spans)
    # tuple.__new__(Block, fields) copies a tuple of the fields into a new Block, after a
    # method look-up and an argument tuple of its own: the fields go straight into the Block here
    # (same type, same items). A tuple subclass is never untracked the way a plain tuple of atoms
    # is, yet a block holds only strings, numbers and tuples of them, which no reference cycle can
    # pass through: it is taken out of the garbage collector's sight, or pages of hundreds of
    # blocks make every collection longer. Untracked before it is filled, so no collection sees
    # its empty slots.
    block = _alloc_tuple(Block, 14)
    PyObject_GC_UnTrack(<void *> block)
    _put(block, 0, index)
    _put(block, 1, text)
    _put(block, 2, tag)
    _put(block, 3, dom_path)
    _put(block, 4, style_text)
    _put(block, 5, heading)
    _put(block, 6, len(text))
    _put(block, 7, n_words)
    _put(block, 8, link_chars)
    _put(block, 9, tags)
    _put(block, 10, markup)
    _put(block, 11, None if runs == NULL else _runs_tuple(runs, run))
    _put(block, 12, ancestor_cues)
    _put(block, 13, shape)
    # segment.with_tex's test, on the text while it is at hand: after the walk it cost a pass
    # over every block's text.
    if tex is not None and ("\\" in text or "$$" in text):
        tex.append(index)
    return block


cdef object _current_shape(ShapeTracker shaper):
    """``shaper.current()`` (pipeline.html.structure), its Shape filled in place as `_block`
    fills a Block: that method builds it with tuple.__new__, a call that cost more than the
    rest of it."""
    if shaper._stale:
        shaper._stale = False
        if not shaper._depth:
            shaper._cached = None
        else:
            shape = _alloc_tuple(Shape, 12)
            _put(shape, 0, shaper.heading)
            _put(shape, 1, shaper.lists)
            _put(shape, 2, shaper.item)
            _put(shape, 3, shaper.table)
            _put(shape, 4, shaper.row)
            _put(shape, 5, shaper.col)
            _put(shape, 6, shaper.header)
            _put(shape, 7, shaper.quote)
            _put(shape, 8, shaper.pre)
            _put(shape, 9, shaper.code_lang)
            _put(shape, 10, None)
            _put(shape, 11, ())
            shaper._cached = shape
    return shaper._cached


cdef inline void _put(object items, Py_ssize_t i, object value):
    Py_INCREF(value)
    PyTuple_SET_ITEM(items, i, value)


# BTE's runs of the open block (see walk.walk): the finished ones, in C integers until the block
# is made (walk.py keeps a list of ints).
cdef struct Runs:
    Py_ssize_t *data
    Py_ssize_t length
    Py_ssize_t capacity


cdef inline Py_ssize_t _add_run(Py_ssize_t run, Py_ssize_t n, Runs *runs) except 0:
    """walk._add_run on the C runs: the current run after ``n`` more words (> 0) or tags (< 0)."""
    cdef Py_ssize_t capacity
    if run and (run > 0) == (n > 0):
        return run + n
    if run:
        if runs.length == runs.capacity:
            capacity = 2 * runs.capacity if runs.capacity else 64
            _grow(<void **> &runs.data, capacity * sizeof(Py_ssize_t))
            runs.capacity = capacity
        runs.data[runs.length] = run
        runs.length += 1
    return n


cdef tuple _runs_tuple(Runs *runs, Py_ssize_t run):
    """``tuple(runs) if not run else (*runs, run)`` of walk._block."""
    cdef Py_ssize_t i, n = runs.length
    cdef tuple items = PyTuple_New(n + (run != 0))
    for i in range(n):
        _put(items, i, PyLong_FromSsize_t(runs.data[i]))
    if run:
        _put(items, n, PyLong_FromSsize_t(run))
    return items


cdef struct Stack:
    # The entered ancestors of the current node and their tag flags, innermost last.
    wc_node **nodes
    int *kinds
    Py_ssize_t capacity


cdef int _push(Stack *stack, Py_ssize_t depth, wc_node *node, int kind) except -1:
    cdef Py_ssize_t capacity
    cdef wc_node **nodes
    cdef int *kinds
    if depth == stack.capacity:
        capacity = 2 * stack.capacity if stack.capacity else 256
        nodes = <wc_node **> realloc(stack.nodes, capacity * sizeof(wc_node *))
        if nodes == NULL:
            raise MemoryError()
        stack.nodes = nodes
        kinds = <int *> realloc(stack.kinds, capacity * sizeof(int))
        if kinds == NULL:
            raise MemoryError()
        stack.kinds = kinds
        stack.capacity = capacity
    stack.nodes[depth] = node
    stack.kinds[depth] = kind
    return 0


cdef struct Styles:
    # The open block elements (walk.walk's ``styles`` and ``style_cues``), innermost last: tag
    # (a str of the walk's tag cache), class attribute as lexbor holds it (NULL: none), the
    # cues of the element's ancestors, and the formatted style once a block asked for it (a
    # reference owned here, or NULL). The class is decoded only for an element whose style some
    # block gets, once: most block elements (wrappers) never have a block of their own.
    void **tags
    const unsigned char **classes
    Py_ssize_t *class_lengths
    int *cues
    PyObject **texts
    Py_ssize_t count
    Py_ssize_t capacity


cdef int _push_style(
    Styles *styles, str tag, const unsigned char *data, Py_ssize_t length, int cues
) except -1:
    cdef Py_ssize_t capacity, k = styles.count
    if k == styles.capacity:
        capacity = 2 * styles.capacity if styles.capacity else 64
        _grow(<void **> &styles.tags, capacity * sizeof(void *))
        _grow(<void **> &styles.classes, capacity * sizeof(void *))
        _grow(<void **> &styles.class_lengths, capacity * sizeof(Py_ssize_t))
        _grow(<void **> &styles.cues, capacity * sizeof(int))
        _grow(<void **> &styles.texts, capacity * sizeof(PyObject *))
        styles.capacity = capacity
    styles.tags[k] = <void *> tag
    styles.classes[k] = data
    styles.class_lengths[k] = length
    styles.cues[k] = cues
    styles.texts[k] = NULL
    styles.count = k + 1
    return 0


cdef int _grow(void **array, size_t size) except -1:
    cdef void *grown = realloc(array[0], size)
    if grown == NULL:
        raise MemoryError()
    array[0] = grown
    return 0


cdef inline void _pop_style(Styles *styles) noexcept:
    styles.count -= 1
    Py_XDECREF(styles.texts[styles.count])
    styles.texts[styles.count] = NULL


cdef object _style_class(Styles *styles, Py_ssize_t k):
    """The class attribute of open block element ``k`` (walk.walk's), or None."""
    if k < 0 or styles.classes[k] == NULL:
        return None
    return _decode(styles.classes[k], styles.class_lengths[k])


cdef str _style_text(Styles *styles, Py_ssize_t k, dict style_texts):
    """walk._block's style text for the block element ``k`` (-1: none), formatted once per page
    for each tag and class attribute (``style_texts``: by tag, then class)."""
    cdef dict by_class
    cdef str tag, classes, text
    if k < 0:
        return ""
    if styles.texts[k] != NULL:
        return <str> styles.texts[k]
    tag = <str> styles.tags[k]
    if styles.classes[k] == NULL or styles.class_lengths[k] == 0:
        text = tag  # no class, or an empty one
    else:
        classes = _decode(styles.classes[k], styles.class_lengths[k])
        by_class = style_texts.get(tag)
        if by_class is None:
            by_class = style_texts[tag] = {}
        text = by_class.get(classes)
        if text is None:
            text = tag + "." + ".".join(classes.split()) if classes else tag
            by_class[classes] = text
    Py_INCREF(text)
    styles.texts[k] = <PyObject *> text
    return text


# Paths up to walk.MAX_PATH_ELEMENTS long, as `_dom_path` shares them.
cdef enum:
    PATHS_SHARED = 48


cdef struct Paths:
    # serials[i]: when the walk entered path[i] (1, 2, ...: unique within a page, so the serial
    # of path[i] stands for the whole of path[:i + 1] while that element stays in the path).
    Py_ssize_t *serials
    Py_ssize_t capacity
    Py_ssize_t entered
    # Per length n, the last string made for a path of n elements (in the walk's list
    # ``strings``): the serial of the path's last element, that of its parent (0 for n == 1,
    # -1 before any), and the last element's tag (a str of the walk's tag cache).
    Py_ssize_t own[PATHS_SHARED + 1]
    Py_ssize_t parent[PATHS_SHARED + 1]
    void *tag[PATHS_SHARED + 1]


cdef int _enter_path(Paths *paths, Py_ssize_t at) except -1:
    """Give path[at], about to be appended, its serial."""
    cdef Py_ssize_t capacity
    if at == paths.capacity:
        capacity = 2 * paths.capacity if paths.capacity else 256
        _grow(<void **> &paths.serials, capacity * sizeof(Py_ssize_t))
        paths.capacity = capacity
    paths.entered += 1
    paths.serials[at] = paths.entered
    return 0


cdef str _dom_path(list path, Py_ssize_t n, Paths *paths, list strings):
    """``_path_string(path[:n])``, made from the parent's string and shared: the blocks of a
    page repeat a few paths (sibling paragraphs, list items, cells), and joining each block's
    path from its tags was a fifteenth of the walk."""
    if n > PATHS_SHARED:
        return _path_string(path[:n])
    if n == 0:
        return ""
    cdef Py_ssize_t own = paths.serials[n - 1]
    if paths.own[n] == own:
        return strings[n]
    cdef Py_ssize_t parent = paths.serials[n - 2] if n > 1 else 0
    cdef str tag = path[n - 1]
    cdef str text
    if paths.parent[n] != parent or paths.tag[n] != <void *> tag:
        # A new path of n elements: not a sibling of the last one with the same tag.
        text = tag if n == 1 else f"{_dom_path(path, n - 1, paths, strings)}.{tag}"
        strings[n] = text
        paths.parent[n] = parent
        paths.tag[n] = <void *> tag
    paths.own[n] = own
    return strings[n]


def walk(
    parser: object,
    root_address: int,
    max_nodes: object,
    bint record_runs,
    deadline: object,
    kinds: dict,
    too_complex: type,
    tex: list | None = None,
) -> list | None:
    """`segment`'s blocks for the tree under the node at ``root_address`` (a `LexborNode.mem_id`
    of ``parser``, which must stay alive), or None when the page must go to the Python walk.

    ``kinds`` is walk.py's tag-name -> flags table and ``too_complex`` its `PageTooComplex`.
    ``tex``: a list to which the index of every block whose text may hold TeX
    (`pipeline.html.tex_text.may_hold_tex`) is appended, in order.
    """
    cdef Stack stack = Stack(NULL, NULL, 0)
    cdef Text raw = Text(NULL, 0, 0, 0, True, False)
    cdef Runs runs = Runs(NULL, 0, 0)
    cdef Styles styles = Styles(NULL, NULL, NULL, NULL, NULL, 0, 0)
    cdef CueCache cue_cache = CueCache(NULL, 0, 0)
    cdef Paths paths
    cdef Py_ssize_t i
    paths.serials = NULL
    paths.capacity = paths.entered = 0
    for i in range(PATHS_SHARED + 1):
        paths.own[i] = 0
        paths.parent[i] = -1
        paths.tag[i] = NULL
    try:
        return _walk(
            <wc_node *> <uintptr_t> root_address, max_nodes, record_runs, deadline, kinds,
            too_complex, &stack, &raw, &runs if record_runs else NULL, &paths, &styles,
            &cue_cache, tex,
        )
    except _MarkedText:
        _fallback("text holds the code marks")
        return None
    finally:
        free(stack.nodes)
        free(stack.kinds)
        free(raw.data)
        free(runs.data)
        free(paths.serials)
        while styles.count:
            _pop_style(&styles)
        free(styles.tags)
        free(styles.classes)
        free(styles.class_lengths)
        free(styles.cues)
        free(styles.texts)
        free(cue_cache.entries)


cdef inline int _fallback(str reason) except -1:
    _fallbacks[reason] = _fallbacks.get(reason, 0) + 1
    return 0


cdef object _walk(
    wc_node *root, object max_nodes, bint record_runs, object deadline, dict kinds,
    object too_complex, Stack *stack, Text *raw, Runs *runs, Paths *paths, Styles *styles,
    CueCache *cue_cache, list tex,
):
    # The state machine of walk.walk, variable for variable (comments there), with
    # the block's raw text in ``raw`` instead of a list of str pieces: it is non-empty exactly
    # when ``pieces`` would be.
    cdef list blocks = []
    cdef Py_ssize_t limit = max_nodes if max_nodes is not None else -1
    # The per-page tag cache, in C arrays for the predefined ids (kind -1: not seen yet).
    cdef int small_kind[IDS_LISTED]
    cdef Py_ssize_t small_size[IDS_LISTED]
    cdef list small_name = [None] * IDS_LISTED
    cdef dict tags_seen = {}
    cdef dict style_texts = {}
    cdef list path = []
    cdef list path_strings = [None] * (PATHS_SHARED + 1)  # see `_dom_path`
    # See walk.walk: the enclosing elements' class cues, and the open block's.
    cdef int inherited, cues, ancestor_cues = 0
    cdef const unsigned char *class_data
    cdef const unsigned char *id_data
    cdef Py_ssize_t class_length = 0, id_length = 0
    cdef Py_ssize_t headings_open = 0, link_depth = 0
    cdef bint br = False
    cdef Py_ssize_t link_chars = 0, tags = 0, markup = 0
    cdef object dom_path = None
    cdef Py_ssize_t block_depth = 0
    cdef str block_tag = ""
    cdef Py_ssize_t style_at = -1  # the open block's block element in ``styles`` (-1: none)
    cdef const unsigned char *style_data
    cdef Py_ssize_t style_length
    cdef bint heading = False
    cdef Py_ssize_t run = 0, n
    cdef Py_ssize_t seen = 0
    cdef Py_ssize_t checkpoint = _next_checkpoint(seen, limit)
    cdef Py_ssize_t depth = 0
    cdef wc_node *node = root
    cdef wc_node *child
    cdef wc_character_data *text_node
    cdef wc_attr *attr
    cdef wc_str *value
    cdef wc_hash_entry *entry = NULL
    cdef uintptr_t tag_id, attr_id
    cdef int kind, added
    cdef Py_ssize_t size, name_length, i
    cdef const unsigned char *data
    cdef Py_ssize_t length
    cdef NodeStats stats
    cdef bytes reencoded
    cdef str tag
    cdef object known
    # The page's structure and the open block's place in it (see walk.walk).
    cdef ShapeTracker shaper = ShapeTracker()
    cdef object shape = None
    cdef bint shape_due = True
    # Inside a <pre> (see walk.walk): 1 plus the elements open in it, its text as pieces, the
    # <code> elements open in it and how many it has held.
    cdef Py_ssize_t pre_depth = 0, pre_code = 0, pre_codes = 0
    cdef object pre_text = None
    cdef str piece
    # Inline code: its edges are marked in the block's text, and `_unmark` turns the marks into
    # `Shape.spans` when the block is made.
    cdef Py_ssize_t code_depth = 0, marks = 0
    cdef bint code_class
    cdef NodeStats mark_stats
    cdef object block, language
    for i in range(IDS_LISTED):
        small_kind[i] = -1

    while node != NULL:
        seen += 1
        if seen == checkpoint:
            if seen == limit:
                raise too_complex(f"page has more than {max_nodes} DOM nodes")
            if deadline is not None and not seen & 4095:
                deadline.check("segmentation")
            checkpoint = _next_checkpoint(seen, limit)
        tag_id = node.local_name
        if tag_id == WC_TAG_TEXT:
            if node.type == WC_NODE_TEXT:
                text_node = <wc_character_data *> node
                data = text_node.data.data
                length = text_node.data.length
                if pre_depth and length:
                    piece = node_text(_decode(data, length))
                    if not piece:
                        pass
                    elif pre_depth > 1 and not pre_code and not piece.isspace():
                        pre_text.append((piece,))
                    else:
                        pre_text.append(piece)
                if _is_ascii_blank(data, length):
                    raw.gap = True  # the Python walk's " " piece
                else:
                    added = _add_text(raw, data, length, &stats)
                    if added == 1:
                        reencoded = _decode(data, length).encode("utf-8")
                        data = reencoded
                        length = len(reencoded)
                        added = _add_text(raw, data, length, &stats)
                    if added == 2:
                        _fallback("mojibake")
                        return None
                    if stats.words:
                        if shape_due:
                            shape = _current_shape(shaper)
                            shape_due = False
                        if dom_path is None:
                            dom_path = _dom_path(path, block_depth, paths, path_strings)
                        if link_depth:
                            link_chars += stats.first_space + stats.last_space
                            link_chars += stats.chars + stats.words - 1
                        if record_runs:
                            if stats.unspaced:
                                piece = _decode(data, length)
                                if stats.controls:
                                    piece = node_text(piece)
                                n = count_words(piece, None)[0]
                            else:
                                n = stats.words
                            if n:
                                run = _add_run(run, n, runs)
                        br = False
                    elif stats.spaces:
                        raw.gap = True  # (a node of controls alone is no text at all)
            if node.next != NULL:
                node = node.next
                continue
            kind = _KILLED
        else:
            if tag_id < IDS_LISTED and small_kind[tag_id] >= 0:
                tag = small_name[tag_id]
                kind = small_kind[tag_id]
                size = small_size[tag_id]
            else:
                known = None if tag_id < IDS_LISTED else tags_seen.get(tag_id)
                if known is None:
                    name = _tag_name(node)
                    if name is False:
                        _fallback("unknown tag id")
                        return None
                    tag = name
                    if not tag or tag[0] in "-!":
                        tag, kind = tag or "", _KILLED
                    else:
                        kind = kinds.get(tag, 0)
                    size = len(tag) + 2 + (0 if kind & _VOID else len(tag) + 3)
                    if tag_id < IDS_LISTED:
                        small_name[tag_id] = tag
                        small_kind[tag_id] = kind
                        small_size[tag_id] = size
                    else:
                        tags_seen[tag_id] = (tag, kind, size)
                else:
                    tag, kind, size = known
            code_class = False
            if pre_depth:
                # See walk.walk: inside a <pre> nothing opens a block or a shape, and a
                # <code>'s class may name the language.
                code_class = kind & _SPECIAL and tag == "code"
                kind &= _PRE_MASK
            elif kind & _SPECIAL:
                if kind & _KILLED:
                    # MathJax's formula sources: only the Python walk turns math into LaTeX.
                    if node.type == WC_NODE_ELEMENT and _is_tex_script(node):
                        _fallback("math")
                        return None
                elif tag == "math" or tag == "mjx-container":
                    _fallback("math")
                    return None
                elif tag != "pre":  # inline code: a span, marked in the text (`_MARKS`)
                    code_depth += 1
                    if code_depth == 1:
                        _add_text(raw, _OPEN_MARK, 3, &stats)
                        marks += 1
            inherited = stack.kinds[depth - 1] >> _CUE_SHIFT if depth else 0
            cues = inherited
            style_data = NULL
            style_length = 0
            if not kind & _KILLED:
                class_data = id_data = NULL
                if node.type == WC_NODE_ELEMENT:
                    attr = (<wc_element *> node).first_attr
                    while attr != NULL:
                        attr_id = attr.qualified_name if attr.qualified_name else attr.node.local_name
                        if attr_id < WC_ATTR_LAST_ENTRY:
                            name_length = _attr_name_length[attr_id]
                            if name_length < 0:
                                _fallback("unknown attribute id")
                                return None
                        elif attr_id == WC_ATTR_LAST_ENTRY:
                            _fallback("unknown attribute id")
                            return None
                        else:
                            entry = <wc_hash_entry *> attr_id
                            if not _is_strict_utf8(wc_hash_entry_str(entry), entry.length):
                                # Names differing only in bytes that are not UTF-8 decode to one
                                # str, and selectolax's attribute dict keeps one of them: only
                                # the Python walk counts such an element exactly as it does.
                                _fallback("attribute name not UTF-8")
                                return None
                            name_length = _text_length(wc_hash_entry_str(entry), entry.length)
                        size += name_length + 1
                        value = attr.value
                        # selectolax reports a value only where lexbor has data (else None).
                        if value != NULL and value.data != NULL:
                            size += _text_length(value.data, value.length) + 3
                        # The dict selectolax builds keeps the last value of a name.
                        if _is_named(attr_id, entry, _class_attr_id, b"class", 5):
                            class_data = value.data if value != NULL else NULL
                            class_length = value.length if value != NULL else 0
                        elif _is_named(attr_id, entry, _id_attr_id, b"id", 2):
                            id_data = value.data if value != NULL else NULL
                            id_length = value.length if value != NULL else 0
                        if (
                            tag_id == _img_tag_id
                            and value != NULL
                            and value.data != NULL
                            and _math_image_hint(attr_id, entry, value.data, value.length)
                        ):
                            # A formula drawn as a picture: only the Python walk reads its TeX.
                            _fallback("math image")
                            return None
                        attr = attr.next
                    # See walk.walk: unwrapped elements count, the root does not.
                    if class_data != NULL:
                        if _draws_math(class_data, class_length):
                            _fallback("code or math")
                            return None
                        if depth:
                            cues |= _cached_cue_bits(cue_cache, class_data, class_length)
                        if kind & _BLOCK:
                            style_data = class_data
                            style_length = class_length
                        elif code_class:
                            shaper.name_language(
                                code_language(_decode(class_data, class_length))
                            )
                        elif pre_depth and tag == "span" and names_line(
                            _decode(class_data, class_length)
                        ):
                            kind |= _LINE_SPAN  # see walk.walk
                    if id_data != NULL and depth:
                        cues |= _cached_cue_bits(cue_cache, id_data, id_length)
            if not kind & _SKIPPED:
                if kind & _SHAPE:
                    shaper.enter(tag)
                _enter_path(paths, len(path))
                path.append(tag)
                if pre_depth:
                    pre_depth += 1
                    if tag in LINE_TAGS:
                        pre_text.append(PRE_EDGE)
                    elif tag == "code":
                        if not pre_code:
                            pre_codes += 1
                        pre_code += 1
                if kind & _HEADING:
                    headings_open += 1
                if kind & _BLOCK or (br and kind & _BR and not pre_depth):
                    if kind & _BLOCK:
                        _push_style(styles, tag, style_data, style_length, inherited)
                    else:
                        tags -= 1
                    if raw.length:
                        if code_depth:
                            _add_text(raw, _CLOSE_MARK, 3, &mark_stats)
                            marks += 1
                        block = _block(
                            len(blocks), raw, block_tag, dom_path or "",
                            _style_text(styles, style_at, style_texts), heading, link_chars, tags,
                            markup, runs, run, ancestor_cues, shape,
                            None if pre_text is None else pre_shown(pre_text, pre_codes == 1),
                            marks, tex,
                        )
                        marks = 0
                        if block is not None:
                            blocks.append(block)
                            if record_runs:
                                runs.length = 0
                            run = 0
                        if code_depth:  # the code goes on in the next block
                            _add_text(raw, _OPEN_MARK, 3, &mark_stats)
                            marks = 1
                    shape_due = True
                    if kind & _SPECIAL:  # a <pre>: one block, its text kept as it is
                        pre_depth = 1
                        pre_text = []
                        pre_code = pre_codes = 0
                        # walk.walk's pre_language(own class, classes of styles[-3:-1])
                        shaper.name_language(pre_language(
                            _style_class(styles, styles.count - 1),
                            [
                                _style_class(styles, i)
                                for i in range(max(styles.count - 3, 0), styles.count - 1)
                            ],
                        ))
                    link_chars = tags = 0
                    markup = size
                    dom_path = None
                    block_depth = len(path)
                    block_tag = tag
                    style_at = styles.count - 1
                    ancestor_cues = styles.cues[style_at] if style_at >= 0 else 0
                    heading = headings_open > 0
                else:
                    br = kind & _BR != 0
                    if br:
                        raw.gap = True
                        if pre_depth:
                            pre_text.append("\n")
                    elif kind & _LINK:
                        link_depth += 1
                    tags += 1
                    markup += size
                if record_runs:
                    run = _add_run(run, -1, runs)
        if not kind & _KILLED:
            child = node.first_child
            if child != NULL:
                if child.parent != node:
                    # Cheap evidence that the declared layout matches this lexbor.
                    _fallback("layout check")
                    return None
                _push(stack, depth, node, kind | cues << _CUE_SHIFT)
                depth += 1
                node = child
                continue
        while True:
            if not kind & _SKIPPED:
                if record_runs and not kind & _VOID:
                    run = _add_run(run, -1, runs)
                if kind & _HEADING:
                    headings_open -= 1
                if kind & _SHAPE:
                    shaper.leave()
                if kind & _SPECIAL and not kind & _BLOCK:  # inline code ends
                    code_depth -= 1
                    if not code_depth:
                        _add_text(raw, _CLOSE_MARK, 3, &mark_stats)
                        marks += 1
                if kind & _BLOCK:
                    path.pop()
                    if raw.length:
                        if code_depth:
                            _add_text(raw, _CLOSE_MARK, 3, &mark_stats)
                            marks += 1
                        block = _block(
                            len(blocks), raw, block_tag, dom_path or "",
                            _style_text(styles, style_at, style_texts), heading, link_chars, tags,
                            markup, runs, run, ancestor_cues, shape,
                            None if pre_text is None else pre_shown(pre_text, pre_codes == 1),
                            marks, tex,
                        )
                        marks = 0
                        if block is not None:
                            blocks.append(block)
                            if record_runs:
                                runs.length = 0
                            run = 0
                        if code_depth:  # the code goes on in the next block
                            _add_text(raw, _OPEN_MARK, 3, &mark_stats)
                            marks = 1
                    if kind & _SPECIAL:  # the <pre> ends
                        pre_depth = 0
                        pre_text = None
                    shape_due = True
                    link_chars = tags = markup = 0
                    dom_path = None
                    block_depth = len(path)
                    block_tag = path[-1] if path else ""
                    _pop_style(styles)  # only now: the block just made may have had its style
                    style_at = styles.count - 1
                    ancestor_cues = styles.cues[style_at] if style_at >= 0 else 0
                    heading = headings_open > 0
                else:
                    if dom_path is None and len(path) <= block_depth:
                        dom_path = _dom_path(path, len(path), paths, path_strings)
                    if pre_depth > 1:
                        pre_depth -= 1
                        if path[-1] in LINE_TAGS:
                            pre_text.append(PRE_EDGE)
                        elif path[-1] == "code":
                            pre_code -= 1
                        elif kind & _LINE_SPAN:
                            pre_text.append(PRE_LINE_END)
                    path.pop()
                    if kind & _LINK and link_depth:
                        link_depth -= 1
            if depth == 0:
                node = NULL
                break
            if node.next != NULL:
                node = node.next
                break
            depth -= 1
            node = stack.nodes[depth]
            kind = stack.kinds[depth]
    if raw.length:
        if code_depth:
            _add_text(raw, _CLOSE_MARK, 3, &mark_stats)
            marks += 1
        block = _block(
            len(blocks), raw, block_tag, dom_path or "", _style_text(styles, style_at, style_texts),
            heading, link_chars, tags, markup, runs, run, ancestor_cues, shape,
            None if pre_text is None else pre_shown(pre_text, pre_codes == 1), marks, tex,
        )
        if block is not None:
            blocks.append(block)
    return blocks
