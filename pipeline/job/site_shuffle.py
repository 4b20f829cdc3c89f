"""The site stage's shuffled path: keys shuffled across workers, every documents file rewritten.

`pipeline.job.site_stage.run_site_stage` takes this path for an output above its bound for the
one-task stage; it is a module of its own because it needs Dask's dataframes and pandas, which
the client then imports (about a second of CPU) and the one-task stage never does. Its steps
are described in `pipeline.job.site_stage`.
"""

from __future__ import annotations

import io
from functools import partial
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask import delayed
from distributed import Client

from pipeline.heap import kept_heap
from pipeline.output.sink import AtomicFile, write_atomic
from pipeline.site import files, frames
from pipeline.site.commit import DocsFile, SitePaths, open_output
from pipeline.site.rule import SiteSettings

__all__ = ["MIN_PARTITIONS", "batches", "shuffled_sums"]

# At least this many partitions in each shuffle: a tiny output still spreads over a few workers.
MIN_PARTITIONS = 2
_SUMS = list(files.STATS_COLUMNS)


def batches(sizes: list[int], batch_bytes: int) -> list[range]:
    """Consecutive runs of files (by their numbers) whose ``sizes`` add up to at most
    ``batch_bytes``, or a single larger file."""
    runs: list[range] = []
    start, held = 0, 0
    for i, size in enumerate(sizes):
        if i > start and held + size > batch_bytes:
            runs.append(range(start, i))
            start, held = i, 0
        held += size
    if start < len(sizes):
        runs.append(range(start, len(sizes)))
    return runs


def _read(
    specs: list[tuple[int, str]],
    output: str,
    storage_options: dict[str, Any],
    settings: SiteSettings,
) -> pd.DataFrame:
    """Step 1 for one batch of files: their rows for the shuffle (`frames.read_keys`). Each
    file's blocks' text hashes are kept in the staging area for its rewrite, which would
    otherwise hash every block again (8 bytes a block, against about a tenth of a millisecond
    a document). It keeps the worker's C heap while it runs (`pipeline.heap`)."""
    with kept_heap():
        fs, root = open_output(output, storage_options)
        parts = []
        for file_id, relpath in specs:
            with fs.open(f"{root}/{relpath}", "rb") as handle:
                rows, hashes = frames.read_keys(handle, file_id, settings)
            buffer = io.BytesIO()
            np.save(buffer, hashes, allow_pickle=False)
            write_atomic(fs, SitePaths(root).hashes(relpath), buffer.getvalue())
            parts.append(rows)
        return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]


def _stored_hashes(fs: Any, path: str) -> np.ndarray | None:
    # Missing when this rewrite already ran once and removed it (a task retried after its
    # worker died): the file is hashed again.
    try:
        data = fs.cat_file(path)
    except FileNotFoundError:
        return None
    return np.load(io.BytesIO(data), allow_pickle=False)


def _rewrite(
    specs: list[tuple[int, str, str]],
    routed: pd.DataFrame,
    output: str,
    storage_options: dict[str, Any],
    settings: SiteSettings,
) -> pd.DataFrame:
    """Step 3 for one batch of files: each one's rewrite into the staging area, and their
    per-site counts. It keeps the worker's C heap while it runs (`pipeline.heap`)."""
    with kept_heap():
        fs, root = open_output(output, storage_options)
        paths = SitePaths(root)
        routed = routed.reset_index()
        stats: files.Stats = {}
        for file_id, relpath, language in specs:
            mine = routed[routed["file"].to_numpy() == file_id]
            is_hit = mine["row"].to_numpy() < 0
            hashes = _stored_hashes(fs, paths.hashes(relpath))
            target = AtomicFile(fs, paths.staged(relpath))
            try:
                with fs.open(paths.final(relpath), "rb") as source:
                    counted = files.rewrite_file(
                        source,
                        target.handle,
                        frames.sorted_hits(mine[is_hit]),
                        frames.copies_by_row(mine[~is_hit]),
                        settings,
                        language,
                        text_hashes=hashes,
                    )
                target.commit()
            except BaseException:
                target.abort()
                raise
            if hashes is not None:
                fs.rm(paths.hashes(relpath))
            for site, values in counted.items():
                stats[site] = stats.get(site, 0) + values
        return frames.stats_frame(stats)


def _shuffle_method(client: Client | None) -> str:
    # p2p streams between worker processes and spills to disk; without a distributed client
    # (a synchronous call from a test or a library user) Dask's task shuffle does the same work.
    return "p2p" if client is not None else "tasks"


def shuffled_sums(
    client: Client | None,
    output: str,
    options: dict[str, Any],
    settings: SiteSettings,
    entries: list[DocsFile],
    top_sites: int,
    batch_bytes: int,
) -> tuple[dict[str, int], dict[str, dict[str, int]], list[tuple[str, str, dict[str, int]]]]:
    """The stage over ``entries`` through the shuffles: every file rewritten into the staging
    area, and the counts the report needs, summed on the cluster (by language, and the sites
    with the most characters marked, ``top_sites`` of them). Files are read, counted and
    rewritten in `batches` of ``batch_bytes``."""
    n = len(entries)
    runs = batches([e.size for e in entries], batch_bytes)
    method = _shuffle_method(client)
    partitions = max(len(runs), MIN_PARTITIONS)
    both = dd.from_map(
        partial(_read, output=output, storage_options=options, settings=settings),
        [[(i, entries[i].relpath) for i in run] for run in runs],
        meta=frames.UNION_META,
        enforce_metadata=False,
        label="site-keys",
    )
    shuffled = both.shuffle("key", npartitions=partitions, shuffle_method=method)
    routed = shuffled.map_partitions(frames.count_and_copy, meta=frames.ROUTED_META)
    # Back by file number, a partition per batch: partition b holds the files of run b (the
    # last division is n, which no file has, so that the last run is alone in its partition).
    divisions = (*(run.start for run in runs), n)
    routed = routed.set_index("file", divisions=divisions, shuffle_method=method)
    rewrite = delayed(_rewrite, pure=True)
    parts = [
        rewrite(
            [(i, entries[i].relpath, entries[i].language) for i in run],
            part,
            output,
            options,
            settings,
        )
        for run, part in zip(runs, routed.to_delayed(), strict=True)
    ]
    stats = dd.from_delayed(parts, meta=frames.STATS_META, verify_meta=False)
    by_language = stats.groupby("language")[_SUMS].sum()
    by_site = stats.groupby(["language", "site"])[_SUMS].sum(split_out=max(1, len(runs) // 64))
    # Among sites tied with the last of these, which are named is the shuffle's choice (Dask's
    # nlargest keeps no ties); the report orders those it gets.
    top = by_site.reset_index().nlargest(top_sites, "repeat_chars")
    totals = stats[_SUMS].sum()
    if client is not None:
        computed = client.compute([by_language, top, totals], sync=True)
    else:
        computed = dask.compute(by_language, top, totals, scheduler="sync")
    by_language, top, totals = computed
    return (
        _counts(totals),
        {str(language): _counts(row) for language, row in by_language.iterrows()},
        [(str(r["language"]), str(r["site"]), _counts(r)) for _, r in top.iterrows()],
    )


def _counts(row: Any) -> dict[str, int]:
    return {name: int(row[name]) for name in _SUMS}
