# Cython declarations for pipeline/learned/netwalk.py, used only when the module is compiled (see
# hatch_build.py); the .py file stays the one source of the logic. Typed memoryviews over
# C-ordered rows make each loop over a row's channels plain array arithmetic that the compiler
# vectorises; `float` locals keep it in float32, as numpy's path runs it.
import cython

@cython.locals(n=Py_ssize_t, columns=Py_ssize_t, t=Py_ssize_t, c=Py_ssize_t, v=float, low=float)
cdef void _standardise(
    const double[:, ::1] x, const float[::1] mean, const float[::1] inverse_scale, float clip,
    float[:, ::1] z,
)

@cython.locals(nets=Py_ssize_t, n=Py_ssize_t, hidden=Py_ssize_t, t=Py_ssize_t, k=Py_ssize_t, base=Py_ssize_t, o=Py_ssize_t, v=float)
cdef void _bias_relu(const float[:, ::1] wide, const float[::1] bias, float[:, :, ::1] h)

@cython.locals(nets=Py_ssize_t, n=Py_ssize_t, hidden=Py_ssize_t, k=Py_ssize_t, t=Py_ssize_t, o=Py_ssize_t, v=float, left=bint, right=bint)
cdef void _conv_sums(float[:, :, ::1] h, const float[:, ::1] bias, Py_ssize_t d, float[:, :, ::1] p)

@cython.locals(nets=Py_ssize_t, n=Py_ssize_t, hidden=Py_ssize_t, k=Py_ssize_t, t=Py_ssize_t, i=Py_ssize_t, o=Py_ssize_t, page=Py_ssize_t, v=float, top=float, a=float, blocks=float, shared=float, wide=double)
cdef void _heads(
    const float[:, :, ::1] h, const float[:, :, ::1] w_page, const float[:, ::1] b_page,
    const float[:, ::1] w_pooled, const float[::1] b_out, const float[:, ::1] logit,
    float[::1] pooled, double[:, ::1] out,
)
