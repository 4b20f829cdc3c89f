"""How a site stage's files replace the documents files: staged, journaled, rolled forward.

The stage rewrites every documents file. Its files are written under ``OUT/_site/staging/``,
mirroring ``docs/`` (each whole or absent: a temporary name renamed, or one PUT on an object
store); readers of ``OUT/docs`` never see them. Only when every one is written does the job write
the journal ``OUT/_site/journal.json``, listing them: from then on the stage counts as done, and
`publish` moves each staged file over its documents file (a rename, atomic per file; on an
object store a server-side copy that replaces the object whole, then a delete), records the
result in ``OUT/_site/state.json``, and removes the journal and the staging directory.

What a reader sees. Before the journal: the old dataset, untouched. While `publish` runs (renames
only, a few milliseconds per thousand files on a local disk): each documents file is either its
old or its new version, whole, never partial or missing, and no document appears twice; a reader
that lists the dataset in that window can find some files already with the stage's columns and
some not yet. After it: the new dataset.

A stage killed at any point and run again gives the same dataset: killed before its journal,
its staged files are removed (`clear_staging`) and it runs again from the documents files,
which it has not touched (and whose ``repeat`` labels it reads as the cleaner's ``good``,
`pipeline.site.rule.cleaner_labels`); killed after, the next stage, or the next cleaning job on
the output, first completes the publication (`publish` is idempotent: a staged file already
moved is skipped). The cleaning job does this before it writes anything, so a journal never
moves a file over a newer one.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import fsspec
from fsspec.core import url_to_fs

from pipeline.output.layout import LANGUAGE_PREFIX
from pipeline.output.sink import is_local, write_atomic

__all__ = ["DocsFile", "SitePaths", "clear_staging", "docs_files", "publish", "read_state"]

SITE_DIR = "_site"


@dataclass(frozen=True, slots=True)
class DocsFile:
    """One documents file: its path under the output root, its language, and what a listing
    says of it (to tell whether it changed since the last stage)."""

    relpath: str  # "docs/language=en/<stem>.parquet"
    language: str
    size: int
    modified: str

    def to_list(self) -> list[Any]:
        return [self.relpath, self.size, self.modified]


class SitePaths:
    """Where the stage keeps its files under the output root (a file-system path)."""

    def __init__(self, root: str) -> None:
        self.root = root.rstrip("/")
        self.site = f"{self.root}/{SITE_DIR}"
        self.staging = f"{self.site}/staging"
        self.journal = f"{self.site}/journal.json"
        self.state = f"{self.site}/state.json"

    def final(self, relpath: str) -> str:
        return f"{self.root}/{relpath}"

    def staged(self, relpath: str) -> str:
        return f"{self.staging}/{relpath}"

    def hashes(self, relpath: str) -> str:
        """Where the shuffled stage keeps a documents file's block hashes between reading the
        file and rewriting it: in the staging area, so that a stage that never finished leaves
        none behind once the next one starts (`clear_staging`)."""
        return f"{self.staging}/_hashes/{relpath}.npy"


def _modified(info: dict[str, Any]) -> str:
    value = info.get("mtime", info.get("LastModified", info.get("created")))
    if isinstance(value, datetime):
        return value.isoformat()
    return repr(value)


def open_output(output: str, storage_options: dict[str, Any]) -> tuple[Any, str]:
    """The filesystem and root of the output at ``output`` (a path or fsspec URL; storage
    options apply to a URL only)."""
    fs, root = url_to_fs(output, **storage_options if "://" in output else {})
    return fs, root.rstrip("/")


def docs_files(fs: fsspec.AbstractFileSystem, root: str) -> list[DocsFile]:
    """Every visible documents file under ``root``, sorted by path (hence numbered alike
    whatever order the inputs came in). Listed afresh: an object store's file system caches
    listings, and the workers have written since."""
    root = root.rstrip("/")
    fs.invalidate_cache(root)
    docs = f"{root}/docs"
    if not fs.isdir(docs):
        return []
    found = []
    for part in fs.ls(docs, detail=True):
        name = part["name"].rstrip("/").rpartition("/")[2]
        if part.get("type") != "directory" or not name.startswith(LANGUAGE_PREFIX):
            continue
        for info in fs.ls(part["name"], detail=True):
            base = info["name"].rpartition("/")[2]
            if info.get("type") != "file" or base.startswith(".") or not base.endswith(".parquet"):
                continue
            found.append(
                DocsFile(
                    relpath=f"docs/{name}/{base}",
                    language=name.removeprefix(LANGUAGE_PREFIX),
                    size=int(info.get("size") or 0),
                    modified=_modified(info),
                )
            )
    return sorted(found, key=lambda f: f.relpath)


def clear_staging(fs: fsspec.AbstractFileSystem, paths: SitePaths) -> None:
    """Remove what a stage that never wrote its journal left staged."""
    if fs.exists(paths.staging):
        fs.rm(paths.staging, recursive=True)


def write_journal(
    fs: fsspec.AbstractFileSystem, paths: SitePaths, files: list[str], payload: dict[str, Any]
) -> None:
    """Declare the staged ``files`` (paths under the root) complete: the stage is done."""
    write_atomic(fs, paths.journal, json.dumps({**payload, "files": files}, indent=1).encode())


def read_state(fs: fsspec.AbstractFileSystem, paths: SitePaths) -> dict[str, Any] | None:
    """The last published stage (its settings, files and report), or None."""
    try:
        return json.loads(fs.cat_file(paths.state))
    except FileNotFoundError:
        return None


def _move(fs: fsspec.AbstractFileSystem, source: str, target: str) -> None:
    if is_local(fs):
        os.replace(source, target)  # atomic, and replaces the old file
    else:
        fs.copy(source, target)  # a server-side copy: the object is replaced whole
        fs.rm(source)


def publish(fs: fsspec.AbstractFileSystem, paths: SitePaths) -> bool:
    """Complete a journaled stage: move its staged files into place, record it, clean up.
    Idempotent; False when there is no journal (nothing to publish)."""
    try:
        journal = json.loads(fs.cat_file(paths.journal))
    except FileNotFoundError:
        return False
    for relpath in journal["files"]:
        staged = paths.staged(relpath)
        if fs.exists(staged):
            _move(fs, staged, paths.final(relpath))
    state = {key: value for key, value in journal.items() if key != "files"}
    state["files"] = [f.to_list() for f in docs_files(fs, paths.root)]
    write_atomic(fs, paths.state, json.dumps(state, indent=1).encode())
    fs.rm(paths.journal)
    clear_staging(fs, paths)
    return True


def up_to_date(
    state: dict[str, Any] | None, settings: dict[str, Any], files: list[DocsFile]
) -> bool:
    """Whether the last published stage ran with ``settings`` over exactly these files, each
    as it is now (a file a cleaning run wrote again since then has another size or time)."""
    if state is None or state.get("settings") != settings:
        return False
    return state.get("files") == [f.to_list() for f in files]
