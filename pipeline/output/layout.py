"""What an output directory may hold, and the checks a job makes on it before it starts.

A warcclean output holds only the directories `pipeline.output.sink` and the job write::

    docs/language=<code>/   rejects/   _done/   _runs/   _site/

Hidden names (a leading ``.``) are allowed anywhere: they are the writers' temporary files and
the desktop's own files (``.DS_Store``), which no reader of the dataset sees. Anything else was
put there by someone else: a job refuses to write beside it (its rows would mix with a dataset
that is not its own, and a re-run could replace that dataset's files), and ``warcclean report``
names it and ignores it.

The checks list the top level and ``docs/`` only (one listing each, also on an object store with
millions of files); what lies deeper is read by the report, which skips what it cannot read. One
more listing and one Parquet footer tell the schema version the output was written with: a job
refuses an output of another version (`SCHEMA_VERSION`), so no dataset mixes two schemas.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Iterable
from typing import Any

import fsspec
import pyarrow.parquet as pq
from fsspec.core import url_to_fs

from pipeline.output.schema import SCHEMA_CHANGES, SCHEMA_VERSION
from pipeline.output.sink import is_local

# _site/ is the site stage's (`pipeline.site.commit`): its staged files, journal and state.
LAYOUT_DIRS = ("docs", "rejects", "_done", "_runs", "_site")
LANGUAGE_PREFIX = "language="
_PROBE_PREFIX = ".warcclean-write-check-"
# Names listed in a message; the count says how many more there are.
_MAX_NAMED = 5
SCHEMA_KEY = b"warcclean.schema_version"


class OutputError(ValueError):
    """The output cannot take a run's files (the message says why and what to do)."""


def foreign_entries(fs: fsspec.AbstractFileSystem, root: str) -> list[str]:
    """Paths under ``root`` (relative to it) that no warcclean run writes, sorted.

    Only the top level and ``docs/`` are listed. A layout name that is a file (``docs`` that
    is not a directory) is foreign too.
    """
    root = root.rstrip("/")
    found: list[str] = []
    for info in fs.ls(root, detail=True):
        name = _base(info["name"])
        if name.startswith("."):
            continue
        if name not in LAYOUT_DIRS or info.get("type") != "directory":
            found.append(name)
    if fs.isdir(f"{root}/docs"):
        for info in fs.ls(f"{root}/docs", detail=True):
            name = _base(info["name"])
            if name.startswith("."):
                continue
            if not name.startswith(LANGUAGE_PREFIX) or info.get("type") != "directory":
                found.append(f"docs/{name}")
    return sorted(found)


def describe(names: list[str]) -> str:
    """``a, b, c`` or ``a, b, c and 7 more``: a list short enough for one message."""
    shown = ", ".join(names[:_MAX_NAMED])
    more = len(names) - _MAX_NAMED
    return f"{shown} and {more} more" if more > 0 else shown


def check_output(
    output: str,
    storage_options: dict[str, Any] | None = None,
    *,
    own_files: Iterable[str] = (),
) -> None:
    """Raise `OutputError` unless a job can write to ``output``.

    ``output`` must be a directory that is new, empty, or an earlier warcclean output (see the
    module's layout), and writable: a file is created and removed in it (in every layout
    directory that already exists), since permission bits do not tell (ACLs, read-only mounts,
    object-store policies). Without this check every input fails on the workers, each after
    Dask's retries, and the run report has nowhere to go.

    ``own_files`` are paths the job itself writes besides the layout (its ``--report`` and the
    HTML beside it): an earlier run's copy of one is not foreign.
    """
    options = (storage_options or {}) if "://" in output else {}
    try:
        fs, root = url_to_fs(output, **options)
        root = root.rstrip("/") or "/"
        if fs.isfile(root):
            raise OutputError(
                f"--output {output} is a file: give a directory (new, empty, or an earlier "
                "warcclean output)"
            )
        if fs.isdir(root):
            own = {_base(p) for p in own_files if _parent(p, options) == root}
            foreign = [f for f in foreign_entries(fs, root) if f not in own]
            if foreign:
                raise OutputError(
                    f"--output {output} holds files that are not a warcclean output "
                    f"({describe(foreign)}): give a new or empty directory, or an earlier "
                    f"warcclean output (only {', '.join(d + '/' for d in LAYOUT_DIRS)})"
                )
            _check_schema_version(fs, root, output)
            existing = [d for d in (f"{root}/{n}" for n in LAYOUT_DIRS) if fs.isdir(d)]
            for directory in [root, *existing]:
                _probe(fs, directory, f"--output {output}")
        elif is_local(fs):
            _probe(fs, _nearest_existing(root, f"--output {output}"), f"--output {output}")
        else:
            # An object store has no directories to create: the probe is the first key written.
            _probe(fs, f"{root}/_runs", f"--output {output}")
    except OutputError:
        raise
    except Exception as exc:  # a bad URL, missing credentials, an unknown protocol: all usage
        raise OutputError(f"--output {output}: {type(exc).__name__}: {exc}") from exc


