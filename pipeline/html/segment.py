"""A page's blocks: jusText's segmentation on selectolax's lexbor parser.

`segment` walks the parsed page once and returns its blocks in document order. Two walks give
the same blocks: the C walk over lexbor's node structs (pipeline/html/lexbor_walk.pyx, compiled
installs only, about twice as fast) and the walk through selectolax's node API
(`pipeline.html.walk`), which is the reference the C walk must equal and its fallback. The C walk
is used only when `c_walk_status` finds it safe; ``WARCCLEAN_PURE_WALK=1`` turns it off.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from types import ModuleType

import selectolax.lexbor
from selectolax.lexbor import LexborHTMLParser

from pipeline.compiled import is_compiled_file
from pipeline.errors import PageTooComplex
from pipeline.html import walk as _walk
from pipeline.html.guard import Deadline
from pipeline.html.structure import with_spans
from pipeline.html.tex_text import block_tex, may_hold_tex, typesets_tex
from pipeline.html.walk import _KINDS
from pipeline.types import Block, Shape

# The walk over lexbor's structs (pipeline/html/lexbor_walk.pyx), when `c_walk_status` finds it
# usable: built, for the lexbor version whose struct layout it declares, and giving the same
# blocks as `pipeline.html.walk.walk` on a probe page. Only installs whose Python walk is compiled
# use it: a pure-Python install, and tests comparing the two, walk in Python.
_c_walk: ModuleType | None = None
_c_walk_state: str | None = None  # None until decided, then what `c_walk_status` reports
# The probe page of the self-check: every kind of node and attribute the C walk reads, and every
# structural element (`pipeline.html.structure`), <pre> and inline code included. Math is not in
# it: the C walk hands pages holding math to the Python walk.
_PROBE_PAGES = (
    "<!DOCTYPE html><html><head><title>t</title><style>s</style></head><body class='b'>"
    "<!-- comment --><?pi x?><div id=main class='post  main' data-x=1 hidden title=\"\">"
    "<h2 CLASS=h>Head&amp;ing <a href='/l' data-Ü=\"ü\">link \u00e9t\u00e9</a></h2>"
    "<p>one\n two<br><br>three <b>bold</b> \u4e2d\u6587\u7684 \U0001f600 &nbsp; x</p>"
    "<custom-el foo=bar>custom<x-y class=c>nested</x-y></custom-el> \n "
    "<table><tr><td>a</td><td class=''>b<br>c</td></tr></table><ul><li>one<li>two</ul>"
    "<template><p>never</p></template><script>var x;</script><noscript><p>kept</p></noscript>"
    "<form><input value=v>field<select><option>o</select></form><iframe>raw</iframe>"
    "<svg viewBox='0 0 1 1'><foreignObject><p>svg text</p></foreignObject><text>t</text>"
    "<![CDATA[cdata]]></svg><h3>h<ol><li>o<ul><li>u</ul></ol></h3><blockquote><p>q</blockquote>"
    "<table><thead><tr><th>h</th></thead><tr><td><table><tr><td>in</table>out</table>"
    "<script type=text/javascript>var y;</script><div class='highlight-py'><pre class=x>"
    " a <b>b</b>\n\n\tc<br>d<div>e</div></pre></div><p>x <code> y </code>z<kbd></kbd>"
    " <tt>t<p>u</tt></p>"
    "<object><p>o</p></object><img src=i alt=\u00e9><hr>\u3000 tail</div></body></html>",
    "<div>" * 300 + "deep <b>text</b>" + "</div>" * 300,
    # Bytes that are not UTF-8, which selectolax decodes with U+FFFD, split across nodes too.
    b"<p class='\xff'>caf\xe9 <b>\xe4\xb8</b>\xad \xed\xa0\x80</p>",
)


def c_walk_status() -> str:
    """``"active"`` when `segment` walks lexbor's structs directly (the fast path), otherwise
    why it walks through selectolax's Python API. Decided at the first call, then fixed."""
    global _c_walk, _c_walk_state
    if _c_walk_state is None:
        walker, _c_walk_state = _choose_c_walk()
        _c_walk = walker if _c_walk_state == "active" else None
    return _c_walk_state


