"""`check_output`: what a job may write into, checked before it starts (local and S3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.jobconfig import JobConfig
from pipeline.output.layout import OutputError, check_output, foreign_entries
from pipeline.output.schema import METADATA_COLUMNS
from pipeline.run import process_warc
from tests.jobhelpers import make_inputs


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_a_new_or_empty_directory_is_taken_and_left_as_it_was(tmp_path: Path) -> None:
    check_output(str(tmp_path / "new" / "deeper"))
    assert not (tmp_path / "new").exists()
    (tmp_path / "empty").mkdir()
    check_output(str(tmp_path / "empty"))
    assert _files(tmp_path / "empty") == []  # the write check cleans up after itself


def test_an_earlier_output_is_taken(tmp_path: Path) -> None:
    (inp,) = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    process_warc(inp, JobConfig(output=str(out)))
    (out / "_runs").mkdir()
    (out / ".DS_Store").write_bytes(b"")
    before = _files(out)
    assert foreign_entries(*_local(out)) == []
    check_output(str(out))
    assert _files(out) == before


def _local(path: Path) -> tuple[object, str]:
    from fsspec.implementations.local import LocalFileSystem

    return LocalFileSystem(), str(path)


def _a_file(out: Path) -> None:
    out.write_bytes(b"x")


def _notes(out: Path) -> None:
    out.mkdir()
    (out / "notes.txt").write_text("x")


def _docs_file(out: Path) -> None:
    out.mkdir()
    (out / "docs").write_text("x")


def _other_dataset(out: Path) -> None:
    (out / "docs").mkdir(parents=True)
    (out / "docs" / "part-0.parquet").write_bytes(b"x")


def _other_partitioning(out: Path) -> None:
    (out / "docs" / "year=2024").mkdir(parents=True)


def _not_parquet(out: Path) -> None:
    (out / "docs" / "language=en").mkdir(parents=True)
    (out / "docs" / "language=en" / "a.parquet").write_bytes(b"x")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_a_file, "is a file"),
        (_notes, r"not a warcclean output \(notes\.txt\)"),
        (_docs_file, r"not a warcclean output \(docs\)"),
        (_other_dataset, r"\(docs/part-0\.parquet\)"),
        (_other_partitioning, r"\(docs/year=2024\)"),
        (_not_parquet, r"a\.parquet is not a readable Parquet file"),
    ],
)
def test_what_is_not_a_warcclean_output_is_refused(
    tmp_path: Path, make: Callable[[Path], None], message: str
) -> None:
    out = tmp_path / "out"
    make(out)
    before = _files(tmp_path)
    with pytest.raises(OutputError, match=message):
        check_output(str(out))
    assert _files(tmp_path) == before


def test_a_path_under_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="is a file"):
        check_output(str(tmp_path / "f" / "out"))


def test_many_foreign_names_are_summed_up(tmp_path: Path) -> None:
    for i in range(12):
        (tmp_path / f"f{i:02d}.txt").write_text("x")
    with pytest.raises(OutputError, match=r"f04\.txt and 7 more"):
        check_output(str(tmp_path))


def test_the_report_the_job_writes_into_the_output_is_its_own(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text("{}")
    (tmp_path / "run.html").write_text("")
    own = [str(tmp_path / "run.json"), str(tmp_path / "run.html")]
    check_output(str(tmp_path), own_files=own)
    with pytest.raises(OutputError, match=r"run\.html"):
        check_output(str(tmp_path), own_files=own[:1])


def test_s3_output_is_checked_by_listing_and_a_write(tmp_path: Path) -> None:
    moto_server = pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    boto3 = pytest.importorskip("boto3")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        creds = {"aws_access_key_id": "test", "aws_secret_access_key": "test"}
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", **creds)
        s3.create_bucket(Bucket="corpus")
        options = {"key": "test", "secret": "test", "client_kwargs": {"endpoint_url": endpoint}}

        def keys() -> list[str]:
            listed = s3.list_objects_v2(Bucket="corpus").get("Contents", [])
            return sorted(o["Key"] for o in listed)

        check_output("s3://corpus/new/", options)
        assert keys() == []  # the write check removed its key
        s3.put_object(Bucket="corpus", Key="old/_done/a.json", Body=b"{}")
        check_output("s3://corpus/old", options)
        s3.put_object(Bucket="corpus", Key="theirs/data.csv", Body=b"a,b")
        with pytest.raises(OutputError, match=r"data\.csv"):
            check_output("s3://corpus/theirs", options)
        with pytest.raises(OutputError, match="is a file"):
            check_output("s3://corpus/theirs/data.csv", options)
        with pytest.raises(OutputError, match=r"not writable.*bucket does not exist"):
            check_output("s3://no-such-bucket/out", options)
        assert keys() == ["old/_done/a.json", "theirs/data.csv"]
    finally:
        server.stop()


def _written_with_schema(out: Path, version: bytes, *, docs: bool = True) -> None:
    """An output as a warcclean of schema ``version`` left it: one input's files and marker
    (schema 1 had neither `markdown` nor `structure`, schemas 1 and 2 no page metadata)."""
    import fsspec
    import pyarrow.parquet as pq

    from pipeline.output.sink import OutputPaths, PartitionedParquetSink, write_marker
    from tests.output.test_sink import make_doc, make_reject

    fs = fsspec.filesystem("file")
    paths = OutputPaths(str(out), "a")
    with PartitionedParquetSink(fs, paths, batch_rows=10, batch_bytes=1 << 20) as sink:
        if docs:
            page, result = make_doc(1, "en")
            sink.write_doc(page, result, cleaner_version="t", cleaner_params="{}")
        sink.write_reject(make_reject(2))
        files = sink.commit()
    for path in files:
        table = pq.read_table(path)
        schema_3 = (*METADATA_COLUMNS, "duplicate_of", "page_type", "page_type_prob")
        dropped = {b"1": ("markdown", "structure", *schema_3), b"2": schema_3}
        table = table.drop_columns([c for c in dropped.get(version, ()) if c in table.schema.names])
        meta = {**table.schema.metadata, b"warcclean.schema_version": version}
        pq.write_table(table.replace_schema_metadata(meta), path)
    write_marker(fs, paths, {"warc_path": "a.warc.gz", "stem": "a"})


@pytest.mark.parametrize("docs", [True, False], ids=["docs", "rejects-only"])
@pytest.mark.parametrize("version", ["1", "2"])
def test_an_output_of_another_schema_version_is_refused(
    tmp_path: Path, docs: bool, version: str
) -> None:
    out = tmp_path / "out"
    _written_with_schema(out, version.encode(), docs=docs)
    before = _files(tmp_path)
    with pytest.raises(
        OutputError, match=rf"schema version {version}, and this warcclean writes schema version 3"
    ) as info:
        check_output(str(out))
    assert "new output directory" in str(info.value)
    # The message says what the versions since then added.
    assert "the page metadata (title" in str(info.value)
    assert "the blocks' shape and site_pages, the documents' duplicate_of" in str(info.value)
    assert ("markdown and structure" in str(info.value)) == (version == "1")
    assert _files(tmp_path) == before


def test_an_output_of_this_schema_version_is_taken(tmp_path: Path) -> None:
    from pipeline.output.layout import written_schema_version
    from pipeline.output.schema import SCHEMA_VERSION

    out = tmp_path / "out"
    _written_with_schema(out, SCHEMA_VERSION.encode())
    check_output(str(out))
    assert written_schema_version(*_local(out)) == SCHEMA_VERSION
    assert written_schema_version(*_local(tmp_path / "nothing-yet")) is None


def test_a_directory_named_like_a_parquet_file_is_not_read_for_the_version(tmp_path: Path) -> None:
    """A re-run must still reach the input whose rejects file is blocked (it fails on its own)."""
    from pipeline.output.layout import written_schema_version

    out = tmp_path / "out"
    (out / "rejects" / "b.parquet").mkdir(parents=True)
    check_output(str(out))
    assert written_schema_version(*_local(out)) is None
    _written_with_schema(out, b"1")  # a file beside it tells
    with pytest.raises(OutputError, match="schema version 1"):
        check_output(str(out))


def _versioned_parquet(path: Path, version: bytes) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.table({"x": [1]}).replace_schema_metadata({b"warcclean.schema_version": version})
    pq.write_table(table, path)


def test_the_version_is_read_from_the_first_language_directory_holding_a_file(
    tmp_path: Path,
) -> None:
    from pipeline.output.layout import written_schema_version

    out = tmp_path / "out"
    (out / "docs" / "language=aa").mkdir(parents=True)  # empty: looked past
    _versioned_parquet(out / "docs" / "language=de" / "a.parquet", b"7")
    (out / "docs" / "language=en").mkdir()  # empty, after the one that tells
    # Not a language directory: never read for the version.
    _versioned_parquet(out / "docs" / "_stray" / "a.parquet", b"9")
    assert written_schema_version(*_local(out)) == "7"


@pytest.mark.parametrize(("n", "said"), [(0, ""), (5, "n0, n1, n2, n3, n4"), (6, "and 1 more")])
def test_a_list_of_names_is_cut_after_five(n: int, said: str) -> None:
    from pipeline.output.layout import describe

    text = describe([f"n{i}" for i in range(n)])
    assert text.endswith(said) and ("more" in text) == (n > 5)


def test_a_report_path_is_checked_before_the_run(tmp_path: Path) -> None:
    from pipeline.output.layout import check_report_path

    check_report_path(str(tmp_path / "new" / "dirs" / "run.json"))  # created by the job
    assert not (tmp_path / "new").exists()
    with pytest.raises(OutputError, match="is a directory"):
        check_report_path(str(tmp_path))
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="is a file"):
        check_report_path(str(tmp_path / "f" / "run.json"))
