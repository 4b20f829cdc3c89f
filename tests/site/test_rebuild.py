"""A document's text and Markdown rebuilt from its stored blocks equal what the cleaning pass
rendered: on generated structured pages through the output's columns, and byte for byte on real
pages through the whole sink."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fsspec
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.evaluate.datasets import load_dataset
from pipeline.output.columns import DocColumns
from pipeline.output.schema import file_rendering
from pipeline.output.sink import OutputPaths, PartitionedParquetSink
from pipeline.render.blocks import render
from pipeline.site.rebuild import block_of, rebuild, shape_of
from pipeline.types import Block, CleanResult, LabeledBlock, LangGuess, RawPage, Shape, Verdict
from tests.render.test_blocks import shaped_blocks


def _page(n: int, url: str = "https://a.example/") -> RawPage:
    return RawPage(
        warc_path="a.warc.gz",
        record_id=f"<urn:{n}>",
        record_type="response",
        warc_offset=n,
        warc_length=1,
        url=url,
        warc_date="2024-01-01T00:00:00Z",
        http_status=200,
        content_type="text/html",
        http_headers=(),
        body=b"",
        truncated=False,
    )


def _stored(labeled: list[LabeledBlock]) -> list[dict[str, Any]]:
    columns = DocColumns()
    result = CleanResult("x", tuple(labeled), LangGuess("en", 1.0), "utf-8", "meta", "t", None)
    columns.add(_page(0), result, cleaner_version="v", cleaner_params="{}")
    return columns.to_batch().to_pylist()[0]["blocks"]


@settings(max_examples=150, deadline=None)
@given(
    blocks=shaped_blocks(),
    data=st.data(),
    formats=st.sampled_from(["text", "markdown", "both"]),
    comments=st.booleans(),
)
def test_rebuild_renders_the_kept_stored_blocks_as_the_renderer_does(
    blocks: list[Block], data: st.DataObject, formats: str, comments: bool
) -> None:
    labels = [data.draw(st.sampled_from(list(Verdict))) for _ in blocks]
    labeled = [LabeledBlock(b, v) for b, v in zip(blocks, labels, strict=True)]
    stored = _stored(labeled)
    assert [shape_of(s["shape"]) for s in stored] == [b.shape for b in blocks]
    keep = (Verdict.GOOD, Verdict.COMMENT) if comments else (Verdict.GOOD,)
    expected = render([b for b, v in zip(blocks, labels, strict=True) if v in keep])
    got = rebuild(stored, [v.value for v in labels], formats=formats, include_comments=comments)
    assert got.text == ("" if formats == "markdown" else expected.text)
    assert got.markdown == (None if formats == "text" else expected.markdown)
    assert got.structure == expected.structure
    assert got.n_chars == len(expected.text)
    assert got.n_good == labels.count(Verdict.GOOD)


def test_a_block_is_rebuilt_from_its_stored_fields() -> None:
    shape = Shape(lists="uo", item=3, spans=((0, 4, "code"),), raw=None)
    stored = _stored([LabeledBlock(Block(7, "code here", "li", "ul.li", "", False, 9, 2, 0, 1, 5,
                                         shape=shape), Verdict.GOOD)])  # fmt: skip
    block = block_of(7, stored[0])
    assert (block.text, block.tag, block.n_words, block.shape) == ("code here", "li", 2, shape)
    assert shape_of(None) is None


@pytest.mark.shared
@pytest.mark.parametrize(
    ("formats", "comments", "step"),
    [("both", False, 7), ("text", True, 21), ("markdown", False, 21)],
)
def test_rebuild_of_real_pages_is_byte_identical(
    tmp_path: Path,
    wcxb_dir: Path,
    multilingual_dir: Path,
    formats: str,
    comments: bool,
    step: int,
) -> None:
    # Every seventh WCXB page (all seven page types) and multilingual page, as the default run
    # writes them: code, tables, lists, math and quotes among them, and comment sections; the
    # other renderings on every 21st.
    pages = load_dataset(wcxb_dir)[::step] + load_dataset(multilingual_dir)[::step]
    fs = fsspec.filesystem("file")
    sink = PartitionedParquetSink(
        fs,
        OutputPaths(str(tmp_path), "real"),
        batch_rows=50,
        batch_bytes=1 << 26,
        text=formats != "markdown",
        markdown=formats != "text",
        include_comments=comments,
    )
    with sink:
        for n, page in enumerate(pages):
            result = clean_html(
                page.read_html(),
                url=page.url,
                markdown=formats != "text",
                include_comments=comments,
            )
            if result.text:
                sink.write_doc(_page(n, page.url or ""), result, cleaner_version="v",
                               cleaner_params="{}")  # fmt: skip
        written = sink.commit()
    checked = structured = 0
    for path in written:
        if "/docs/" not in path:
            continue
        table = pq.read_table(path)
        got_formats, got_comments = file_rendering(table.schema.metadata)
        assert (got_formats, got_comments) == (formats, comments)
        for row in table.to_pylist():
            labels = [b["label"] for b in row["blocks"]]
            again = rebuild(row["blocks"], labels, formats=formats, include_comments=comments)
            assert again.text == row["text"], row["url"]
            assert again.markdown == row["markdown"], row["url"]
            assert list(again.structure) == row["structure"]
            assert (again.n_good, again.n_chars, again.n_words) == (
                row["n_good"], row["n_chars"], row["n_words"],
            )  # fmt: skip
            checked += 1
            structured += bool(row["structure"])
    # Nearly every page gives a document; about a sixth hold code, tables or math.
    assert checked > 0.9 * len(pages) and structured > 0.1 * checked
