"""The C walk over lexbor's structs (pipeline/html/lexbor_walk.pyx) gives exactly the blocks of the
walk through selectolax's Python API, and `segment` falls back to that walk whenever it must.

The C walk exists only in a compiled build: without one these tests skip with a reason, unless
WARCCLEAN_REQUIRE_COMPILED=1 (CI) makes that a failure.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator
from functools import partial
from types import ModuleType

import pytest
import selectolax.lexbor
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline.html.segment as segment
import pipeline.html.walk as python_walk
from pipeline import compiled
from pipeline.errors import PageTooComplex
from pipeline.html import mojibake
from pipeline.html.math_images import may_be_math_image
from pipeline.html.tex_text import may_hold_tex


@pytest.fixture(scope="module")
def walk() -> ModuleType:
    try:
        import pipeline.html.lexbor_walk as lexbor_walk
    except ModuleNotFoundError:
        if os.environ.get("WARCCLEAN_REQUIRE_COMPILED") == "1":
            pytest.fail("pipeline.html.lexbor_walk is not built but WARCCLEAN_REQUIRE_COMPILED=1")
        pytest.skip("pipeline.html.lexbor_walk is not built here (no C compiler at install time)")
    return lexbor_walk


@pytest.fixture
def fresh_choice(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Let a test change what `c_walk_status` decides, and restore the decision after it."""
    monkeypatch.delenv("WARCCLEAN_PURE_WALK", raising=False)
    segment._reset_c_walk()
    yield
    monkeypatch.undo()
    segment._reset_c_walk()
    segment.c_walk_status()


def _c_walk(walk: ModuleType, tree: object, runs: bool, **kw: object) -> list | None:
    tex: list[int] = []
    blocks = walk.walk(
        tree,
        tree.root.mem_id,  # type: ignore[attr-defined]
        kw.get("max_nodes"),
        runs,
        kw.get("deadline"),
        python_walk._KINDS,
        PageTooComplex,
        tex,
    )
    if blocks is not None:
        # What segment.with_tex reads in place of a pass over every block's text.
        assert tex == [i for i, block in enumerate(blocks) if may_hold_tex(block.text)]
    return blocks


def test_the_c_walk_lists_the_blocks_that_may_hold_tex(walk: ModuleType) -> None:
    html = (
        "<p>Plain words.</p><p>Inline \\(x^2\\) here.</p><pre>C:\\temp</pre>"
        "<p>Tiers $, $$ or $$$.</p><p>One $ only.</p><div>a<code>b\\c</code>d</div>"
    )
    tree = segment.parse(html)
    tex: list[int] = []
    blocks = walk.walk(
        tree, tree.root.mem_id, None, False, None, python_walk._KINDS, PageTooComplex, tex
    )
    assert [blocks[i].text for i in tex] == [
        "Inline \\(x^2\\) here.",
        "C:\\temp",
        "Tiers $, $$ or $$$.",
        "ab\\cd",
    ]


# Pages the C walk hands to the Python walk: math (only the Python walk turns it into LaTeX), and
# text that holds the characters the C walk marks inline code with. A page merely mentioning math
# in its text may still be walked in C.
_MATH = re.compile(r"<math\b|math/tex|mathjax|katex-html", re.I)
_MARKS = re.compile("[\ufdd0\ufdd1]")


def _same(walk: ModuleType, html: str | bytes, may_fall_back: bool = False) -> None:
    """Both walks give the same blocks; ``may_fall_back``: or the C walk hands the page over
    (random bytes can make attribute names that are not UTF-8) and `segment` still agrees. A page
    holding math, or the characters that mark inline code, may be handed over for that reason."""
    tree = segment.parse(html)
    source = html.decode("utf-8", "replace") if isinstance(html, bytes) else html
    for runs in (False, True):
        walk.reset_fallback_counts()
        expected = python_walk.walk(tree.root, None, runs, None)
        got = _c_walk(walk, tree, runs)
        # A page may give both reasons; the walk names the first it meets.
        reasons = [
            reason
            for reason, found in (
                ("math", _MATH.search(source)),
                ("text holds the code marks", _MARKS.search(source)),
                ("math image", any(may_be_math_image(i.attributes) for i in tree.css("img"))),
                ("mojibake", _holds_mojibake(tree)),
            )
            if found
        ]
        if got is None and reasons:
            assert walk.fallback_counts() in [{reason: 1} for reason in reasons]
        elif got is None and may_fall_back:
            assert walk.fallback_counts().get("attribute name not UTF-8")
        else:
            assert got is not None, "the C walk gave up on this page"
            assert got == expected
        assert segment.segment(tree, record_runs=runs) == expected


