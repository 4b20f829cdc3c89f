"""The Parquet sink: schema, atomic files, bounded buffers, re-runs, and every reader we promise."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import fsspec
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.output.columns import DocColumns, RejectColumns
from pipeline.output.schema import (
    DOCS_SCHEMA,
    FREE_TEXT_COLUMNS,
    REJECTS_SCHEMA,
    SCHEMA_VERSION,
    partition_language,
    writer_options,
)
from pipeline.output.sink import (
    OutputPaths,
    PartitionedParquetSink,
    read_marker,
    write_marker,
)
from pipeline.types import (
    Block,
    CfClass,
    CleanResult,
    LabeledBlock,
    LangGuess,
    RawPage,
    Rejected,
    Verdict,
)


def make_page(n: int, warc_path: str = "in/a.warc.gz") -> RawPage:
    return RawPage(
        warc_path=warc_path,
        record_id=f"<urn:uuid:{n:04d}>",
        record_type="response",
        warc_offset=1000 * n,
        warc_length=900,
        url=f"https://example.com/{n}",
        warc_date="2024-01-02T03:04:05Z",
        http_status=200,
        content_type="text/html",
        http_headers=(("Content-Type", "text/html"),),
        body=b"<p>x</p>",
        truncated=n % 2 == 0,
    )


# Documents 1 and 3 hold a table and code; 2 and 4 are plain prose.
def make_markdown(n: int) -> str:
    if n % 2:
        return f"# Doc {n}\n\n| a | b |\n| --- | --- |\n| {n} | x |\n\n```python\nx = {n}\n```\n"
    return f"Main text number {n}."


def make_result(n: int, lang: str) -> CleanResult:
    good = Block(0, f"Main text number {n}.", "p", "html.body.p", "", False, 20, 4, 0, 1, 7)
    bad = Block(1, "Home | Contact", "a", "html.body.nav.a", "", False, 14, 3, 14, 2, 20)
    blocks = (
        LabeledBlock(good, Verdict.GOOD, CfClass.GOOD, 0.9, 0.4),
        LabeledBlock(bad, Verdict.BAD, None, None, None),
    )
    return CleanResult(
        text=good.text,
        blocks=blocks,
        language=LangGuess(lang, 0.99),
        encoding="utf-8",
        encoding_source="http",
        cleaner="justext",
        stoplist=lang,
        markdown=make_markdown(n),
        structure=("code", "table") if n % 2 else (),
    )


Doc = tuple[RawPage, CleanResult]


def make_doc(n: int, lang: str) -> Doc:
    return make_page(n), make_result(n, lang)


def make_reject(n: int) -> Rejected:
    return Rejected("in/a.warc.gz", f"<r{n}>", "response", n, "u", "not_html", "pdf")


def write_docs(sink: PartitionedParquetSink, docs: list[Doc]) -> None:
    for page, result in docs:
        sink.write_doc(page, result, cleaner_version="t", cleaner_params="{}")


def write(root: Path, stem: str, docs: list[Doc], rejects: list[Rejected], **kw) -> tuple[str, ...]:
    fs = fsspec.filesystem("file")
    kw = {"batch_rows": 2, "batch_bytes": 1 << 20, **kw}
    with PartitionedParquetSink(fs, OutputPaths(str(root), stem), **kw) as sink:
        write_docs(sink, docs)
        for rejected in rejects:
            sink.write_reject(rejected)
        return sink.commit()


def record_ids(root: Path) -> list[str]:
    table = ds.dataset(root / "docs", format="parquet", partitioning="hive").to_table()
    return sorted(table.column("record_id").to_pylist())


def test_layout_schema_and_version(tmp_path: Path) -> None:
    docs = [make_doc(1, "en"), make_doc(2, "de"), make_doc(3, "en")]
    files = write(tmp_path, "a", docs, [make_reject(9)])
    assert sorted(Path(f).relative_to(tmp_path).as_posix() for f in files) == [
        "docs/language=de/a.parquet",
        "docs/language=en/a.parquet",
        "rejects/a.parquet",
    ]
    en = pq.ParquetFile(tmp_path / "docs/language=en/a.parquet")
    assert en.schema_arrow.equals(DOCS_SCHEMA)
    meta = en.schema_arrow.metadata
    assert meta[b"warcclean.schema_version"] == SCHEMA_VERSION.encode()
    assert meta[b"warcclean.table"] == b"docs"
    assert en.metadata.row_group(0).column(0).compression == "ZSTD"
    rejects = pq.read_table(tmp_path / "rejects/a.parquet")
    assert rejects.schema.equals(REJECTS_SCHEMA)
    assert rejects.column("reason").to_pylist() == ["not_html"]
    row = en.read().to_pylist()[0]
    assert row["blocks"][0]["label"] == "good" and row["blocks"][0]["cf_class"] == "good"
    assert row["blocks"][1]["cf_class"] is None
    assert row["n_good"] == 1 and row["n_blocks"] == 2 and row["n_words"] == 4
    assert not list(tmp_path.rglob(".*.tmp"))


def test_free_text_is_written_plain(tmp_path: Path) -> None:
    write(tmp_path, "a", [make_doc(n, "en") for n in range(1, 5)], [make_reject(9)])
    for path, schema in (
        ("docs/language=en/a.parquet", DOCS_SCHEMA),
        ("rejects/a.parquet", REJECTS_SCHEMA),
    ):
        file = pq.ParquetFile(tmp_path / path)
        columns = file.metadata.row_group(0)
        leaves = {
            columns.column(i).path_in_schema: columns.column(i) for i in range(len(file.schema))
        }
        dictionary = set(writer_options(schema)["use_dictionary"])
        # The options name the file's own columns, so a renamed or added column cannot slip by.
        assert dictionary <= set(leaves) and not dictionary & FREE_TEXT_COLUMNS
        assert FREE_TEXT_COLUMNS & set(leaves)
        for name, column in leaves.items():
            assert ("RLE_DICTIONARY" in column.encodings) == (name in dictionary), name
            # Statistics everywhere: the run report counts Markdown documents by null counts.
            assert column.is_stats_set, name
    assert "blocks.list.element.dom_path" in writer_options(DOCS_SCHEMA)["use_dictionary"]
    assert "language" in writer_options(DOCS_SCHEMA)["use_dictionary"]
    rows = pq.read_table(tmp_path / "docs/language=en/a.parquet").to_pylist()
    assert [r["text"] for r in rows] == [f"Main text number {n}." for n in range(1, 5)]
    assert rows[0]["blocks"][1]["dom_path"] == "html.body.nav.a"


def test_rows_flush_in_batches(tmp_path: Path) -> None:
    write(tmp_path, "a", [make_doc(i, "en") for i in range(5)], [], batch_rows=2)
    assert pq.ParquetFile(tmp_path / "docs/language=en/a.parquet").num_row_groups == 3


def test_byte_budget_flushes_all_partitions(tmp_path: Path) -> None:
    docs = [make_doc(i, lang) for i in range(6) for lang in ("en", "fr")]
    write(tmp_path, "a", docs, [], batch_rows=1000, batch_bytes=1)
    # every row exceeds the 1-byte budget, so each becomes its own row group
    assert pq.ParquetFile(tmp_path / "docs/language=fr/a.parquet").num_row_groups == 6


def _row_groups(path: Path) -> list[int]:
    meta = pq.ParquetFile(path).metadata
    return [meta.row_group(k).num_rows for k in range(meta.num_row_groups)]


def test_the_byte_budget_flushes_when_reached(tmp_path: Path) -> None:
    size = RejectColumns().add(make_reject(0))  # each rejection buffers as much
    write(
        tmp_path, "a", [], [make_reject(i) for i in range(6)], batch_rows=100, batch_bytes=3 * size
    )
    assert _row_groups(tmp_path / "rejects/a.parquet") == [3, 3]


def test_a_partition_flushed_for_its_rows_leaves_the_others_bytes_counted(tmp_path: Path) -> None:
    # A document, then three rejections that fill their partition's rows and are flushed: only
    # their bytes leave the budget, so the document waits for its own partition's rows.
    doc = make_doc(0, "en")
    doc_size = DocColumns().add(*doc, cleaner_version="t", cleaner_params="{}")
    reject_size = RejectColumns().add(make_reject(0))
    fs = fsspec.filesystem("file")
    budget = doc_size + 3 * reject_size + 1
    with PartitionedParquetSink(
        fs, OutputPaths(str(tmp_path), "a"), batch_rows=3, batch_bytes=budget
    ) as sink:
        write_docs(sink, [doc])
        for i in range(3):
            sink.write_reject(make_reject(i))
        write_docs(sink, [make_doc(1, "en"), make_doc(2, "en")])
        sink.commit()
    assert _row_groups(tmp_path / "docs/language=en/a.parquet") == [3]
    assert _row_groups(tmp_path / "rejects/a.parquet") == [3]


def test_nothing_visible_after_an_error(tmp_path: Path) -> None:
    fs = fsspec.filesystem("file")
    with (
        pytest.raises(RuntimeError),
        PartitionedParquetSink(
            fs, OutputPaths(str(tmp_path), "a"), batch_rows=1, batch_bytes=1 << 20
        ) as sink,
    ):
        write_docs(sink, [make_doc(1, "en")])
        raise RuntimeError("input broke")
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_rerun_replaces_and_removes_stale_partitions(tmp_path: Path) -> None:
    write(tmp_path, "a", [make_doc(1, "en"), make_doc(2, "de")], [make_reject(1)])
    write(tmp_path, "b", [make_doc(7, "de")], [])
    write(tmp_path, "a", [make_doc(1, "en"), make_doc(3, "en")], [])
    assert not (tmp_path / "docs/language=de/a.parquet").exists()
    assert (tmp_path / "docs/language=de/b.parquet").exists()
    assert record_ids(tmp_path) == ["<urn:uuid:0001>", "<urn:uuid:0003>", "<urn:uuid:0007>"]
    assert pq.read_table(tmp_path / "rejects/a.parquet").num_rows == 0


def test_leftover_temp_files_are_ignored_then_removed(tmp_path: Path) -> None:
    write(tmp_path, "a", [make_doc(1, "en")], [])
    leftover = tmp_path / "docs/language=en/.a.parquet.deadbeef0000.tmp"
    leftover.write_bytes(b"half a parquet file")
    other = tmp_path / "docs/language=en/.b.parquet.deadbeef0000.tmp"
    other.write_bytes(b"another input's attempt in flight")
    rejects_leftover = tmp_path / "rejects/.a.parquet.deadbeef0001.tmp"
    rejects_leftover.write_bytes(b"half a rejects file")
    assert record_ids(tmp_path) == ["<urn:uuid:0001>"]  # readers skip hidden .tmp names
    write(tmp_path, "a", [make_doc(1, "en")], [])
    assert not leftover.exists() and not rejects_leftover.exists()
    assert other.exists()  # only this stem's leftovers are touched


def test_an_unsafe_language_code_is_written_as_und(tmp_path: Path) -> None:
    page, result = make_doc(1, "en")
    result = dataclasses.replace(result, language=LangGuess("../../etc", 0.5))
    files = write(tmp_path, "a", [(page, result)], [])
    assert sorted(Path(f).relative_to(tmp_path).as_posix() for f in files) == [
        "docs/language=und/a.parquet",
        "rejects/a.parquet",
    ]
    assert pq.read_table(files[0]).column("language").to_pylist() == ["und"]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("en", "en"),
        ("zh-cn", "zh"),
        ("ZH_TW", "zh"),
        ("und", "und"),
        ("../x", "und"),
        ("", "und"),
        ("engl", "und"),
        ("fil", "fil"),
    ],
)
def test_partition_language(code: str, expected: str) -> None:
    assert partition_language(code) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
def test_partition_language_is_always_a_safe_component(code: str) -> None:
    assert re.fullmatch(r"[a-z]{2,3}|und", partition_language(code))


def test_marker_round_trip(tmp_path: Path) -> None:
    fs = fsspec.filesystem("file")
    paths = OutputPaths(str(tmp_path), "a")
    assert read_marker(fs, paths) is None
    write_marker(fs, paths, {"docs": 3})
    assert json.loads((tmp_path / "_done/a.json").read_text()) == {"docs": 3}
    assert read_marker(fs, paths) == {"docs": 3}
    assert not list(tmp_path.rglob(".*.tmp"))


def test_object_store_writes_final_keys_and_drops_failed_ones() -> None:
    fs = fsspec.filesystem("memory")
    paths = OutputPaths("/bucket/out", "a")
    with PartitionedParquetSink(fs, paths, batch_rows=1, batch_bytes=1 << 20) as sink:
        write_docs(sink, [make_doc(1, "en")])
        files = sink.commit()
    assert files == ("/bucket/out/docs/language=en/a.parquet", "/bucket/out/rejects/a.parquet")
    assert all(fs.exists(f) for f in files)  # leaving the block after a commit keeps them
    with (
        pytest.raises(RuntimeError),
        PartitionedParquetSink(
            fs, OutputPaths("/bucket/out", "b"), batch_rows=1, batch_bytes=1 << 20
        ) as sink,
    ):
        write_docs(sink, [make_doc(2, "en")])
        raise RuntimeError("boom")
    assert not fs.exists("/bucket/out/docs/language=en/b.parquet")
    fs.rm("/bucket", recursive=True)


def test_a_small_file_is_written_whole_locally_and_on_an_object_store(tmp_path: Path) -> None:
    from pipeline.output.sink import write_atomic

    local = fsspec.filesystem("file")
    write_atomic(local, str(tmp_path / "new" / "m.json"), b"{}")
    write_atomic(local, str(tmp_path / "new" / "m.json"), b'{"a": 1}')  # replaced
    assert [p.name for p in (tmp_path / "new").iterdir()] == ["m.json"]  # no temporary left
    assert (tmp_path / "new" / "m.json").read_bytes() == b'{"a": 1}'
    memory = fsspec.filesystem("memory")
    write_atomic(memory, "/bucket/w/m.json", b"{}")  # one PUT under the final key
    assert memory.cat_file("/bucket/w/m.json") == b"{}"
    assert memory.ls("/bucket/w", detail=False) == ["/bucket/w/m.json"]
    memory.rm("/bucket", recursive=True)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    write(tmp_path, "a", [make_doc(1, "en"), make_doc(2, "de")], [])
    write(tmp_path, "b", [make_doc(3, "en"), make_doc(4, "fr")], [])
    return tmp_path


EXPECTED = [
    ("<urn:uuid:0001>", "en"),
    ("<urn:uuid:0002>", "de"),
    ("<urn:uuid:0003>", "en"),
    ("<urn:uuid:0004>", "fr"),
]


# Each document's Markdown and structure, as `make_result` gives them.
EXPECTED_MARKDOWN = {
    f"<urn:uuid:{n:04d}>": (make_markdown(n), ["code", "table"] if n % 2 else [])
    for n in range(1, 5)
}


def test_reads_with_pyarrow_dataset(dataset: Path) -> None:
    table = ds.dataset(dataset / "docs", format="parquet", partitioning="hive").to_table()
    rows = sorted(zip(table["record_id"].to_pylist(), table["language"].to_pylist(), strict=True))
    assert rows == EXPECTED
    got = {
        r["record_id"]: (r["markdown"], r["structure"])
        for r in table.select(["record_id", "markdown", "structure"]).to_pylist()
    }
    assert got == EXPECTED_MARKDOWN


def test_reads_with_duckdb(dataset: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    glob = f"{dataset}/docs/**/*.parquet"
    rows = duckdb.sql(
        f"select record_id, language, len(blocks) from read_parquet('{glob}', "
        "hive_partitioning = true) order by record_id"
    ).fetchall()
    assert [(r, lang) for r, lang, _ in rows] == EXPECTED
    assert {n for *_, n in rows} == {2}
    # The new columns by name, and a filter on the structure list as a reader would write it.
    rows = duckdb.sql(
        f"select record_id, markdown, structure from read_parquet('{glob}') order by record_id"
    ).fetchall()
    assert {r: (md, list(st)) for r, md, st in rows} == EXPECTED_MARKDOWN
    with_tables = duckdb.sql(
        f"select record_id from read_parquet('{glob}') where list_contains(structure, 'table') "
        "order by record_id"
    ).fetchall()
    assert [r for (r,) in with_tables] == ["<urn:uuid:0001>", "<urn:uuid:0003>"]


def test_reads_with_polars(dataset: Path) -> None:
    pl = pytest.importorskip("polars")
    df = pl.scan_parquet(f"{dataset}/docs/**/*.parquet", hive_partitioning=True).collect()
    assert sorted(zip(df["record_id"].to_list(), df["language"].to_list(), strict=True)) == EXPECTED
    got = dict(
        zip(
            df["record_id"].to_list(),
            zip(df["markdown"].to_list(), df["structure"].to_list(), strict=True),
            strict=True,
        )
    )
    assert got == EXPECTED_MARKDOWN
    coded = df.filter(pl.col("structure").list.contains("code"))["record_id"].sort().to_list()
    assert coded == ["<urn:uuid:0001>", "<urn:uuid:0003>"]


def test_reads_with_hf_datasets(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    hf = pytest.importorskip("datasets")
    cache = tmp_path_factory.mktemp("hf-cache")
    data = hf.load_dataset(
        "parquet", data_files=f"{dataset}/docs/**/*.parquet", split="train", cache_dir=str(cache)
    )
    assert sorted(zip(data["record_id"], data["language"], strict=True)) == EXPECTED
    assert data[0]["blocks"][0]["label"] in {"good", "bad"}
    got = {
        r: (md, st)
        for r, md, st in zip(data["record_id"], data["markdown"], data["structure"], strict=True)
    }
    assert got == EXPECTED_MARKDOWN


def test_text_only_writes_null_markdown_and_markdown_only_an_empty_text(tmp_path: Path) -> None:
    docs = [make_doc(1, "en"), make_doc(2, "en")]
    write(tmp_path / "t", "a", docs, [], text=True, markdown=False)
    write(tmp_path / "m", "a", docs, [], text=False, markdown=True)
    text_only = pq.read_table(tmp_path / "t/docs/language=en/a.parquet").to_pylist()
    md_only = pq.read_table(tmp_path / "m/docs/language=en/a.parquet").to_pylist()
    assert [r["markdown"] for r in text_only] == [None, None]
    assert [r["text"] for r in text_only] == ["Main text number 1.", "Main text number 2."]
    assert [r["markdown"] for r in md_only] == [make_markdown(1), make_markdown(2)]
    assert [r["text"] for r in md_only] == ["", ""]
    # The document's length and structure do not depend on what is written.
    for rows in (text_only, md_only):
        assert [r["n_chars"] for r in rows] == [19, 19]
        assert [r["structure"] for r in rows] == [["code", "table"], []]
