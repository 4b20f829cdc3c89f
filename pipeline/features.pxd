# Cython declarations for pipeline/features.py, used only when the module is compiled (see
# hatch_build.py); the .py file stays the one source of the logic and runs as it is otherwise.
# Compiling pays in the per-character and per-token loops (`_block_stats_loop`,
# `_bte_fractions`): with C integers, a code point read straight from the str, and the
# character table and the stoplist's hash table as typed memoryviews, an ASCII block is scanned
# without creating a Python object per character or token.
import cython

cdef int _HEADING, _CHARS, _WORDS, _LINKS, _TAGS, _MARKUP, _DIGITS, _UPPER, _PUNCT
cdef int _SENTENCE_ENDS, _LETTERS, _ENDS_SENTENCE, _COPYRIGHT, _DENSITY, _CF, _N_STATS
cdef int _SPACE
cdef int _TABLE_SIZE, _PACKED_CHARS

cdef Py_ssize_t _slot_of(unsigned long long key, Py_ssize_t mask)

cdef double _MAX_LINK_DENSITY, _LENGTH_LOW, _LENGTH_HIGH

cpdef int _cf_class(
    double chars, double links, double density, bint flagged, double low, double high
)

@cython.locals(
    n=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, row=cython.int, size=Py_ssize_t,
    view=cython.double[:, ::1], table=cython.uchar[::1], slots=cython.int[::1],
    keys=cython.ulonglong[::1], lengths=cython.int[::1], starts=cython.int[::1], entries=str,
    mask=Py_ssize_t, counting=cython.bint, scan_tokens=cython.bint, token_ascii=cython.bint,
    digits=Py_ssize_t, upper=Py_ssize_t, punct=Py_ssize_t, ends=Py_ssize_t, letters=Py_ssize_t,
    marks=Py_ssize_t, flags=cython.int, tokens=Py_ssize_t, stops=Py_ssize_t,
    token_start=Py_ssize_t, length=Py_ssize_t, slot=Py_ssize_t, e=cython.int,
    first=Py_ssize_t, j=Py_ssize_t, key=cython.ulonglong, c=cython.uint, d=cython.uint,
    text=str, padded=str, ch=Py_UCS4, words=Py_ssize_t, stopwords=Py_ssize_t,
    low=cython.double, high=cython.double,
)
cpdef object _block_stats_loop(object fields, object stoplist)

@cython.locals(
    n=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, view=cython.double[::1], prefix=cython.longlong,
    low=cython.longlong, best=cython.longlong, end_low=cython.longlong, end=Py_ssize_t,
    start=Py_ssize_t, total=cython.longlong, within=cython.longlong, run=cython.longlong,
)
cpdef object _bte_fractions(object runs_per_block, object words)
