"""The kept blocks of a page as plain text and as Markdown: the one place structure is rendered.

The segmentation walk records each block's place in the page's structure as ``Block.shape``
(`pipeline.types.Shape`; None for a plain paragraph outside every structure). `render` turns the
kept blocks, in document order, into

* plain text, which stays what the corpus has always held (word-level F1 scores it): blocks joined
  with blank lines, a ``<pre>``'s exact text, a data table as one line per row with tab-separated
  cells, inline code and LaTeX math as the page has them;
* Markdown: ATX headings, nested ``-`` / ``1.`` lists with indented continuations, GFM tables,
  fenced code with the exact whitespace of the ``<pre>`` and its language hint, ``>`` quotes on
  every line, inline code spans and ``$``/``$$`` math. The page's text is text, never markup: a
  line that would be read as structure (a heading, list, quote, fence, table, thematic break,
  setext underline, HTML block or link definition) is escaped at its start, and anywhere in a
  line every ``<``, ``>`` and ``&``, every ``*`` and backtick, an ``_`` at a word's edge, a ``](``
  and a backslash before punctuation get a backslash, which CommonMark reads back as the
  character itself (`_escape_inline`). So no raw HTML, autolink, entity, emphasis, code span,
  link or image comes from the page's characters, and the Markdown holds the same words as the
  text. No link destination is written: the renderer makes no links at all.

Output is bounded by input: quotes and lists nest at most `MAX_NESTING` deep in the Markdown, a
ragged table is not padded to a width most of its rows lack (`_table_width`), and ``max_chars``
caps both the text and the Markdown, cut where the cap falls and flagged ``truncated``.

A page whose blocks all lack a shape (most pages) costs two joins and a look at each block's
first character; only blocks that could read as structure go through the escaping regexes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import NamedTuple

from pipeline.compiled import check_fresh
from pipeline.types import Block, Shape

# Compiled with Cython when the install can (hatch_build.py): rendering runs on every kept block
# of every page, and compiled it costs about a quarter less (0.27 to 0.20 ms per WCXB page).
check_fresh(__name__, __file__)

__all__ = ["Rendered", "data_tables", "render"]


class Rendered(NamedTuple):
    """A page's kept blocks rendered."""

    text: str
    markdown: str  # "" when markdown=False
    # Sorted subset of ("code", "math", "table") present in what was rendered.
    structure: tuple[str, ...]
    # Whether the text or the Markdown was cut at ``max_chars``.
    truncated: bool = False


# --- data tables versus layout tables ---
#
# Old sites put the whole page in a <table> (a navigation cell beside a content cell, a header row
# and a footer row), and many still lay out menus, forms and footers with tables. Rendering those
# as GFM tables would squeeze a page into one row of huge cells and lose its paragraphs, so a table
# is rendered as a table only when its blocks look like data. Everything is decided from the blocks
# of one table serial:
#
# * at least _MIN_ROWS (2) rows hold text: a one-row table is a layout strip (a nav bar, a
#   "sidebar | content" page frame);
# * at least one row, and at least a third of the rows, have >= 2 cells with text: a column of
#   one-cell rows is a stack of boxes, not a grid (and "some row" alone would let a frame with one
#   two-cell row and a header and footer row through); a third, not half, because listings
#   alternate a row of values with a one-cell row of details (Hacker News: rank and title, then
#   points and comments);
# * no cell holds more than _MAX_CELL_CHARS (400) characters: data cells are values and short
#   phrases; a cell with paragraphs of prose is a page region (400 is about three sentences, above
#   long product descriptions in spec tables, below a typical article paragraph or two). Unless
#   the table is a regular grid of prose cells: at least _MIN_PROSE_ROWS (4) rows with the table's
#   full count of at least two cells, those rows at least two thirds of its rows, and no cell over
#   _MAX_PROSE_CELL_CHARS (2,000) characters. A term and its description, a syllabus's date, topic
#   and reading list: rendered as paragraphs, their rows came apart (issue 49: WCXB dev 0424,
#   0686, 2889, 0612), while a layout table has one row of cells side by side (navigation |
#   article) between one-cell rows, or one cell per row, and a frame of header, body and footer
#   rows is at most three rows. The four have 13 to 49 rows; of the dev tables with a cell over
#   400 characters, the grid test also passes a spec table, and no longer a forum thread of two
#   posts laid out author | post; the rest are one row or one column;
# * no block of it sits in a <pre>, and all its blocks share one quote depth: a cell cannot hold
#   code or a quote. Headings and lists inside cells are rendered as the cell's text: spec tables
#   head their first row with an <h3> ("XGIMI Halo+ Specs"), recipes their columns, and a table
#   inside a list item has every block in that list (WCXB dev: 0096, 4265, 4601, 4864 lost every
#   row to this rule);
# * its blocks form one run, with no block of another table (a nested table), or of no table,
#   between them: a table holding tables is a layout grid, and it could not be rendered as one unit.
#
# Blocks of the table outside any cell (row or col < 0, e.g. a <caption>) do not count; they are
# rendered as paragraphs before the table.

