# Cython declarations for pipeline/site/keys.py, used only when the module is compiled (see
# hatch_build.py); the .py file stays the one source of the logic and runs as it is otherwise.
# The hash is one C loop over each text's code points, in 64-bit unsigned arithmetic (which wraps
# as the Python source's mask does).
import cython
from libc.stdint cimport uint64_t

cdef uint64_t _OFFSET, _PRIME, _MASK

@cython.locals(h=uint64_t, c=uint64_t, started=cython.bint, space=cython.bint, ch=cython.Py_UCS4, s=str)
cpdef uint64_t _fnv(str text, bint fold_digits)

@cython.locals(h=uint64_t, c=cython.uchar, started=cython.bint, space=cython.bint)
cpdef uint64_t _fnv_ascii(bytes data, bint fold_digits)

@cython.locals(i=Py_ssize_t, view=uint64_t[::1])
cpdef _fill(list texts, object out, bint fold_digits)