def _holds_mojibake(tree: selectolax.lexbor.LexborHTMLParser) -> bool:
    return any(
        node.tag == "-text" and mojibake.holds_mojibake(node.text_content or "")
        for node in tree.root.traverse(include_text=True)
    )


def test_the_c_walk_is_active_in_a_compiled_build(walk: ModuleType) -> None:
    assert segment.c_walk_status() == "active"
    # Every predefined element id (7 to 198 in lexbor 3.1; 6 names processing instructions,
    # which are never elements) and attribute id (1 to 72) has a learned name.
    assert walk.learned_ids() == (192, 72)


def test_flags_and_constants_agree_with_the_python_source(walk: ModuleType) -> None:
    source = compiled.load_source("pipeline.html.walk")
    for name, value in walk.FLAGS.items():
        assert getattr(source, name) == value, name
    assert source._UNSPACED_FROM == walk.UNSPACED_FROM


BUILT_PAGES = [
    "<html><head><title>t</title></head><body><p>One <b>two</b> <i>three</i></p></body></html>",
    "<div class='a  b'>x<div class=c>y</div>z</div><p>after<br><br>split <a href=/>link</a></p>",
    "<p>fo<b>o</b>bar <i>\n</i>baz\n<b> </b>qux</p><p>a<!-- c -->b</p><p>a\r\nb\n\nc \t d</p>",
    "<DIV CLASS=Up ID=x Hidden DaTa-Y=''>upper</DIV><p class>bool</p><p class=''>empty</p>",
    "<p a=1 a=2 b=x B=y>duplicates</p><p \u00e9=\u00fc data-\u4e2d=\u6587>non-ASCII</p>",
    "<custom-el k=v>c<x-y class='q r'>d</x-y></custom-el><my:tag>colon</my:tag>"
    "<Foo-Bar>up</Foo-Bar>",
    "<svg viewBox='0 0 1 1'><foreignObject><p>in svg</p></foreignObject><clipPath>c</clipPath>"
    "<text xlink:href=x xml:lang=en>t</text><![CDATA[cd]]></svg><math definitionURL=u><mi>x</mi>",
    "<table><td>implied<tr><th>h<td>d</table><ul><li>one<li>two</ul><dl><dt>t<dd>d</dl>",
    "<template><p>t</p></template><script>s</script><style>s</style><noscript><p>n</p></noscript>",
    "<p>&amp; &lt;&gt; &nbsp; &#x1F600; &bogus; &copy &#0; &#xD800;</p>",
    "<p>\U0001f600 astral \U00020000\u4e2d\u6587 \u0e20\u0e32\u0e29\u0e32 <a>\u4e2d link</a></p>",
    "<p>a\x1cb\x1dc\x1ed\x1ff\x0bg\x0ch\x85i\xa0j\u2028k\u3000l\u200bm\u2029n</p>",
    # Controls are dropped as if never there, in text, links, <pre> and unspaced scripts.
    "<p>\x08a\x01b \x7f c\x80\x9f<b>\x08</b>d <a>\x1b x\x08</a>\x08 e</p><pre>\x08 a\x0b\x01</pre>"
    "<pre><code>x\x08</code><span>\x01</span></pre><p>\u4e2d\x08\u6587 \x85\x08</p><p>\x08</p>",
    "<p><a href=x>\xa0 caf\xe9 \u2014 </a> \u3000\u00e9t\u00e9 <a> \n x \n </a></p>",
    "<p>\xa0</p><p> \u3000 </p><div>\n<p>\n</p>\xa0<b>x</b>\u2028</div>",
    "<h1>Head</h1><h3><div>heading block</div></h3><h2><a>in <b>link</b></a> out</h2>",
    "<form><input value=x>f<select><option>o</select><textarea>t</textarea></form>"
    "<iframe>i</iframe>",
    "<object><p>o</p></object><embed src=e><applet>a</applet><button>b</button><hr><img alt=\xe9>",
    "<?php echo 1; ?><!DOCTYPE html><p>after a processing instruction</p>",
    # Formulas drawn as pictures go to the Python walk; pictures that only look like them stay.
    "<p>Let <img class=latex src='https://s0.wp.com/latex.php?latex=q' alt='q &lt; 1'> hold</p>",
    "<p><IMG CLASS='LaTeX' ALT='x'> and <img src='x.png' data-src='/cgi/mimetex.cgi?a'></p>",
    "<p><img src='vertex-ai.png' alt='$9K off' class='text-center'><img alt=$alt> photos</p>",
    "<p><img alt='$' src='data:image/png;base64,latex.php?'><img class='mathematics'>x</p>",
    # Mojibake goes to the Python walk, which repairs it; what only looks like it stays.
    "<p>isn&acirc;&euro;&trade;t <b>82.0\u00c2\u00b0</b> zapozna\u00c4\u2021 si\u00c4\u2122</p>",
    "<pre>x = '\u00c3\u00a9'</pre><p>a</p>",
    "<p>NESCAF\u00c9\u00ae \u00e9t\u00e9\u00a0\u00bb 2 \u00d7\u00a03 Gru\u00df\u201c</p>"
    "<p>\u00c3<b>\u00a9</b> \u00c3 \u00a9 \u00e2\u20ac x</p>",
    "<div>" * 2000 + "deep <b>bold</b>" + "</div>" * 2000,
    "<b>" * 300 + "<p>inline nesting</p>" + "</b>" * 300,
    "",
    "plain text, no markup at all",
    # Class cues of the enclosing elements (Block.ancestor_cues): the root's are not read, an
    # unwrapped form's are, the last of duplicate attributes wins, non-ASCII values go by
    # Python's str.lower() (U+212A KELVIN SIGN lower-cases to "k").
    "<html class=nav><body class='post-body'><div id=Sidebar><form class=search-form><p>in</p>"
    "</form><div class='Reviews-list'><p class=footer>r</p>tail<br><br>more</div></div></body>",
    "<div class='a' class='footer'><p>dup</p></div><div id='' class><p>empty</p></div>",
    "<div class='\u212aomment-\u0130tem caf\u00e9-menu'><p>non-ASCII</p></div>"
    "<div class='x-tooltip_popover tipster veryveryverylongwordpiece-ad'><p>t</p></div>",
    # A page's repeated class and id values: their cues are worked out once (`_cached_cue_bits`).
    # Values equal in their first 8 or 16 bytes, a class equal to an id, a change of case, the
    # same non-ASCII value twice, and more distinct values than the cache's first table holds.
    "".join(
        f"<div class='{c}' id='{i}'><p class='{c}'>{k}</p></div>"
        for k, (c, i) in enumerate(
            [
                ("site-footer", "site-footer"),
                ("site-footer", "main"),
                ("site-footeR", "Main"),
                ("menu-item-1 nav", "menu-item-2 nav"),
                ("abcdefghijklmnop-comment", "abcdefghijklmnop-content"),
                ("\u212aomment caf\u00e9", "\u212aomment caf\u00e9"),
                ("", "x"),
            ]
            * 3
        )
    )
    + "".join(f"<div class='widget w{k}'><p id='related-{k}'>{k}</p></div>" for k in range(700)),
]