_MIN_ROWS = 2
_MAX_CELL_CHARS = 400
# A data table's rows are padded to its widest row only while the padding adds at most this
# many empty cells per cell with text (a row missing its last cells, a short header): a ragged
# table (a first row of 12,000 cells over 6,000 rows of 2) would otherwise be padded row by row
# to a size no page holds (216 MB of Markdown from 114 KB of gzip). See `_table_width`.
_MAX_PADDING = 3
_MAX_PROSE_CELL_CHARS = 2000
_MIN_PROSE_ROWS = 4


def data_tables(blocks: Sequence[Block]) -> frozenset[int]:
    """Serials of the tables among ``blocks`` that hold data (rendered as tables and decided on
    as a unit), as opposed to layout tables that merely position a page's parts.

    See the comment above for the tests and their thresholds."""
    # serial -> [first index, last index, count, quote depth, {(row, col): text length}]
    stats: dict[int, list] = {}
    bad: set[int] = set()
    prose: set[int] = set()  # tables with a cell over _MAX_CELL_CHARS: data only as a grid
    for i, b in enumerate(blocks):
        s = b.shape
        if s is None or not s.table:
            continue
        t = s.table
        st = stats.get(t)
        if st is None:
            st = stats[t] = [i, i, 0, s.quote, {}]
        st[1] = i
        st[2] += 1
        if t in bad:
            continue
        if s.pre or s.quote != st[3]:
            bad.add(t)
            continue
        if s.row < 0 or s.col < 0:
            continue
        n = len(b.text.strip())
        if n:
            cells = st[4]
            key = (s.row, s.col)
            prev = cells.get(key, 0)
            total = prev + 1 + n if prev else n
            if total > _MAX_CELL_CHARS:
                if total > _MAX_PROSE_CELL_CHARS:
                    bad.add(t)
                    continue
                prose.add(t)
            cells[key] = total
    out = []
    for t, (first, last, count, _quote, cells) in stats.items():
        if t in bad or last - first + 1 != count:
            continue
        per_row: dict[int, int] = {}
        for row, _col in cells:
            per_row[row] = per_row.get(row, 0) + 1
        if t in prose:
            # A grid of prose cells: most rows hold the table's full count of two or more cells.
            width = max(per_row.values())
            full = sum(1 for k in per_row.values() if k == width)
            if width >= 2 and full >= _MIN_PROSE_ROWS and 3 * full >= 2 * len(per_row):
                out.append(t)
            continue
        multi = sum(1 for k in per_row.values() if k >= 2)
        if len(per_row) >= _MIN_ROWS and multi >= 1 and 3 * multi >= len(per_row):
            out.append(t)
    return frozenset(out)


# --- escaping ---

# Characters that CommonMark reads as syntax anywhere in a line: raw HTML and autolinks (<),
# entities (&), emphasis (*, and _ at a word's edge: inside a word it is no emphasis), code spans
# (`), links and images (the "](" between a link's text and its destination), and a backslash
# before punctuation or a line's end (an escape, a hard line break). Each gets a backslash, which
# CommonMark reads back as the character itself; > too, so that every <, > and & of the text is
# escaped. Half of all pages hold one of them (mostly "&"), but only a few blocks each: a page's
# text is looked at once for which occur (`_specials`, a search of each character), and only
# those are replaced, by string methods (sre would go through every character of every block).
INLINE_SPECIALS = "\\<>&*`]_"
_PLAIN_SPECIALS = "<>&*`"
_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~]|$)", re.M)


