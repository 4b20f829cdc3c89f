"""Keep or drop a data table whole, after the cleaner has labelled its cells one by one.

A table's cells are blocks, and a model may keep most rows of a table and drop a few short ones
(a row of numbers looks like boilerplate on its own), or keep the values and drop the row labels,
which leaves holes that make the table wrong. Here a data table is a unit:

- it is kept when the cleaner kept most characters (by length, not by cell count) of at least
  one of its columns, or when it has four rows or more and the nearest blocks outside tables on
  both sides of it were kept (a table inside the kept text), and dropped whole otherwise;
- in a kept table, a column is kept whole unless the cleaner dropped most of it and all its
  cells say the same: a column of widgets ("Rate this book" in every row of a ranking) is not
  data, while a column of row labels or values the model doubted is.

A majority over the whole table lost a ranking's every row to its button column (WCXB dev 2908,
F1 0.97 to 0.00); a majority per column dropped the row labels of tables whose values it kept.

Only data tables are units (`pipeline.render.blocks.data_tables`): a layout table holds the
page's navigation and its article side by side, and those must stay separate decisions. Code
needs no rule here: a ``<pre>`` is one block whatever it holds (`pipeline.html.walk`).
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from pipeline.compiled import check_fresh
from pipeline.render.blocks import data_tables
from pipeline.types import LabeledBlock, Verdict

# Compiled with Cython when the install can (hatch_build.py): this runs over every block of
# every page.
check_fresh(__name__, __file__)


def keep_whole(labeled: Sequence[LabeledBlock]) -> list[LabeledBlock]:
    """``labeled`` with every data table kept or dropped whole, column by column (see above)."""
    in_tables = [lb for lb in labeled if lb.block.shape is not None and lb.block.shape.table]
    if not in_tables:
        return list(labeled)
    units = data_tables([lb.block for lb in in_tables])
    if not units:
        return list(labeled)
    columns: dict[tuple[int, int], _Column] = {}
    for lb in in_tables:
        shape = lb.block.shape
        if shape.table in units and shape.col >= 0:
            key = (shape.table, shape.col)
            column = columns.get(key)
            if column is None:
                column = columns[key] = _Column()
            column.add(lb, shape.row)
    kept_tables = {table for (table, _), column in columns.items() if column.mostly_kept()}
    kept_tables |= _inside_kept_text(labeled, units - kept_tables)
    verdicts = {
        key: Verdict.GOOD
        if key[0] in kept_tables and (column.mostly_kept() or not column.repeats_itself())
        else Verdict.BAD
        for key, column in columns.items()
    }
    out = []
    for lb in labeled:
        shape = lb.block.shape
        verdict = None
        if shape is not None and shape.table and shape.col >= 0:
            verdict = verdicts.get((shape.table, shape.col))
        out.append(lb if verdict is None or verdict is lb.verdict else lb._replace(verdict=verdict))
    return out


# A data table of at least this many rows, between kept text on both sides, is kept whatever
# its cells scored (see `_inside_kept_text`).
_MIN_ENCLOSED_ROWS = 4


def _inside_kept_text(labeled: Sequence[LabeledBlock], dropped: AbstractSet[int]) -> set[int]:
    """The tables of ``dropped`` (data tables whose cells the cleaner mostly dropped) with at
    least `_MIN_ENCLOSED_ROWS` rows whose nearest blocks outside any table, before and after it,
    were both kept: a table inside the kept text is part of it. Cell by cell a pricing or
    comparison grid of short values and prices scores as boilerplate (WCXB dev 1657: eleven
    plan comparisons in a kept article, cells at 0.05-0.4, 80 of its 85 rows lost)."""
    if not dropped:
        return set()
    spans: dict[int, list[int]] = {}  # table -> [first index, last index, rows seen]
    rows: dict[int, set[int]] = {}
    for i, lb in enumerate(labeled):
        shape = lb.block.shape
        if shape is not None and shape.table in dropped:
            span = spans.get(shape.table)
            if span is None:
                spans[shape.table] = [i, i]
                rows[shape.table] = {shape.row}
            else:
                span[1] = i
                rows[shape.table].add(shape.row)
    out = set()
    for table, (first, last) in spans.items():
        if len(rows[table]) < _MIN_ENCLOSED_ROWS:
            continue
        if _kept_outside(labeled, first, -1) and _kept_outside(labeled, last, 1):
            out.add(table)
    return out


def _kept_outside(labeled: Sequence[LabeledBlock], start: int, step: int) -> bool:
    """Whether the nearest block from ``start`` in direction ``step`` that is in no table was
    kept (False when there is none)."""
    i = start + step
    while 0 <= i < len(labeled):
        lb = labeled[i]
        if lb.block.shape is None or not lb.block.shape.table:
            return lb.verdict is Verdict.GOOD
        i += step
    return False


class _Column:
    """What the cleaner made of one column of a data table."""

    __slots__ = ("cells", "chars", "kept")

    def __init__(self) -> None:
        self.chars = 0
        self.kept = 0
        self.cells: dict[int, list[str]] = {}  # row -> the texts of its cell's blocks

    def add(self, lb: LabeledBlock, row: int) -> None:
        self.chars += lb.block.n_chars
        if lb.verdict is Verdict.GOOD:
            self.kept += lb.block.n_chars
        self.cells.setdefault(row, []).append(lb.block.text)

    def mostly_kept(self) -> bool:
        return 2 * self.kept >= self.chars

    def repeats_itself(self) -> bool:
        """Whether every cell says the same: a column of buttons ("Rate this book" in every row),
        not of values. (Values repeat too, but not all alike: a column of mouse designs, "Solid,
        symmetric" in several rows, was lost to a rule of "half the cells repeat".)"""
        return len(self.cells) >= 2 and len({" ".join(texts) for texts in self.cells.values()}) == 1
