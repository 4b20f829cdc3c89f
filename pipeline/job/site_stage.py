"""The site stage on the cluster: keys shuffled across workers, every documents file rewritten.

`run_site_stage` runs after the cleaning pass (``warcclean run``) or on its own over an existing
output (``warcclean site``), with whatever client the caller has: a LocalCluster, a remote
multi-machine cluster, or threads of this process. Its steps are `pipeline.site.frames`'s:

1. one task per batch of documents files (`BATCH_BYTES` of them) reads their keys
   (`read_keys`): block occurrences and documents, in one frame (shuffled apart, the
   occurrences would move as 20 bytes a row, not 52, but the third shuffle cost more CPU than
   the bytes saved: BENCHMARKS.md); each file's block hashes wait in the staging area for its
   rewrite;
2. that frame is shuffled, occurrences by key and documents by page hash (Dask's p2p shuffle,
   which streams partitions between workers and spills them to disk), one output partition per
   batch at least, so a partition holds what one batch holds on average however large the
   output: worker memory stays flat as the output grows; each partition is counted
   (`count_and_copy`), leaving only the keys on two or more pages and the copies;
3. those are shuffled to their files (`set_index` by file number with one division per
   batch) and each file of a batch is rewritten into the staging area (`rewrite_file`, from
   its stored hashes);
4. the per-site counts the rewrites return are summed on the cluster (by language, and the 20
   sites with the most characters marked), and only those sums reach the client, which then
   journals and publishes the staged files (`pipeline.site.commit`).

No process ever holds more than one partition of keys, one documents row group and the sums.
An output small enough (documents files of at most `GATHER_BYTES` in all) skips the shuffles: one
task runs the same steps over every file (`pipeline.site.gathered`), reading each file's keys
once, because Dask's fixed costs per task and per shuffle are most of the work there, and the
client sums its counts without pandas. The shuffled path (`pipeline.job.site_shuffle`) is
imported only for an output above that bound: Dask's dataframes and pandas cost the client about
a second of CPU to import, as much as the one-task stage itself on 1,600 pages.
Files are numbered in path order and each rule reads only a document's own data and its counts,
so the result does not depend on the order of the inputs or the partitioning.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from pipeline.site import files, gathered
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

if TYPE_CHECKING:
    from distributed import Client

# Sites named in the report: those whose text lost the most characters.
TOP_SITES = 20
# Outputs whose documents files hold at most this many bytes in all (about 17,000 documents at
# daniel's 7.7 kB each) are staged in one task (`pipeline.site.gathered`), whose memory grows
# with the output (about 10 kB a document at its peak: two hashes and a label per block, and the
# occurrences while they are counted); larger ones are shuffled, with worker memory flat.
GATHER_BYTES = 128 * 2**20
# Above it, files are read, counted and rewritten in batches of consecutive files holding about
# this many bytes of documents files (a larger file is a batch alone): a task, a shuffle
# partition and a rewrite per batch, not per file. A crawl's output has a file per input and
# language, many of them small, and each file's own tasks cost about 0.24 s of CPU
# (BENCHMARKS.md, "Per document, per file"); a partition's keys stay bounded by the batch.
BATCH_BYTES = 64 * 2**20
_SUMS = files.STATS_COLUMNS
# One site's counts in the report: (language, site, counts by name).
SiteCounts = tuple[str, str, dict[str, int]]


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


def run_site_stage(
    client: Client | None,
    output: str,
    settings: SiteSettings,
    *,
    storage_options: dict[str, Any] | None = None,
    gather_bytes: int = GATHER_BYTES,
    batch_bytes: int = BATCH_BYTES,
) -> SiteResult:
    """Run the site stage over ``output`` (everything its ``docs/`` holds) on ``client``'s
    cluster and publish the result; see the module. ``client`` None computes in this process.
    Documents files of at most ``gather_bytes`` in all are staged in one task, without a
    shuffle (`pipeline.site.gathered`): the same dataset, without Dask's fixed costs. Above
    it, files go through the shuffles in batches of ``batch_bytes`` (the same dataset too)."""
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
        from pipeline.job.site_shuffle import shuffled_sums

        sums = shuffled_sums(client, output, options, settings, entries, TOP_SITES, batch_bytes)
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


def _gathered(
    client: Client | None,
    output: str,
    options: dict[str, Any],
    settings: SiteSettings,
    entries: list[DocsFile],
) -> files.Stats:
    """The per-site counts of a stage run as one task, on a worker when there is a cluster."""
    specs = [(e.relpath, e.language) for e in entries]
    if client is None:
        return gathered.stage_output(output, options, settings, specs)
    return client.submit(
        gathered.stage_output, output, options, settings, specs, pure=False
    ).result()


def _summed(
    stats: files.Stats,
) -> tuple[dict[str, int], dict[str, dict[str, int]], list[SiteCounts]]:
    """What the shuffled path sums on the cluster (`site_shuffle.shuffled_sums`), from the
    per-site counts in hand: the totals, the sums by language, and every site's counts."""
    totals = dict.fromkeys(_SUMS, 0)
    languages: dict[str, dict[str, int]] = {}
    sites = []
    for (language, site), values in stats.items():
        counts = dict(zip(_SUMS, values.tolist(), strict=True))
        sites.append((language, site, counts))
        into = languages.setdefault(language, dict.fromkeys(_SUMS, 0))
        for name, value in counts.items():
            into[name] += value
            totals[name] += value
    return totals, languages, sites


def _report(
    totals: dict[str, int], languages: dict[str, dict[str, int]], sites: list[SiteCounts]
) -> dict[str, Any]:
    """The stage's section of the run report: the totals, the sums by language, and the
    `TOP_SITES` sites of ``sites`` that lost the most characters (ties by language, then
    site)."""
    top = sorted(
        (s for s in sites if s[2]["repeat_chars"] > 0),
        key=lambda s: (-s[2]["repeat_chars"], s[0], s[1]),
    )[:TOP_SITES]
    return {
        "totals": dict(totals),
        "languages": {language: dict(languages[language]) for language in sorted(languages)},
        "top_sites": [{"language": lang, "site": site, **counts} for lang, site, counts in top],
    }
