"""The units two published density methods judge, cut from a page's HTML, and their verdicts
carried back to our blocks.

Every cleaner labels `pipeline.html.segment`'s blocks, but two of the seed papers judge other
units, and their ``variant="paper"`` reproduces that:

* `source_lines`: Pal (2009) splits the page's HTML **source into lines**, and counts each line's
  text and markup characters as his code does (a ``<`` … ``>`` flag reset on every line).
* `article_paragraphs`: the "easy way" article (ai-depot) judges the paragraphs an HTML-to-text
  formatter writes: a break at ``p``, ``h1``-``h6``, ``li``, ``dl``/``dt``/``dd``,
  ``blockquote``, ``pre`` and ``hr`` and at every ``<br>``, but none at ``div``, ``table`` or
  ``td`` (so a layout table's cells run together, unlike our blocks).

Both read the HTML as a string: a cleaner is given the parsed tree (`Cleaner.needs_tree`), whose
serialisation (`page_html`) keeps the source's text and its line breaks; what it cannot keep is
a line break inside a tag, and the tags lexbor adds (``<tbody>``, a closing ``</p>``) count as
markup. In the article's paragraphs, script, style, title and comment contents are markup, never
text: an HTML-to-text formatter drops them. Pal's code has no such rule: what lies outside ``<``
… ``>`` on a line is text, a script's code included, and his filter judges it so.

`verdicts_for_blocks` maps unit verdicts back to blocks: a block is kept when most of its
characters lie in kept units. A unit that holds several blocks (a minified page's one source
line) passes its verdict to all of them; a block split over several units takes the verdict of
the majority of its characters, which is where the mapped output can differ from the paper's own
(measured in BENCHMARKS.md, "Seed systems as published").
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from pipeline.types import Block, LabeledBlock, Verdict

_SPACE = re.compile(r"\s+")
_TAG = re.compile(r"<[!?/]?[A-Za-z][^>]*>|<![^>]*>")
# The article's formatter starts a new paragraph at these tags, opening or closing.
PARAGRAPH_BREAKS = frozenset(
    (
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "dl",
        "dt",
        "dd",
        "blockquote",
        "pre",
        "hr",
        "br",
    )
)


# Where the article's paragraph cutter stops: a break tag (named ``brk``), or the start of
# something that cannot hold one (a comment, a script, a style, the title), skipped to its end.
_BREAK_OR_OPAQUE = re.compile(
    r"<(?:(?P<comment>!--)|(?P<opaque>script|style|title)(?=[\s/>])|(?P<brk>/?(?:"
    + "|".join(sorted(PARAGRAPH_BREAKS, key=len, reverse=True))
    + r")(?=[\s/>])))",
    re.IGNORECASE,
)
_CLOSERS = {
    name: re.compile(rf"</{name}\s*>", re.IGNORECASE) for name in ("script", "style", "title")
}


class Unit(NamedTuple):
    """One unit of a page: its text (as the method that cut it reads it), the characters of that
    text and the characters of the unit's whole HTML (text and markup)."""

    text: str
    n_text: int
    n_html: int

    @property
    def density(self) -> float:
        return self.n_text / self.n_html if self.n_html else 0.0


def page_html(tree: Any) -> str:
    """The HTML of a parsed page (`selectolax` tree), or the string itself."""
    if isinstance(tree, str):
        return tree
    return tree.html or ""


def visible(raw: str) -> str:
    """Text as a reader sees it: entities decoded, whitespace runs as one space."""
    return _SPACE.sub(" ", htmllib.unescape(raw)).strip()


# Java's BufferedReader.readLine ends a line at "\n", "\r" or "\r\n"; String.trim drops every
# character up to U+0020 at both ends.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_JAVA_SPACE = "".join(map(chr, range(33)))
_ANGLE = re.compile(r"[<>]")


def source_lines(source: str) -> list[Unit]:
    """Pal's chunks, counted as his ``DensityFilter`` counts them: every line of the HTML source
    that is not blank once trimmed, read character by character with a flag that ``<`` sets and
    ``>`` clears, anew on every line. Characters read while the flag is set are markup (the
    brackets themselves are neither), the others are the line's text, so a script's code, a
    comment's inner lines and a tag's continuation on the next line are text, and entities are
    not decoded. ``text`` is that text as the classifier reads it (untrimmed), ``n_text`` its
    trimmed length and ``n_html`` markup plus ``n_text``, so that ``(n_text + 1) / (n_html + 1)``
    is his density. `visible` gives the text a reader sees, to find the blocks in."""
    out: list[Unit] = []
    for raw_line in _LINE_BREAK.split(source):
        line = raw_line.strip(_JAVA_SPACE)
        if not line:
            continue
        parts: list[str] = []
        markup = 0
        in_markup = False
        pos = 0
        for match in _ANGLE.finditer(line):
            if in_markup:
                markup += match.start() - pos
            else:
                parts.append(line[pos : match.start()])
            in_markup = match.group() == "<"
            pos = match.end()
        if in_markup:
            markup += len(line) - pos
        else:
            parts.append(line[pos:])
        text = "".join(parts)
        n_text = len(text.strip(_JAVA_SPACE))
        out.append(Unit(text, n_text, markup + n_text))
    return out


