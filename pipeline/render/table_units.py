"""Keep or drop a data table's columns whole, after the cleaner has labelled its cells.

Cleaners label blocks one by one, and a table's cells are blocks: a model may keep most rows of
a table and drop a few short ones (a row of numbers looks like boilerplate on its own), which
leaves holes that make the table wrong. Here each column of a data table is decided as a unit,
by the majority of its characters: kept whole when its kept cells hold at least half of its
text, dropped whole otherwise. So a kept table has every row, and a table whose model dropped
all but a few cells is dropped whole. Columns, not the whole table: a ranking's column of titles
is content while the column of vote buttons beside it is not, and a majority over the whole
table lost such a page's every row (WCXB dev 2908, F1 0.97 to 0.00).

Only data tables are units (`pipeline.render.blocks.data_tables`): a layout table holds the
page's navigation and its article side by side, and those must stay separate decisions. Code
needs no rule here: a ``<pre>`` is one block whatever it holds (`pipeline.html.walk`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.render.blocks import data_tables
from pipeline.types import LabeledBlock, Verdict


def keep_whole(labeled: Sequence[LabeledBlock]) -> list[LabeledBlock]:
    """``labeled`` with each column of every data table given the verdict of most of its
    characters."""
    in_tables = [lb for lb in labeled if lb.block.shape is not None and lb.block.shape.table]
    if not in_tables:
        return list(labeled)
    units = data_tables([lb.block for lb in in_tables])
    if not units:
        return list(labeled)
    kept: dict[tuple[int, int], int] = {}
    total: dict[tuple[int, int], int] = {}
    for lb in in_tables:
        shape = lb.block.shape
        if shape.table in units and shape.col >= 0:
            column = (shape.table, shape.col)
            total[column] = total.get(column, 0) + lb.block.n_chars
            if lb.verdict is Verdict.GOOD:
                kept[column] = kept.get(column, 0) + lb.block.n_chars
    verdicts = {
        column: Verdict.GOOD if 2 * kept.get(column, 0) >= chars else Verdict.BAD
        for column, chars in total.items()
    }
    out = []
    for lb in labeled:
        shape = lb.block.shape
        verdict = None
        if shape is not None and shape.table and shape.col >= 0:
            verdict = verdicts.get((shape.table, shape.col))
        out.append(lb if verdict is None or verdict is lb.verdict else lb._replace(verdict=verdict))
    return out