def written_schema_version(fs: fsspec.AbstractFileSystem, root: str) -> str | None:
    """The schema version of the dataset under ``root``: that of one of its Parquet files (a
    documents file, else a rejects file), or None when it has none yet.

    One file tells for all: no job writes into an output of another version (`check_output`).
    Costs a listing or two and one footer. A file without a version is ``"?"``.
    """
    candidates: list[str] = []
    if fs.isdir(f"{root}/docs"):
        for info in sorted(fs.ls(f"{root}/docs", detail=True), key=lambda i: i["name"]):
            if info.get("type") == "directory" and _base(info["name"]).startswith(LANGUAGE_PREFIX):
                candidates = _parquet_names(fs, info["name"])
                if candidates:
                    break
    if not candidates and fs.isdir(f"{root}/rejects"):
        candidates = _parquet_names(fs, f"{root}/rejects")
    if not candidates:
        return None
    try:
        with fs.open(candidates[0], "rb") as handle:
            meta = pq.read_schema(handle).metadata or {}
    except Exception as exc:  # not Parquet at all: no warcclean run wrote it
        raise OutputError(
            f"{candidates[0]} is not a readable Parquet file ({type(exc).__name__}: {exc}): "
            "the output is not one a warcclean run wrote whole"
        ) from exc
    version = meta.get(SCHEMA_KEY)
    return "?" if version is None else version.decode("utf-8", "replace")


def _parquet_names(fs: fsspec.AbstractFileSystem, directory: str) -> list[str]:
    """The visible ``*.parquet`` files of ``directory`` (a directory of that name is not one)."""
    return sorted(
        i["name"]
        for i in fs.ls(directory, detail=True)
        if i.get("type") == "file"
        and i["name"].endswith(".parquet")
        and not _base(i["name"]).startswith(".")
    )


def _check_schema_version(fs: fsspec.AbstractFileSystem, root: str, output: str) -> None:
    version = written_schema_version(fs, root)
    if version is None or version == SCHEMA_VERSION:
        return
    raise OutputError(
        f"--output {output} holds a dataset of schema version {version}, and this warcclean "
        f"writes schema version {SCHEMA_VERSION} ({_changes_since(version)}): a resumed run "
        "would mix two schemas in one dataset. Give a new output directory, or finish this one "
        "with the warcclean version that began it"
    )


def _changes_since(version: str) -> str:
    """What the versions after ``version`` added (every version's, for an unknown one)."""
    added = [
        change
        for number, change in SCHEMA_CHANGES.items()
        if not version.isdigit() or int(number) > int(version)
    ]
    return "it added " + "; ".join(added) if added else "another layout"


def check_report_path(path: str, storage_options: dict[str, Any] | None = None) -> None:
    """Raise `OutputError` unless a run report can be written at ``path`` (a local file; an
    object store's key is checked by the output's own write check, or fails with a message)."""
    what = f"--report {path}"
    try:
        fs, fs_path = url_to_fs(path, **(storage_options or {}) if "://" in path else {})
        if not is_local(fs):
            return
        if fs.isdir(fs_path):
            raise OutputError(f"{what} is a directory: give a file name (run.json)")
        _probe(fs, _nearest_existing(os.path.dirname(fs_path), what), what)
    except OutputError:
        raise
    except Exception as exc:  # as in `check_output`
        raise OutputError(f"{what}: {type(exc).__name__}: {exc}") from exc


def _nearest_existing(root: str, what: str) -> str:
    """The closest existing ancestor of a local path that does not exist yet: the job creates
    the rest of the path in it, so that is where it must be able to write."""
    parent = os.path.abspath(root)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise OutputError(f"{what} cannot be created: {parent} is a file")
    return parent


def _probe(fs: fsspec.AbstractFileSystem, directory: str, what: str) -> None:
    try:
        if is_local(fs):
            handle, name = tempfile.mkstemp(prefix=_PROBE_PREFIX, dir=directory)
            os.close(handle)
            os.unlink(name)
        else:
            name = f"{directory}/{_PROBE_PREFIX}{secrets.token_hex(6)}"
            fs.pipe_file(name, b"")
            fs.rm(name)
    except OSError as exc:
        reason = exc.strerror or f"{type(exc).__name__}: {exc}"
        raise OutputError(
            f"{what} is not writable: cannot create a file in {directory} ({reason})"
        ) from exc


def _base(path: str) -> str:
    return path.rstrip("/").rpartition("/")[2]


def _parent(path: str, options: dict[str, Any]) -> str:
    fs_path = url_to_fs(path, **options if "://" in path else {})[1]
    return fs_path.rstrip("/").rpartition("/")[0]
