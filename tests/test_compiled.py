"""The compiled build of the hot modules behaves exactly like their Python source.

`pipeline.html.walk` is compiled with Cython when the install can (hatch_build.py). The compiled
module must give the same blocks as the ``.py`` it was built from, on every input, and so must
`pipeline.html.segment.segment` (the C walk over lexbor's structs, where it is active); the
source is loaded here under another name so both run side by side. Without a compiled build these
comparisons skip with a reason, unless WARCCLEAN_REQUIRE_COMPILED=1 (set by .ci/run) makes a
missing build a failure, so CI cannot quietly fall back to testing pure Python only.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline.html.segment
import pipeline.html.walk
from pipeline import compiled
from pipeline.compiled import StaleBuildError, check_fresh, compiled_modules


@pytest.fixture(scope="module")
def pure_walk() -> ModuleType:
    if not compiled_modules()["pipeline.html.walk"]:
        if os.environ.get("WARCCLEAN_REQUIRE_COMPILED") == "1":
            pytest.fail("pipeline.html.walk is not compiled but WARCCLEAN_REQUIRE_COMPILED=1")
        pytest.skip("pipeline.html.walk is not compiled here (no C compiler at install time)")
    module = compiled.load_source("pipeline.html.walk")
    assert not compiled.is_compiled_file(module.__file__)
    return module


def _both(pure: ModuleType, html: str | bytes) -> None:
    tree = pipeline.html.segment.parse(html)
    for runs in (False, True):
        expected = pure.walk(tree.root, None, runs, None)
        assert pipeline.html.walk.walk(tree.root, None, runs, None) == expected
        assert pipeline.html.segment.segment(tree, record_runs=runs) == expected


BUILT_PAGES = [
    "<html><head><title>t</title></head><body><p>One <b>two</b> <i>three</i></p></body></html>",
    "<div class='a  b'>x<div class=c>y</div>z</div><p>after<br><br>split <a href=/>link</a></p>",
    "<h1>Head</h1><p>text <a>in <b>link</b></a> out</p><script>no</script>",
    "<noscript><p>kept</p></noscript><h3><div>heading block</div></h3><dl><dt>t<dd>d</dl>",
    "<table><tr><td>a</td><td>b<br>c</td></tr></table><ul><li>one<li>two</ul><select>s</select>",
    "<p>line\none\r\ntwo</p><pre>  keep\n\n  lines </pre><form><input value=x>f</form>",
    "<custom-el data-x='1'>c<other-el>d</other-el></custom-el><template><p>t</p></template>",
    "<p>中文的段落，没有空格。</p><p>ภาษาไทยไม่มีช่องว่าง</p><p>© 2024</p>",
    "<?php echo 1; ?><body><!-- c --><p>x</p><iframe>src</iframe><object><p>o</p></object>",
    "<div>" * 3000 + "deep" + "</div>" * 3000,
    # Word counts for BTE runs and link lengths are counted by a character loop when compiled:
    # whitespace beyond ASCII space, non-ASCII words and unspaced scripts, in and out of links.
    "<p>a\x1cb\x1dc\x1ed\x1ff\x0bg\x0ch\x85i\xa0j\u2028k\u3000l\u200bm</p>",
    "<p><a href=x>\xa0 caf\xe9 \u2019quoted\u2019 \u2014 dash </a> \u3000\u00e9t\u00e9 </p>",
    "<p>mixed English and \u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22 <a>\u4e2d\u6587 link</a></p>",
    "<p>\u0391\u03a3 \u0130stanbul \u0434\u043e\u043c <b>\u05e9\u05dc\u05d5\u05dd</b></p>",
]


@pytest.mark.parametrize("html", BUILT_PAGES)
def test_compiled_segment_matches_source_on_built_pages(pure_walk: ModuleType, html: str) -> None:
    _both(pure_walk, html)


_TAGS = ["p", "div", "a", "b", "br", "h2", "li", "ul", "td", "tr", "table", "span", "script",
         "form", "select", "pre", "noscript", "iframe", "img", "x-y"]  # fmt: skip
_pieces = st.one_of(
    st.sampled_from([f"<{t}>" for t in _TAGS] + [f"</{t}>" for t in _TAGS]),
    st.sampled_from(['<p class="k l">', "<a href='u'>", "<br><br>", "<!-- c -->", " ", "\n"]),
    st.text(max_size=12),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_pieces, max_size=40).map("".join))
def test_compiled_segment_matches_source_on_random_markup(pure_walk: ModuleType, html: str) -> None:
    _both(pure_walk, html)


# Every kind of whitespace str.split knows, next to ASCII, accented, Greek and unspaced letters.
_TEXT_CHARS = list(" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u2028\u202f\u3000\u200b")
_TEXT_CHARS += list("ab.\xe9\u0130\u03a3\u2019\u2014\u0e01\u4e2d\u3042\U00020000")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["<p>", "<a href=u>", "</a>", "<b>", "</b>", "<br><br>", "</p>"]),
            st.text(alphabet=st.sampled_from(_TEXT_CHARS), max_size=12),
        ),
        max_size=30,
    ).map("".join)
)
def test_compiled_word_counts_match_source_on_any_whitespace(
    pure_walk: ModuleType, html: str
) -> None:
    _both(pure_walk, html)


@pytest.mark.shared
def test_compiled_segment_matches_source_on_wcxb(pure_walk: ModuleType, wcxb_dir: Path) -> None:
    paths = sorted((wcxb_dir / "html").glob("*.html.gz"))
    for path in random.Random(7).sample(paths, min(150, len(paths))):
        _both(pure_walk, gzip.decompress(path.read_bytes()))


def _fake_build(tmp_path: Path, source: bytes) -> tuple[Path, Path]:
    src = tmp_path / "mod.py"
    src.write_bytes(source)
    ext = tmp_path / "mod.cpython-311-x86_64-linux-gnu.so"
    ext.write_bytes(b"\x7fELF")
    return src, ext


def test_check_fresh_accepts_an_extension_built_from_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, ext = _fake_build(tmp_path, b"x = 1\n")
    digest = hashlib.sha256(b"x = 1\n").hexdigest()
    monkeypatch.setattr(compiled, "_recorded", lambda: {"pkg.mod": digest})
    check_fresh("pkg.mod", str(ext))


def test_check_fresh_rejects_an_extension_older_than_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, ext = _fake_build(tmp_path, b"x = 2\n")
    monkeypatch.setattr(
        compiled, "_recorded", lambda: {"pkg.mod": hashlib.sha256(b"x = 1\n").hexdigest()}
    )
    with pytest.raises(StaleBuildError, match=r"mod\.py has changed since .*pip install -e"):
        check_fresh("pkg.mod", str(ext))
    # An extension with no build record at all cannot be trusted either.
    monkeypatch.setattr(compiled, "_recorded", dict)
    with pytest.raises(StaleBuildError):
        check_fresh("pkg.mod", str(ext))


def test_check_fresh_checks_a_compiled_only_module_against_its_pyx(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mod.pyx").write_bytes(b"x = 1\n")
    ext = tmp_path / "mod.cpython-311-x86_64-linux-gnu.so"
    ext.write_bytes(b"\x7fELF")
    monkeypatch.setattr(
        compiled, "_recorded", lambda: {"pkg.mod": hashlib.sha256(b"x = 1\n").hexdigest()}
    )
    check_fresh("pkg.mod", str(ext))
    # A C header beside it is part of what it was built from (lexbor_layout.h).
    (tmp_path / "layout.h").write_bytes(b"struct s { int a; };\n")
    with pytest.raises(StaleBuildError, match=r"mod\.pyx \(or a C header beside it\) has changed"):
        check_fresh("pkg.mod", str(ext))
    (tmp_path / "layout.h").unlink()
    (tmp_path / "mod.pyx").write_bytes(b"x = 2\n")
    with pytest.raises(StaleBuildError, match=r"mod\.pyx \(or a C header beside it\) has changed"):
        check_fresh("pkg.mod", str(ext))


def test_check_fresh_ignores_source_modules(tmp_path: Path) -> None:
    src, _ = _fake_build(tmp_path, b"x = 1\n")
    check_fresh("pkg.mod", str(src))
    check_fresh("pkg.mod", None)


def test_the_running_segment_module_is_fresh() -> None:
    # Importing it ran the same check; this states it for whoever reads the test output.
    check_fresh("pipeline.html.walk", pipeline.html.walk.__file__)
    if compiled_modules()["pipeline.html.lexbor_walk"]:
        from pipeline.html import lexbor_walk

        check_fresh("pipeline.html.lexbor_walk", lexbor_walk.__file__)
    assert set(compiled_modules()) == set(compiled.COMPILABLE)


def test_compilable_list_matches_the_build_configuration() -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    config = tomllib.loads((compiled.PACKAGE_DIR.parent / "pyproject.toml").read_text("utf-8"))
    modules = config["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]["modules"]
    names = [m.removesuffix(".py").removesuffix(".pyx").replace("/", ".") for m in modules]
    assert names == list(compiled.COMPILABLE)


def test_compiled_segment_walks_lexbor_structs() -> None:
    """A compiled build segments with the C walk over lexbor's structs (lexbor_walk.pyx), not
    through selectolax's Python API; CI requires it, like every other compiled module."""
    built = compiled_modules()
    if not (built["pipeline.html.walk"] and built["pipeline.html.lexbor_walk"]):
        if os.environ.get("WARCCLEAN_REQUIRE_COMPILED") == "1":
            pytest.fail(f"compiled modules missing but WARCCLEAN_REQUIRE_COMPILED=1: {built}")
        pytest.skip("pipeline.html.walk or pipeline.html.lexbor_walk is not compiled here")
    status = pipeline.html.segment.c_walk_status()
    if status != "active" and os.environ.get("WARCCLEAN_PURE_WALK") == "1":
        pytest.skip("WARCCLEAN_PURE_WALK=1 turns the C walk off")
    assert status == "active"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="python -P (safe path) is new in 3.11")
def test_children_import_this_pipeline_not_one_in_their_working_directory(tmp_path: Path) -> None:
    # A job started in a source checkout beside a regular install: the working directory holds
    # another `pipeline` package. The supervised and sandbox children must import the parent's.
    decoy = tmp_path / "pipeline"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise ImportError('the decoy in the working directory')\n")
    env = {**os.environ, "PYTHONPATH": str(compiled.PACKAGE_DIR.parent)}
    probe = compiled.child_command("pipeline.compiled")
    run = subprocess.run(probe, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # Without the safe path the decoy wins: what the children did before.
    plain = [a for a in probe if a != "-P"]
    run = subprocess.run(plain, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode != 0 and "the decoy in the working directory" in run.stderr
