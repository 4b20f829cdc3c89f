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

from pipeline.output.sink import AtomicFile, write_atomic
from pipeline.site import files, frames
from pipeline.site.commit import DocsFile, SitePaths, open_output
from pipeline.site.rule import SiteSettings

__all__ = ["MIN_PARTITIONS", "shuffled_sums"]

# At least this many partitions in each shuffle: one per documents file is the rule; a tiny
# output still spreads over a few workers.
MIN_PARTITIONS = 2
_SUMS = list(files.STATS_COLUMNS)


def _read(
    spec: tuple[int, str], output: str, storage_options: dict[str, Any], settings: SiteSettings
) -> pd.DataFrame:
    """Step 1 for one file: its rows for the shuffle (`frames.read_keys`). Its blocks' text
    hashes are kept in the staging area for its rewrite, which would otherwise hash every
    block again (8 bytes a block, against about a tenth of a millisecond a document)."""
    file_id, relpath = spec
    fs, root = open_output(output, storage_options)
    with fs.open(f"{root}/{relpath}", "rb") as handle:
        rows, hashes = frames.read_keys(handle, file_id, settings)
    buffer = io.BytesIO()
    np.save(buffer, hashes, allow_pickle=False)
    write_atomic(fs, SitePaths(root).hashes(relpath), buffer.getvalue())
    return rows


def _stored_hashes(fs: Any, path: str) -> np.ndarray | None:
    # Missing when this rewrite already ran once and removed it (a task retried after its
    # worker died): the file is hashed again.
    try:
        data = fs.cat_file(path)
    except FileNotFoundError:
        return None
    return np.load(io.BytesIO(data), allow_pickle=False)


def _rewrite(
    spec: tuple[int, str, str],
    routed: pd.DataFrame,
    output: str,
    storage_options: dict[str, Any],
    settings: SiteSettings,
) -> pd.DataFrame:
    """Step 3 for one file: its rewrite into the staging area, and its per-site counts."""
    file_id, relpath, language = spec
    fs, root = open_output(output, storage_options)
    paths = SitePaths(root)
    routed = routed.reset_index()
    routed = routed[routed["file"].to_numpy() == file_id]
    is_hit = routed["row"].to_numpy() < 0
    hashes = _stored_hashes(fs, paths.hashes(relpath))
    target = AtomicFile(fs, paths.staged(relpath))
    try:
        with fs.open(paths.final(relpath), "rb") as source:
            stats = files.rewrite_file(
                source,
                target.handle,
                frames.sorted_hits(routed[is_hit]),
                frames.copies_by_row(routed[~is_hit]),
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
    return frames.stats_frame(stats)


def _divisions(n: int) -> tuple[int, ...]:
    # One partition per file: partition i holds the rows of file i (the last division is n,
    # which no file has, so that file n - 1 is alone in the last partition).
    return tuple(range(n + 1))


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
) -> tuple[dict[str, int], dict[str, dict[str, int]], list[tuple[str, str, dict[str, int]]]]:
    """The stage over ``entries`` through the shuffles: every file rewritten into the staging
    area, and the counts the report needs, summed on the cluster (by language, and the sites
    with the most characters marked, ``top_sites`` of them)."""
    n = len(entries)
    method = _shuffle_method(client)
    partitions = max(n, MIN_PARTITIONS)
    both = dd.from_map(
        partial(_read, output=output, storage_options=options, settings=settings),
        [(i, e.relpath) for i, e in enumerate(entries)],
        meta=frames.UNION_META,
        enforce_metadata=False,
        label="site-keys",
    )
    shuffled = both.shuffle("key", npartitions=partitions, shuffle_method=method)
    routed = shuffled.map_partitions(frames.count_and_copy, meta=frames.ROUTED_META)
    routed = routed.set_index("file", divisions=_divisions(n), shuffle_method=method)
    rewrite = delayed(_rewrite, pure=True)
    parts = [
        rewrite((i, e.relpath, e.language), part, output, options, settings)
        for i, (e, part) in enumerate(zip(entries, routed.to_delayed(), strict=True))
    ]
    stats = dd.from_delayed(parts, meta=frames.STATS_META, verify_meta=False)
    by_language = stats.groupby("language")[_SUMS].sum()
    by_site = stats.groupby(["language", "site"])[_SUMS].sum(split_out=max(1, n // 64))
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
