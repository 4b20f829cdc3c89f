"""TeX written in a page's text between MathJax's or KaTeX's delimiters, as math spans.

Pages that typeset math in the browser ship the author's TeX in their text, ``where \\(x^2\\) is``
or a display formula between ``\\[ \\]`` or ``$$ $$``, and let a script turn it into glyphs; a crawl
gets the text before the script ran. Those delimiters are the defaults of both MathJax (2 and 3:
``inlineMath`` ``\\( \\)``, ``displayMath`` ``$$ $$`` and ``\\[ \\]``; a single ``$`` only when a
site turns it on, since prices use it) and KaTeX's auto-render. Left in the text, Markdown
renders ``\\(`` as ``(`` (a backslash escape), so the formula lost its markers.

`tex_spans` finds them in a block's text, outside its inline code (MathJax skips ``<code>`` and
``<pre>`` too; a ``<pre>`` block never comes here), and gives the block its text with the
delimiters taken out and a math span over each formula's TeX, which is how the walk records MathML
and MathJax 2's scripts (`pipeline.types.Shape.spans`: "math" inline, "display_math" for a display).
`pipeline.html.segment.segment` calls it, after either walk, on the blocks whose text holds a
backslash or a "$$". On a page that loads MathJax or KaTeX (`typesets_tex`) every delimited
formula counts; on any other page (a site may bundle its typesetter out of sight, as a Next.js
blog does) only one that holds a TeX command such as ``\\subseteq``: a browser without a
typesetter shows ``\\(`` as written, and a shell's ``find . \\( -name "*.ts" \\)`` is not TeX.
"""

from __future__ import annotations

import re
from typing import Any

# A "$$" delimiter: "\\$$" is an escaped dollar and a dollar, never one (MathJax's
# processEscapes), and neither is a "$$" in a longer run of dollars: price tiers ("$, $$, or $$$",
# "Price range: $$-$$$") are common in text, display TeX between "$$$" is not.
_DOLLARS = r"(?<![\\$])\$\$(?!\$)"
_OPEN = re.compile(r"\\[(\[]|" + _DOLLARS)
_CLOSE = {"\\(": re.compile(r"\\\)"), "\\[": re.compile(r"\\\]"), "$$": re.compile(_DOLLARS)}
# What display TeX between "$$" holds besides words: a command, a script, a brace, an operator, a
# digit. Two price tiers in a sentence ("$$ to $$") hold words only; a formula of one letter
# ("$$x$$") is TeX too.
_TEX_SIGN = re.compile(r"[\\^_{}=+\-*/<>|()\[\]0-9]")
_SYMBOL = re.compile(r"\w")
# A TeX command ("\\alpha", "\\frac"): what a formula holds that a shell's or a regular
# expression's parentheses do not.
_COMMAND = re.compile(r"\\[A-Za-z]+")
# A formula longer than this is not one: an opener and a closer this far apart in a paragraph are
# two stray delimiters (a Windows path, a regular expression written out), not TeX.
MAX_TEX_CHARS = 2000


# A script that typesets TeX in the browser: MathJax's or KaTeX's file, or a page's inline
# configuration or call of either (``MathJax = {``, ``text/x-mathjax-config``,
# ``renderMathInElement``, which is KaTeX's auto-render).
_TYPESETTER = re.compile(r"mathjax|katex|renderMathInElement", re.IGNORECASE)


def typesets_tex(tree: Any) -> bool:
    """Whether the parsed page ``tree`` (a selectolax parser) loads a script that typesets TeX:
    one whose ``src`` or ``type`` or whose own text names MathJax or KaTeX."""
    for script in tree.css("script"):
        attributes = script.attributes
        for name in ("src", "type"):
            value = attributes.get(name)
            if value and _TYPESETTER.search(value):
                return True
        text = script.text(deep=True)
        if text and _TYPESETTER.search(text):
            return True
    return False


def may_hold_tex(text: str) -> bool:
    """Whether ``text`` may hold a delimited formula (the cheap test before `tex_spans`)."""
    return "\\" in text or "$$" in text


