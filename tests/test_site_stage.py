"""The site stage end to end: the job's output counted, marked, rebuilt and published; the same
dataset whatever the order of the inputs, their files or a kill; and on a real cluster."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from distributed import Client

from pipeline.job.site_stage import BATCH_BYTES, GATHER_BYTES, run_site_stage
from pipeline.site.rule import SiteSettings
from tests.jobhelpers import REPO, dask_cluster, rows, stale_lock
from tests.sitehelpers import (
    NEWSLETTER,
    SITES,
    article,
    clean,
    content,
    documents,
    page,
    site_pages,
    write_warcs,
)

K3 = SiteSettings(min_pages=3)


@pytest.fixture(scope="module")
def cleaned(tmp_path_factory, client) -> tuple[list[str], Path]:
    """The four sites in three WARCs, cleaned without a site stage (kept as it is)."""
    root = tmp_path_factory.mktemp("cleaned")
    inputs = write_warcs(root / "in", site_pages(), 3)
    clean(client, inputs, root / "out")
    return inputs, root / "out"


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def _staged(out: Path, client, settings: SiteSettings = K3) -> dict:
    result = run_site_stage(client, str(out), settings)
    assert result.skipped is None
    return documents(out)


def test_blocks_on_k_pages_of_a_site_are_marked_and_their_documents_rebuilt(
    tmp_path: Path, cleaned, client
) -> None:
    _, before_dir = cleaned
    before = documents(before_dir)
    after = _staged(_copy(before_dir, tmp_path / "out"), client)
    assert after.keys() == before.keys()
    for url, row in after.items():
        host = url.split("/")[2]
        box = [b for b in row["blocks"] if b["text"] == NEWSLETTER]
        assert all(b["site_pages"] >= 1 for b in row["blocks"])
        if host == "news.a.example":
            assert [(b["label"], b["site_pages"]) for b in box] == [("repeat", 4)]
            assert NEWSLETTER not in row["text"] and NEWSLETTER not in row["markdown"]
            assert NEWSLETTER in before[url]["text"]
            assert row["n_good"] == before[url]["n_good"] - 1
            assert row["n_chars"] == len(row["text"])
            # The rest of the text is the cleaner's, untouched.
            assert before[url]["text"].startswith(row["text"])
        else:
            # b: one page; c: two (below K 3); d: no box. Byte-identical to no stage at all.
            assert not any(b["label"] == "repeat" for b in row["blocks"])
            assert [b["site_pages"] for b in box] == ([SITES[host][1]] if box else [])
            for column in ("text", "markdown", "structure", "n_good", "n_chars", "n_words"):
                assert row[column] == before[url][column], (url, column)
        # Every column but the stage's own is as the cleaning pass wrote it.
        for column in ("url", "warc_path", "warc_offset", "language", "notes", "cleaner"):
            assert row[column] == before[url][column]
        strip = ("label", "site_pages")
        assert [{k: v for k, v in b.items() if k not in strip} for b in row["blocks"]] == [
            {k: v for k, v in b.items() if k not in strip} for b in before[url]["blocks"]
        ]
    # Before any stage the counts are unknown, not 1.
    assert all(b["site_pages"] is None for r in before.values() for b in r["blocks"])


def test_a_second_run_changes_nothing_and_is_up_to_date(tmp_path: Path, cleaned, client) -> None:
    out = _copy(cleaned[1], tmp_path / "out")
    first = _staged(out, client)
    mtimes = {p: p.stat().st_mtime_ns for p in out.rglob("*.parquet")}
    again = run_site_stage(client, str(out), K3)
    assert again.skipped == "up to date"
    assert again.report["totals"]["repeat_blocks"] == 4
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.parquet")} == mtimes
    # Another threshold recounts from the cleaner's labels: 2 marks c.example's box too, and
    # going back to 3 gives the first dataset again, row for row.
    k2 = _staged(out, client, SiteSettings(min_pages=2))
    assert sum(b["label"] == "repeat" for r in k2.values() for b in r["blocks"]) == 6
    assert _staged(out, client) == first


def test_the_same_pages_under_two_urls_give_one_duplicate_of_per_copy(
    tmp_path: Path, client
) -> None:
    originals = [(f"https://e.example/{n}", page(40 + n, newsletter=False)) for n in range(3)]
    copies = [(f"https://mirror.example/{n}", html) for n, (_, html) in enumerate(originals)]
    inputs = write_warcs(tmp_path / "in", originals + copies, 1)
    clean(client, inputs, tmp_path / "out")
    docs = _staged(tmp_path / "out", client)
    ids = {url: row["record_id"] for url, row in docs.items()}
    dups = {url: row["duplicate_of"] for url, row in docs.items() if row["duplicate_of"]}
    # Same WARC date: the first by URL, e.example, is the original of each pair.
    assert dups == {c: ids[o] for (o, _), (c, _) in zip(originals, copies, strict=True)}
    # A copy does not make the page's own text repeated: its kept blocks are on one page each
    # (the menu and footer, on all three pages of each host, count 3).
    kept = {b["site_pages"] for r in docs.values() for b in r["blocks"] if b["label"] == "good"}
    assert kept == {1}
    assert {b["site_pages"] for r in docs.values() for b in r["blocks"]} == {1, 3}


def test_the_dataset_does_not_depend_on_input_order_or_files(
    tmp_path: Path, cleaned, client
) -> None:
    reference = _staged(_copy(cleaned[1], tmp_path / "ref"), client)
    # The same pages in five files, listed in reverse: other files, other partitions.
    shuffled = list(reversed(site_pages()))
    inputs = write_warcs(tmp_path / "in5", shuffled, 5)
    clean(client, list(reversed(inputs)), tmp_path / "five")
    five = _staged(tmp_path / "five", client)
    assert {u: content(r) for u, r in five.items()} == {u: content(r) for u, r in reference.items()}


def test_inputs_added_later_are_counted_with_the_old(tmp_path: Path, client) -> None:
    pages = site_pages()
    early, late = pages[::2], pages[1::2]
    first = write_warcs(tmp_path / "early", early, 2)
    second = write_warcs(tmp_path / "late", late, 2)
    clean(client, first, tmp_path / "batches")
    run_site_stage(client, str(tmp_path / "batches"), K3)
    clean(client, first + second, tmp_path / "batches")
    run_site_stage(client, str(tmp_path / "batches"), K3)
    clean(client, first + second, tmp_path / "once")
    run_site_stage(client, str(tmp_path / "once"), K3)
    assert rows(tmp_path / "batches") == rows(tmp_path / "once")
    box = [
        b["site_pages"]
        for r in documents(tmp_path / "batches").values()
        for b in r["blocks"]
        if b["text"] == NEWSLETTER and "news.a.example" in r["url"]
    ]
    assert box == [4, 4, 4, 4]


_KILLED = """
import os, sys
import pipeline.job.site_stage as stage
import pipeline.site.commit as commit
from pipeline.site.rule import SiteSettings
point, after, gather_bytes = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
calls = []
def dying(original):
    def call(*args, **kwargs):
        if len(calls) == after:
            os._exit(9)  # no cleanup, no finally: as a kill
        calls.append(1)
        return original(*args, **kwargs)
    return call
