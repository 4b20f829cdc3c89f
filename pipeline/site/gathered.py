"""The site stage in one process, for an output whose keys fit in one.

The shuffled stage (`pipeline.job.site_stage`) keeps worker memory flat however large the output
grows, but it pays Dask's fixed costs per task, per partition and per shuffle, which an output of
a few thousand documents (a small crawl, one batch, a test) does not amortize: on daniel's 1,611
pages they were most of the stage's CPU. Below a size the job sets, `stage_files` runs the same
three steps in one call, on one worker:

1. each documents file's keys are read once (`pipeline.site.files.read_file_keys`) and kept,
   so the rewrite does not hash the blocks again;
2. the distinct pages holding each key are counted with one numpy sort over all occurrences
   (`count_hits`, what `pipeline.site.frames.count_pages` computes per partition), and the
   copies are named by `pipeline.site.files.first_copies` over the documents whose page hash
   another document shares;
3. each file is rewritten into the staging area by `pipeline.site.files.rewrite_file`.

The rules are the same functions, so the dataset is the same as the shuffled stage's (tested).
No pandas: the worker that runs `stage_output` imports only what cleaning already needs.
The memory it needs grows with the output (about 10 kB per document at its peak: two 64-bit
hashes and a label per block, and the occurrences while they are counted), which is why the job
takes this path only below its bound (`pipeline.job.site_stage.GATHER_BYTES`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import fsspec
import numpy as np

from pipeline.heap import kept_heap
from pipeline.output.sink import AtomicFile
from pipeline.site import files
from pipeline.site.commit import SitePaths, open_output
from pipeline.site.rule import SiteSettings

__all__ = ["count_hits", "distinct_pairs", "stage_files", "stage_output"]


def distinct_pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``(a, b)`` pairs, sorted by ``a`` then ``b``."""
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    keep = np.ones(len(a), dtype=bool)
    keep[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    return a[keep], b[keep]


def count_hits(keys: np.ndarray, pages: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The keys held by two or more distinct ``pages`` (one page per occurrence), sorted, and
    how many pages hold each (int32)."""
    if not len(keys):
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int32)
    keys, _ = distinct_pairs(keys, pages)
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    counts = np.diff(np.concatenate((starts, [len(keys)])))
    repeated = counts >= 2
    return keys[starts[repeated]], counts[repeated].astype(np.int32)


def stage_output(
    output: str,
    storage_options: dict[str, Any],
    settings: SiteSettings,
    entries: Sequence[tuple[str, str]],
) -> files.Stats:
    """`stage_files` on the output at ``output`` (a path or fsspec URL): the task the job
    submits. It lives here, not in `pipeline.job.site_stage`, so that the worker running it
    imports neither Dask's dataframes nor pandas. It keeps the worker's C heap while it runs
    (`pipeline.heap`)."""
    with kept_heap():
        return stage_files(*open_output(output, storage_options), entries, settings)


def stage_files(
    fs: fsspec.AbstractFileSystem,
    root: str,
    entries: Sequence[tuple[str, str]],
    settings: SiteSettings,
) -> files.Stats:
    """Count, mark and rewrite the documents files ``entries`` (path under ``root``, language;
    numbered in this order, as the shuffled stage numbers them) into the staging area; returns
    the rewrites' per-site counts (`pipeline.site.files.Stats`)."""
    paths = SitePaths(root)
    kept: list[list[files._Keys]] = []
    keys, pages, documents = [], [], []
    for file_id, (relpath, _) in enumerate(entries):
        with fs.open(paths.final(relpath), "rb") as handle:
            read = files.read_file_keys(handle, file_id, settings)
        keys.append(read.keys)
        pages.append(read.pages)
        documents.append(read.documents)
        kept.append(read.groups)
    hits = count_hits(np.concatenate(keys), np.concatenate(pages))
    del keys, pages
    copy_files, copy_rows, firsts = files.first_copies(files.Documents.concat(documents))
    stats: files.Stats = {}
    for file_id, ((relpath, language), groups) in enumerate(zip(entries, kept, strict=True)):
        mine = copy_files == file_id
        copies = dict(zip(copy_rows[mine].tolist(), np.asarray(firsts, object)[mine], strict=True))
        target = AtomicFile(fs, paths.staged(relpath))
        try:
            with fs.open(paths.final(relpath), "rb") as source:
                counted = files.rewrite_file(
                    source, target.handle, hits, copies, settings, language, keys=groups
                )
            target.commit()
        except BaseException:
            target.abort()
            raise
        for site, values in counted.items():
            stats[site] = stats.get(site, 0) + values
        kept[file_id] = []  # its keys are no longer needed
    return stats