def _specials(text: str) -> str:
    """Which of `INLINE_SPECIALS` occur in ``text``."""
    return "".join([c for c in INLINE_SPECIALS if c in text])


def _escape_inline(s: str, special: str = INLINE_SPECIALS) -> str:
    """``s`` with every character that CommonMark would read as inline markup escaped; only
    the characters in ``special`` are looked for (`_specials` of the page)."""
    if not special:
        return s
    if "\\" in special and "\\" in s:
        s = _BACKSLASH.sub(r"\\\\", s)  # first: the backslashes put in below are not text
    for c in special:
        if c in _PLAIN_SPECIALS and c in s:
            s = s.replace(c, "\\" + c)
    if "]" in special and "](" in s:
        s = s.replace("](", "\\](")
    if "_" in special and "_" in s:
        s = _escape_underscores(s)
    return s


def _escape_underscores(s: str) -> str:
    """``s`` with each "_" escaped unless a letter or digit stands on both sides of it (inside a
    word an underscore is no emphasis: snake_case stays as it is)."""
    parts = s.split("_")
    out = [parts[0]]
    for i in range(1, len(parts)):
        before = parts[i - 1][-1:]
        after = parts[i][:1]
        out.append("_" if before.isalnum() and after.isalnum() else "\\_")
        out.append(parts[i])
    return "".join(out)


# In math, which a CommonMark reader without a math extension parses as text: a "<" that could
# open a tag or an autolink, and a "](" that could end a link's text, get a space after them,
# which TeX ignores in math (a backslash would be a TeX command, and an empty group "{}" may
# start an e-mail autolink).
_MATH_MARKUP = re.compile(r"<(?=\S)|\](?=\()")


def _math_text(latex: str) -> str:
    return _MATH_MARKUP.sub(r"\g<0> ", latex) if "<" in latex or "](" in latex else latex


# Every pattern starts with a literal newline (the text gets one prepended), which lets the regex
# engine jump from newline to newline instead of trying a match at every character: a page of
# ordinary paragraphs costs one such scan. A line starting with one of these characters might be
# read as structure; lines starting otherwise (most) need no substitution at all.
_RISKY = re.compile(r"\n[ \t#>+*\-=_:|`~<\[0-9]")
_RISKY_FIRST = frozenset(" \t#>+*-=_:|`~<[0123456789")
_LEAD_WS = re.compile(r"\n[ \t]+")  # 4 spaces would make indented code; words don't care
_ESCAPE = re.compile(
    r"\n(?:(?P<c>#|>|[-+*](?=[ \t]|$)|```|~~~|\||<(?=[A-Za-z/!?])|\[(?=[^\]\n]*\]:)"
    # thematic breaks, setext underlines, table delimiter rows
    r"|[-=*_:|](?=[-=*_:| \t]*$))"
    r"|(?P<d>\d{1,9})(?P<p>[.)])(?=[ \t]|$))",
    re.M,
)


def _esc_sub(m: re.Match[str]) -> str:
    d = m.group("d")
    if d is not None:
        return "\n" + d + "\\" + m.group("p")
    return "\n\\" + m.group("c")


def _escape(s: str) -> str:
    """``s`` with every line that Markdown would read as structure made a plain paragraph line
    (leading blanks dropped, a backslash before the character that would start the structure)."""
    if s[:1] not in _RISKY_FIRST and "\n" not in s:
        return s  # one line that starts safely (most): the regex below could not match
    s = "\n" + s
    if _RISKY.search(s) is None:
        return s[1:]
    return _ESCAPE.sub(_esc_sub, _LEAD_WS.sub("\n", s))[1:]


def _escape_seg(s: str, at_line_start: bool) -> str:
    if at_line_start:
        return _escape(s)
    k = s.find("\n")
    if k < 0:
        return s
    return s[:k] + "\n" + _escape(s[k + 1 :])


# --- inline spans ---

_SPAN_KINDS = frozenset(("code", "math", "display_math"))
_JOINABLE_KINDS = frozenset(("code", "math"))
_BACKTICKS = re.compile(r"`+")
_LANG_BAD = re.compile(r"[^\w+#.\-]")