@pytest.mark.parametrize("html", BUILT_PAGES)
def test_c_walk_matches_python_walk_on_built_pages(walk: ModuleType, html: str) -> None:
    _same(walk, html)


@pytest.mark.parametrize(
    "data",
    [
        b"<p>caf\xe9 latin-1 byte</p>",
        b"<p>split \xe4\xb8</p><p>\xad sequence</p>",
        b"<p>a<b>\xe4\xb8</b>\xad b</p>",  # a sequence cut across two text nodes
        b"<p class='\xff\xfe'>bad attribute value</p>",
        b"<p>\xed\xa0\x80 surrogate \xf4\x90\x80\x80 too large \xc0\xaf overlong</p>",
        b"<x-\xff>bad tag name</x-\xff>",
    ],
)
def test_c_walk_matches_python_walk_on_invalid_utf8(walk: ModuleType, data: bytes) -> None:
    _same(walk, data)


_TAGS = (
    "p div a b br h2 li ul td tr table span script style template noscript form select pre "
    "iframe img x-y Custom-Tag DIV svg math object textarea foreignObject dl dd code kbd tt ol "
    "blockquote th thead"
).split()
_ATTRIBUTES = st.sampled_from(
    [
        "",
        " hidden",
        " class",
        " class=''",
        " class='k  l'",
        " CLASS=U",
        " id=x id=y",
        " data-\u00e9=\u00fc",
        " title='\u4e2d\u6587'",
        ' href="/a?b=1&amp;c"',
        " a b c=d",
        " xlink:href=x",
        " \u00e9",
        " class='site-Footer__links'",
        " id=main-NAV",
        " class='review\u0130tem \u212aomment'",
        " class='TOOLTIP x' id=comments",
        # Formulas drawn as pictures, and pictures that only look like them.
        " class=latex alt='x^2'",
        " src='https://s0.wp.com/latex.php?latex=x'",
        " alt='$\\alpha$'",
        " data-src='https://latex.codecogs.com/png.latex?a+b'",
        " class='ql-img-inline-formula' alt='\\frac{1}{2}'",
        " src='vortex-logo.png' class='text-center' alt='$9 off'",
        " src='/_images/math/ab.png' alt='y'",
    ]
)
_TEXT = st.lists(
    st.sampled_from(
        list(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000\u200b")
        # controls, which both walks drop: C0, DEL, C1
        + list("\x00\x01\x08\x1b\x7f\x80\x9f")
        + list("ab.,\xe9\u0130\u2019\u0e01\u4e2d\u3042\U0001f600\U00020000<>\ufdd0")
        + ["&amp;", "&nbsp;", "&#x1F600;", "&bogus;"]
        # mojibake (the C walk hands the page over) and what only looks like it
        + ["\u00c3", "\u00a9", "\u00c4\u2122", "\u00e2\u20ac", "\u2122", "\u00c9\u00ae"]
    ),
    max_size=10,
).map("".join)
_PIECES = st.one_of(
    st.builds(lambda t, a: f"<{t}{a}>", st.sampled_from(_TAGS), _ATTRIBUTES),
    st.sampled_from([f"</{t}>" for t in _TAGS]),
    st.sampled_from(["<br><br>", "<!-- c -->", "<![CDATA[x]]>", "<?pi?>", "<td>", "<li>"]),
    st.builds(lambda n: "<div><b>" * n, st.integers(0, 40)),
    _TEXT,
)


@settings(max_examples=120, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_c_walk_matches_python_walk_on_random_markup(walk: ModuleType, html: str) -> None:
    _same(walk, html)


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=40), st.binary(max_size=40))
def test_c_walk_matches_python_walk_on_random_bytes(
    walk: ModuleType, left: bytes, right: bytes
) -> None:
    page = b"<p>" + left + b"<b class=" + right[:6] + b">" + right + b"</b>" + left + b"</p>"
    _same(walk, page, may_fall_back=True)


