"""The library owns its BLAS thread use: one thread during inference, the caller's pools after.

Each check runs in a fresh interpreter without the BLAS thread variables, as a notebook or a
Spark task would import the library, so the pools start at the machine's default size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from pipeline.threads import BLAS_THREAD_VARIABLES
from tests.jobhelpers import REPO


def _run(code: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


PAGE = (
    "<html><body><nav><a href='/'>Home</a> <a href='/a'>About</a></nav>"
    + "".join(
        f"<p>Paragraph {i} of the article says something about the river and the town, "
        "which is long enough to be read as running text by any cleaner.</p>"
        for i in range(12)
    )
    + "<footer>Copyright 2026, all rights reserved.</footer></body></html>"
)


def test_inference_runs_on_one_blas_thread_and_gives_the_callers_pool_back() -> None:
    out = _run(
        f"""
        import json
        import numpy as np
        from threadpoolctl import threadpool_info, threadpool_limits
        import pipeline
        from pipeline.learned.convnet import ConvNet, NetStack

        threadpool_limits(3, user_api="blas")  # the caller's own choice
        seen = []
        # The model runs its nets as one stack where it can, else one by one: watch both.
        def watch(cls):
            raw = cls.raw
            def spy(self, x):
                pools = [i for i in threadpool_info() if i["user_api"] == "blas"]
                seen.append([i["num_threads"] for i in pools])
                return raw(self, x)
            cls.raw = spy
        watch(ConvNet)
        watch(NetStack)
        result = pipeline.clean_html({PAGE!r}, cleaner="neighbours")
        after = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
        print(json.dumps({{"seen": seen, "after": after, "text": result.text}}))
        """
    )
    assert out["seen"], "the default model's nets did not run"
    assert all(counts and set(counts) == {1} for counts in out["seen"])
    assert out["after"] and set(out["after"]) == {3}
    assert "Paragraph 3 of the article" in out["text"]


def test_concurrent_sections_restore_the_pool_only_when_the_last_one_leaves() -> None:
    out = _run(
        """
        import json, threading
        import numpy as np
        from threadpoolctl import threadpool_info, threadpool_limits
        from pipeline.threads import one_blas_thread

        def blas():
            return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

        threadpool_limits(2, user_api="blas")
        a_inside, b_inside, a_left = threading.Event(), threading.Event(), threading.Event()
        log = {}

        def a():
            with one_blas_thread():
                a_inside.set()
                b_inside.wait()
            a_left.set()

        def b():
            a_inside.wait()
            with one_blas_thread():
                b_inside.set()
                a_left.wait()
                log["b after a left"] = blas()
            log["after both"] = blas()

        threads = [threading.Thread(target=a), threading.Thread(target=b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with one_blas_thread():
            with one_blas_thread():
                log["nested"] = blas()
            log["outer after inner"] = blas()
        log["end"] = blas()
        print(json.dumps(log))
        """
    )
    assert set(out["b after a left"]) == {1}
    assert set(out["after both"]) == {2}
    assert set(out["nested"]) == {1}
    assert set(out["outer after inner"]) == {1}
    assert set(out["end"]) == {2}


@pytest.mark.parametrize("threads", [1, 2])
def test_probabilities_do_not_depend_on_the_callers_pool(threads: int) -> None:
    out = _run(
        f"""
        import json
        from threadpoolctl import threadpool_limits
        import pipeline
        threadpool_limits({threads}, user_api="blas")
        result = pipeline.clean_html({PAGE!r}, cleaner="neighbours")
        print(json.dumps([b.score for b in result.blocks]))
        """
    )
    reference = _run(
        f"""
        import json
        from threadpoolctl import threadpool_limits
        import pipeline
        with threadpool_limits(1, user_api="blas"):
            result = pipeline.clean_html({PAGE!r}, cleaner="neighbours")
        print(json.dumps([b.score for b in result.blocks]))
        """
    )
    assert out == reference
