# Cython declarations for pipeline/html/structure.py (see hatch_build.py): the tracker becomes an
# extension type whose methods the walks call as C functions (walk.pxd, lexbor_walk.pyx), and
# whose shape fields are C fields.

cdef class ShapeTracker:
    cdef public Py_ssize_t heading, item, table, row, col, quote, pre
    cdef public bint header
    cdef public str lists, code_lang
    cdef list _undo
    cdef Py_ssize_t _depth
    cdef object _cached
    cdef bint _stale
    cdef public list tables
    cdef public Py_ssize_t item_serial, table_serial, pre_serial

    cpdef enter(self, str tag)
    cpdef leave(self)
    cpdef name_language(self, str language)
    cpdef object current(self)
