# Cython declarations for pipeline/html/walk.py, used only when the module is compiled (see
# hatch_build.py); the .py file stays the one source of the logic and runs as it is otherwise.
# Typing the walk's counters and flags as C integers is where compiling pays: every node runs
# a dozen integer tests and updates on them.
import cython

from pipeline.html.structure cimport ShapeTracker

# The walk's tag flags, as C constants so that each flag test is one machine instruction.
cdef int _BLOCK, _KILLED, _UNWRAPPED, _VOID, _HEADING, _BR, _LINK, _SHAPE, _SPECIAL, _SKIPPED
cdef int _LINE_SPAN
cdef int _PRE_MASK, _CUE_SHIFT
cdef bint _COMPILED
cdef bytes _UNSPACED_BMP
cdef Py_ssize_t _UNSPACED_FROM, _IDS_LISTED
cdef int _CONTROLS, _MOJIBAKE, _MOJIBAKE_ANY, _MOJIBAKE_FIRST_LEAD, _MOJIBAKE_LAST_LEAD
cdef int _MOJIBAKE_PLAIN, _MOJIBAKE_SYMBOL
cdef dict _MOJIBAKE_CONTINUATION

@cython.locals(
    limit=Py_ssize_t, seen=Py_ssize_t, checkpoint=Py_ssize_t, kind=cython.int, size=Py_ssize_t, headings_open=Py_ssize_t,
    link_depth=Py_ssize_t, br=cython.bint, link_chars=Py_ssize_t, tags=Py_ssize_t,
    markup=Py_ssize_t, block_depth=Py_ssize_t, heading=cython.bint, record_runs=cython.bint,
    pieces=list, path=list, styles=list, entered=list, blocks=list, tags_seen=dict, kinds=dict,
    style_texts=dict, run=Py_ssize_t, n=Py_ssize_t, attrs=dict, name=str, entered_kinds=list,
    tag_id=Py_ssize_t, text_id=Py_ssize_t, by_id=list, content=str, style_cues=list,
    inherited=cython.int, cues=cython.int, ancestor_cues=cython.int, pre_depth=Py_ssize_t,
    code_depth=Py_ssize_t, code_start=Py_ssize_t, shape_due=cython.bint, pre_code=Py_ssize_t,
    pre_codes=Py_ssize_t,
    shaper=ShapeTracker,
)
cpdef list walk(object root, object max_nodes, bint record_runs, object deadline)

@cython.locals(n_words=Py_ssize_t)
cdef object _block(
    Py_ssize_t index, list pieces, str tag, str dom_path, object style, bint heading,
    Py_ssize_t link_chars, Py_ssize_t tags, Py_ssize_t markup, object runs, Py_ssize_t run,
    dict style_texts, int ancestor_cues, object shape, object pre_raw, object spans,
)

@cython.locals(n_words=Py_ssize_t, lines=list)
cdef tuple _normalized(str raw)

@cython.locals(n=Py_ssize_t, gap=cython.bint, ch=Py_UCS4)
cdef Py_ssize_t _spaced_words(str text)

@cython.locals(chars=Py_ssize_t, words=Py_ssize_t, gap=cython.bint, ch=Py_UCS4)
cdef Py_ssize_t _squeezed_length(str text)

# _path_string and _next_checkpoint are cimported by pipeline/html/lexbor_walk.pyx, so that both
# walks share them (the C walk restates _add_run on its C array of runs).
cdef str _path_string(list path)

@cython.locals(ch=Py_UCS4)
cdef bint _is_blank(str text)

@cython.locals(ch=Py_UCS4, o=cython.long, flags=cython.int, need=cython.int, accepts=cython.int)
cpdef int _text_flags(str text)

@cython.locals(flags=cython.int)
cpdef str node_text(str text)

cdef Py_ssize_t _add_run(Py_ssize_t run, Py_ssize_t n, list runs)

cdef Py_ssize_t _next_checkpoint(Py_ssize_t seen, Py_ssize_t limit)