def _reset_c_walk() -> None:
    """Forget the decision (tests: after changing the environment)."""
    global _c_walk, _c_walk_state
    _c_walk = None
    _c_walk_state = None


def _choose_c_walk() -> tuple[ModuleType | None, str]:
    if not is_compiled_file(_walk.__file__):
        return None, "off: pipeline.html.walk runs uncompiled"
    if os.environ.get("WARCCLEAN_PURE_WALK") == "1":
        return None, "off: WARCCLEAN_PURE_WALK=1"
    try:
        import pipeline.html.lexbor_walk as lexbor_walk
    except ModuleNotFoundError as exc:
        if exc.name != "pipeline.html.lexbor_walk":
            raise
        return None, "off: pipeline.html.lexbor_walk was not built"
    found = (selectolax.lexbor.LEXBOR_VERSION_MAJOR, selectolax.lexbor.LEXBOR_VERSION_MINOR)
    if found != lexbor_walk.LAYOUT_VERSION:
        reason = (
            f"off: selectolax bundles lexbor {found[0]}.{found[1]}, the C walk declares the "
            f"struct layout of lexbor {lexbor_walk.LAYOUT_VERSION[0]}."
            f"{lexbor_walk.LAYOUT_VERSION[1]}"
        )
        warnings.warn(
            f"warcclean: C segmentation walk {reason}; using the slower Python walk",
            RuntimeWarning,
            stacklevel=3,
        )
        return None, reason
    for html in _PROBE_PAGES:
        tree = parse(html)
        root = tree.root
        for runs in (False, True):
            expected = _walk.walk(root, None, runs, None)
            got = lexbor_walk.walk(tree, root.mem_id, None, runs, None, _KINDS, PageTooComplex)
            if got != expected:
                reason = "off: the C walk failed its self-check against the Python walk"
                warnings.warn(
                    f"warcclean: C segmentation walk {reason}; using the slower Python walk",
                    RuntimeWarning,
                    stacklevel=3,
                )
                return None, reason
    return lexbor_walk, "active"


def parse(html: str | bytes) -> LexborHTMLParser:
    """Parse HTML text, or its UTF-8 encoding, with lexbor (the one place a parser is constructed).
    Bytes are read as UTF-8, never sniffed: decoding is `pipeline.html.decode`'s job. A page whose
    end a frame left open inside ``<noscript>`` swallowed is parsed again with the frame closed
    (`close_noscript_frames`)."""
    tree = LexborHTMLParser(html)
    if _swallowed_by_frame(tree):
        return LexborHTMLParser(close_noscript_frames(html))
    return tree


def _swallowed_by_frame(tree: LexborHTMLParser) -> bool:
    """Whether the page ends inside an ``<iframe>`` whose raw text holds the ``</noscript>`` it
    was opened in: a frame that swallowed the rest of the page (in the body's ``<noscript>``, or
    in the head's, from which lexbor moves it into the body). Following the last children down
    from the body costs a few node visits; searching every page's text for such frames first
    cost two percent of its cleaning."""
    node = tree.body
    while node is not None and node.last_child is not None:
        node = node.last_child
    if node is None or node.tag != "-text" or node.parent is None:
        return False
    return node.parent.tag == "iframe" and "</noscript" in (node.text_content or "")


_TAGS = {
    str: ("<noscript", "</noscript", "<iframe", "</iframe", "</iframe>"),
    bytes: (b"<noscript", b"</noscript", b"<iframe", b"</iframe", b"</iframe>"),
}