def _valid_spans(text: str, spans: tuple[tuple[int, int, str], ...]) -> list[tuple[int, int, str]]:
    """The spans that lie inside ``text``, in order, without overlaps (later overlapping ones and
    unknown kinds are dropped). Inline code or math spans that touch are one span: written
    apart, ``a`` then ``b`` would read as one span holding two backticks (`a``b`), and
    ``$a$$b$`` as display math."""
    n = len(text)
    out: list[tuple[int, int, str]] = []
    end = 0
    for sp in sorted(spans, key=lambda x: (x[0], x[1])):
        s, e, kind = sp
        if kind in _SPAN_KINDS and end <= s < e <= n:
            if out and s == end and kind == out[-1][2] and kind in _JOINABLE_KINDS:
                out[-1] = (out[-1][0], e, kind)
            else:
                out.append((s, e, kind))
            end = e
    return out


def _fence_for(s: str, minimum: int) -> str:
    longest = max(map(len, _BACKTICKS.findall(s)), default=0)
    return "`" * max(minimum, longest + 1)


def _code_span(c: str) -> str:
    c = c.replace("\n", " ")
    if not c:
        return ""
    fence = _fence_for(c, 1)
    # CommonMark strips one space from each end of a code span that begins and ends with one.
    if c[0] == "`" or c[-1] == "`" or (c[0] == " " and c[-1] == " " and c.strip(" ")):
        c = f" {c} "
    return fence + c + fence


def _inline_md(
    text: str, spans: list[tuple[int, int, str]], escape: bool, special: str = INLINE_SPECIALS
) -> str:
    """``text`` as Markdown: its spans as code or math, the rest escaped as text
    (`_escape_inline` of the ``special`` characters; with ``escape``, lines that would read as
    structure too)."""
    if not spans:
        if special:
            text = _escape_inline(text, special)
        return _escape(text) if escape else text
    parts = []
    pos = 0
    # Whether the output so far ends at the start of a line (blanks aside): a text segment there
    # is escaped like a line of its own.
    line_start = True
    for s, e, kind in (*spans, (len(text), len(text), "")):
        if s > pos:
            seg = text[pos:s]
            if special:
                seg = _escape_inline(seg, special)
            if escape:
                seg = _escape_seg(seg, line_start)
            parts.append(seg)
            k = seg.rfind("\n")
            line_start = (line_start or k >= 0) and not seg[k + 1 :].strip(" \t")
        if not kind:
            break
        inner = text[s:e]
        if kind == "code":
            c = _code_span(inner)
        else:
            m = _math_text(" ".join(inner.split()))
            if m:  # blanks at the span's ends go outside the delimiters
                d = "$" if kind == "math" else "$$"
                lead = " " if inner[:1].isspace() and not line_start else ""
                trail = " " if inner[-1:].isspace() else ""
                c = f"{lead}{d}{m}{d}{trail}"
            else:
                c = "" if line_start else " "
        if c.strip():
            line_start = False
        parts.append(c)
        pos = e
    return "".join(parts)


# --- rendering ---

_FLAT = str.maketrans({"\n": " ", "\t": " ", "\r": " "})


# How deep quotes and lists nest in the Markdown: each level puts its marker or indent before
# every line inside it, so a page of 1,000 nested <blockquote> and 100,000 <br> would make 200 MB
# of "> ". Deeper levels are written at this depth (rare on real pages: forums quote a few
# levels, outlines nest lists a few more).
MAX_NESTING = 8


