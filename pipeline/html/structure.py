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

_LIST_KIND = {"ul": "u", "menu": "u", "ol": "o"}


_new_shape = tuple.__new__
_TOP = Shape()
# Shape's fields by position, for building a changed copy without keyword arguments (a
# NamedTuple built from keywords costs several times a plain tuple, and pages open hundreds of
# list items).
_HEADING, _LISTS, _ITEM, _TABLE, _ROW, _COL, _HEADER, _QUOTE, _PRE, _CODE_LANG = range(10)


class ShapeTracker:
    """The open structural elements of the walk's current position, as one `Shape`.

    Elements nest, so each `enter` saves the shape it replaces and `leave` restores it: the
    current shape is always built, by one tuple copy per structural element entered, and reading
    it costs nothing. Only a table's row and column counters outlive their elements (the next
    ``<tr>`` counts on from the last), so tables keep them apart. At the top level the shape is
    None, which is what `Block.shape` stores for a plain paragraph.
    """

    def __init__(self) -> None:
        self.shape: Shape | None = None
        self._saved: list[Shape | None] = []  # the shape before each open element
        self._open: list[str] = []  # the structural tags entered, innermost last
        # One [serial, row, col, thead depth] per open table.
        self.tables: list[list[int]] = []
        self.item_serial = 0
        self.table_serial = 0
        self.pre_serial = 0

    def enter(self, tag: str) -> None:
        shape = self.shape
        self._saved.append(shape)
        self._open.append(tag)
        fields = list(shape or _TOP)
        if tag[0] == "h":
            level = int(tag[1]) if len(tag) == 2 and tag[1].isdigit() else 1
            fields[_HEADING] = min(max(level, 1), 6)
        elif tag == "li":
            self.item_serial += 1
            fields[_ITEM] = self.item_serial
        elif tag in _LIST_KIND:
            fields[_LISTS] += _LIST_KIND[tag]
        elif tag == "td" or tag == "th":
            if self.tables:
                table = self.tables[-1]
                table[2] += 1
                fields[_COL] = table[2]
                fields[_HEADER] = tag == "th" or table[3] > 0
            else:
                fields[_HEADER] = tag == "th"
        elif tag == "tr":
            if self.tables:
                table = self.tables[-1]
                table[1] += 1
                table[2] = -1
                fields[_ROW] = table[1]
                fields[_COL] = -1
        elif tag == "table":
            self.table_serial += 1
            self.tables.append([self.table_serial, -1, -1, 0])
            fields[_TABLE] = self.table_serial
            fields[_ROW] = fields[_COL] = -1
            fields[_HEADER] = False
        elif tag == "thead":
            if self.tables:
                self.tables[-1][3] += 1
        elif tag == "blockquote":
            fields[_QUOTE] += 1
        else:  # pre
            self.pre_serial += 1
            fields[_PRE] = self.pre_serial
            fields[_CODE_LANG] = ""
        self.shape = _new_shape(Shape, fields)

    def leave(self) -> None:
        tag = self._open.pop()
        self.shape = self._saved.pop()
        if tag == "table":
            self.tables.pop()
        elif tag == "thead" and self.tables:
            self.tables[-1][3] -= 1

    def name_language(self, language: str) -> None:
        """Record the code language the page names for the innermost open <pre>, if none yet."""
        shape = self.shape
        if language and shape is not None and shape.pre and not shape.code_lang:
            self.shape = shape._replace(code_lang=language)

    def current(self) -> Shape | None:
        return self.shape


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
