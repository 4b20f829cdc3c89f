# Cython declarations for pipeline/learned/stacked.py, used only when the module is compiled (see
# hatch_build.py); the .py file stays the one source of the logic and runs as it is otherwise.
# The row loop works on typed views over the preallocated float64 output and the int64 group ids.
import cython

@cython.locals(
    n=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, m=Py_ssize_t, w=Py_ssize_t, low=Py_ssize_t,
    high=Py_ssize_t, prefix=cython.double[::1], groups=cython.double[:, ::1],
)
cpdef _fill_stack_loop(
    double[:, ::1] out, double[::1] p, double[::1] weight, double[::1] weighted,
    long long[::1] path_ids, long long[::1] parent_ids, long long[::1] style_ids,
    long long[::1] spans,
)

cpdef tuple _stack_groups(list paths, list styles, list chars)