def article_paragraphs(source: str) -> list[Unit]:
    """The article's paragraphs: the stretches of HTML between `PARAGRAPH_BREAKS` tags, their
    text the stretch without markup, their size its characters (a break tag counts in the
    paragraph it opens). Paragraphs without visible text are left out: there is nothing in
    them to keep."""
    out: list[Unit] = []
    start = 0  # where the current paragraph began
    carried = 0  # the size of the break tag that opened it
    visible_from = 0  # where its markup outside comments, scripts, styles and titles resumes
    parts: list[str] = []  # its stretches outside those

    def close(end: int) -> None:
        parts.append(source[visible_from:end])
        text = visible(_TAG.sub("", "".join(parts)))
        if text:
            out.append(Unit(text, len(text), carried + end - start))
        parts.clear()

    # A "<p>" inside a script or a comment is not a tag: those are skipped whole. A search per
    # stop, not a scan per tag: pages run to hundreds of kilobytes of markup.
    pos = 0
    while (m := _BREAK_OR_OPAQUE.search(source, pos)) is not None:
        if m.group("comment") is not None:
            end = source.find("-->", m.end())
            pos = len(source) if end < 0 else end + 3
        elif (name := m.group("opaque")) is not None:
            closer = _CLOSERS[name.lower()].search(source, m.end())
            pos = len(source) if closer is None else closer.end()
        else:
            end = source.find(">", m.end())
            close(m.start())
            pos = start = len(source) if end < 0 else end + 1
            carried = start - m.start()
            visible_from = start
            continue
        parts.append(source[visible_from : m.start()])
        visible_from = pos
    close(len(source))
    return out


def verdicts_for_blocks(
    block_texts: Sequence[str], units: Sequence[Unit], keep: Sequence[bool]
) -> list[tuple[bool, int | None]]:
    """For each block, whether most of its (non-space) characters lie in kept units, and the unit
    holding its middle character (None for a block whose text was not found among the units').

    Blocks and units hold the same text in the same order, cut differently, so each block is
    looked up in the units' text from where the previous block ended; a block found nowhere
    (the two cuts normalise some whitespace or entity differently) is not kept."""
    pieces = [_SPACE.sub("", u.text) for u in units]
    stream = "".join(pieces)
    owner = np.repeat(np.arange(len(pieces)), [len(p) for p in pieces])
    kept = np.asarray(keep, dtype=np.int64)
    # Kept characters before each position: a block's kept share is one subtraction.
    kept_before = np.concatenate(([0], np.cumsum(kept[owner]))) if len(pieces) else np.zeros(1)
    out: list[tuple[bool, int | None]] = []
    cursor = 0
    for text in block_texts:
        needle = _SPACE.sub("", text)
        if not needle:
            out.append((False, None))
            continue
        at = stream.find(needle, cursor)
        if at < 0:
            at = stream.find(needle)
        if at < 0:
            out.append((False, None))
            continue
        cursor = at + len(needle)
        share = (kept_before[cursor] - kept_before[at]) / len(needle)
        out.append((bool(share > 0.5), int(owner[(at + cursor - 1) // 2])))
    return out


def labels_from_units(
    blocks: Sequence[Block],
    units: Sequence[Unit],
    keep: Sequence[bool],
    scores: Sequence[float | None],
) -> list[LabeledBlock]:
    """Blocks labelled from the verdicts of units cut from the same page (`verdicts_for_blocks`),
    each with the score of the unit holding its middle character (None where it has none)."""
    mapped = verdicts_for_blocks([b.text for b in blocks], units, keep)
    good, bad = Verdict.GOOD, Verdict.BAD
    return [
        LabeledBlock(b, good if kept else bad, None, None if u is None else scores[u])
        for b, (kept, u) in zip(blocks, mapped, strict=True)
    ]


# What a paper variant notes when it was given no page and judged our blocks instead.
NO_TREE_NOTE = "paper_unit_unavailable"


class PaperUnits:
    """For a cleaner whose paper variant judges units cut from the page (``needs_tree``): its
    `label_noted` notes when no page was given, so that blocks stood in for the paper's units."""

    needs_tree: bool
    label: Any  # the cleaner's own

    def label_noted(
        self, blocks: Sequence[Block], stoplist: frozenset[str] | None, tree: Any = None
    ) -> tuple[list[LabeledBlock], tuple[str, ...]]:
        """`label`, and `NO_TREE_NOTE` when the paper's units were wanted but no page given."""
        missing = self.needs_tree and tree is None
        return self.label(blocks, stoplist, tree=tree), (NO_TREE_NOTE,) if missing else ()
