"""Keep or drop a data table whole, after the cleaner has labelled its cells one by one.

A table's cells are blocks, and a model may keep most rows of a table and drop a few short ones
(a row of numbers looks like boilerplate on its own), or keep the values and drop the row labels,
which leaves holes that make the table wrong. Here a data table is a unit:

- it is kept when the cleaner kept most characters (by length, not by cell count) of at least
  one of its columns, and dropped whole otherwise;
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
