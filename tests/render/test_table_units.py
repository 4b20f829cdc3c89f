"""Data tables are decided column by column, by the majority of each column's characters."""

from __future__ import annotations

from pipeline.render.table_units import keep_whole
from pipeline.types import Block, LabeledBlock, Shape, Verdict

G, B = Verdict.GOOD, Verdict.BAD


def _labeled(text: str, verdict: Verdict, shape: Shape | None) -> LabeledBlock:
    block = Block(0, text, "td", "html.body.table.tr.td", "td", False, len(text), 1, 0, 0, 0)
    return LabeledBlock(block._replace(shape=shape), verdict)


def _grid(verdicts: list[list[Verdict]], texts: list[list[str]], table: int = 1) -> list:
    return [
        _labeled(texts[r][c], verdicts[r][c], Shape(table=table, row=r, col=c))
        for r in range(len(verdicts))
        for c in range(len(verdicts[r]))
    ]


def _verdicts(labeled: list[LabeledBlock]) -> list[Verdict]:
    return [lb.verdict for lb in labeled]


def test_a_column_mostly_kept_is_kept_whole_and_a_column_of_widgets_goes() -> None:
    # A ranking: titles (column 0) kept but for one short row the model doubted; a column of
    # "vote" buttons (column 1) dropped but for one.
    texts = [["The Hunger Games", "vote"], ["Pride and Prejudice", "vote"], ["Emma", "vote"]]
    verdicts = [[G, B], [G, G], [B, B]]
    out = keep_whole(_grid(verdicts, texts))
    assert _verdicts(out) == [G, B, G, B, G, B]


def test_a_doubted_column_of_distinct_row_labels_stays_with_its_kept_values() -> None:
    texts = [["Format", "Records per second"], ["WARC", "12,000"], ["ARC", "9,500"]]
    out = keep_whole(_grid([[B, G], [B, G], [B, G]], texts))
    assert _verdicts(out) == [G, G, G, G, G, G]


def test_a_column_of_one_cell_is_no_column_of_widgets() -> None:
    # A spec sheet whose first row alone has a third cell, a note the model doubted: one cell
    # cannot show a column repeating itself, so it stays with its kept table.
    labeled = [
        *_grid(
            [[G, G], [G, G], [G, G]],
            [["Weight", "1.2 kg"], ["Height", "30 cm"], ["Width", "20 cm"]],
        ),
        _labeled("measured without the battery", B, Shape(table=1, row=0, col=2)),
    ]
    assert _verdicts(keep_whole(labeled)) == [G] * 7
    # Two cells alike in that column are buttons, and go.
    labeled.append(_labeled("measured without the battery", B, Shape(table=1, row=1, col=2)))
    assert _verdicts(keep_whole(labeled)) == [G] * 6 + [B, B]


def test_a_table_whose_cells_were_nearly_all_dropped_is_dropped_whole() -> None:
    texts = [["Home page", "About"], ["Help", "Privacy policy and terms"]]
    out = keep_whole(_grid([[B, B], [G, B]], texts))
    assert _verdicts(out) == [B, B, B, B]


def test_majority_is_by_characters_not_by_cells() -> None:
    # In column 0, two short cells dropped and one long cell kept: the long cell's characters win.
    texts = [["a long description of the first item", "1"], ["x", "2"], ["y", "3"]]
    out = keep_whole(_grid([[G, G], [B, G], [B, G]], texts))
    assert _verdicts(out) == [G, G, G, G, G, G]


def test_layout_tables_and_blocks_outside_tables_keep_their_own_verdicts() -> None:
    prose = "word " * 120  # a cell of prose: a page region, not data (over 400 characters)
    layout = [
        _labeled(prose, G, Shape(table=1, row=0, col=0)),
        _labeled("menu", B, Shape(table=1, row=0, col=1)),
        _labeled("footer", B, Shape(table=1, row=1, col=0)),
        _labeled("x", G, Shape(table=1, row=1, col=1)),
    ]
    outside = [_labeled("A paragraph.", B, None), _labeled("Item", G, Shape(lists="u", item=1))]
    labeled = [*outside, *layout]
    assert _verdicts(keep_whole(labeled)) == _verdicts(labeled)