class _Markdown:
    """Accumulates Markdown units, tracking the open list levels so items nest and continue;
    stops at ``budget`` characters (-1: no limit), cutting the unit that reaches it."""

    def __init__(self, budget: int = -1) -> None:
        self.budget = budget
        self.size = 0
        self.full = False  # the budget was reached: later units are dropped
        self.out: list[str] = []
        # Open list levels, outermost first: (level in Shape.lists, kind, item serial, width).
        self.stack: list[tuple[int, str, int, int]] = []
        self.stack_quote = 0
        self.marked: set[int] = set()  # items whose marker has been written
        self.prev_list = False
        self.prev_quote = 0

    def _add(self, piece: str) -> None:
        """Append ``piece``, cut where the budget ends."""
        if self.budget >= 0 and self.size + len(piece) > self.budget:
            piece = piece[: self.budget - self.size]
            self.full = True
        self.out.append(piece)
        self.size += len(piece)

    def emit_plain(self, body: str) -> None:
        """Write one unit outside lists and quotes, given as its text (its lines joined): what
        `emit` does for such a unit, without splitting the text into lines to join them again."""
        if self.full:
            return
        self.stack.clear()
        piece = "\n\n" + body if self.out else body
        if self.budget >= 0 and self.size + len(piece) > self.budget:
            self._add(piece)
        else:
            self.out.append(piece)
            self.size += len(piece)
        self.prev_list = False
        self.prev_quote = 0

    def emit(self, shape: Shape | None, lines: list[str]) -> None:
        """Write one unit (paragraph, heading, fenced code, table) placed where ``shape`` says."""
        if self.full:
            return
        if shape is None or (not shape.lists and shape.quote <= 0):
            # Outside lists and quotes (most units): no prefixes, a blank line before, and any
            # open list ends. The general path below gives the same, at several times the cost.
            self.emit_plain(lines[0] if len(lines) == 1 else "\n".join(lines))
            return
        q = min(max(shape.quote, 0), MAX_NESTING)
        lists = shape.lists[:MAX_NESTING]
        qp = "> " * q
        new_item = False
        in_list = False
        stack = self.stack
        if not lists:
            stack.clear()
            first = cont = qp
        else:
            if q != self.stack_quote:
                stack.clear()
                self.stack_quote = q
            item = shape.item
            k = len(stack) - 1
            while k >= 0 and stack[k][2] != item:
                k -= 1
            if item and k >= 0:  # a later block of an open item: indented under it
                del stack[k + 1 :]
                first = cont = qp + " " * _indent(stack)
                in_list = True
            elif not item or item in self.marked:  # no item, or its list was closed: paragraph
                stack.clear()
                first = cont = qp
            else:  # the item's first block: its marker
                level = len(lists) - 1
                keep = 0
                for lv, kind, _, _ in stack:
                    if lv < level and lists[lv] == kind:
                        keep += 1
                    else:
                        break
                del stack[keep:]
                indent = " " * _indent(stack)
                kind = "o" if lists[-1] == "o" else "u"
                marker = "1. " if kind == "o" else "- "
                first = qp + indent + marker
                cont = qp + indent + " " * len(marker)
                stack.append((level, lists[-1], item, len(marker)))
                self.marked.add(item)
                new_item = in_list = True
        if self.out:
            if new_item and self.prev_list and q == self.prev_quote:
                sep = "\n"
            else:
                sep = "\n" + ("> " * min(q, self.prev_quote)).rstrip() + "\n"
        else:
            sep = ""
        if self.budget >= 0 and len(lines) > 1:
            # A unit's lines each get the prefix: only as many as the budget can take are built.
            room = self.budget - self.size - len(sep) - len(first)
            width = len(cont) + 1
            n = 0
            for line in lines:
                room -= len(line) + width
                if room < 0:
                    break
                n += 1
            if n < len(lines):
                lines = lines[: n + 1]
        if len(lines) == 1:  # most list items and quoted paragraphs: one line
            line = lines[0]
            body = first + line if line else first.rstrip()
        elif first or cont:
            # A list, not a generator: Cython compiles no closures inside a cpdef method.
            body = "\n".join(
                [
                    (first if i == 0 else cont) + line
                    if line
                    else (first if i == 0 else cont).rstrip()
                    for i, line in enumerate(lines)
                ]
            )
        else:  # most units: nothing to put before their lines
            body = lines[0] if len(lines) == 1 else "\n".join(lines)
        self._add(sep + body)
        self.prev_list = in_list
        self.prev_quote = q


def _indent(stack: list[tuple[int, str, int, int]]) -> int:
    """The width of the open list items' markers: what a line inside the innermost one is
    indented by."""
    width = 0
    for entry in stack:
        width += entry[3]
    return width


def _paragraph_lines(b: Block, spans: list[tuple[int, int, str]], special: str) -> list[str]:
    text = _paragraph(b.shape, b.text, spans, special)
    return text if isinstance(text, list) else text.split("\n")


