"""The job's configuration: one frozen, picklable value shipped with every task.

Everything a worker needs to process one WARC is in here, so a task's result depends only on its
input path and this value (and re-running it gives the same files).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pipeline.cleaners.registry import DEFAULT_CLEANER
from pipeline.config import Limits

DEFAULT_BATCH_ROWS = 500
# A second flush trigger, over all partitions of a task: 500 rows of pages with a thousand blocks
# each would otherwise hold about 500 MB of Python objects. Rows are flushed when either limit is
# reached, whichever comes first.
DEFAULT_BATCH_BYTES = 16 * 2**20
# A local worker process holds about 155 MiB once warmed up, before its first page (measured with
# the default cleaner); a smaller limit only makes Dask pause or restart it over and over.
MIN_WORKER_MEMORY = 256 * 2**20
# The least address space a cleaning process may be capped to (--isolate-memory): a warm child
# maps 1.5 GB (VmPeak, measured) before its first page.
MIN_ISOLATE_MEMORY = 2 * 2**30
# What a job writes of each document (``--formats``): the clean text, its Markdown, or both.
# "text" skips the Markdown rendering and writes the `markdown` column as null; "markdown"
# writes the `text` column as "" (the text is still made: the rejections and the language
# detection read it); "both" fills both.
FORMATS = ("text", "markdown", "both")
DEFAULT_FORMATS = "both"


@dataclass(frozen=True, slots=True)
class JobConfig:
    """How to clean and where to write. ``output`` is a local path or an fsspec URL (s3://...)."""

    output: str
    cleaner: str = DEFAULT_CLEANER
    params: tuple[tuple[str, Any], ...] = ()
    limits: Limits = field(default_factory=Limits)
    batch_rows: int = DEFAULT_BATCH_ROWS
    batch_bytes: int = DEFAULT_BATCH_BYTES
    storage_options: tuple[tuple[str, Any], ...] = ()
    formats: str = DEFAULT_FORMATS
    # Put reader comments (blocks labelled "comment", `pipeline.rules.comments`) back into the
    # text and Markdown (``--include-comments``); their blocks are labelled "comment" either way.
    include_comments: bool = False
    # Name each page's type (``--page-type``, `pipeline.html.page_type`): about a tenth more of a
    # page's cleaning, so off unless asked for; the columns are null without it.
    classify_page: bool = False
    # At most this many records of each input are read (``--limit``, for a trial run); an input
    # cut there gets the marker ``_done/<stem>.limited.json``, which a run without the limit
    # does not count as done. None: every record.
    record_limit: int | None = None

    def __post_init__(self) -> None:
        if not self.output:
            raise ValueError("output must be a non-empty path or URL")
        if self.formats not in FORMATS:
            raise ValueError(f"formats must be one of {', '.join(FORMATS)}, got {self.formats!r}")
        if self.batch_rows < 1:
            raise ValueError(f"batch_rows must be >= 1, got {self.batch_rows}")
        if self.batch_bytes < 1:
            raise ValueError(f"batch_bytes must be >= 1, got {self.batch_bytes}")
        if self.record_limit is not None and self.record_limit < 1:
            raise ValueError(f"record_limit must be >= 1, got {self.record_limit}")

    @property
    def writes_text(self) -> bool:
        return self.formats != "markdown"

    @property
    def writes_markdown(self) -> bool:
        return self.formats != "text"

    @property
    def params_dict(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def storage_dict(self) -> dict[str, Any]:
        return dict(self.storage_options)

    def params_json(self) -> str:
        return json.dumps(self.params_dict, sort_keys=True)


def freeze(mapping: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    """A mapping as a sorted tuple of pairs, so the config stays hashable and its repr stable."""
    return tuple(sorted((mapping or {}).items()))


def parse_value(text: str) -> Any:
    """``--param k=v`` values: JSON when they parse (numbers, true/false, lists), else a str."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_pairs(pairs: Iterable[str], option: str = "--param") -> dict[str, Any]:
    """``["a=1", "b=x"]`` -> ``{"a": 1, "b": "x"}``; a pair without ``=`` is a usage error."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{option} expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = parse_value(value)
    return out


def _size(value: str) -> int | None:
    """Bytes of a size such as ``4GB``, or None when it is not one. `dask.utils.parse_bytes`
    reads an empty string as 1 byte: here it is no size."""
    from dask.utils import parse_bytes

    if not value.strip():
        return None
    try:
        return int(parse_bytes(value))
    except ValueError:
        return None


def parse_memory(value: str, option: str = "--isolate-memory", *, minimum: int = 1) -> int | None:
    """``"4GB"``, ``"512MiB"`` or plain bytes -> bytes; ``"none"`` -> None (no cap)."""
    from dask.utils import format_bytes

    if value.strip().lower() == "none":
        return None
    size = _size(value)
    if size is None or size <= 0:
        raise ValueError(f"{option} expects a size such as 4GB or 'none', got {value!r}")
    if size < minimum:
        raise ValueError(
            f"{option} must be at least {format_bytes(minimum)} (or 'none'), got {value!r}: "
            "a cleaning process maps about 1.5 GB of address space (its libraries and the "
            "model) before its first page, and under a smaller cap every input would fail"
        )
    return int(size)


def parse_memory_limit(value: str, option: str = "--memory-limit") -> str | int | None:
    """A Dask worker memory limit: ``"auto"`` (a share of the machine's memory), ``"none"``
    (no limit) or a size such as ``4GiB`` -> what `distributed.LocalCluster` takes."""
    text = value.strip().lower()
    if text == "auto":
        return "auto"
    if text == "none":
        return None
    from dask.utils import format_bytes

    # Dask reads a bare number below 1 as a fraction of the machine's memory, `parse_bytes` as 0
    # bytes: only explicit sizes are taken, so the two can never disagree.
    size = _size(value)
    if size is None or size < MIN_WORKER_MEMORY:
        raise ValueError(
            f"{option} expects 'auto', 'none' or a size of at least "
            f"{format_bytes(MIN_WORKER_MEMORY)} such as 4GiB, got {value!r}"
        )
    return int(size)
