# Cython declarations for pipeline/learned/treewalk.py, used only when the module is compiled (see
# hatch_build.py); the .py file stays the one source of the logic. Typed memoryviews make each
# step of a walk an array read and a compare instead of several Python object operations.
import cython

@cython.locals(n=Py_ssize_t, trees=Py_ssize_t, i=Py_ssize_t, t=Py_ssize_t, node=Py_ssize_t, _=Py_ssize_t, go_left=Py_ssize_t)
cdef void _walk(
    const double[:, ::1] x, const Py_ssize_t[::1] feature, const double[::1] threshold,
    const Py_ssize_t[::1] left, const Py_ssize_t[::1] right, const double[::1] value,
    const Py_ssize_t[::1] roots, double baseline, Py_ssize_t depth, double[::1] out,
)

@cython.locals(
    n=Py_ssize_t, internal=Py_ssize_t, i=Py_ssize_t, t=Py_ssize_t, base=Py_ssize_t, leaf=Py_ssize_t,
    node=Py_ssize_t, _=Py_ssize_t, go_right=Py_ssize_t, total=double,
    a=Py_ssize_t, b=Py_ssize_t, c=Py_ssize_t, d=Py_ssize_t, e=Py_ssize_t, f=Py_ssize_t, g=Py_ssize_t,
    h=Py_ssize_t, s0=double, s1=double, s2=double, s3=double, s4=double, s5=double, s6=double,
    s7=double,
)
cdef void _walk_complete(
    const double[:, ::1] x, const Py_ssize_t[::1] feature, const double[::1] threshold,
    const double[::1] leaves, Py_ssize_t trees, double baseline, Py_ssize_t depth,
    double[::1] out,
)
