# Cython declarations for pipeline/render/blocks.py, used only when the module is compiled (see
# hatch_build.py); the .py file stays the one source of the logic and runs as it is otherwise.
# The Markdown accumulator becomes an extension type whose fields are C fields and whose methods
# the render loop calls as C functions; the per-block helpers likewise.

cdef class _Markdown:
    cdef public list out, stack
    cdef public set marked
    cdef public Py_ssize_t stack_quote, prev_quote, budget, size
    cdef public bint prev_list, full

    cpdef _add(self, str piece)
    cpdef emit_plain(self, str body)
    cpdef emit(self, object shape, list lines)

cpdef str _escape(str s)
cpdef str _escape_inline(str s, str special=*)
cpdef object _paragraph(object s, str text, list spans, str special=*)
cpdef _note_spans(list spans, set flags)