if point == "rewrite":
    stage.files.rewrite_file = dying(stage.files.rewrite_file)
elif point == "journal":
    original = stage.write_journal
    def journal(*args, **kwargs):
        original(*args, **kwargs)
        os._exit(9)
    stage.write_journal = journal
else:
    commit._move = dying(commit._move)
stage.run_site_stage(None, sys.argv[1], SiteSettings(min_pages=3), gather_bytes=gather_bytes)
"""


@pytest.mark.parametrize(
    ("point", "after", "gather_bytes"),
    [
        ("rewrite", 0, GATHER_BYTES),
        ("rewrite", 2, GATHER_BYTES),
        ("rewrite", 2, 0),  # shuffled: its files' stored hashes are left in the staging area
        ("journal", 0, GATHER_BYTES),
        ("move", 0, GATHER_BYTES),
        ("move", 2, GATHER_BYTES),
    ],
)
def test_a_stage_killed_at_any_point_and_run_again_gives_the_same_dataset(
    tmp_path: Path, cleaned, client, point: str, after: int, gather_bytes: int
) -> None:
    reference = _copy(cleaned[1], tmp_path / "ref")
    run_site_stage(client, str(reference), K3)
    out = _copy(cleaned[1], tmp_path / "out")
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED, str(out), point, str(after), str(gather_bytes)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert killed.returncode == 9, killed.stderr[-2000:]
    journaled = (out / "_site" / "journal.json").exists()
    assert journaled == (point != "rewrite")
    assert (out / "_site" / "staging" / "_hashes").exists() == (gather_bytes == 0)
    if not journaled:
        # Killed before its journal: readers still see the cleaning pass's dataset.
        assert rows(out) == rows(cleaned[1])
    again = run_site_stage(client, str(out), K3)
    assert again.published_earlier == journaled
    assert again.skipped == ("up to date" if journaled else None)
    assert rows(out) == rows(reference)
    assert not (out / "_site" / "staging").exists()
    assert not (out / "_site" / "journal.json").exists()


def test_a_cleaning_run_first_finishes_a_stage_killed_while_publishing(
    tmp_path: Path, cleaned, client
) -> None:
    reference = _copy(cleaned[1], tmp_path / "ref")
    run_site_stage(client, str(reference), K3)
    out = _copy(cleaned[1], tmp_path / "out")
    subprocess.run(
        [sys.executable, "-c", _KILLED, str(out), "move", "2", str(GATHER_BYTES)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert (out / "_site" / "journal.json").exists()
    from pipeline.job.command import main

    result = CliRunner().invoke(
        main,
        [
            *cleaned[0],
            "-o",
            str(out),
            "--scheduler",
            "inproc",
            "--no-progress",
            "--no-html-report",
            "--cleaner",
            "justext",
            "--site-repeats",
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "site stage: finished publishing a stage that was stopped" in result.output
    assert rows(out) == rows(reference)
    report = json.loads(next((out / "_runs").glob("*.json")).read_text())
    assert report["site_stage"]["skipped"] == "off"


def test_the_job_runs_the_stage_and_reports_it(tmp_path: Path, cleaned) -> None:
    from pipeline.job.command import main

    result = CliRunner().invoke(
        main,
        [
            *cleaned[0],
            "-o",
            str(tmp_path / "out"),
            "--scheduler",
            "inproc",
            "--no-progress",
            "--cleaner",
            "justext",
            "--site-repeats",
            "3",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "site stage: 3 files, 4 blocks" in result.output
    (report_path,) = (tmp_path / "out" / "_runs").glob("*.json")
    stage = json.loads(report_path.read_text())["site_stage"]
    assert stage["settings"] == {
        "min_pages": 3,
        "site_key": "host",
        "max_chars": 200,
        "max_share": 1.0,
        "long_pages": 3,
    }
    assert stage["totals"]["repeat_blocks"] == 4
    assert stage["top_sites"][0]["site"] == "news.a.example"
    html = next((tmp_path / "out" / "_runs").glob("*.html")).read_text()
    assert "Site stage" in html and "news.a.example" in html


def test_a_document_whose_every_kept_block_repeats_is_left_as_a_row_with_no_text(
    tmp_path: Path, client
) -> None:
    # e.example's four pages are made of three boxes, each on three of them, and no two pages
    # alike (exact copies would count once): every kept block is a repeat at K 3. Its fifth
    # page has the newsletter box and a story of its own, so does f.example's one page.
    boxes = {"x": f"<p>{NEWSLETTER}</p>", "y": article(5), "z": article(6), "s": article(7)}
    pages = [
        (
            f"https://e.example/page/{which}",
            f"<html><body>{''.join(boxes[b] for b in which)}</body></html>",
        )
        for which in ("xy", "xz", "yz", "xyz", "xs")
    ]
    pages.append(("https://f.example/story/1", page(1, newsletter=True)))
    out = tmp_path / "out"
    clean(client, write_warcs(tmp_path / "in", pages, 2), out)
    before = documents(out)
    assert sorted(before) == sorted(url for url, _ in pages)
    result = run_site_stage(client, str(out), K3)
    after = documents(out)
    assert after.keys() == before.keys()  # every record is still a row
    for which in ("xy", "xz", "yz", "xyz"):
        row = after[f"https://e.example/page/{which}"]
        assert before[f"https://e.example/page/{which}"]["n_chars"] > 0
        assert {b["label"] for b in row["blocks"]} <= {"repeat", "bad"}
        assert (row["text"], row["markdown"], row["n_chars"], row["n_good"]) == ("", "", 0, 0)
    own = after["https://e.example/page/xs"]
    assert NEWSLETTER not in own["text"] and own["n_chars"] == len(own["text"]) > 0
    story = after["https://f.example/story/1"]
    assert story["text"] == before["https://f.example/story/1"]["text"] != ""
    assert result.report["totals"]["docs_emptied"] == 4
    assert result.report["totals"]["docs_changed"] == 5
    from pipeline.job.site_command import print_site_result

    printed: list[str] = []
    print_site_result(result, printed.append)
    assert "marked repeat in 5 of 6 documents (4 left with no text)" in printed[0]
    from pipeline.report.run_report import build_report

    html = build_report(str(out), with_charts=False)
    assert "in 5 documents (4 documents of them left with no text: n_chars 0, still a row)" in html


def test_the_site_command_runs_on_an_output_and_refuses_what_is_not_one(
    tmp_path: Path, cleaned
) -> None:
    from pipeline.job.site_command import main

    out = _copy(cleaned[1], tmp_path / "out")
    ok = CliRunner().invoke(main, [str(out), "--scheduler", "inproc", "--site-key", "domain"])
    assert ok.exit_code == 0, ok.output
    assert "6 blocks" in ok.output  # the defaults: K 2 marks c.example's box too
    state = json.loads((out / "_site" / "state.json").read_text())
    assert state["settings"]["site_key"] == "domain"
    empty = CliRunner().invoke(main, [str(tmp_path / "none"), "--scheduler", "inproc"])
    assert empty.exit_code == 2 and "holds no warcclean documents" in empty.output
    bad = CliRunner().invoke(main, [str(out), "--site-repeats", "1"])
    assert bad.exit_code == 2 and "would mark every kept block" in bad.output


def test_the_site_command_takes_the_outputs_lock(tmp_path: Path, cleaned) -> None:
    # Issue 48: one job per output, the stage that rewrites the documents' files included.
    from pipeline.job.site_command import main
    from pipeline.output import lock

    out = _copy(cleaned[1], tmp_path / "out")
    held = lock.acquire(str(out), cleaner="bte")  # a job of this (running) process
    refused = CliRunner().invoke(main, [str(out), "--scheduler", "inproc", "--force"])
    assert refused.exit_code == 2 and "cleaner bte" in refused.output
    assert "still running" in refused.output
    assert not (out / "_site").exists()
    lock.release(held)
    ok = CliRunner().invoke(main, [str(out), "--scheduler", "inproc"])
    assert ok.exit_code == 0, ok.output
    assert (out / "_site" / "state.json").exists() and not (out / lock.LOCK_NAME).exists()


def test_the_site_command_s_options_show_their_defaults() -> None:
    import re

    from pipeline.job.site_command import main

    # One entry per option: the lines from one that starts with a dash to the next such line.
    entries = re.split(r"\n\s+(?=-)", CliRunner().invoke(main, ["--help"]).output)
    helps = {e.split()[0]: " ".join(e.split()) for e in entries if e.lstrip().startswith("--")}
    for option, default in (
        ("--site-repeats", "2"),
        ("--site-key", "host"),
        ("--site-max-share", "1.0"),
        ("--site-long-repeats", "3"),
        ("--site-max-chars", "200"),
    ):
        assert re.search(rf"\[default: {re.escape(default)}[;\]]", helps[option]), helps[option]


def test_the_site_command_takes_zero_where_it_turns_a_rule_off(tmp_path: Path, cleaned) -> None:
    from pipeline.job.site_command import main

    out = _copy(cleaned[1], tmp_path / "out")
    for args in (
        ["--site-max-chars", "0"],
        ["--site-long-repeats", "0"],
        ["--site-max-share", "1"],
    ):
        ok = CliRunner().invoke(main, [str(out), "--scheduler", "inproc", *args])
        assert ok.exit_code == 0, ok.output
    off = CliRunner().invoke(main, [str(out), "--scheduler", "inproc", "--site-repeats", "0"])
    assert off.exit_code == 0 and "site stage: off" in off.output
    for option, value in (
        ("--site-max-chars", "-1"),
        ("--site-long-repeats", "-1"),
        ("--site-repeats", "-1"),
        ("--site-max-share", "0"),  # a share above nothing: 1 is the guard turned off
        ("--site-max-share", "1.5"),
    ):
        bad = CliRunner().invoke(main, [str(out), "--scheduler", "inproc", option, value])
        assert bad.exit_code == 2 and option in bad.output


def test_the_site_command_forces_a_lock_held_on_another_host(tmp_path: Path, cleaned) -> None:
    from pipeline.job.site_command import main
    from pipeline.output import lock

    out = _copy(cleaned[1], tmp_path / "out")
    stale_lock(out, host="elsewhere.example")
    refused = CliRunner().invoke(main, [str(out), "--scheduler", "inproc"])
    assert refused.exit_code == 2 and "--force" in refused.output
    taken = CliRunner().invoke(main, [str(out), "--scheduler", "inproc", "--force"])
    assert taken.exit_code == 0, taken.output
    assert (out / "_site" / "state.json").exists() and not (out / lock.LOCK_NAME).exists()


@pytest.mark.parametrize(
    ("gather_bytes", "batch_bytes"),
    [(0, BATCH_BYTES), (0, 1), (GATHER_BYTES, BATCH_BYTES)],
    ids=["shuffled", "shuffled-file-by-file", "gathered"],
)
def test_on_a_scheduler_and_two_worker_processes(
    tmp_path: Path, cleaned, client, gather_bytes: int, batch_bytes: int
) -> None:
    reference = _copy(cleaned[1], tmp_path / "ref")
    expected = run_site_stage(client, str(reference), K3, gather_bytes=0)
    out = _copy(cleaned[1], tmp_path / "out")
    with dask_cluster(tmp_path / "logs") as address, Client(address) as remote:
        result = run_site_stage(
            remote, str(out), K3, gather_bytes=gather_bytes, batch_bytes=batch_bytes
        )
    assert result.report["totals"]["repeat_blocks"] == 4
    assert result.report["totals"] == expected.report["totals"]
    assert result.report["languages"] == expected.report["languages"]
    assert rows(out) == rows(reference)


def test_gathered_and_shuffled_stages_give_the_same_dataset(tmp_path: Path, client) -> None:
    # Pages of the four sites and a mirror of some, in four files: marks, counts and
    # duplicates, whichever way the stage runs (a small output is gathered by default).
    pages = site_pages()
    mirrored = [(url.replace("://", "://mirror."), html) for url, html in pages[:5]]
    inputs = write_warcs(tmp_path / "in", pages + mirrored, 4)
    clean(client, inputs, tmp_path / "cleaned")
    results = {}
    # Shuffled in one batch, file by file, and in batches of up to two files.
    ways = {"gathered": (GATHER_BYTES, BATCH_BYTES), "one-batch": (0, BATCH_BYTES),
            "file-by-file": (0, 1)}  # fmt: skip
    sizes = sorted(p.stat().st_size for p in (tmp_path / "cleaned" / "docs").rglob("*.parquet"))
    ways["two-a-batch"] = (0, sizes[-1] + sizes[-2])
    for name, (gather_bytes, batch_bytes) in ways.items():
        out = _copy(tmp_path / "cleaned", tmp_path / name)
        results[name] = run_site_stage(
            client, str(out), K3, gather_bytes=gather_bytes, batch_bytes=batch_bytes
        ).report
    gathered = results["gathered"]
    assert gathered["totals"]["duplicates"] > 0 and gathered["totals"]["repeat_blocks"] > 0
    for name in ways:
        assert rows(tmp_path / name) == rows(tmp_path / "gathered"), name
        for part in ("totals", "languages", "top_sites"):
            assert results[name][part] == gathered[part], (name, part)


def test_batches_are_consecutive_files_within_the_bound() -> None:
    from pipeline.job.site_shuffle import batches

    assert batches([], 10) == []
    assert batches([4, 4, 4, 30, 1, 1], 10) == [range(0, 2), range(2, 3), range(3, 4),
                                                 range(4, 6)]  # fmt: skip
    assert batches([5, 5, 5], 1) == [range(0, 1), range(1, 2), range(2, 3)]
    assert batches([5, 5, 5], 10**9) == [range(0, 3)]


def test_a_rewrite_from_the_stored_hashes_is_the_rewrite_from_the_blocks(cleaned) -> None:
    # The shuffled stage keeps each file's block hashes from its reading for its rewrite: the
    # file written must be the same, byte for byte, as hashing the blocks again; hashes that do
    # not fit the file are refused before anything is written from them.
    from pipeline.site import files, frames

    path = max((cleaned[1] / "docs").rglob("*.parquet"), key=lambda p: p.stat().st_size)
    with path.open("rb") as handle:
        union, hashes = frames.read_keys(handle, 0, K3)
    is_doc = union["row"].to_numpy() >= 0
    hits = frames.count_pages(union[~is_doc])
    assert len(hits) and len(hashes) > len(union[is_doc])
    written = []
    for stored in (None, hashes):
        target = io.BytesIO()
        with path.open("rb") as source:
            files.rewrite_file(
                source, target, frames.sorted_hits(hits), {}, K3, "en", text_hashes=stored
            )
        written.append(target.getvalue())
    assert written[0] == written[1]
    for wrong in (hashes[:-1], np.concatenate([hashes, hashes[:1]])):
        with path.open("rb") as source, pytest.raises(ValueError, match="stored text hashes"):
            files.rewrite_file(source, io.BytesIO(), frames.sorted_hits(hits), {}, K3, "en",
                               text_hashes=wrong)  # fmt: skip


def test_a_shuffled_rewrite_without_its_stored_hashes_hashes_again(
    tmp_path: Path, cleaned, client, monkeypatch
) -> None:
    # A rewrite retried after its worker died finds its hashes gone (the first try removed
    # them): it hashes the blocks again and writes the same dataset.
    from pipeline.job import site_shuffle

    reference = _copy(cleaned[1], tmp_path / "ref")
    run_site_stage(client, str(reference), K3, gather_bytes=0)
    out = _copy(cleaned[1], tmp_path / "out")
    missing = []
    monkeypatch.setattr(site_shuffle, "_stored_hashes", lambda fs, path: missing.append(path))
    run_site_stage(None, str(out), K3, gather_bytes=0)
    assert len(missing) == len(list((out / "docs").rglob("*.parquet")))
    assert rows(out) == rows(reference)
    assert not (out / "_site" / "staging").exists()


def test_a_gathered_stage_never_imports_pandas(tmp_path: Path, cleaned) -> None:
    # Dask's dataframes and pandas cost a client about a second of CPU to import, as much as
    # the one-task stage itself on 1,600 pages: only the shuffled path may import them. (The
    # job's processes settle pyarrow's own pandas probe first, as this one does.)
    out = _copy(cleaned[1], tmp_path / "out")
    script = (
        "import sys\n"
        "from pipeline.output.arrow import skip_pandas_probe\n"
        "assert skip_pandas_probe()\n"
        "from pipeline.job.site_stage import run_site_stage\n"
        "from pipeline.site.rule import SiteSettings\n"
        f"result = run_site_stage(None, {str(out)!r}, SiteSettings(min_pages=3))\n"
        "assert result.report['totals']['repeat_blocks'] > 0, result.report\n"
        "print(sorted(m for m in ('pandas', 'dask.dataframe') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_shuffled_stage_reads_and_rewrites_a_batch_a_task(
    tmp_path: Path, cleaned, monkeypatch
) -> None:
    # A task per batch of files, not per file: a crawl's output has a file per input and
    # language, and a task per file made its graph too large.
    from pipeline.job import site_shuffle

    n_files = len(list((cleaned[1] / "docs").rglob("*.parquet")))
    assert n_files >= 3
    for batch_bytes, tasks in ((BATCH_BYTES, 1), (1, n_files)):
        calls: dict[str, list[int]] = {"read": [], "rewrite": []}
        for step in ("read", "rewrite"):
            original = getattr(site_shuffle, f"_{step}")

            def counted(specs, *args, _step=step, _original=original, _calls=calls, **kwargs):
                _calls[_step].append(len(specs))
                return _original(specs, *args, **kwargs)

            monkeypatch.setattr(site_shuffle, f"_{step}", counted)
        out = _copy(cleaned[1], tmp_path / f"out-{batch_bytes}")
        run_site_stage(None, str(out), K3, gather_bytes=0, batch_bytes=batch_bytes)
        monkeypatch.undo()
        assert len(calls["read"]) == len(calls["rewrite"]) == tasks
        assert sum(calls["read"]) == sum(calls["rewrite"]) == n_files


@pytest.mark.parametrize(
    ("counts", "line"),
    [
        (
            (1, 1, 4, 1, 1, 1),
            "site stage: 1 file, 1 block (4 characters) marked repeat in 1 of 1 document, "
            "1 duplicate, 0.5 s",
        ),
        (
            (7, 1_234, 1, 0, 26, 0),
            "site stage: 7 files, 1,234 blocks (1 character) marked repeat in 0 of 26 "
            "documents, 0 duplicates, 0.5 s",
        ),
        (
            (2, 40, 900, 12, 30, 1, 1_200),
            "site stage: 2 files, 40 blocks (900 characters) marked repeat in 12 of 30 "
            "documents (1,200 left with no text), 1 duplicate, 0.5 s",
        ),
    ],
)
def test_the_stage_s_line_counts_in_words(counts: tuple[int, ...], line: str) -> None:
    from pipeline.job.site_command import print_site_result
    from pipeline.job.site_stage import SiteResult

    files, blocks, chars, changed, docs, duplicates, *emptied = counts
    result = SiteResult(settings={}, files=files, seconds=0.5)
    result.report["totals"] = {
        "repeat_blocks": blocks,
        "repeat_chars": chars,
        "docs_changed": changed,
        "docs": docs,
        "duplicates": duplicates,
        **({"docs_emptied": emptied[0]} if emptied else {}),
    }
    printed: list[str] = []
    print_site_result(result, printed.append)
    assert printed == [line]


def test_the_stage_s_line_without_counts_says_zero() -> None:
    from pipeline.job.site_command import print_site_result
    from pipeline.job.site_stage import SiteResult

    printed: list[str] = []
    print_site_result(SiteResult(settings={}, files=0, seconds=0.0), printed.append)
    assert printed == [
        "site stage: 0 files, 0 blocks (0 characters) marked repeat in 0 of 0 documents, "
        "0 duplicates, 0.0 s"
    ]


def test_files_of_many_row_groups_give_the_dataset_of_one_group(tmp_path: Path, client) -> None:
    # A documents file holds a row group per flushed batch: the rows a stage counts, marks and
    # names copies by must run on across its row groups, gathered or shuffled.
    from pipeline.job import schedule
    from pipeline.jobconfig import JobConfig

    pages = site_pages()
    mirrored = [(url.replace("://", "://mirror."), html) for url, html in pages[:5]]
    inputs = write_warcs(tmp_path / "in", pages + mirrored, 2)
    for name, batch_rows in (("one", 500), ("many", 2)):
        config = JobConfig(output=str(tmp_path / name), cleaner="justext", batch_rows=batch_rows)
        assert not schedule.run_job(client, inputs, config).failed
    groups = [
        pq.ParquetFile(p).num_row_groups for p in (tmp_path / "many" / "docs").rglob("*.parquet")
    ]
    assert min(groups) >= 2
    for way, gather_bytes in (("gathered", GATHER_BYTES), ("shuffled", 0)):
        staged = {}
        for name in ("one", "many"):
            out = _copy(tmp_path / name, tmp_path / f"{name}-{way}")
            run_site_stage(client, str(out), K3, gather_bytes=gather_bytes)
            staged[name] = documents(out)
        assert staged["many"] == staged["one"], way
        ids = {url: row["record_id"] for url, row in staged["many"].items()}
        dups = {u: r["duplicate_of"] for u, r in staged["many"].items() if r["duplicate_of"]}
        # One WARC date for all: of each page and its mirror, the first URL is the original.
        pairs = [sorted((u, m)) for (u, _), (m, _) in zip(pages, mirrored, strict=False)]
        assert dups == {later: ids[first] for first, later in pairs}
        assert any(b["label"] == "repeat" for r in staged["many"].values() for b in r["blocks"])