def close_noscript_frames(html: str | bytes) -> str | bytes:
    """``html`` with a ``</iframe>`` written before the ``</noscript>`` of every ``<noscript>``
    that opens a frame and does not close it.

    Google Tag Manager's fallback, as React and others render it, writes the frame self-closed:
    ``<noscript><iframe src="..." /></noscript>``. In a browser that runs scripts, ``<noscript>``
    is text and the page is whole; lexbor parses it as markup, as the walk needs (it keeps a
    forum's server-rendered thread there), and there the frame's raw text runs on to a
    ``</iframe>`` that never comes, swallowing the rest of the page with its content (WCXB 2838
    and 0041 lost every block after it). Tags are found in lower case only, as such markup
    writes them."""
    noscript, noscript_end, frame, frame_end, closing = _TAGS[type(html)]
    at = html.find(noscript)
    if at < 0:
        return html
    parts = []
    start = 0
    while at >= 0:
        end = html.find(noscript_end, at)
        if end < 0:
            break
        if html.find(frame, at, end) >= 0 and html.find(frame_end, at, end) < 0:
            parts += [html[start:end], closing]
            start = end
        at = html.find(noscript, end)
    if not parts:
        return html
    return html[:0].join([*parts, html[start:]])


def segment(
    html: str | LexborHTMLParser,
    *,
    max_nodes: int | None = None,
    record_runs: bool = False,
    deadline: Deadline | None = None,
) -> list[Block]:
    """Split a page into jusText blocks, in document order.

    This is jusText's ParagraphMaker driven by an iterative walk. It is written as one function
    with local state because it runs once per DOM node: method calls and attribute look-ups per
    node cost more than the parse itself.

    Every block has non-empty, stripped, whitespace-normalised text. (jusText also emits
    paragraphs whose only content was a ``<br>``, with empty text; they are always "short" and
    skipped by the context-sensitive pass, so leaving them out changes no other block's class.)

    ``max_nodes`` bounds the work on pathological pages: past it, `PageTooComplex` is raised so the
    caller can record a rejection with that reason instead of spending unbounded time.
    ``record_runs`` fills `Block.runs` with the block's token/tag sequence for BTE; tags between
    blocks that hold no text are carried into the next block's runs, so none is lost.
    """
    tree = parse(html) if isinstance(html, str) else html
    root = tree.root
    if root is None:
        return []
    if _c_walk is not None or (_c_walk_state is None and c_walk_status() == "active"):
        tex: list[int] = []
        blocks = _c_walk.walk(
            tree, root.mem_id, max_nodes, record_runs, deadline, _KINDS, PageTooComplex, tex
        )
        if blocks is not None:
            return with_tex(tree, blocks, tex)
    return with_tex(tree, _walk.walk(root, max_nodes, record_runs, deadline))


def with_tex(
    tree: LexborHTMLParser, blocks: list[Block], candidates: Sequence[int] | None = None
) -> list[Block]:
    """``blocks`` with the TeX written in their text between MathJax's or KaTeX's delimiters made
    math spans (`pipeline.html.tex_text`; on a page that loads neither, only formulas holding a
    TeX command); the same list, changed in place. After the walk, so that both walks give the
    same blocks: a block's text, character and word counts and spans change, its link characters
    at most down to its length. A ``<pre>``'s block is left alone, as MathJax leaves it.
    ``candidates``: the indexes of the blocks whose text `may_hold_tex`, in order, when the walk
    listed them (None: found here)."""
    if candidates is None:
        # Most pages hold neither a backslash nor "$$": one scan of all their text in C says so.
        if not may_hold_tex("\n".join([block.text for block in blocks])):
            return blocks
        candidates = range(len(blocks))
    typeset: bool | None = None  # whether the page loads a typesetter, asked once it matters
    for i in candidates:
        block = blocks[i]
        shape = block.shape
        if not may_hold_tex(block.text) or (shape is not None and shape.pre):
            continue
        spans = shape.spans if shape is not None else ()
        # Every formula a typesetter would take; the stricter rule finds none where this finds
        # none, so the page's scripts are read only on a page with something like a formula.
        tex = block_tex(block.text, spans)
        if tex is None:
            continue
        if typeset is None:
            typeset = typesets_tex(tree)
        if not typeset:
            tex = block_tex(block.text, spans, commands_only=True)
            if tex is None:
                continue
        text, n_words, spans = tex
        blocks[i] = block._replace(
            text=text,
            n_chars=len(text),
            n_words=n_words,
            n_link_chars=min(block.n_link_chars, len(text)),
            shape=with_spans(shape or _PLAIN, spans),
        )
    return blocks


_PLAIN = Shape()
