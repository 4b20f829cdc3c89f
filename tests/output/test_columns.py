"""Columnar batches: what the sink writes equals rows built one by one from the same values.

The expected rows are built here, field by field from the `RawPage` and `CleanResult` (the way the
row-at-a-time writer did before the output went columnar), and compared with what pyarrow reads
back from the files, for random documents: empty and non-ASCII texts, blocks with no characters,
absent scores and classes, several row groups and partitions.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import fsspec
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.output.columns import BLOCK_OVERHEAD, ROW_OVERHEAD, DocColumns, RejectColumns
from pipeline.output.schema import (
    BLOCK_TYPE,
    DOCS_SCHEMA,
    REJECTS_SCHEMA,
    SHAPE_TYPE,
    file_rendering,
    partition_language,
)
from pipeline.output.sink import OutputPaths, PartitionedParquetSink
from pipeline.types import (
    TRUNCATED_OUTPUT,
    Block,
    CfClass,
    CleanResult,
    LabeledBlock,
    LangGuess,
    PageMetadata,
    RawPage,
    Rejected,
    Shape,
    Verdict,
)


def expected_shape(shape: Shape | None) -> dict[str, Any] | None:
    """A `Shape` as pyarrow reads it back: a dict of its fields, spans as dicts."""
    if shape is None:
        return None
    out = shape._asdict()
    out["spans"] = [{"start": a, "end": b, "kind": k} for a, b, k in shape.spans]
    return out


def expected_row(
    page: RawPage,
    result: CleanResult,
    version: str,
    params: str,
    formats: str = "both",
) -> dict[str, Any]:
    blocks = []
    for lb in result.blocks:
        b = lb.block
        blocks.append(
            {
                "text": b.text,
                "tag": b.tag,
                "dom_path": b.dom_path,
                "label": lb.verdict.value,
                "cf_class": None if lb.cf_class is None else lb.cf_class.value,
                "is_heading": b.is_heading,
                "n_chars": b.n_chars,
                "n_words": b.n_words,
                "n_link_chars": b.n_link_chars,
                "n_tags": b.n_tags,
                "n_markup_chars": b.n_markup_chars,
                # float32 columns read back as the float32 value, widened
                "link_density": float(np.float32(b.link_density)),
                "stopword_density": None
                if lb.stopword_density is None
                else float(np.float32(lb.stopword_density)),
                "score": None if lb.score is None else float(np.float32(lb.score)),
                "shape": expected_shape(b.shape),
                "site_pages": None,  # until a site stage counts it
            }
        )
    good = [lb for lb in result.blocks if lb.verdict == Verdict.GOOD]
    return {
        "record_id": page.record_id,
        "url": page.url,
        "warc_path": page.warc_path,
        "warc_offset": page.warc_offset,
        "warc_length": page.warc_length,
        "warc_date": page.warc_date,
        "http_status": page.http_status,
        "content_type": page.content_type,
        "encoding": result.encoding,
        "encoding_source": result.encoding_source,
        "language": partition_language(result.language.code),
        "language_prob": float(np.float32(result.language.prob)),
        "stoplist": result.stoplist,
        "cleaner": result.cleaner,
        "cleaner_version": version,
        "cleaner_params": params,
        # --formats markdown writes "" (the column is not nullable); n_chars still counts.
        "text": "" if formats == "markdown" else result.text,
        "n_blocks": len(result.blocks),
        "n_good": len(good),
        "n_chars": len(result.text),
        "n_words": sum(lb.block.n_words for lb in good),
        # the record was cut short, or the cleaner capped the text (`clean.output_cap`)
        "truncated": page.truncated or TRUNCATED_OUTPUT in result.notes,
        "notes": list(page.notes) + list(result.notes),
        "blocks": blocks,
        "markdown": None if formats == "text" else result.markdown,
        "structure": list(result.structure),
        "title": result.metadata.title,
        "description": result.metadata.description,
        "author": result.metadata.author,
        "published": result.metadata.published,
        "site_name": result.metadata.site_name,
        "canonical_url": result.metadata.canonical_url,
        "duplicate_of": None,
        "page_type": result.page_type,
        "page_type_prob": result.page_type_prob,
    }


texts = st.text(max_size=40)
counts = st.integers(min_value=0, max_value=5000)
probabilities = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


small = st.integers(min_value=-1, max_value=1 << 20)


@st.composite
def shapes(draw: st.DrawFn) -> Shape:
    return Shape(
        heading=draw(st.integers(min_value=0, max_value=6)),
        lists=draw(st.text(alphabet="uo", max_size=4)),
        item=draw(small),
        table=draw(small),
        row=draw(small),
        col=draw(small),
        header=draw(st.booleans()),
        quote=draw(st.integers(min_value=0, max_value=9)),
        pre=draw(small),
        code_lang=draw(st.sampled_from(["", "python", "c++"])),
        raw=draw(st.none() | texts),
        spans=tuple(
            draw(
                st.lists(
                    st.tuples(small, small, st.sampled_from(["code", "math", "display_math"])),
                    max_size=3,
                )
            )
        ),
    )


@st.composite
def labeled_blocks(draw: st.DrawFn, index: int) -> LabeledBlock:
    n_chars = draw(counts)
    block = Block(
        index=index,
        text=draw(texts),
        tag=draw(st.sampled_from(["p", "h1", "li", "div", "td"])),
        dom_path=draw(st.text(alphabet="abcdhlipv.", max_size=30)),
        style=draw(st.sampled_from(["", "p.intro", "div.nav"])),
        is_heading=draw(st.booleans()),
        n_chars=n_chars,
        n_words=draw(counts),
        n_link_chars=draw(st.integers(min_value=0, max_value=n_chars)),
        n_tags=draw(counts),
        n_markup_chars=draw(counts),
        runs=draw(st.none() | st.just((3, -1, 2))),
        ancestor_cues=draw(st.integers(min_value=0, max_value=1 << 17)),
        shape=draw(st.none() | shapes()),
    )
    return LabeledBlock(
        block,
        draw(st.sampled_from(list(Verdict))),
        draw(st.none() | st.sampled_from(list(CfClass))),
        draw(st.none() | probabilities),
        draw(st.none() | probabilities),
    )


@st.composite
def documents(draw: st.DrawFn, n: int) -> tuple[RawPage, CleanResult]:
    n_blocks = draw(st.integers(min_value=0, max_value=6))
    blocks = tuple(draw(labeled_blocks(i)) for i in range(n_blocks))
    page = RawPage(
        warc_path="s3://bucket/crawl/a.warc.gz",
        record_id=f"<urn:uuid:{n}>",
        record_type="response",
        warc_offset=draw(st.integers(min_value=0, max_value=1 << 40)),
        warc_length=draw(st.integers(min_value=1, max_value=1 << 30)),
        url=draw(texts),
        warc_date="2024-05-06T07:08:09Z",
        http_status=draw(st.none() | st.integers(min_value=100, max_value=599)),
        content_type=draw(st.none() | st.just("text/html; charset=utf-8")),
        http_headers=(),
        body=b"",
        truncated=draw(st.booleans()),
        notes=tuple(draw(st.lists(texts, max_size=2))),
    )
    result = CleanResult(
        text=draw(texts),
        blocks=blocks,
        language=LangGuess(draw(st.sampled_from(["en", "de", "zh-cn", "und", "xx-"])), 0.75),
        encoding=draw(st.sampled_from(["utf-8", "cp1252"])),
        encoding_source="meta",
        cleaner="justext",
        stoplist=draw(st.none() | st.just("en")),
        notes=tuple(draw(st.lists(texts, max_size=2))),
        markdown=draw(texts),
        structure=tuple(sorted(draw(st.sets(st.sampled_from(["code", "math", "table"]))))),
        metadata=PageMetadata(*(draw(st.none() | texts) for _ in range(6))),
        page_type=draw(st.none() | st.sampled_from(["article", "product"])),
        page_type_prob=draw(st.none() | st.just(0.5)),
    )
    return page, result


@settings(max_examples=60, deadline=None)
@given(
    docs=st.integers(min_value=1, max_value=9).flatmap(
        lambda k: st.tuples(*(documents(i) for i in range(k)))
    ),
    batch_rows=st.integers(min_value=1, max_value=4),
    formats=st.sampled_from(["text", "markdown", "both"]),
    include_comments=st.booleans(),
)
def test_files_hold_exactly_the_rows_built_one_by_one(
    tmp_path_factory: Any,
    docs: tuple[tuple[RawPage, CleanResult], ...],
    batch_rows: int,
    formats: str,
    include_comments: bool,
) -> None:
    root = tmp_path_factory.mktemp("out")
    fs = fsspec.filesystem("file")
    with PartitionedParquetSink(
        fs,
        OutputPaths(str(root), "a"),
        batch_rows=batch_rows,
        batch_bytes=1 << 20,
        text=formats != "markdown",
        markdown=formats != "text",
        include_comments=include_comments,
    ) as sink:
        for page, result in docs:
            sink.write_doc(page, result, cleaner_version="v1", cleaner_params='{"k": 1}')
        files = sink.commit()
    got = []
    for f in files:
        if "/docs/" in f:
            table = pq.read_table(f)
            assert table.schema.equals(DOCS_SCHEMA)
            assert file_rendering(table.schema.metadata) == (formats, include_comments)
            got += table.to_pylist()
    expected = [expected_row(p, r, "v1", '{"k": 1}', formats) for p, r in docs]
    key = lambda row: row["record_id"]  # noqa: E731
    assert sorted(got, key=key) == sorted(expected, key=key)


def test_truncated_says_the_record_or_the_text_was_cut_short(tmp_path: Path) -> None:
    # Found by README's test command: a drawn note equal to TRUNCATED_OUTPUT marks the row
    # truncated, which the rows' oracle above did not know.
    def doc(n: int, cut_record: bool, notes: tuple[str, ...]) -> tuple[RawPage, CleanResult]:
        page = RawPage(
            warc_path="a.warc.gz", record_id=f"<urn:uuid:{n}>", record_type="response",
            warc_offset=0, warc_length=1, url="", warc_date="2024-05-06T07:08:09Z",
            http_status=None, content_type=None, http_headers=(), body=b"",
            truncated=cut_record, notes=(),
        )  # fmt: skip
        result = CleanResult(
            text="", blocks=(), language=LangGuess("en", 0.75), encoding="utf-8",
            encoding_source="meta", cleaner="justext", stoplist=None, notes=notes,
        )  # fmt: skip
        return page, result

    docs = [doc(0, False, ()), doc(1, True, ()), doc(2, False, (TRUNCATED_OUTPUT,))]
    with PartitionedParquetSink(
        fsspec.filesystem("file"),
        OutputPaths(str(tmp_path), "a"),
        batch_rows=2,
        batch_bytes=1 << 20,
    ) as sink:
        for page, result in docs:
            sink.write_doc(page, result, cleaner_version="v1", cleaner_params="{}")
        files = sink.commit()
    rows = [row for f in files if "/docs/" in f for row in pq.read_table(f).to_pylist()]
    truncated = {row["record_id"]: row["truncated"] for row in rows}
    assert truncated == {"<urn:uuid:0>": False, "<urn:uuid:1>": True, "<urn:uuid:2>": True}


def test_each_schema_appends_its_columns_after_every_old_column() -> None:
    # Schema 1's columns, as its readers know them, keep their places; the new ones follow.
    schema_1 = (
        "record_id url warc_path warc_offset warc_length warc_date http_status content_type "
        "encoding encoding_source language language_prob stoplist cleaner cleaner_version "
        "cleaner_params text n_blocks n_good n_chars n_words truncated notes blocks"
    ).split()
    metadata = ["title", "description", "author", "published", "site_name", "canonical_url"]
    assert DOCS_SCHEMA.names == [
        *schema_1,
        *("markdown", "structure"),
        *(*metadata, "duplicate_of", "page_type", "page_type_prob"),
    ]
    assert not DOCS_SCHEMA.field("text").nullable
    assert DOCS_SCHEMA.field("blocks").type.value_type == BLOCK_TYPE
    assert DOCS_SCHEMA.field("markdown").nullable
    assert not DOCS_SCHEMA.field("structure").nullable
    for name in metadata:
        assert DOCS_SCHEMA.field(name).nullable
        assert DOCS_SCHEMA.field(name).type == pa.string()
    assert DOCS_SCHEMA.field("duplicate_of").nullable
    assert DOCS_SCHEMA.field("page_type").type == pa.string()
    assert DOCS_SCHEMA.field("page_type_prob").type == pa.float32()
    block_2 = (
        "text tag dom_path label cf_class is_heading n_chars n_words n_link_chars n_tags "
        "n_markup_chars link_density stopword_density score"
    ).split()
    assert [f.name for f in BLOCK_TYPE] == [*block_2, "shape", "site_pages"]
    assert DOCS_SCHEMA.metadata[b"warcclean.schema_version"] == b"3"


def test_the_shape_struct_is_shape_field_for_field() -> None:
    assert [f.name for f in SHAPE_TYPE] == list(Shape._fields)
    assert SHAPE_TYPE.field("raw").nullable
    assert not SHAPE_TYPE.field("heading").nullable


def test_a_shape_field_without_an_arrow_type_is_refused(monkeypatch: Any) -> None:
    import pipeline.output.schema as schema

    monkeypatch.setitem(Shape.__annotations__, "heading", "frozenset[int]")
    with pytest.raises(TypeError, match=r"Shape.heading: 'frozenset\[int\]' has no Arrow type"):
        schema.shape_type()


def test_an_empty_batch_is_a_valid_empty_table() -> None:
    assert DocColumns().to_batch().num_rows == 0
    assert DocColumns().to_batch().schema.equals(DOCS_SCHEMA)
    assert RejectColumns().to_batch().schema.equals(REJECTS_SCHEMA)


def test_rejects_read_back_field_by_field(tmp_path: Path) -> None:
    rejected = [
        Rejected("a.warc.gz", "<r1>", "response", 10, "https://x/é", "not_html", "pdf", 99),
        Rejected("a.warc.gz", None, "response", None, None, "unreadable", "cut", None),
    ]
    columns = RejectColumns()
    for r in rejected:
        columns.add(r)
    rows = columns.to_batch().to_pylist()
    assert rows == [
        {
            "warc_path": r.warc_path,
            "record_id": r.record_id,
            "record_type": r.record_type,
            "warc_offset": r.warc_offset,
            "warc_length": r.warc_length,
            "url": r.url,
            "reason": r.reason,
            "detail": r.detail,
        }
        for r in rejected
    ]


@settings(max_examples=40, deadline=None)
@given(
    docs=st.lists(st.integers(0, 9).flatmap(documents), min_size=1, max_size=4),
    formats=st.sampled_from(["text", "markdown", "both"]),
)
def test_buffered_bytes_count_every_string_a_document_holds(
    docs: list[tuple[RawPage, CleanResult]], formats: str
) -> None:
    # The sink flushes on these counts (``batch_bytes``): each document's strings, its row and
    # each block's slots (`ROW_OVERHEAD`, `BLOCK_OVERHEAD`), so a page of many blocks or a long
    # Markdown cannot grow a buffer past its bound uncounted.
    text, markdown = formats != "markdown", formats != "text"
    columns = DocColumns(text=text, markdown=markdown)
    sizes = []
    for page, result in docs:
        expected = ROW_OVERHEAD + (len(result.text) if text else 0)
        expected += len(result.markdown or "") if markdown else 0
        expected += sum(len(v) for v in dataclasses.astuple(result.metadata) if v)
        expected += sum(
            BLOCK_OVERHEAD + len(lb.block.text) + len(lb.block.dom_path) for lb in result.blocks
        )
        sizes.append(columns.add(page, result, cleaner_version="v1", cleaner_params="{}"))
        assert sizes[-1] == expected
    assert columns.nbytes == sum(sizes)


def test_documents_are_buffered_with_text_and_markdown_by_default() -> None:
    page = RawPage(
        warc_path="a.warc.gz", record_id="<urn:uuid:0>", record_type="response", warc_offset=0,
        warc_length=1, url="", warc_date="2024-05-06T07:08:09Z", http_status=None,
        content_type=None, http_headers=(), body=b"", truncated=False, notes=(),
    )  # fmt: skip
    result = CleanResult(
        text="Hello.", blocks=(), language=LangGuess("en", 0.75), encoding="utf-8",
        encoding_source="meta", cleaner="justext", stoplist=None, markdown="**Hello.**",
    )  # fmt: skip
    columns = DocColumns()
    columns.add(page, result, cleaner_version="v1", cleaner_params="{}")
    row = pa.Table.from_batches([columns.to_batch()]).to_pylist()[0]
    assert (row["text"], row["markdown"]) == ("Hello.", "**Hello.**")


def test_buffered_rejections_count_their_detail() -> None:
    columns = RejectColumns()
    sizes = [
        columns.add(Rejected("a.warc.gz", f"<urn:uuid:{i}>", "response", 0, "", "r", detail))
        for i, detail in enumerate(["", "x" * 100])
    ]
    assert sizes == [ROW_OVERHEAD, ROW_OVERHEAD + 100]
    assert columns.nbytes == sum(sizes)
