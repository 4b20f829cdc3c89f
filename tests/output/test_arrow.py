"""`pipeline.output.arrow.skip_pandas_probe`: pyarrow without its pandas import.

Each check runs in a fresh interpreter: the probe is settled once per process, and the test
process may already have imported pandas through another test.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("pandas")  # without pandas installed there is nothing to skip


def run(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_arrays_tables_and_parquet_without_importing_pandas() -> None:
    out = run(
        """
        import io, sys
        import pyarrow as pa, pyarrow.parquet as pq
        from pipeline.output.arrow import skip_pandas_probe
        print(skip_pandas_probe(), skip_pandas_probe())
        table = pa.table({"a": pa.array([1, 2]), "s": pa.array(["x", None])})
        buf = io.BytesIO()
        pq.write_table(table, buf)
        # Without threads: pyarrow 26 aborts at exit, about one run in two, after a threaded
        # read_table from a Python file object (apache/arrow#50482), whatever pandas does.
        back = pq.read_table(io.BytesIO(buf.getvalue()), use_threads=False)
        assert back.equals(table)
        assert list(back["s"].to_numpy(zero_copy_only=False)) == ["x", None]
        print("pandas" in sys.modules)
        """
    )
    assert out.splitlines() == ["True True", "False"]


def test_pandas_still_works_when_asked_for() -> None:
    out = run(
        """
        import pyarrow as pa
        from pipeline.output.arrow import skip_pandas_probe
        skip_pandas_probe()
        frame = pa.table({"a": [1, 2, None]}).to_pandas()
        import pandas as pd
        print(type(frame).__name__, frame["a"].isna().sum())
        print(pa.array(pd.Series([1.5, None])).to_pylist())
        print(pa.Table.from_pandas(pd.DataFrame({"b": ["u"]})).column_names)
        """
    )
    assert out.splitlines() == ["DataFrame 1", "[1.5, None]", "['b']"]


def test_a_process_that_imported_pandas_is_left_alone() -> None:
    out = run(
        """
        import pandas as pd, pyarrow as pa
        from pipeline.output.arrow import skip_pandas_probe
        print(skip_pandas_probe())
        print(pa.array(pd.Series([1, None], dtype="Int64")).to_pylist())
        """
    )
    assert out.splitlines() == ["False", "[1, None]"]
