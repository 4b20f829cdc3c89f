"""Which WARC/ARC files a run reads, and the output name each one gets.

`list_inputs` accepts local files, directories (searched recursively), globs, any fsspec URL
(``s3://bucket/prefix/``) and Common Crawl style path lists (``*.paths``, ``*.paths.gz`` or
``@listfile``: one path or URL per line, optionally gzipped). The result is de-duplicated and
deterministic: inputs keep the order of the specs, a directory or glob expands in sorted order,
and a path list keeps its own order.

De-duplication is by what a path names, not how it is spelled: a local path by its real path
(symlinks resolved), a URL by its normalized form (`input_key`), so a symlink beside its target
is read once. The first spelling met is the one kept: it names the input's output files
(`input_stem`), so an output written before symlinks were resolved keeps its names on a re-run.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import posixpath
import re
import urllib.parse
from collections.abc import Iterator, Sequence
from typing import Any

import fsspec
from fsspec.implementations.local import LocalFileSystem

WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")
PATHS_SUFFIXES = (".paths", ".paths.gz")
# Common Crawl's derived files: WET holds the text it extracted, WAT metadata as JSON; neither
# holds a page. Read, they would end a run of hours with no document and every record skipped.
_DERIVED = re.compile(r"\.warc\.(wet|wat)(?:\.gz)?$", re.IGNORECASE)
_GLOB_CHARS = re.compile(r"[*?\[]")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_STEM_MAX = 80


class InputError(ValueError):
    """An input spec that names nothing readable (the message names the spec)."""


def _refuse_derived(path: str, where: str) -> None:
    """Raise `InputError` for a Common Crawl WET or WAT file (by its name), saying where the
    pages are: in the WARC file of the same name under ``warc/``. Any other path passes."""
    found = _DERIVED.search(path)
    if found is None:
        return
    kind = found.group(1).upper()
    holds = "the text Common Crawl extracted" if kind == "WET" else "metadata as JSON"
    raise InputError(
        f"{where}: a {kind} file ({holds}), not a WARC of pages; its pages are in the WARC file "
        f"of the same name without .{found.group(1).lower()} (in Common Crawl, under warc/ "
        f"instead of {found.group(1).lower()}/; warc.paths.gz lists them): {path}"
    )


def _first_derived(paths: Sequence[str]) -> str:
    """The first WET or WAT file among ``paths`` ("" when there is none)."""
    return next((p for p in paths if _DERIVED.search(p)), "")


def list_inputs(
    specs: Sequence[str],
    *,
    base_url: str | None = None,
    storage_options: dict[str, Any] | None = None,
) -> list[str]:
    """Resolve input specs to a de-duplicated, deterministic list of WARC/ARC paths or URLs.

    Relative lines in a path list (``crawl-data/CC-MAIN-.../x.warc.gz``) are joined to
    ``base_url`` (e.g. ``s3://commoncrawl/``) when given, else to the list file's directory.
    Entries of a path list are not checked for existence: lists can name 100,000 remote files,
    and a missing one fails in its own task with its name.
    """
    seen: set[str] = set()
    out: list[str] = []
    for spec in specs:
        for path in _expand(spec, base_url, storage_options or {}):
            key = input_key(path)
            if key not in seen:
                seen.add(key)
                out.append(path)
    return out


def input_key(path: str) -> str:
    """What ``path`` names, for de-duplication: two inputs with the same key are one file.

    A local path (or ``file://`` URL) is resolved to its real path, symlinks included. A URL
    keeps every part that can name a different object: only the scheme is lower-cased, and for
    http(s) the host too, with ``.`` and ``..`` segments removed (RFC 3986). Object-store keys
    are compared as written: ``a//b`` and ``a/b`` are two keys on S3.
    """
    if "://" not in path:
        return os.path.realpath(path)
    parts = urllib.parse.urlsplit(path)
    scheme = parts.scheme.lower()
    if scheme in ("file", "local"):
        return os.path.realpath(parts.netloc + parts.path)
    if scheme not in ("http", "https"):
        return f"{scheme}{path[len(parts.scheme) :]}"
    segments: list[str] = []
    for segment in parts.path.split("/")[1:]:
        if segment == "..":
            if segments:
                segments.pop()
        elif segment != ".":
            segments.append(segment)
    clean = "/" + "/".join(segments) if parts.path else ""
    if parts.path.endswith(("/.", "/..")) and not clean.endswith("/"):
        clean += "/"
    return urllib.parse.urlunsplit(
        (scheme, parts.netloc.lower(), clean, parts.query, parts.fragment)
    )


def input_stem(path: str) -> str:
    """A filesystem-safe, deterministic shard name for one input.

    The readable part is the base name without the archive suffix, reduced to ``[A-Za-z0-9._-]``
    and at most 80 characters; a 12-hex-digit hash of the full path follows, so two inputs with
    the same base name in different directories never collide. The result never contains ``/``,
    NUL or ``..`` and never starts with a dot.
    """
    base = path.rstrip("/").rsplit("/", 1)[-1]
    lowered = base.lower()
    for suffix in sorted(WARC_SUFFIXES, key=len, reverse=True):
        if lowered.endswith(suffix):
            base = base[: -len(suffix)]
            break
    readable = _UNSAFE.sub("_", base)
    readable = re.sub(r"\.{2,}", ".", readable).strip("._-")[:_STEM_MAX] or "input"
    digest = hashlib.sha1(path.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{readable}-{digest}"


def display_path(path: str) -> str:
    """``path`` as text that can be written anywhere (Parquet, JSON, a terminal).

    A local file name is bytes, and Python hands the bytes that are not UTF-8 over as lone
    surrogates (``bad\\udcff.warc.gz``), which no UTF-8 writer takes. They are shown as ``\\xff``
    escapes: the input is read by its real name, and its rows, reports and messages carry this
    one (`stored_paths` finds the file again from it).
    """
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        pass
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # surrogates that stand for no byte (not from a file name)
        raw = path.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "backslashreplace")


_BYTE_ESCAPE = re.compile(rb"\\x([0-9a-f]{2})")


def stored_paths(shown: str) -> list[str]:
    """The paths a `display_path` may have come from: itself, and with its ``\\xNN`` escapes
    turned back into the bytes of a local file name."""
    if "\\x" not in shown or "://" in shown:
        return [shown]
    raw = _BYTE_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), shown.encode("utf-8"))
    return [shown, os.fsdecode(raw)]


def is_warc_name(path: str) -> bool:
    return path.lower().endswith(WARC_SUFFIXES)


def _expand(spec: str, base_url: str | None, storage_options: dict[str, Any]) -> Iterator[str]:
    spec = spec.strip()
    if not spec:
        raise InputError("empty input spec")
    if spec.startswith("@"):
        yield from _read_path_list(spec[1:], base_url, storage_options)
        return
    if spec.lower().endswith(PATHS_SUFFIXES):
        yield from _read_path_list(spec, base_url, storage_options)
        return
    fs, path = fsspec.core.url_to_fs(spec, **storage_options)
    if _GLOB_CHARS.search(path):
        matches = sorted(fs.glob(path))
        if not matches:
            raise InputError(f"input glob matches nothing: {spec}")
        found = []
        for match in matches:
            if fs.isdir(match):
                found += _walk(fs, match)
            elif is_warc_name(match):
                found.append(_full_name(fs, match))
        if not found:
            _refuse_derived(_first_derived(matches), f"input glob {spec} matches no WARC file")
        yield from found
        return
    if fs.isdir(path):
        found = list(_walk(fs, path))
        if not found:
            where = f"input directory {spec} holds no WARC file"
            _refuse_derived(_first_derived(sorted(fs.find(path))), where)
            raise InputError(f"input directory holds no .warc/.warc.gz/.arc/.arc.gz file: {spec}")
        yield from found
        return
    if fs.exists(path):
        _refuse_derived(spec, "input")
        yield _full_name(fs, path)  # a file named explicitly is read whatever its suffix
        return
    raise InputError(f"input not found: {spec}")


def _walk(fs: Any, root: str) -> Iterator[str]:
    for path in sorted(fs.find(root)):
        if is_warc_name(path):
            yield _full_name(fs, path)


def _full_name(fs: Any, path: str) -> str:
    if isinstance(fs, LocalFileSystem):
        return os.path.abspath(path)
    return str(fs.unstrip_protocol(path))


# A path list is read line by line, never whole: a gzipped list inflates to any size (a 102 KB
# .paths.gz of one endless line took the client to 1.15 GB). Common Crawl's lists hold about
# 90,000 lines of 140 bytes (13 MB); the caps are far above that.
MAX_PATH_LINE = 1 << 16
MAX_PATH_LIST_BYTES = 1 << 31
MAX_PATH_LIST_ENTRIES = 10_000_000


def _read_path_list(
    list_spec: str, base_url: str | None, storage_options: dict[str, Any]
) -> Iterator[str]:
    if not list_spec:
        raise InputError("'@' must be followed by a path list file")
    fs, list_path = fsspec.core.url_to_fs(list_spec, **storage_options)
    list_dir = _full_name(fs, posixpath.dirname(list_path) or ".")
    try:
        with fsspec.open(list_spec, "rb", compression=None, **storage_options) as stored:
            gzipped = stored.read(2) == b"\x1f\x8b"
            stored.seek(0)
            lines = gzip.GzipFile(fileobj=stored) if gzipped else stored
            yield from _path_list_entries(lines, list_spec, base_url, list_dir)
    except FileNotFoundError:
        raise InputError(f"path list not found: {list_spec}") from None
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise InputError(f"path list {list_spec} cannot be read: {exc}") from None


def _path_list_entries(
    lines: Any, list_spec: str, base_url: str | None, list_dir: str
) -> Iterator[str]:
    read = entries = 0
    number = 0
    while True:
        raw = lines.readline(MAX_PATH_LINE + 1)
        if not raw:
            return
        number += 1
        read += len(raw)
        if len(raw) > MAX_PATH_LINE:
            raise InputError(
                f"{list_spec}:{number}: a line longer than {MAX_PATH_LINE:,} bytes: not a list "
                "of paths"
            )
        if read > MAX_PATH_LIST_BYTES:
            raise InputError(f"{list_spec}: more than {MAX_PATH_LIST_BYTES:,} bytes of paths")
        try:
            entry = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise InputError(f"{list_spec}:{number}: a line that is not UTF-8") from None
        if not entry or entry.startswith("#"):
            continue
        if "\0" in entry:
            raise InputError(f"{list_spec}:{number}: NUL byte in path")
        entries += 1
        if entries > MAX_PATH_LIST_ENTRIES:
            raise InputError(f"{list_spec}: more than {MAX_PATH_LIST_ENTRIES:,} paths")
        _refuse_derived(entry, f"{list_spec}:{number}")
        yield _resolve(entry, base_url, list_dir)


def _resolve(entry: str, base_url: str | None, list_dir: str) -> str:
    if "://" in entry or entry.startswith("/"):
        return os.path.abspath(entry) if entry.startswith("/") else entry
    base = base_url if base_url is not None else list_dir
    if "://" in base:
        return base.rstrip("/") + "/" + entry.lstrip("/")
    return os.path.abspath(os.path.join(base, entry))
