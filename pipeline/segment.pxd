# Cython declarations for pipeline/segment.py, used only when the module is compiled (see
# hatch_build.py); the .py file stays the one source of the logic and runs as it is otherwise.
# Typing the walk's counters and flags as C integers is where compiling pays: every node runs
# a dozen integer tests and updates on them.
import cython

# The walk's tag flags, as C constants so that each flag test is one machine instruction.
cdef int _BLOCK, _KILLED, _UNWRAPPED, _VOID, _HEADING, _BR, _LINK, _SKIPPED

@cython.locals(
    limit=Py_ssize_t, seen=Py_ssize_t, checkpoint=Py_ssize_t, kind=cython.int, size=Py_ssize_t, headings_open=Py_ssize_t,
    link_depth=Py_ssize_t, br=cython.bint, link_chars=Py_ssize_t, tags=Py_ssize_t,
    markup=Py_ssize_t, block_depth=Py_ssize_t, heading=cython.bint, record_runs=cython.bint,
    pieces=list, path=list, styles=list, entered=list, blocks=list, tags_seen=dict, kinds=dict,
    style_texts=dict,
)
cpdef list segment(object html, object max_nodes=*, bint record_runs=*, object deadline=*)

@cython.locals(n_words=Py_ssize_t)
cdef object _block(
    Py_ssize_t index, list pieces, str tag, str dom_path, object style, bint heading,
    Py_ssize_t link_chars, Py_ssize_t tags, Py_ssize_t markup, object runs, dict style_texts,
)

@cython.locals(n_words=Py_ssize_t, lines=list)
cdef tuple _normalized(str raw)

cdef Py_ssize_t _next_checkpoint(Py_ssize_t seen, Py_ssize_t limit)