def _plans(rows: int, verdict: Verdict = B) -> list[LabeledBlock]:
    """A comparison grid of plans the cleaner dropped cell by cell: a label and two prices a row."""
    texts = [[f"Feature {r}", f"${10 + r}", f"${20 + r}"] for r in range(rows)]
    return _grid([[verdict] * 3 for _ in range(rows)], texts)


def test_a_dropped_table_inside_kept_text_is_kept_whole() -> None:
    before = _labeled("Here is how the plans compare.", G, None)
    after = _labeled("The cheapest plan covers most trips.", G, None)
    out = keep_whole([before, *_plans(4), after])
    assert _verdicts(out) == [G] * 14
    # A caption row in its own table between them does not hide the kept text.
    caption = _labeled("Table 1", B, Shape(table=2, row=0, col=0))
    out = keep_whole([before, caption, *_plans(4), after])
    assert _verdicts(out)[2:-1] == [G] * 12


def test_a_dropped_table_beside_dropped_text_or_short_stays_dropped() -> None:
    kept = _labeled("An article paragraph.", G, None)
    dropped = _labeled("Related offers", B, None)
    for labeled in (
        [dropped, *_plans(4), kept],  # boilerplate before it
        [kept, *_plans(4), dropped],  # boilerplate after it
        [*_plans(4), kept],  # nothing before it
        [kept, *_plans(3), kept],  # three rows: a rating box, not a grid
    ):
        assert _verdicts(keep_whole(labeled)) == _verdicts(labeled)


def test_a_column_kept_by_exactly_half_its_characters_keeps_the_table() -> None:
    # Column 0 kept 5 of its 10 characters: half is a majority. Column 1 was dropped.
    half = keep_whole(_grid([[G, B], [B, B]], [["abcde", "x"], ["fghij", "y"]]))
    assert _verdicts(half) == [G] * 4
    # 4 of 9: not a majority, and no other column has one, so the table goes whole.
    under = keep_whole(_grid([[G, B], [B, B]], [["abcd", "x"], ["efghi", "y"]]))
    assert _verdicts(under) == [B] * 4


def test_a_dropped_table_is_kept_only_when_kept_text_follows_it_outside_every_table() -> None:
    kept = _labeled("An article paragraph.", G, None)
    dropped = _labeled("Related offers", B, None)
    other_table = _labeled("Sponsored", B, Shape(table=2, row=0, col=0))
    for labeled in (
        [kept, *_plans(4)],  # nothing after it: the page ends
        [kept, *_plans(4), other_table, dropped],  # past another table, boilerplate
    ):
        assert _verdicts(keep_whole(labeled)) == _verdicts(labeled)
    # Past another table, kept text: the grid sits inside the article.
    out = keep_whole([kept, *_plans(4), other_table, kept])
    assert _verdicts(out)[1:13] == [G] * 12


def test_only_data_table_cells_in_a_column_are_decided_together() -> None:
    # A page with a kept data table (1) beside a layout table (2) whose article column was kept
    # and whose navigation column was dropped, and a block of table 1 outside any cell.
    prose = "word " * 120
    layout = [
        _labeled(prose, G, Shape(table=2, row=0, col=0)),
        _labeled("menu", B, Shape(table=2, row=0, col=1)),
        _labeled("footer", B, Shape(table=2, row=1, col=0)),
        _labeled("x", G, Shape(table=2, row=1, col=1)),
    ]
    data = _grid([[G, G], [G, G]], [["Weight", "1.2 kg"], ["Height", "30 cm"]])
    loose = _labeled("Prices as of May", B, Shape(table=1, row=0, col=-1))
    labeled = [*data, loose, *layout]
    assert _verdicts(keep_whole(labeled)) == _verdicts(labeled)