def _outcome(fn: object) -> object:
    try:
        return fn()  # type: ignore[operator]
    except PageTooComplex as exc:
        return ("too complex", str(exc))


@pytest.mark.parametrize("max_nodes", [1, 2, 5, 17, 60, 4096, 4097, 5000])
def test_node_cap_stops_both_walks_at_the_same_node(walk: ModuleType, max_nodes: int) -> None:
    tree = segment.parse("<div><p>x <b>y</b></p>" * 1200 + "</div>")
    for runs in (False, True):
        expected = _outcome(partial(python_walk.walk, tree.root, max_nodes, runs, None))
        got = _outcome(partial(_c_walk, walk, tree, runs, max_nodes=max_nodes))
        assert got == expected


class _CountingDeadline:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def check(self, stage: str) -> None:
        self.calls.append(stage)


def test_deadline_is_checked_at_the_same_nodes(walk: ModuleType) -> None:
    tree = segment.parse("<p>x <b>y</b> z</p>" * 5000)
    python_deadline, c_deadline = _CountingDeadline(), _CountingDeadline()
    python_walk.walk(tree.root, None, False, python_deadline)
    _c_walk(walk, tree, False, deadline=c_deadline)
    assert c_deadline.calls == python_deadline.calls
    assert len(c_deadline.calls) >= 4


@pytest.mark.parametrize(
    "data",
    [
        b"<p \xc3=x>bad name</p>",
        # Two names that decode to the same "a\ufffd": selectolax's attribute dict keeps one,
        # so the element's markup size counts one (found by fuzzing real pages with byte flips).
        b"<div><p a\xff=1 a\xfe=22 class=c>text here</p></div>",
    ],
)
def test_attribute_names_that_are_not_utf8_fall_back_to_the_python_walk(
    walk: ModuleType, data: bytes
) -> None:
    tree = segment.parse(data)
    expected = python_walk.walk(tree.root, None, True, None)
    walk.reset_fallback_counts()
    assert _c_walk(walk, tree, True) is None
    assert walk.fallback_counts() == {"attribute name not UTF-8": 1}
    assert segment.segment(tree, record_runs=True) == expected


