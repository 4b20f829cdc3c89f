"""pyarrow without its pandas import, in the processes this package runs itself.

pyarrow imports pandas, when it is installed, the first time a Python list becomes an array:
`pyarrow.array` first asks whether the list is a pandas object, and answering loads pandas (a
fifth to a third of a second of CPU, 230 ms measured beside a job's client). This package never
hands pyarrow a pandas object, yet paid that in every supervised child and in every run report.
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any

import pyarrow as pa


def skip_pandas_probe() -> bool:
    """Settle pyarrow's "is pandas installed?" probe as "no" without importing pandas.

    Nothing changes when pandas is already imported (the probe then finds it, as always) or
    the probe has already run. Afterwards pyarrow treats no object as a pandas one,
    and still imports pandas when it is really asked for (``Table.to_pandas``).

    Only for processes this package owns (the supervised child, the job's client once its
    cluster is closed): for the instant the probe runs, ``import pandas`` fails, so a
    thread of someone else's program importing pandas at that moment would fail with it.
    Returns whether pandas stayed unimported.
    """
    if "pandas" in sys.modules:
        return False
    finder = _NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        pa.array([0])  # the first conversion of a list runs the probe
    finally:
        sys.meta_path.remove(finder)
    return "pandas" not in sys.modules


class _NoPandas(importlib.abc.MetaPathFinder):
    """Fails ``import pandas``: pyarrow's probe records the ImportError as "pandas not
    installed" and does not ask again (pyarrow's pandas-shim.pxi)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname == "pandas":
            raise ModuleNotFoundError("skipped: pyarrow's pandas probe", name=fullname)
