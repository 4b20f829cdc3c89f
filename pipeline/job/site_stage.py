"""The site stage on the cluster: keys shuffled across workers, every documents file rewritten.

`run_site_stage` runs after the cleaning pass (``warcclean run``) or on its own over an existing
output (``warcclean site``), with whatever client the caller has: a LocalCluster, a remote
multi-machine cluster, or threads of this process. Its steps are `pipeline.site.frames`'s:

1. one task per documents file reads its keys (`read_keys`): block occurrences and documents,
   in one frame;
2. that frame is shuffled, occurrences by key and documents by page hash (Dask's p2p shuffle,
   which streams partitions between workers and spills them to disk), one output partition per
   documents file at least, so a partition holds what one file holds on average however large
   the output: worker memory stays flat as the output grows; each partition is counted
   (`count_and_copy`), leaving only the keys on two or more pages and the copies;
3. those are shuffled to their files (`set_index` by file number with one division per file)
   and each file is rewritten into the staging area (`rewrite_file`);
4. the per-site counts the rewrites return are summed on the cluster (by language, and the 20
   sites with the most characters marked), and only those sums reach the client, which then
   journals and publishes the staged files (`pipeline.site.commit`).

No process ever holds more than one partition of keys, one documents row group and the sums.
An output small enough (documents files of at most `GATHER_BYTES` in all) skips the shuffles: one
task runs the same steps over every file (`pipeline.site.gathered`), reading each file's keys
once, because Dask's fixed costs per task and per shuffle are most of the work there.
Files are numbered in path order and each rule reads only a document's own data and its counts,
so the result does not depend on the order of the inputs or the partitioning.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask import delayed
from distributed import Client

from pipeline.output.sink import AtomicFile
from pipeline.site import files, frames, gathered
from pipeline.site.commit import (
    DocsFile,
    SitePaths,
    clear_staging,
    docs_files,
    open_output,
    publish,
    read_state,
    up_to_date,
    write_journal,
)
from pipeline.site.rule import SiteSettings

# Sites named in the report: those whose text lost the most characters.
TOP_SITES = 20
# Outputs whose documents files hold at most this many bytes in all (about 17,000 documents at
# daniel's 7.7 kB each) are staged in one task (`pipeline.site.gathered`), whose memory grows
# with the output (about 10 kB a document at its peak: two hashes and a label per block, and the
# occurrences while they are counted); larger ones are shuffled, with worker memory flat.
GATHER_BYTES = 128 * 2**20
# At least this many partitions in each shuffle: one per documents file is the rule; a tiny
# output still spreads over a few workers.
MIN_PARTITIONS = 2
_SUMS = ["docs", "docs_changed", "duplicates", "kept_blocks", "kept_chars"]
_SUMS += ["repeat_blocks", "repeat_chars"]


@dataclass
class SiteResult:
    """What a site stage did: its settings, files, counts and time; ``skipped`` says why it
    did nothing (``off``, ``up to date``, ``no documents``)."""

    settings: dict[str, Any]
    files: int = 0
    seconds: float = 0.0
    skipped: str | None = None
    published_earlier: bool = False  # it first completed a stage killed while publishing
    report: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "files": self.files,
            "seconds": round(self.seconds, 3),
            "skipped": self.skipped,
            "published_earlier": self.published_earlier,
            **self.report,
        }


def quiet_shuffle_logs() -> None:
    """Keep Dask's p2p shuffle from logging each shuffle's start and end as a warning (six
    lines per stage on the job's console); real errors still show."""
    import logging

    logging.getLogger("distributed.shuffle._scheduler_plugin").setLevel(logging.ERROR)


def _read(
    spec: tuple[int, str], output: str, storage_options: dict[str, Any], settings: SiteSettings
) -> pd.DataFrame:
    """Step 1 for one file: occurrences and documents in one frame (``kind`` 0 and 1) keyed
    for one shuffle (an occurrence by its key, a document by its page hash), so that the file
    is read once and the keys move once."""
    file_id, relpath = spec
    fs, root = open_output(output, storage_options)
    with fs.open(f"{root}/{relpath}", "rb") as handle:
        occ, docs = frames.read_keys(handle, file_id, settings)
    occ = occ.assign(kind=np.int8(0), row=np.int64(-1), warc_date=None, url=None, record_id=None)
    docs = docs.assign(kind=np.int8(1), key=docs["page"])
    return pd.concat([occ, docs], ignore_index=True).astype(_UNION_META.dtypes)[
        list(_UNION_META.columns)
    ]


_UNION_META = pd.concat(
    [frames.OCCURRENCES_META, frames.DOCUMENTS_META.drop(columns=["file", "page"])], axis=1
).assign(kind=pd.Series([], dtype="int8"))
_UNION_META["row"] = _UNION_META["row"].astype("int64")


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
    routed = routed[routed["file"] == file_id]
    hits = routed[routed["row"] < 0]
    copies = routed[routed["row"] >= 0]
    target = AtomicFile(fs, paths.staged(relpath))
    try:
        with fs.open(paths.final(relpath), "rb") as source:
            stats = files.rewrite_file(
                source,
                target.handle,
                frames.sorted_hits(hits),
                frames.copies_by_row(copies),
                settings,
                language,
            )
        target.commit()
    except BaseException:
        target.abort()
        raise
    return frames.stats_frame(stats)


def _divisions(n: int) -> tuple[int, ...]:
    # One partition per file: partition i holds the rows of file i (the last division is n,
    # which no file has, so that file n - 1 is alone in the last partition).
    return tuple(range(n + 1))


def _shuffle_method(client: Client | None) -> str:
    # p2p streams between worker processes and spills to disk; without a distributed client
    # (a synchronous call from a test or a library user) Dask's task shuffle does the same work.
    return "p2p" if client is not None else "tasks"


def run_site_stage(
    client: Client | None,
    output: str,
    settings: SiteSettings,
    *,
    storage_options: dict[str, Any] | None = None,
    gather_bytes: int = GATHER_BYTES,
) -> SiteResult:
    """Run the site stage over ``output`` (everything its ``docs/`` holds) on ``client``'s
    cluster and publish the result; see the module. ``client`` None computes in this process.
    Documents files of at most ``gather_bytes`` in all are staged in one task, without a
    shuffle (`pipeline.site.gathered`): the same dataset, without Dask's fixed costs."""
    started = time.perf_counter()
    options = dict(storage_options or {})
    fs, root = open_output(output, options)
    paths = SitePaths(root)
    result = SiteResult(settings=settings.to_dict())
    # A stage killed while publishing is finished first, whatever this run then does.
    result.published_earlier = publish(fs, paths)
    if not settings.enabled:
        result.skipped = "off"
        return result
    entries = docs_files(fs, root)
    result.files = len(entries)
    state = read_state(fs, paths)
    if up_to_date(state, settings.to_dict(), entries):
        result.skipped = "up to date"
        result.report = (state or {}).get("report", {})
        result.seconds = time.perf_counter() - started
        return result
    clear_staging(fs, paths)
    if not entries:
        result.skipped = "no documents"
        result.seconds = time.perf_counter() - started
        return result
    if sum(e.size for e in entries) <= gather_bytes:
        sums = _summed(_gathered(client, output, options, settings, entries))
    else:
        sums = _compute(client, output, options, settings, entries)
    result.report = _report(*sums)
    write_journal(
        fs,
        paths,
        [e.relpath for e in entries],
        {
            "settings": settings.to_dict(),
            "report": result.report,
            "finished_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
    )
    publish(fs, paths)
    result.seconds = time.perf_counter() - started
    result.report["seconds"] = round(result.seconds, 3)
    return result


def _compute(
    client: Client | None,
    output: str,
    options: dict[str, Any],
    settings: SiteSettings,
    entries: list[DocsFile],
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    n = len(entries)
    method = _shuffle_method(client)
    partitions = max(n, MIN_PARTITIONS)
    both = dd.from_map(
        partial(_read, output=output, storage_options=options, settings=settings),
        [(i, e.relpath) for i, e in enumerate(entries)],
        meta=_UNION_META,
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
    top = by_site.reset_index().nlargest(TOP_SITES, "repeat_chars")
    totals = stats[_SUMS].sum()
    if client is not None:
        return tuple(client.compute([by_language, top, totals], sync=True))  # type: ignore[return-value]
    return dask.compute(by_language, top, totals, scheduler="sync")  # type: ignore[return-value]


def _gathered(
    client: Client | None,
    output: str,
    options: dict[str, Any],
    settings: SiteSettings,
    entries: list[DocsFile],
) -> pd.DataFrame:
    """The per-site counts of a stage run as one task, on a worker when there is a cluster."""
    specs = [(e.relpath, e.language) for e in entries]
    if client is None:
        stats = gathered.stage_output(output, options, settings, specs)
    else:
        stats = client.submit(
            gathered.stage_output, output, options, settings, specs, pure=False
        ).result()
    return frames.stats_frame(stats)


def _summed(stats: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """`_compute`'s sums, from the per-site counts in hand."""
    by_language = stats.groupby("language")[_SUMS].sum()
    by_site = stats.groupby(["language", "site"])[_SUMS].sum()
    top = by_site.reset_index().nlargest(TOP_SITES, "repeat_chars")
    return by_language, top, stats[_SUMS].sum()


def _report(by_language: pd.DataFrame, top: pd.DataFrame, totals: pd.Series) -> dict[str, Any]:
    """The stage's section of the run report, from the summed per-site counts."""

    def counts(row: Any) -> dict[str, int]:
        return {name: int(row[name]) for name in _SUMS}

    return {
        "totals": counts(totals),
        "languages": {
            str(language): counts(row) for language, row in by_language.sort_index().iterrows()
        },
        "top_sites": [
            {"language": str(row["language"]), "site": str(row["site"]), **counts(row)}
            for _, row in top.iterrows()
            if int(row["repeat_chars"]) > 0
        ],
    }
