# Cython declarations for pipeline/learned/features.py, used only when the module is compiled (see
# hatch_build.py); the .py file stays the one source of the logic and runs as it is otherwise.
# Compiling pays in the per-character and per-token loops (`_block_stats_loop`,
# `_bte_fractions`): with C integers, a code point read straight from the str, and the
# character table and the stoplist's hash table as typed memoryviews, an ASCII block is scanned
# without creating a Python object per character or token.
import cython

cdef int _HEADING, _CHARS, _WORDS, _LINKS, _TAGS, _MARKUP, _DIGITS, _UPPER, _PUNCT
cdef int _SENTENCE_ENDS, _LETTERS, _ENDS_SENTENCE, _COPYRIGHT, _DENSITY, _CF, _N_STATS
cdef int _SPACE, _UNSPACED
cdef int _TABLE_SIZE, _KEY_CHARS, _KEY_LENGTH_SHIFT, _KEY_MAX_LENGTH

cdef Py_ssize_t _slot_of(unsigned long long key, Py_ssize_t mask) noexcept

cdef double _MAX_LINK_DENSITY, _LENGTH_LOW, _LENGTH_HIGH

cpdef int _cf_class(
    double chars, double links, double density, bint flagged, double low, double high
)

@cython.locals(
    n=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, row=cython.int, size=Py_ssize_t,
    view=cython.double[:, ::1], table=cython.uchar[::1],
    keys=cython.ulonglong[::1], starts=cython.int[::1], entries=str,
    mask=Py_ssize_t, counting=cython.bint, scan_tokens=cython.bint, token_ascii=cython.bint,
    digits=Py_ssize_t, upper=Py_ssize_t, punct=Py_ssize_t, ends=Py_ssize_t, letters=Py_ssize_t,
    marks=Py_ssize_t, flags=cython.int, tokens=Py_ssize_t, stops=Py_ssize_t,
    token_start=Py_ssize_t, key=cython.ulonglong, c=cython.uint, ampersand=cython.bint,
    length=Py_ssize_t, slot=Py_ssize_t, found=cython.ulonglong, first=Py_ssize_t, j=Py_ssize_t,
    d=cython.uint, selected=cython.bint, text=str, part=str, offset=Py_ssize_t, at=Py_ssize_t,
    ch=Py_UCS4, words=Py_ssize_t, stopwords=Py_ssize_t,
    low=cython.double, high=cython.double, count=cython.longlong,
)
cpdef object _block_stats_loop(object fields, object stoplist)

@cython.locals(
    n=Py_ssize_t, i=Py_ssize_t, row=cython.int, view=cython.double[:, ::1], count=cython.longlong
)
cpdef object _count_stats(object fields)

@cython.locals(
    n=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, view=cython.double[::1], prefix=cython.longlong,
    low=cython.longlong, best=cython.longlong, end_low=cython.longlong, end=Py_ssize_t,
    start=Py_ssize_t, total=cython.longlong, within=cython.longlong, run=cython.longlong,
)
cpdef object _bte_fractions(object runs_per_block, object words)

# A C call per block from `_bte_fractions` rather than a Python one.
cpdef object _block_runs(object runs, object words)

# The page-level loops (`_fill_own_loop`, `_fill_neighbours_loop`): typed
# views over the preallocated float64 output and the int64 group ids, column numbers as C ints.
cdef int _N_PATH_BITS, _N_STYLE_BITS, _N_OWN, _CUES_FIRST, _N_ANCESTOR_BITS
cdef int _PREV, _NEXT, _PREV2, _NEXT2, _WINDOWS_FIRST
cdef int _LOG_CHARS, _LOG_WORDS, _LOG_LINKS, _LOG_TAGS, _LOG_MARKUP
cdef int _LOG_PATH_BLOCKS, _LOG_STYLE_BLOCKS, _LOG_REPEATS

@cython.locals(
    n=Py_ssize_t, n_paths=Py_ssize_t, n_styles=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t,
    c=Py_ssize_t, g=Py_ssize_t, q=Py_ssize_t, s=Py_ssize_t, last=Py_ssize_t,
    good_first=Py_ssize_t, good_last=Py_ssize_t, main_path=Py_ssize_t, main_parent=Py_ssize_t,
    longest_style=Py_ssize_t, bits=cython.longlong,
    ps=cython.double[:, ::1], qs=cython.double[:, ::1], ss=cython.double[:, ::1],
    ts=cython.double[::1], sc=cython.double[::1], cv=cython.double[:, ::1],
    st=cython.double[:, ::1], logs=cython.double[:, ::1], cv_cues=cython.double[::1],
    chars=cython.double, links=cython.double, plain=cython.double, stop=cython.double,
    safe=cython.double, density=cython.double, link_density=cython.double, cf=cython.double,
    total=cython.double, links_total=cython.double, plain_total=cython.double,
    good_total=cython.double, median_log=cython.double, stop_total=cython.double,
    page_chars=cython.double, plain_page=cython.double, good_page=cython.double,
    longest_chars=cython.double, page_link_density=cython.double, rel_links=cython.double,
    rel_stops=cython.double, log_blocks=cython.double, log_total=cython.double,
    good_before=cython.double, chars_before=cython.double,
)
cpdef _fill_own_loop(
    double[:, ::1] x, object stats, double[::1] bte, long long[::1] path_ids,
    long long[::1] parent_ids, long long[::1] style_ids, long long[::1] text_ids,
    long long[::1] path_bits, double[::1] path_depths, double[::1] path_prefixes,
    long long[::1] style_bits, Py_ssize_t n_parents, Py_ssize_t n_texts, Py_ssize_t longest,
    Py_ssize_t h1, bint has_stoplist, object ancestors, double[::1] cues,
)

@cython.locals(best=Py_ssize_t, g=Py_ssize_t)
cpdef Py_ssize_t _first_max(double[:, ::1] sums, Py_ssize_t row)

@cython.locals(
    n=Py_ssize_t, n_neighbour=Py_ssize_t, n_far=Py_ssize_t, width=Py_ssize_t, i=Py_ssize_t,
    j=Py_ssize_t, k=Py_ssize_t, m=Py_ssize_t, c=Py_ssize_t, w=Py_ssize_t, low=Py_ssize_t,
    high=Py_ssize_t, size=Py_ssize_t, first=Py_ssize_t, prefix=cython.double[:, ::1],
)
cpdef _fill_neighbours_loop(
    double[:, ::1] x, long long[::1] neighbour, long long[::1] far, long long[::1] window,
    long long[::1] spans,
)

@cython.locals(lookup=dict, n=Py_ssize_t, i=Py_ssize_t, view=cython.longlong[::1])
cpdef tuple group_ids(object values)

@cython.locals(size=Py_ssize_t, shared=Py_ssize_t, k=Py_ssize_t)
cpdef Py_ssize_t _shared_parts(str a, str b)

cdef Py_ssize_t _LONGEST_STYLE_WORD
cdef tuple _STYLE_FIRST_LENGTHS

@cython.locals(length=Py_ssize_t, lengths=cython.ulonglong, index=cython.int)
cdef long long _piece_bit(
    dict words, str text, Py_ssize_t start, Py_ssize_t end, unsigned int first, bint upper
)

@cython.locals(
    words=dict, bits=cython.longlong, start=Py_ssize_t, k=Py_ssize_t, ch=Py_UCS4,
    c=cython.uint, first=cython.uint, upper=cython.bint,
)
cpdef object _style_bits_loop(str text)
