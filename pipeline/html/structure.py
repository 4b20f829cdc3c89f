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

from pipeline.types import Shape

# Elements whose entry and exit the walks report (`ShapeTracker.enter` / `leave`). h1-h9: the
# walks' heading flag covers h0-h9 (custom "h7" elements included, as jusText does).
SHAPE_TAGS = frozenset(
    "ul ol menu li table thead tr td th blockquote pre".split() + [f"h{i}" for i in range(10)]
)

_LIST_KIND = {"ul": "u", "menu": "u", "ol": "o"}


class ShapeTracker:
    """The open structural elements of the walk's current position, as one `Shape`.

    Elements nest, so `leave` needs no argument: it closes the innermost element `enter` opened.
    The current shape is built only when asked for after a change, and is None at the top level
    (most blocks of a page), which is what `Block.shape` stores for a plain paragraph.
    """

    __slots__ = (
        "_open",
        "_shape",
        "_stale",
        "cells",
        "headings",
        "item_serial",
        "items",
        "languages",
        "lists",
        "pre_serial",
        "pres",
        "quote",
        "table_serial",
        "tables",
    )

    def __init__(self) -> None:
        self._open: list[str] = []  # the structural tags entered, innermost last
        self.headings: list[int] = []
        self.lists: list[str] = []
        self.items: list[int] = []
        self.item_serial = 0
        # One [serial, row, col, thead depth] per open table.
        self.tables: list[list[int]] = []
        self.table_serial = 0
        self.cells: list[bool] = []  # header flag of each open cell
        self.quote = 0
        self.pres: list[int] = []
        self.languages: list[str] = []  # code language of each open <pre>
        self.pre_serial = 0
        self._shape: Shape | None = None
        self._stale = False

    def enter(self, tag: str) -> None:
        self._open.append(tag)
        self._stale = True
        if tag[0] == "h":
            level = int(tag[1]) if len(tag) == 2 and tag[1].isdigit() else 1
            self.headings.append(min(max(level, 1), 6))
        elif tag in _LIST_KIND:
            self.lists.append(_LIST_KIND[tag])
        elif tag == "li":
            self.item_serial += 1
            self.items.append(self.item_serial)
        elif tag == "table":
            self.table_serial += 1
            self.tables.append([self.table_serial, -1, -1, 0])
        elif tag == "tr":
            if self.tables:
                table = self.tables[-1]
                table[1] += 1
                table[2] = -1
        elif tag == "td" or tag == "th":
            if self.tables:
                self.tables[-1][2] += 1
            self.cells.append(tag == "th" or bool(self.tables and self.tables[-1][3]))
        elif tag == "thead":
            if self.tables:
                self.tables[-1][3] += 1
        elif tag == "blockquote":
            self.quote += 1
        else:  # pre
            self.pre_serial += 1
            self.pres.append(self.pre_serial)
            self.languages.append("")

    def leave(self) -> None:
        tag = self._open.pop()
        self._stale = True
        if tag[0] == "h":
            self.headings.pop()
        elif tag in _LIST_KIND:
            self.lists.pop()
        elif tag == "li":
            self.items.pop()
        elif tag == "table":
            self.tables.pop()
        elif tag == "td" or tag == "th":
            self.cells.pop()
        elif tag == "thead":
            if self.tables:
                self.tables[-1][3] -= 1
        elif tag == "blockquote":
            self.quote -= 1
        elif tag != "tr":
            self.pres.pop()
            self.languages.pop()

    def name_language(self, language: str) -> None:
        """Record the code language the page names for the innermost open <pre>, if none yet."""
        if self.languages and language and not self.languages[-1]:
            self.languages[-1] = language
            self._stale = True

    def current(self) -> Shape | None:
        if self._stale:
            self._stale = False
            self._shape = self._build() if self._open else None
        return self._shape

    def _build(self) -> Shape:
        table = self.tables[-1] if self.tables else None
        return Shape(
            heading=self.headings[-1] if self.headings else 0,
            lists="".join(self.lists),
            item=self.items[-1] if self.items else 0,
            table=table[0] if table else 0,
            row=table[1] if table else -1,
            col=table[2] if table and self.cells else -1,
            header=bool(self.cells and self.cells[-1]),
            quote=self.quote,
            pre=self.pres[-1] if self.pres else 0,
            code_lang=self.languages[-1] if self.languages else "",
        )


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