@pytest.mark.parametrize(
    ("html", "handed_over"),
    [
        ("<p>isn&acirc;&euro;&trade;t</p>", True),
        ("<p>a</p><pre>\u00d0\u00a1\u00d0\u00bb</pre>", True),
        ("<p>zapozna\u00c4\u2021</p>", True),
        ("<p>NESCAF\u00c9\u00ae, \u00e9t\u00e9\u00a0\u00bb, Gru\u00df\u201c</p>", False),
        ("<p>\u00c3<b>\u00a9</b>, \u00c3 \u00a9, caf\u00e9\u2019s</p>", False),
        ("<script>x='\u00c3\u00a9'</script><p title='\u00c3\u00a9'>a</p>", False),
    ],
)
def test_text_with_mojibake_is_handed_to_the_python_walk(
    walk: ModuleType, html: str, handed_over: bool
) -> None:
    tree = segment.parse(html)
    walk.reset_fallback_counts()
    got = _c_walk(walk, tree, False)
    assert (got is None) == handed_over
    assert walk.fallback_counts() == ({"mojibake": 1} if handed_over else {})
    expected = python_walk.walk(tree.root, None, False, None)
    assert segment.segment(tree) == expected
    if not handed_over:
        assert got == expected


def test_unknown_tag_id_falls_back_to_the_python_walk(walk: ModuleType) -> None:
    tree = segment.parse("<p>one <b>two</b></p><section>three</section>")
    tag_id = tree.css_first("section").tag_id
    expected = python_walk.walk(tree.root, None, True, None)
    walk.reset_fallback_counts()
    old = walk._set_tag_name(tag_id, None)
    try:
        assert _c_walk(walk, tree, True) is None
        assert segment.segment(tree, record_runs=True) == expected
    finally:
        walk._set_tag_name(tag_id, old)
    assert walk.fallback_counts() == {"unknown tag id": 2}
    assert _c_walk(walk, tree, True) == expected


def test_pure_walk_variable_forces_the_python_walk(
    walk: ModuleType, fresh_choice: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WARCCLEAN_PURE_WALK", "1")
    assert segment.c_walk_status() == "off: WARCCLEAN_PURE_WALK=1"
    calls: list[object] = []
    monkeypatch.setattr(walk, "walk", lambda *a: calls.append(a))
    tree = segment.parse(BUILT_PAGES[1])
    assert segment.segment(tree) == python_walk.walk(tree.root, None, False, None)
    assert segment.segment(tree)
    assert not calls


def test_other_lexbor_version_disables_the_c_walk(
    walk: ModuleType, fresh_choice: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(selectolax.lexbor, "LEXBOR_VERSION_MINOR", walk.LAYOUT_VERSION[1] + 1)
    with pytest.warns(RuntimeWarning, match=r"lexbor 3\.2, the C walk declares .* lexbor 3\.1"):
        status = segment.c_walk_status()
    assert status.startswith("off: selectolax bundles lexbor 3.2")
    tree = segment.parse(BUILT_PAGES[2])
    assert segment.segment(tree, record_runs=True) == python_walk.walk(tree.root, None, True, None)


def test_failed_self_check_disables_the_c_walk(
    walk: ModuleType, fresh_choice: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = walk.walk

    def off_by_one(*args: object) -> list | None:
        blocks = real(*args)
        return blocks[:-1] if blocks else blocks

    monkeypatch.setattr(walk, "walk", off_by_one)
    with pytest.warns(RuntimeWarning, match="self-check"):
        assert segment.c_walk_status() == (
            "off: the C walk failed its self-check against the Python walk"
        )
    tree = segment.parse(BUILT_PAGES[0])
    assert segment.segment(tree) == python_walk.walk(tree.root, None, False, None)


def test_the_self_check_passes_quietly(walk: ModuleType, fresh_choice: None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert segment.c_walk_status() == "active"


def test_an_uncompiled_python_walk_means_no_c_walk(
    fresh_choice: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pure-Python installs: no C walk, whatever is built beside them.
    monkeypatch.setattr(segment, "is_compiled_file", lambda file: False)
    segment._reset_c_walk()
    assert segment.c_walk_status() == "off: pipeline.html.walk runs uncompiled"
    tree = segment.parse(BUILT_PAGES[1])
    assert segment.segment(tree, record_runs=True) == python_walk.walk(tree.root, None, True, None)