def _paragraph(
    s: Shape | None, text: str, spans: list[tuple[int, int, str]], special: str = INLINE_SPECIALS
) -> str | list[str]:
    """A paragraph's Markdown: its lines, or (most paragraphs) those lines still joined, which
    `_Markdown.emit_plain` takes as they are when the paragraph is outside lists and quotes."""
    if s is not None and s.heading > 0:
        content = " ".join(_inline_md(text, spans, True, special).split())
        return "#" * min(s.heading, 6) + (" " + content if content else "")
    if len(spans) == 1 and spans[0][2] == "display_math":
        a, e, _ = spans[0]
        if not text[:a].strip() and not text[e:].strip():
            # A LaTeX line that plain Markdown would read as structure ("- x^2") gets an empty
            # group in front, which TeX ignores.
            latex = [_math_text(line.strip()) for line in text[a:e].split("\n")]
            return ["$$", *["{}" + x if _escape(x) != x else x for x in latex if x], "$$"]
    return _inline_md(text, spans, True, special)


def _table_unit(
    run: Sequence[Block], markdown: bool, flags: set[str], special: str
) -> tuple[list[Block], str, list[str]]:
    """A data table: (caption blocks, text paragraph, Markdown lines)."""
    captions: list[Block] = []
    rows: dict[int, dict[int, list[Block]]] = {}
    for b in run:
        s = b.shape
        if s.row < 0 or s.col < 0:
            captions.append(b)
        else:
            rows.setdefault(s.row, {}).setdefault(s.col, []).append(b)
    # The first row is the GFM header row: the <th> row when the table starts with one, else its
    # first row of data (GFM needs a header, and moving a later <th> row up would reorder words).
    text_rows = []
    md_rows = []
    widths = [max(cells) + 1 for cells in rows.values()]
    ncols = _table_width(widths)
    for cells in rows.values():
        width = max(cells) + 1
        text_rows.append(
            "\t".join(
                " ".join(b.text for b in cells[c]).translate(_FLAT) if c in cells else ""
                for c in range(width)
            )
        )
        if markdown:
            md_cells = []
            for c in range(ncols):
                parts = []
                # A row wider than the table's width has its extra cells in its last one.
                cols = (
                    (c,) if c < ncols - 1 or width <= ncols else sorted(k for k in cells if k >= c)
                )
                for k in cols:
                    for b in cells.get(k, ()):
                        spans = _valid_spans(b.text, b.shape.spans)
                        _note_spans(spans, flags)
                        parts.append(_inline_md(b.text, spans, False, special))
                md_cells.append(" ".join(" ".join(parts).split()).replace("|", "\\|"))
            md_rows.append("| " + " | ".join(md_cells) + " |")
        else:
            for c in cells.values():
                for b in c:
                    _note_spans(_valid_spans(b.text, b.shape.spans), flags)
    if md_rows:
        md_rows.insert(1, "| " + " | ".join(["---"] * ncols) + " |")
    return captions, "\n".join(text_rows), md_rows


