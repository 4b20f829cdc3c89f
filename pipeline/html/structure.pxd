# Cython declarations for pipeline/html/structure.py (see hatch_build.py): the tracker becomes an
# extension type whose methods the walks call as C functions (walk.pxd, lexbor_walk.pyx).

cdef class ShapeTracker:
    cdef public object shape
    cdef list _saved
    cdef list _open
    cdef public list tables
    cdef public Py_ssize_t item_serial, table_serial, pre_serial

    cpdef enter(self, str tag)
    cpdef leave(self)
    cpdef name_language(self, str language)
    cpdef object current(self)
