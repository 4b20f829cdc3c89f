"""The page structure a block sits in (`pipeline.types.Shape`), tracked during segmentation.

Both segmentation walks (pipeline/html/walk.py and the C walk, lexbor_walk.pyx) tell one
`ShapeTracker` when they enter or leave an element that carries structure (headings, lists, list
items, tables, rows, cells, quotes, preformatted text) and ask it for the current `Shape` when a
block opens. Keeping the bookkeeping here, called only at those elements, gives both walks the
same shapes by construction and costs nothing on the text nodes, where the walks spend their time.
Rendering the shapes is `pipeline.render`'s job alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.compiled import check_fresh
from pipeline.html.class_cues import cached_when_short
from pipeline.types import Shape

# Compiled with Cython when the install can (structure.pxd makes the tracker an extension type):
# both walks call it at every structural element, and as Python calls that was a fifth of the C
# walk's time.
check_fresh(__name__, __file__)

# Elements whose entry and exit the walks report (`ShapeTracker.enter` / `leave`). h1-h9: the
# walks' heading flag covers h0-h9 (custom "h7" elements included, as jusText does).
SHAPE_TAGS = frozenset(
    "ul ol menu li table thead tr td th blockquote pre".split() + [f"h{i}" for i in range(10)]
)


_new_shape = tuple.__new__
_LIST_KIND = {"ul": "u", "menu": "u", "ol": "o"}
# What an entered element changed, recorded on the tracker's undo log so `leave` can put it back.
_HEAD, _ITEM_IN, _LIST_IN, _CELL_IN, _ROW_IN, _TABLE_IN, _THEAD_IN, _QUOTE_IN, _PRE_IN = range(9)


class ShapeTracker:
    """The open structural elements of the walk's current position, as one `Shape`.

    The shape's fields are kept as plain attributes (C fields when compiled): `enter` changes
    the one or two an element sets and logs their old values, `leave` puts them back, and the
    `Shape` tuple is built only when `current` is asked after a change. Most structural elements
    (a list around its items, a row around its cells) never have a block opened directly in
    them, so building a tuple at each one, as this did first, was most of what structure cost
    the walks. Only a table's row and column counters outlive their elements (the next ``<tr>``
    counts on from the last), so tables keep them apart. With no structural element open the
    shape is None, which is what `Block.shape` stores for a plain paragraph.
    """

    def __init__(self) -> None:
        self.heading = 0
        self.lists = ""
        self.item = 0
        self.table = 0
        self.row = -1
        self.col = -1
        self.header = False
        self.quote = 0
        self.pre = 0
        self.code_lang = ""
        self._undo: list = []  # per open element: the old values it changed, then its kind
        self._depth = 0  # structural elements open
        self._cached: Shape | None = None
        self._stale = False
        # One [serial, row, col, thead depth] per open table.
        self.tables: list[list[int]] = []
        self.item_serial = 0
        self.table_serial = 0
        self.pre_serial = 0

    def enter(self, tag: str) -> None:
        undo = self._undo
        first = tag[0]
        if tag == "li":
            undo.append(self.item)
            self.item_serial += 1
            self.item = self.item_serial
            undo.append(_ITEM_IN)
        elif first == "h":
            undo.append(self.heading)
            level = int(tag[1]) if len(tag) == 2 and tag[1].isdigit() else 1
            self.heading = min(max(level, 1), 6)
            undo.append(_HEAD)
        elif tag == "td" or tag == "th":
            undo.append(self.col)
            undo.append(self.header)
            if self.tables:
                table = self.tables[-1]
                table[2] += 1
                self.col = table[2]
                self.header = tag == "th" or table[3] > 0
            else:
                self.header = tag == "th"
            undo.append(_CELL_IN)
        elif tag in _LIST_KIND:
            undo.append(self.lists)
            self.lists += _LIST_KIND[tag]
            undo.append(_LIST_IN)
        elif tag == "tr":
            undo.append(self.row)
            undo.append(self.col)
            if self.tables:
                table = self.tables[-1]
                table[1] += 1
                table[2] = -1
                self.row = table[1]
                self.col = -1
            undo.append(_ROW_IN)
        elif tag == "table":
            undo.append(self.table)
            undo.append(self.row)
            undo.append(self.col)
            undo.append(self.header)
            self.table_serial += 1
            self.tables.append([self.table_serial, -1, -1, 0])
            self.table = self.table_serial
            self.row = self.col = -1
            self.header = False
            undo.append(_TABLE_IN)
        elif tag == "thead":
            if self.tables:
                self.tables[-1][3] += 1
            undo.append(_THEAD_IN)
        elif tag == "blockquote":
            self.quote += 1
            undo.append(_QUOTE_IN)
        else:  # pre
            undo.append(self.pre)
            undo.append(self.code_lang)
            self.pre_serial += 1
            self.pre = self.pre_serial
            self.code_lang = ""
            undo.append(_PRE_IN)
        self._depth += 1
        self._stale = True

    def leave(self) -> None:
        undo = self._undo
        kind = undo.pop()
        if kind == _ITEM_IN:
            self.item = undo.pop()
        elif kind == _HEAD:
            self.heading = undo.pop()
        elif kind == _CELL_IN:
            self.header = undo.pop()
            self.col = undo.pop()
        elif kind == _LIST_IN:
            self.lists = undo.pop()
        elif kind == _ROW_IN:
            self.col = undo.pop()
            self.row = undo.pop()
        elif kind == _TABLE_IN:
            self.header = undo.pop()
            self.col = undo.pop()
            self.row = undo.pop()
            self.table = undo.pop()
            self.tables.pop()
        elif kind == _THEAD_IN:
            if self.tables:
                self.tables[-1][3] -= 1
        elif kind == _QUOTE_IN:
            self.quote -= 1
        else:
            self.code_lang = undo.pop()
            self.pre = undo.pop()
        self._depth -= 1
        self._stale = True

    def name_language(self, language: str) -> None:
        """Record the code language the page names for the innermost open <pre>, if none yet."""
        if language and self._depth and self.pre and not self.code_lang:
            self.code_lang = language
            self._stale = True

    def current(self) -> Shape | None:
        if self._stale:
            self._stale = False
            if not self._depth:
                self._cached = None
            else:
                self._cached = _new_shape(
                    Shape,
                    (
                        self.heading,
                        self.lists,
                        self.item,
                        self.table,
                        self.row,
                        self.col,
                        self.header,
                        self.quote,
                        self.pre,
                        self.code_lang,
                        None,
                        (),
                    ),
                )
        return self._cached


# Inside a ``<pre>`` the walks record its text as pieces (`pre_shown`): strings as the page has
# them (a ``<br>`` as a line feed), `PRE_EDGE` where an element a browser lays out as a block
# (`LINE_TAGS`) starts or ends, `PRE_LINE_END` where a ``<span>`` whose class names a line ends
# (`names_line`), and a 1-tuple around text that lies outside the ``<pre>``'s code but inside some
# element of it (a language label, a "Try" or "Copy" link beside the ``<code>``).
PRE_EDGE = 0
PRE_LINE_END = 1
# Elements the HTML standard's rendering section (a browser's default style sheet) lays out as
# blocks: inside a <pre> each starts and ends a line. Table cells stay on their row's line.
LINE_TAGS = frozenset(
    (
        "address article aside blockquote caption center dd details dialog dir div dl dt "
        "fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr legend li "
        "listing main menu nav ol p plaintext pre search section summary table tbody tfoot thead "
        "tr ul xmp"
    ).split()
)


@cached_when_short
def names_line(class_value: str) -> bool:
    """Whether a ``<span>``'s class attribute says it is one line of code, which highlighters'
    style sheets make a block: ``line`` (Shiki, twoslash), ``gatsby-highlight-code-line``,
    ``highlight-line`` (GitBook), ``token-line`` (prism-react-renderer): a class word ``line`` or
    one ending in ``-line`` (not ``line-number``, a gutter's number)."""
    return any(word == "line" or word.endswith("-line") for word in class_value.split())


def pre_shown(parts: list, one_code: bool) -> str:
    """A ``<pre>``'s text as a browser shows it, from the walk's pieces (see `PRE_EDGE`).

    Highlighters write one ``<div class="line">`` per line, with no line feed between them, and
    CodeMirror ends each with a ``<br>``; a browser shows one line per block either way. Its
    rule, from CSS: the content between two block edges is a run of inline content, cut into
    lines by its line feeds; a line that ends in a line feed is shown even when empty, a last line
    only when it holds something. So ``<div>a<br></div><div>b</div>`` is two lines,
    ``<div>a</div>`` + line feed + ``<div>b</div>`` three (the middle one blank), and a ``<pre>``'s
    final line feed shows nothing (checked against headless Chromium's line boxes:
    tests/html/test_pre_browser.py).

    A span that names a line (`PRE_LINE_END`) ends its line too, but only where no line feed is
    already there: Shiki writes a line feed between its line spans, Gatsby's and GitBook's write
    none.

    ``one_code``: the ``<pre>`` holds one ``<code>`` (not counting ``<code>`` inside it), so the
    words in other elements beside it (the 1-tuples) are not its code and are left out, unless
    nothing else is left. A gutter of line numbers laid out as blocks of their own beside the
    lines (``1``, first line, ``2``, second line, ...) is left out too.
    """
    if PRE_LINE_END in parts:
        parts = _ended_lines(parts)
    runs: list[list] = []
    run: list = []
    aside = False  # some text outside the code
    kept = False  # some text that is not whitespace, besides that
    for part in parts:
        if type(part) is str:
            run.append(part)
            if not kept and not part.isspace():
                kept = True
        elif type(part) is tuple:
            aside = True
            run.append(part)
        else:
            runs.append(run)
            run = []
    runs.append(run)
    drop = one_code and aside and kept
    chunks: list[str] = []
    for pieces in runs:
        if not pieces:
            continue
        text = "".join(
            [p for p in pieces if type(p) is str]
            if drop
            else [p if type(p) is str else p[0] for p in pieces]
        )
        if text:
            chunks.append(text[:-1] if text[-1] == "\n" else text)
    shown = "\n".join(chunks)
    if len(runs) > 1:
        return _without_gutter(shown)
    return shown


def _ended_lines(parts: list) -> list:
    """``parts`` with each `PRE_LINE_END` made a line feed where the text before it (line feeds
    made so far included) does not end with one and the text after it does not start with one,
    and left out elsewhere: an empty line span, which a browser draws zero lines high, shows no
    line."""
    out: list = []
    for k, part in enumerate(parts):
        if type(part) is not int or part != PRE_LINE_END:
            out.append(part)
            continue
        before = _text_of(out, len(out) - 1, -1)
        after = _text_of(parts, k + 1, 1)
        if before and before[-1] != "\n" and not after.startswith("\n"):
            out.append("\n")
    return out


def _text_of(parts: list, k: int, step: int) -> str:
    """The text of the nearest piece from ``k`` on in direction ``step``, or ""."""
    while 0 <= k < len(parts):
        part = parts[k]
        if type(part) is str:
            return part
        if type(part) is tuple:
            return part[0]
        k += step
    return ""


def _without_gutter(text: str) -> str:
    """``text`` without a gutter of line numbers that its block elements laid out as lines of their
    own, every other line (at least two of them, counting up by one from the first line)."""
    lines = text.split("\n")
    if len(lines) < 4:
        return text
    numbers = lines[0::2]
    if not all(n.isdecimal() and len(n) < 7 for n in numbers):
        return text
    start = int(numbers[0])
    for k, n in enumerate(numbers):
        if int(n) != start + k:
            return text
    return "\n".join(lines[1::2])


def with_spans(shape: Shape, spans: tuple[tuple[int, int, str], ...] | list) -> Shape:
    """``shape`` with its inline spans set: a block's spans are known only once its text is."""
    # NamedTuple._replace goes through keyword arguments and a dict, several times the cost of
    # this copy; code pages make one per block.
    return _new_shape(Shape, (*shape[:11], tuple(spans)))


def with_raw(shape: Shape, raw: str) -> Shape:
    """``shape`` with the exact text of its ``<pre>``."""
    return _new_shape(Shape, (*shape[:10], raw, shape[11]))


# How pages name a code block's language in class attributes: "language-python" (Prism,
# highlight.js, CommonMark renderers), "lang-js" (Prettify), "highlight-python" (Sphinx),
# "highlight-source-python" (GitHub), "brush: python" (SyntaxHighlighter), "sourceCode python"
# (Pandoc).
_LANGUAGE = re.compile(
    r"(?:^|\s)(?:language-|lang-|highlight-(?:source-)?|brush:\s*|sourceCode\s+)"
    r"([A-Za-z][\w+#.-]*)"
)
# Names those patterns catch that are not languages.
_NOT_LANGUAGES = frozenset(
    "default none text plain plaintext nohighlight notranslate auto output console".split()
)


def code_language(class_value: str | None) -> str:
    """The programming language a class attribute names for a code block, lower-case, or ""."""
    if not class_value:
        return ""
    for match in _LANGUAGE.finditer(class_value):
        name = match.group(1).lower().rstrip(";.")
        if name and name not in _NOT_LANGUAGES:
            return name
    return ""


def pre_language(own: str | None, enclosing: Sequence[str | None]) -> str:
    """The language a ``<pre>`` names by its class, else by the classes of its enclosing block
    elements, innermost first (``enclosing`` outermost first): Sphinx names it two blocks out
    (``div.highlight-python > div.highlight > pre``)."""
    language = code_language(own)
    for classes in reversed(enclosing):
        if language:
            break
        language = code_language(classes)
    return language
