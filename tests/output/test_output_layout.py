"""`check_output`: what a job may write into, checked before it starts (local and S3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.jobconfig import JobConfig
from pipeline.output.layout import OutputError, check_output, foreign_entries
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


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_a_file, "is a file"),
        (_notes, r"not a warcclean output \(notes\.txt\)"),
        (_docs_file, r"not a warcclean output \(docs\)"),
        (_other_dataset, r"\(docs/part-0\.parquet\)"),
        (_other_partitioning, r"\(docs/year=2024\)"),
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
