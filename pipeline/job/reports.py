"""What a run did: the JSON run report, the HTML report beside it, and the summary table."""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any

from fsspec.core import url_to_fs

from pipeline.job.schedule import RunResult
from pipeline.jobconfig import JobConfig
from pipeline.warc.inputs import display_path, input_stem

if TYPE_CHECKING:
    import threading

    from rich.table import Table


def run_report(result: RunResult, cfg: JobConfig, started_at: str) -> dict[str, Any]:
    totals = result.totals
    return {
        "started_at": started_at,
        "seconds": round(result.seconds, 3),
        "output": cfg.output,
        "cleaner": cfg.cleaner,
        "cleaner_params": cfg.params_dict,
        "formats": cfg.formats,
        "include_comments": cfg.include_comments,
        "record_limit": cfg.record_limit,
        "inputs": {
            "processed": len(result.reports),
            "failed": len(result.failed),
            "skipped_done": len(result.skipped),
        },
        "totals": totals.to_dict(),
        # Records counts every WARC record (requests and metadata too); pages are the records
        # that could hold one (documents and rejects).
        "records_per_second": round(totals.records / result.seconds, 2) if result.seconds else None,
        "pages_per_second": (
            round((totals.records - totals.n_skipped) / result.seconds, 2)
            if result.seconds
            else None
        ),
        # (a file name's bytes that are not UTF-8 as \xNN: the report must be writable; its
        # stem names it exactly)
        "failed": [
            {"input": display_path(p), "stem": input_stem(p), "error": e}
            for p, e in sorted(result.failed.items())
        ],
        "unbalanced": [r.warc_path for r in result.reports if not r.stats.balanced],
        "per_input": [
            {
                "input": r.warc_path,
                "records": r.stats.records,
                "docs": r.stats.docs,
                "rejects": r.stats.n_rejects,
                "seconds": round(r.seconds, 3),
                **({"limit": r.limit} if r.limit is not None else {}),
            }
            for r in result.reports
        ],
    }


def run_report_path(report: dict[str, Any], cfg: JobConfig) -> str:
    """``OUT/_runs/<start time>-<6 hex digits>.json``: two runs started in the same second
    (which the output's lock keeps from writing at once, but not from starting) never share one
    report."""
    stamp = report["started_at"].replace(":", "").replace("-", "")
    return f"{cfg.output.rstrip('/')}/_runs/{stamp}-{secrets.token_hex(3)}.json"


def write_run_report(report: dict[str, Any], cfg: JobConfig, path: str | None) -> str:
    if path is None:
        path = run_report_path(report, cfg)
    from pipeline.output.sink import write_atomic

    fs, fs_path = url_to_fs(path, **cfg.storage_dict if "://" in path else {})
    write_atomic(fs, fs_path, json.dumps(report, indent=2).encode())
    return path


def html_report_path(json_path: str) -> str:
    """The HTML report's path: the JSON report's, with ``.html`` for ``.json``."""
    return json_path.removesuffix(".json") + ".html"


def write_html_report(report: dict[str, Any], cfg: JobConfig, json_path: str) -> str:
    """Write the HTML report of the whole output (this run and any before it) beside the JSON.

    Built from the output directory alone, as ``warcclean report OUT`` rebuilds it; this run's
    report is passed in as well in case ``--report`` put its JSON outside ``OUT/_runs/``.
    """
    from pipeline.report.run_report import write_report

    path = html_report_path(json_path)
    name = json_path.rpartition("/")[2]
    return write_report(
        cfg.output, path, storage_options=cfg.storage_dict, extra_runs=[(name, report)]
    )


def summary_table(result: RunResult) -> Table:
    from rich.table import Table

    from pipeline.report.run_report import STRUCTURE_KINDS

    totals = result.totals
    table = Table(title="warcclean run", show_header=True)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("inputs processed", str(len(result.reports)))
    table.add_row("inputs skipped (done)", str(len(result.skipped)))
    table.add_row("inputs failed", str(len(result.failed)), style="red" if result.failed else None)
    cut = [r for r in result.reports if r.limit is not None]
    if cut:
        # A trial run (--limit): these inputs are not done, a run without the limit reads them.
        table.add_row(f"inputs cut at --limit {cut[0].limit:,}", str(len(cut)))
    table.add_row("records read", f"{totals.records:,}")
    table.add_row("documents", f"{totals.docs:,}")
    for reason, n in totals.rejects.most_common():
        table.add_row(f"rejected: {reason}", f"{n:,}")
    for rec_type, n in totals.skipped.most_common():
        table.add_row(f"skipped: {rec_type} records", f"{n:,}")
    for kind, n in totals.issues.most_common():
        table.add_row(f"reader issue: {kind}", f"{n:,}")
    for kind in STRUCTURE_KINDS:
        table.add_row(f"documents with {kind}", f"{totals.structure.get(kind, 0):,}")
    for lang, n in totals.languages.most_common(10):
        table.add_row(f"language={lang}", f"{n:,}")
    for kind, n in totals.page_types.most_common():
        table.add_row(f"page_type={kind}", f"{n:,}")
    rate = totals.records / result.seconds if result.seconds else 0.0
    table.add_row("wall seconds", f"{result.seconds:.1f}")
    table.add_row("records / s", f"{rate:.1f}")
    pages = totals.records - totals.n_skipped
    table.add_row("pages / s", f"{pages / result.seconds if result.seconds else 0.0:.1f}")
    return table


def warm_up_report() -> threading.Thread | None:
    """Start the HTML report's warm-up thread (`pipeline.report.run_report.warm_up`)."""
    from pipeline.report.run_report import warm_up

    return warm_up()