def tex_spans(
    text: str, spans: tuple[tuple[int, int, str], ...], commands_only: bool = False
) -> tuple[str, tuple[tuple[int, int, str], ...]] | None:
    """``text`` with each delimited formula's delimiters taken out, and ``spans`` (offsets into
    ``text``, in order, not overlapping) moved to the new text with a math span added for each
    formula; None when it holds none. A formula must hold something besides whitespace, lie
    outside every span (inline code, math the walk already found) and close within
    `MAX_TEX_CHARS` characters of where it opens, and with ``commands_only`` (a page that loads
    no typesetter, `typesets_tex`) hold a TeX command such as ``\\alpha``; blanks inside the
    delimiters go outside the span."""
    found: list[tuple[int, int, int, int, str]] = []  # (open, tex start, tex end, close end, kind)
    at = 0
    while True:
        opener = _OPEN.search(text, at)
        if opener is None:
            break
        start, inner = opener.span()
        inside = _inside(spans, start)
        if inside is not None:
            at = inside
            continue
        closer = _CLOSE[opener.group()].search(text, inner, inner + MAX_TEX_CHARS + 2)
        if closer is None:
            at = inner
            continue
        end, after = closer.span()
        if _crosses(spans, start, after):
            at = inner
            continue
        tex = text[inner:end]
        lead = len(tex) - len(tex.lstrip())
        trail = len(tex.rstrip())
        if trail <= lead:
            at = after
            continue
        if (opener.group() == "$$" and not _looks_like_tex(tex[lead:trail])) or (
            commands_only and _COMMAND.search(tex) is None
        ):
            at = inner
            continue
        kind = "math" if opener.group() == "\\(" else "display_math"
        found.append((start, inner + lead, inner + trail, after, kind))
        at = after
    if not found:
        return None
    # Rebuild the text without the delimiters (and the blanks just inside them), and a map of
    # how far each kept offset moved.
    parts: list[str] = []
    cuts: list[tuple[int, int]] = []  # (old offset from which, characters removed before it)
    removed = 0
    pos = 0
    new_spans: list[tuple[int, int, str]] = []
    for start, tex_start, tex_end, after, kind in found:
        parts.append(text[pos:start])
        removed += tex_start - start
        cuts.append((tex_start, removed))
        new_start = tex_start - removed
        parts.append(text[tex_start:tex_end])
        new_spans.append((new_start, tex_end - removed, kind))
        removed += after - tex_end
        cuts.append((after, removed))
        pos = after
    parts.append(text[pos:])
    moved = [(_moved(cuts, s), _moved(cuts, e), k) for s, e, k in spans]
    return "".join(parts), tuple(sorted((*moved, *new_spans)))


def _looks_like_tex(tex: str) -> bool:
    """Whether what stands between two "$$" is TeX rather than words between two price marks."""
    return _TEX_SIGN.search(tex) is not None or _SYMBOL.fullmatch(tex) is not None


def _inside(spans: tuple[tuple[int, int, str], ...], at: int) -> int | None:
    """The end of the span that holds offset ``at``, or None."""
    for start, end, _ in spans:
        if start <= at < end:
            return end
    return None


def _crosses(spans: tuple[tuple[int, int, str], ...], start: int, end: int) -> bool:
    """Whether some span overlaps the text from ``start`` to ``end``."""
    return any(s < end and start < e for s, e, _ in spans)


def _moved(cuts: list[tuple[int, int]], offset: int) -> int:
    """Where an offset of the old text lies in the new one (it is never inside a delimiter)."""
    shift = 0
    for at, removed in cuts:
        if offset < at:
            break
        shift = removed
    return offset - shift


def block_tex(
    text: str, spans: tuple[tuple[int, int, str], ...], commands_only: bool = False
) -> tuple[str, int, tuple[tuple[int, int, str], ...]] | None:
    """A block's (text, word count, spans) with its delimited formulas made math spans
    (`tex_spans`, ``commands_only`` as there), or None when it holds none."""
    found = tex_spans(text, spans, commands_only)
    if found is None:
        return None
    text, spans = found
    return text, len(text.split()), spans
