"""Keep or drop a data table as a whole, after the cleaner has labelled its cells.

Cleaners label blocks one by one, and a table's cells are blocks: a model may keep most rows of
a table and drop a few short ones (a row of numbers looks like boilerplate on its own), which
leaves holes that make the table wrong. Here the table is decided as a unit, by the majority of
its characters: kept whole when the kept cells hold at least half of its text, dropped whole
otherwise. Only data tables are units (`pipeline.render.blocks.data_tables`): a layout table
holds the page's navigation and its article side by side, and those must stay separate decisions.

Code needs no rule here: a ``<pre>`` is one block whatever it holds (`pipeline.html.walk`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.render.blocks import data_tables
from pipeline.types import LabeledBlock, Verdict


def keep_whole(labeled: Sequence[LabeledBlock]) -> list[LabeledBlock]:
    """``labeled`` with every data table's blocks given the verdict of most of its characters."""
    in_tables = [lb for lb in labeled if lb.block.shape is not None and lb.block.shape.table]
    if not in_tables:
        return list(labeled)
    units = data_tables([lb.block for lb in in_tables])
    if not units:
        return list(labeled)
    kept: dict[int, int] = {}
    total: dict[int, int] = {}
    for lb in in_tables:
        serial = lb.block.shape.table
        if serial in units:
            total[serial] = total.get(serial, 0) + lb.block.n_chars
            if lb.verdict is Verdict.GOOD:
                kept[serial] = kept.get(serial, 0) + lb.block.n_chars
    verdicts = {
        serial: Verdict.GOOD if 2 * kept.get(serial, 0) >= chars else Verdict.BAD
        for serial, chars in total.items()
    }
    out = []
    for lb in labeled:
        shape = lb.block.shape
        verdict = verdicts.get(shape.table) if shape is not None and shape.table else None
        out.append(lb if verdict is None or verdict is lb.verdict else lb._replace(verdict=verdict))
    return out