def _table_width(widths: list[int]) -> int:
    """The number of columns a data table is written with, given its rows' widths: the widest
    row's, unless padding every row to it would add more than `_MAX_PADDING` empty cells per
    cell the rows have; then the lower median of the widths, the width most rows stay within."""
    widest = max(widths, default=0)
    if len(widths) * widest - sum(widths) <= _MAX_PADDING * sum(widths):
        return widest
    return sorted(widths)[(len(widths) - 1) // 2]


def _note_spans(spans: list[tuple[int, int, str]], flags: set[str]) -> None:
    for _, _, kind in spans:
        flags.add("code" if kind == "code" else "math")


def _is_line_numbers(raw: str) -> bool:
    """Whether a <pre> holds only the line numbers of the code beside it ("1 2 3 ..."): the
    gutter that highlighters (Hugo's Chroma, Pygments' table mode) put in a <pre> of its own.
    Rendered, it would be a code block of numbers before the code."""
    numbers = raw.split()
    # isdecimal, not isdigit: "²" is a digit that int() cannot read.
    if len(numbers) < 2 or not all(n.isdecimal() for n in numbers):
        return False
    values = [int(n) for n in numbers]
    return all(b == a + 1 for a, b in itertools.pairwise(values))


def render(
    blocks: Sequence[Block], *, markdown: bool = True, max_chars: int | None = None
) -> Rendered:
    """The kept blocks (in document order) as plain text and as Markdown, each cut at
    ``max_chars`` characters (then ``truncated``)."""
    for b in blocks:
        if b.shape is not None:
            break
    else:  # no structure at all: the common case, close to the cost of the join it always was
        texts = [b.text for b in blocks]
        text = "\n\n".join(texts)
        if not markdown:
            return _capped(text, "", (), max_chars)
        special = _specials(text)
        # Only blocks with a line break or a risky first character can need escaping at their
        # line starts; testing each block beats scanning the whole page with a regex (sre goes
        # character by character).
        risky = _RISKY_FIRST
        md = "\n\n".join(
            [
                _escape(t) if t[:1] in risky or "\n" in t else t
                for t in ([_escape_inline(t, special) for t in texts] if special else texts)
            ]
        )
        return _capped(text, md, (), max_chars)

    tables = data_tables(blocks)
    special = _specials("\n".join([b.text for b in blocks])) if markdown else ""
    flags: set[str] = set()
    text_parts: list[str] = []
    add_text = text_parts.append
    md = _Markdown(-1 if max_chars is None else max_chars)
    n = len(blocks)
    i = 0
    while i < n:
        b = blocks[i]
        s = b.shape
        if s is None:
            text = b.text
            add_text(text)
            if markdown and text and not text.isspace():
                md.emit_plain(_escape(_escape_inline(text, special) if special else text))
            i += 1
            continue
        if s.table and s.table in tables:
            j = i + 1
            while j < n and (sj := blocks[j].shape) is not None and sj.table == s.table:
                j += 1
            captions, table_text, table_md = _table_unit(blocks[i:j], markdown, flags, special)
            for c in captions:
                spans = _valid_spans(c.text, c.shape.spans)
                _note_spans(spans, flags)
                text_parts.append(c.text)
                if markdown and not c.text.isspace() and c.text:
                    md.emit(c.shape, _paragraph_lines(c, spans, special))
            flags.add("table")
            text_parts.append(table_text)
            if markdown:
                md.emit(s, table_md)
            i = j
            continue
        if s.pre:
            j = i + 1
            while j < n and (sj := blocks[j].shape) is not None and sj.pre == s.pre:
                j += 1
            run = blocks[i:j]
            raw = "\n".join(x.text if x.shape.raw is None else x.shape.raw for x in run)
            if _is_line_numbers(raw):
                i = j
                continue
            flags.add("code")
            text_parts.append(raw)
            if markdown:
                lang = next((x.shape.code_lang for x in run if x.shape.code_lang), "")
                fence = _fence_for(raw, 3)
                md.emit(s, [fence + _LANG_BAD.sub("", lang), *raw.split("\n"), fence])
            i = j
            continue
        text = b.text
        if s.spans:
            spans = _valid_spans(text, s.spans)
            _note_spans(spans, flags)
        else:
            spans = []
        add_text(text)
        # A blank block has no words to show; in Markdown it would be an empty list item (whose
        # bare "-" reads as a setext underline) or an empty heading, so it is left out there.
        if markdown and text and not text.isspace():
            unit = _paragraph(s, text, spans, special)
            if isinstance(unit, list):
                md.emit(s, unit)
            elif not s.lists and s.quote <= 0:
                md.emit_plain(unit)
            else:
                md.emit(s, unit.split("\n"))
        i += 1
    rendered = _capped(
        "\n\n".join(text_parts),
        "".join(md.out) if markdown else "",
        tuple(k for k in ("code", "math", "table") if k in flags),
        max_chars,
    )
    return rendered._replace(truncated=True) if md.full else rendered


def _capped(text: str, md: str, structure: tuple[str, ...], max_chars: int | None) -> Rendered:
    """`Rendered`, its text and Markdown cut at ``max_chars``."""
    if max_chars is None or (len(text) <= max_chars and len(md) <= max_chars):
        return Rendered(text, md, structure)
    return Rendered(text[:max_chars], md[:max_chars], structure, True)
