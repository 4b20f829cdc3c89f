"""How the site stage finds the documents files and publishes its own (`pipeline.site.commit`),
on a local directory and on an object-store-like file system (fsspec's memory file system)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import fsspec
import pytest

from pipeline.site.commit import (
    DocsFile,
    SitePaths,
    clear_staging,
    docs_files,
    publish,
    up_to_date,
    write_journal,
)


def _put(fs: fsspec.AbstractFileSystem, path: str, data: bytes = b"PAR1") -> None:
    fs.makedirs(path.rpartition("/")[0], exist_ok=True)
    fs.pipe_file(path, data)


@pytest.fixture(params=["local", "memory"])
def output(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[fsspec.AbstractFileSystem, str]:
    if request.param == "local":
        return fsspec.filesystem("file"), str(tmp_path / "out")
    return fsspec.filesystem("memory"), f"/site-{uuid.uuid4().hex}"


def test_only_visible_parquet_files_in_language_directories_are_documents(output) -> None:
    fs, root = output
    _put(fs, f"{root}/docs/language=en/b.parquet", b"12345")
    _put(fs, f"{root}/docs/language=en/a.parquet")
    _put(fs, f"{root}/docs/language=zh/c.parquet")
    # Not documents files: a job's temporary (hidden), other files, a directory named like a
    # file, a directory that is no language partition, a file named like a partition.
    _put(fs, f"{root}/docs/language=en/.a.parquet.tmp-1.parquet")
    _put(fs, f"{root}/docs/language=en/notes.txt")
    _put(fs, f"{root}/docs/language=en/nested.parquet/x.parquet")
    _put(fs, f"{root}/docs/other/d.parquet")
    _put(fs, f"{root}/docs/language=xx")
    _put(fs, f"{root}/rejects/e.parquet")
    found = docs_files(fs, root)
    assert [(f.relpath, f.language) for f in found] == [
        ("docs/language=en/a.parquet", "en"),
        ("docs/language=en/b.parquet", "en"),
        ("docs/language=zh/c.parquet", "zh"),
    ]
    assert [f.size for f in found] == [4, 5, 4]
    assert all(f.modified not in ("", "None") for f in found)


def test_an_output_without_documents_has_no_files(output) -> None:
    fs, root = output
    assert docs_files(fs, root) == []
    _put(fs, f"{root}/rejects/e.parquet")
    assert docs_files(fs, root) == []


def test_publish_moves_the_journaled_files_records_them_and_cleans_up(output) -> None:
    fs, root = output
    paths = SitePaths(root + "/")
    assert paths.root == root  # a trailing slash is not part of any path
    old = "docs/language=en/a.parquet"
    _put(fs, paths.final(old), b"old")
    _put(fs, paths.final("docs/language=en/b.parquet"), b"untouched")
    assert publish(fs, paths) is False  # no journal: nothing to publish
    _put(fs, paths.staged(old), b"new")
    _put(fs, paths.hashes(old), b"hashes")
    write_journal(fs, paths, [old], {"settings": {"k": 3}})
    assert publish(fs, paths) is True
    assert fs.cat_file(paths.final(old)) == b"new"
    assert fs.cat_file(paths.final("docs/language=en/b.parquet")) == b"untouched"
    assert not fs.exists(paths.journal) and not fs.exists(paths.staging)
    state = json.loads(fs.cat_file(paths.state))
    assert state["settings"] == {"k": 3} and "files" in state
    assert up_to_date(state, {"k": 3}, docs_files(fs, root))
    assert publish(fs, paths) is False  # done: a second call finds no journal


def test_a_publication_killed_halfway_completes_when_run_again(output) -> None:
    fs, root = output
    paths = SitePaths(root)
    names = ["docs/language=en/a.parquet", "docs/language=fr/b.parquet"]
    for name in names:
        _put(fs, paths.final(name), b"old")
        _put(fs, paths.staged(name), b"new " + name.encode())
    write_journal(fs, paths, names, {"settings": {}})
    # Killed after moving the first file: the journal is still there, the first staged file not.
    fs.copy(paths.staged(names[0]), paths.final(names[0]))
    fs.rm(paths.staged(names[0]))
    assert publish(fs, paths) is True
    assert [fs.cat_file(paths.final(n)) for n in names] == [b"new " + n.encode() for n in names]
    assert not fs.exists(paths.staging)


def test_clearing_the_staging_area_leaves_the_documents(output) -> None:
    fs, root = output
    paths = SitePaths(root)
    clear_staging(fs, paths)  # nothing staged: nothing to do
    _put(fs, paths.final("docs/language=en/a.parquet"), b"old")
    _put(fs, paths.staged("docs/language=en/a.parquet"), b"half")
    clear_staging(fs, paths)
    assert not fs.exists(paths.staging)
    assert fs.cat_file(paths.final("docs/language=en/a.parquet")) == b"old"


def test_a_stage_is_up_to_date_only_for_the_same_settings_and_files() -> None:
    a = DocsFile("docs/language=en/a.parquet", "en", 10, "1.0")
    state = {"settings": {"k": 3}, "files": [a.to_list()]}
    assert up_to_date(state, {"k": 3}, [a])
    assert not up_to_date(None, {"k": 3}, [a])
    assert not up_to_date(state, {"k": 5}, [a])
    assert not up_to_date(state, {"k": 3}, [DocsFile(a.relpath, "en", 11, "1.0")])
    assert not up_to_date(state, {"k": 3}, [DocsFile(a.relpath, "en", 10, "2.0")])
    assert not up_to_date(state, {"k": 3}, [a, DocsFile("docs/language=en/b.parquet", "en", 1, "")])
