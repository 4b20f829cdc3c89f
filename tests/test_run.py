"""`process_warc`: one WARC in, its files and marker out, every record accounted for."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import pipeline.run as run
from pipeline.cleaners.registry import DEFAULT_CLEANER
from pipeline.config import Limits
from pipeline.jobconfig import JobConfig
from pipeline.run import WarcTaskError, process_warc
from pipeline.warc.inputs import input_stem
from tests.warc_builders import (
    build_arc,
    build_warc,
    html_response,
    plain_record,
    request_record,
    resource_record,
    warcio_index,
)

ARTICLE_EN = (
    "<html><body><nav><a href='/'>Home</a> | <a href='/news'>News</a></nav>"
    "<h1>The bridge over the river</h1>"
    "<p>The old stone bridge in the middle of the town was closed for repairs last spring, and "
    "since then the people who live on the northern bank have had to walk a long way round to "
    "reach the market, the school and the station on the other side of the water.</p>"
    "<p>The engineers say that the work is going well and that the bridge should open again "
    "before the end of the summer, when the river is low and the last of the new stones can be "
    "set into the arches without any risk to the workers or to the boats.</p>"
    "<footer>Copyright 2024 | Privacy | Terms</footer></body></html>"
)
ARTICLE_DE = (
    "<html><body><nav><a href='/'>Start</a></nav><h1>Die Brücke über den Fluss</h1>"
    "<p>Die alte Steinbrücke in der Mitte der Stadt wurde im letzten Frühjahr für Reparaturen "
    "gesperrt, und seitdem müssen die Menschen, die auf dem nördlichen Ufer wohnen, einen langen "
    "Umweg machen, um den Markt, die Schule und den Bahnhof zu erreichen.</p>"
    "<p>Die Ingenieure sagen, dass die Arbeiten gut vorankommen und dass die Brücke noch vor dem "
    "Ende des Sommers wieder geöffnet werden soll, wenn der Fluss wenig Wasser führt.</p>"
    "</body></html>"
)

# An article with a heading, a code block (with the indentation Markdown must keep) and a table.
CODE = "def flood_level(gauge):\n    return gauge.read() * 1.5"
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
SEEN = (
    "the water was calm and clear after a dry week",
    "the rain began in the night and the level rose",
    "the river reached the lower steps of the quay",
    "the council closed the footpath along the bank",
    "the water fell back slowly as the rain stopped",
)
STRUCTURED = (
    "<html><body><nav><a href='/'>Home</a> | <a href='/docs'>Docs</a></nav>"
    "<article><h1>Reading the river gauge</h1>"
    "<p>The town reads the river gauge every morning, and the engineers turn the reading into a "
    "flood level with a short function that every volunteer at the station can run by hand.</p>"
    f"<pre><code class='language-python'>{CODE}</code></pre>"
    "<p>The readings of the last week were written down in the table below, one line for each "
    "day, so that the council can see how quickly the water rose after the heavy rain.</p>"
    "<table><thead><tr><th>Day</th><th>Level</th><th>What the volunteers saw</th></tr></thead>"
    "<tbody>"
    + "".join(
        f"<tr><td>{day}</td><td>{1.2 + i:.1f}</td><td>On {day} {seen}.</td></tr>"
        for i, (day, seen) in enumerate(zip(DAYS, SEEN, strict=True))
    )
    + "</tbody></table>"
    "<p>The engineers will read the gauge again next week and publish the new levels here, with "
    "a note on anything the volunteers saw along the river.</p>"
    "</article><footer>Copyright 2024 | Privacy</footer></body></html>"
)
# The code block fenced in Markdown, with the indentation the page gives it (any info string).
CODE_FENCE = re.compile(r"^```[\w+-]*\n" + re.escape(CODE) + r"\n```$", re.M)


def structured_warc(tmp_path: Path) -> Path:
    """The structured article and a plain one."""
    path = tmp_path / "structured.warc.gz"
    path.write_bytes(
        build_warc(
            [
                html_response("https://s.example/gauge", STRUCTURED),
                html_response("https://s.example/bridge", ARTICLE_EN),
            ]
        )
    )
    return path


def sample_warc(tmp_path: Path, name: str = "crawl-1.warc.gz") -> Path:
    """A small crawl: 2 articles, a 404, an image, metadata and requests, an empty page."""
    records = [
        plain_record("warcinfo", "", b"software: test", content_type="application/warc-fields"),
        request_record("https://a.example/1"),
        html_response("https://a.example/1", ARTICLE_EN),
        plain_record("metadata", "https://a.example/1", b"fetchTimeMs: 12"),
        request_record("https://b.example/2"),
        html_response("https://b.example/2", ARTICLE_DE, content_encoding="gzip"),
        html_response("https://a.example/missing", "<p>gone</p>", status=404),
        resource_record("https://a.example/logo.png", b"\x89PNG\r\n\x1a\n", "image/png"),
        html_response("https://a.example/empty", "<html><body></body></html>"),
    ]
    path = tmp_path / name
    path.write_bytes(build_warc(records))
    return path


def docs_table(out: Path):
    return ds.dataset(out / "docs", format="parquet", partitioning="hive").to_table()


def test_every_record_accounted_for(tmp_path: Path) -> None:
    warc = sample_warc(tmp_path)
    out = tmp_path / "out"
    report = process_warc(str(warc), JobConfig(output=str(out)))
    stats = report.stats
    assert stats.records == len(warcio_index(warc.read_bytes())) == 9
    assert stats.balanced
    assert stats.docs == 2
    assert stats.skipped == {"warcinfo": 1, "request": 2, "metadata": 1}
    assert stats.rejects["http_status"] == 1
    assert stats.rejects["not_html"] == 1
    assert stats.rejects["no_text"] + stats.rejects["no_good_blocks"] == 1
    assert sum(stats.languages.values()) == 2
    rejects = pq.read_table(out / "rejects" / f"{report.stem}.parquet")
    assert rejects.num_rows == stats.n_rejects


def test_rows_point_back_at_their_records(tmp_path: Path) -> None:
    warc = sample_warc(tmp_path)
    out = tmp_path / "out"
    process_warc(str(warc), JobConfig(output=str(out)))
    index = {rid: (off, length) for rid, _, off, length in warcio_index(warc.read_bytes())}
    rows = docs_table(out).to_pylist()
    assert {r["url"] for r in rows} == {"https://a.example/1", "https://b.example/2"}
    for row in rows:
        assert (row["warc_offset"], row["warc_length"]) == index[row["record_id"]]
        assert row["warc_path"] == str(warc)
        assert row["language"] in {"en", "de"}
        assert row["n_good"] >= 1 and row["text"]
        assert row["cleaner"] == DEFAULT_CLEANER
        assert json.loads(row["cleaner_params"]) == {}
        good = [b["text"] for b in row["blocks"] if b["label"] == "good"]
        assert row["text"] == "\n\n".join(good)
    by_lang = {r["language"]: r for r in rows}
    assert "bridge" in by_lang["en"]["text"] and "Brücke" in by_lang["de"]["text"]


def test_marker_is_written_and_lists_the_files(tmp_path: Path) -> None:
    warc = sample_warc(tmp_path)
    out = tmp_path / "out"
    report = process_warc(str(warc), JobConfig(output=str(out)))
    marker = json.loads((out / "_done" / f"{report.stem}.json").read_text())
    assert marker["records"] == 9 and marker["docs"] == 2
    assert marker["rejects"] == dict(report.stats.rejects)
    on_disk = sorted(str(p) for p in out.rglob("*.parquet"))
    assert sorted(marker["files"]) == on_disk


def test_rerun_gives_the_same_rows_once(tmp_path: Path) -> None:
    warc = sample_warc(tmp_path)
    out = tmp_path / "out"
    cfg = JobConfig(output=str(out))
    process_warc(str(warc), cfg)
    first = sorted(docs_table(out).to_pylist(), key=lambda r: r["record_id"])
    process_warc(str(warc), cfg)
    second = sorted(docs_table(out).to_pylist(), key=lambda r: r["record_id"])
    assert first == second and len(second) == 2


def test_a_page_that_breaks_the_cleaner_is_rejected_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = run.clean_html

    def flaky(body: bytes, **kw):
        if kw.get("url") == "https://b.example/2":
            raise KeyError("boom")
        return real(body, **kw)

    monkeypatch.setattr(run, "clean_html", flaky)
    report = process_warc(str(sample_warc(tmp_path)), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.rejects["error:KeyError"] == 1
    assert report.stats.docs == 1 and report.stats.balanced
    rejects = pq.read_table(tmp_path / "out" / "rejects" / f"{report.stem}.parquet").to_pylist()
    (err,) = [r for r in rejects if r["reason"] == "error:KeyError"]
    assert err["url"] == "https://b.example/2" and "boom" in err["detail"]
    assert err["warc_offset"] is not None and err["warc_length"] > 0


def test_too_complex_pages_are_rejected_with_their_reason(tmp_path: Path) -> None:
    cfg = JobConfig(output=str(tmp_path / "out"), limits=Limits(max_nodes=5))
    report = process_warc(str(sample_warc(tmp_path)), cfg)
    assert report.stats.rejects["too_complex"] == 2
    assert report.stats.docs == 0 and report.stats.balanced


def test_truncated_bodies_are_flagged(tmp_path: Path) -> None:
    cfg = JobConfig(output=str(tmp_path / "out"), limits=Limits(max_body_bytes=300))
    process_warc(str(sample_warc(tmp_path)), cfg)
    rows = docs_table(tmp_path / "out").to_pylist()
    assert rows and all(r["truncated"] for r in rows)


def test_output_io_error_fails_the_input_loudly(tmp_path: Path) -> None:
    warc = sample_warc(tmp_path)
    out = tmp_path / "out"
    # renaming the rejects file onto a directory fails
    (out / "rejects" / f"{input_stem(str(warc))}.parquet").mkdir(parents=True)
    with pytest.raises(WarcTaskError, match=r"crawl-1\.warc\.gz.*failed"):
        process_warc(str(warc), JobConfig(output=str(out)))
    assert not (out / "_done").exists() or not any((out / "_done").iterdir())
    assert not list(out.rglob(".*.tmp"))


def test_missing_input_fails_with_its_name(tmp_path: Path) -> None:
    with pytest.raises(WarcTaskError, match=r"nope\.warc\.gz"):
        process_warc(str(tmp_path / "nope.warc.gz"), JobConfig(output=str(tmp_path / "out")))


def test_unknown_cleaner_fails_before_reading(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown cleaner"):
        process_warc(str(sample_warc(tmp_path)), JobConfig(output=str(tmp_path), cleaner="nope"))


def test_small_batches_bound_the_buffers(tmp_path: Path) -> None:
    warc = tmp_path / "many.warc.gz"
    records = [html_response(f"https://a.example/{i}", ARTICLE_EN) for i in range(7)]
    warc.write_bytes(build_warc(records))
    process_warc(str(warc), JobConfig(output=str(tmp_path / "out"), batch_rows=3))
    (path,) = (tmp_path / "out" / "docs").rglob("*.parquet")
    assert pq.ParquetFile(path).num_row_groups == 3  # 3 + 3 + 1 rows


def test_uncompressed_warc(tmp_path: Path) -> None:
    warc = tmp_path / "plain.warc"
    warc.write_bytes(build_warc([html_response("https://a.example/1", ARTICLE_EN)], gzip=False))
    report = process_warc(str(warc), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.docs == 1


def test_sample_warc_in_the_repo(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[1] / "samples" / "sample.warc.gz"
    report = process_warc(str(sample), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.records == len(warcio_index(sample.read_bytes()))
    assert report.stats.balanced and report.stats.docs >= 5
    assert {"en", "de"} <= set(report.stats.languages)


def test_reader_issues_are_counted_and_logged_in_the_marker(tmp_path: Path) -> None:
    data = sample_warc(tmp_path).read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: len(data) * 2 // 3] + b"\x00garbage")
    report = process_warc(str(cut), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.issues and report.stats.balanced
    marker = json.loads((tmp_path / "out" / "_done" / f"{report.stem}.json").read_text())
    assert marker["issues"] == dict(report.stats.issues)
    assert {i["kind"] for i in marker["issue_log"]} == set(report.stats.issues)
    assert all(isinstance(i["offset"], int) for i in marker["issue_log"])


def _one_page_warc(tmp_path: Path, body: str) -> Path:
    warc = tmp_path / "one.warc.gz"
    warc.write_bytes(build_warc([html_response("https://a.example/page", body)]))
    return warc


def test_a_one_letter_bomb_is_rejected_as_degenerate_not_given_a_language(
    tmp_path: Path,
) -> None:
    warc = _one_page_warc(tmp_path, "<html><body><p>" + "a" * 1_000_000 + "</p></body></html>")
    report = process_warc(str(warc), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.docs == 0 and not report.stats.languages
    assert report.stats.rejects == {"degenerate_text": 1}
    (row,) = pq.read_table(tmp_path / "out" / "rejects" / f"{report.stem}.parquet").to_pylist()
    assert row["reason"] == "degenerate_text"
    assert "bits per character" in row["detail"] and "'a'" in row["detail"]


def test_a_normal_short_page_is_not_degenerate(tmp_path: Path) -> None:
    body = (
        "<html><body><h1>Opening hours</h1><p>The library is open from nine to five on "
        "weekdays, and closed on Sundays.</p></body></html>"
    )
    report = process_warc(str(_one_page_warc(tmp_path, body)), JobConfig(output=str(tmp_path)))
    assert report.stats.docs == 1 and report.stats.languages == {"en": 1}


def _assert_failed_without_files(warc: Path, out: Path, match: str) -> None:
    with pytest.raises(WarcTaskError, match=match):
        process_warc(str(warc), JobConfig(output=str(out)))
    stem = input_stem(str(warc))
    assert not (out / "_done" / f"{stem}.json").exists()
    assert not [p for p in out.rglob("*") if p.is_file()]  # the sink dropped its files


def test_an_empty_input_fails_and_gets_no_marker(tmp_path: Path) -> None:
    empty = tmp_path / "empty.warc.gz"
    empty.write_bytes(b"")
    _assert_failed_without_files(empty, tmp_path / "out", r"empty\.warc\.gz.*input is empty")
    gzipped_nothing = tmp_path / "nothing.warc.gz"
    gzipped_nothing.write_bytes(gzip.compress(b""))
    _assert_failed_without_files(gzipped_nothing, tmp_path / "out", "input is empty")


@pytest.mark.parametrize(
    ("name", "data", "start"),
    [
        ("page.warc.gz", gzip.compress(b"<!DOCTYPE html>\n" + ARTICLE_EN.encode()), "<!DOCTYPE"),
        ("paper.warc", b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n", "%PDF-1.4"),
        # issue 50: warcio read these as ARC records ("not", a `not_html` reject and a marker)
        ("bogus.warc.gz", b"not a warc at all\n", "not a warc at all"),
        ("page.warc", ARTICLE_EN.encode(), "<html>"),
        ("text.arc", b"http://e.com/ 1.2.3.4 no-date text/html 5\nhello\n", "http://e.com/"),
    ],
)
def test_an_input_that_is_no_warc_fails_with_the_reason(
    tmp_path: Path, name: str, data: bytes, start: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    _assert_failed_without_files(
        path,
        tmp_path / "out",
        rf"{re.escape(name)}.*UnreadableInput: not a WARC or ARC file: it starts with "
        rf"['\"]{re.escape(start)}",
    )


def test_a_damaged_first_length_is_still_an_archive(tmp_path: Path) -> None:
    # The start is checked field by field, but not the length's value: an ARC file whose first
    # header has a length that is no byte count is read on, as a WARC file would be.
    page = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n" + ARTICLE_EN.encode()
    arc = build_arc([("http://e.com/a", "text/html", page)], gzip=False)
    damaged = arc.replace(b"text/plain 75\n", b"text/plain abc\n", 1)
    assert damaged != arc
    path = tmp_path / "damaged.arc"
    path.write_bytes(damaged)
    report = process_warc(str(path), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.records == 2 and report.stats.docs == 1


def test_a_warc_of_one_warcinfo_record_is_done(tmp_path: Path) -> None:
    warc = tmp_path / "info.warc.gz"
    warc.write_bytes(build_warc([plain_record("warcinfo", "", b"software: test")]))
    report = process_warc(str(warc), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.records == 1 and report.stats.skipped == {"warcinfo": 1}
    assert (tmp_path / "out" / "_done" / f"{report.stem}.json").exists()


def _by_url(out: Path) -> dict[str, dict]:
    return {r["url"]: r for r in docs_table(out).to_pylist()}


def test_markdown_and_structure_are_written_beside_the_text(tmp_path: Path) -> None:
    warc = structured_warc(tmp_path)
    report = process_warc(str(warc), JobConfig(output=str(tmp_path / "out")))
    rows = _by_url(tmp_path / "out")
    gauge, bridge = rows["https://s.example/gauge"], rows["https://s.example/bridge"]
    assert gauge["structure"] == ["code", "table"] and bridge["structure"] == []
    md = gauge["markdown"]
    assert md.startswith("# Reading the river gauge")
    assert CODE_FENCE.search(md)  # fenced, with its indentation as the page has it
    # A GFM table: a header row, the delimiter row, one row per <tr> of the body.
    table = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in md.splitlines()
        if line.startswith("|")
    ]
    assert table[0] == ["Day", "Level", "What the volunteers saw"]
    assert set("".join(table[1])) <= {"-", ":"} and len(table[1]) == 3
    assert table[2:] == [
        [day, f"{1.2 + i:.1f}", f"On {day} {seen}."]
        for i, (day, seen) in enumerate(zip(DAYS, SEEN, strict=True))
    ]
    assert "Copyright" not in md and "Home" not in md  # only the kept blocks
    assert "flood level" in gauge["text"] and "```" not in gauge["text"]
    assert report.stats.structure == {"code": 1, "table": 1}


@pytest.mark.parametrize("formats", ["text", "markdown"])
def test_formats_choose_what_each_document_holds(tmp_path: Path, formats: str) -> None:
    warc = structured_warc(tmp_path)
    process_warc(str(warc), JobConfig(output=str(tmp_path / "both")))
    report = process_warc(str(warc), JobConfig(output=str(tmp_path / formats), formats=formats))
    both, one = _by_url(tmp_path / "both"), _by_url(tmp_path / formats)
    assert one.keys() == both.keys()
    for url, row in one.items():
        if formats == "text":
            assert row["markdown"] is None and row["text"] == both[url]["text"]
        else:
            assert row["text"] == "" and row["markdown"] == both[url]["markdown"]
        # The same document whatever is written: its length, its blocks, its structure.
        for column in ("n_chars", "n_good", "blocks", "language", "structure"):
            assert row[column] == both[url][column]
    assert report.stats.docs == 2 and report.stats.text_chars > 0


def test_formats_must_be_one_the_job_knows() -> None:
    with pytest.raises(ValueError, match="formats must be one of text, markdown, both"):
        JobConfig(output="out", formats="html")
    assert (
        JobConfig("o", formats="text").writes_text,
        JobConfig("o", formats="text").writes_markdown,
    ) == (True, False)
    assert (JobConfig("o", formats="markdown").writes_text, JobConfig("o").writes_markdown) == (
        False,
        True,
    )


def test_a_bad_length_in_a_warc_gzipped_whole_costs_one_record(tmp_path: Path) -> None:
    # Issue 48: a good record, a Content-Length of -5, then 101 good records, gzipped as one
    # stream: 102 of 102 good records are written (1 was), all counted.
    records = [html_response(f"https://e.example/{i}", ARTICLE_EN) for i in range(103)]
    plain = [build_warc([r], gzip=False) for r in records]
    plain[1] = re.sub(rb"Content-Length: \d+\r\n", b"Content-Length: -5\r\n", plain[1], count=1)
    warc = tmp_path / "whole.warc.gz"
    warc.write_bytes(gzip.compress(b"".join(plain), mtime=0))
    report = process_warc(str(warc), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.records == 103 and report.stats.docs == 102
    assert report.stats.rejects == {"invalid_length": 1}
    urls = {r["url"] for r in docs_table(tmp_path / "out").to_pylist()}
    assert urls == {f"https://e.example/{i}" for i in range(103) if i != 1}
    assert "truncated_file" not in report.stats.issues


def test_a_record_cut_by_the_end_of_the_file_says_so_in_its_row(tmp_path: Path) -> None:
    # Issue 48: a gzip record cut just after its HTTP headers had an empty body, became
    # `no_text`, and nothing in its row told of the cut.
    first = build_warc([html_response("https://e.example/a", ARTICLE_EN)])
    second = build_warc([html_response("https://e.example/b", ARTICLE_EN)], gzip=False)
    cut = second[: second.index(b"\r\n\r\n<html>") + 4]  # after the HTTP headers
    warc = tmp_path / "cut.warc.gz"
    warc.write_bytes(first + gzip.compress(cut, mtime=0)[:-8])  # no gzip trailer either
    report = process_warc(str(warc), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.records == 2 and report.stats.docs == 1
    (row,) = pq.read_table(tmp_path / "out" / "rejects" / f"{report.stem}.parquet").to_pylist()
    assert row["url"] == "https://e.example/b"
    assert "cut short by the end of the file" in row["detail"], row


def test_a_page_of_a_few_fragments_is_rejected_saying_why(tmp_path: Path) -> None:
    # A page drawn by script: its HTML shows a frame only. The default cleaner drops the
    # fragments it kept, and the rejection's detail names the rule that did.
    shell = (
        "<html><head><title>Shop</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/help'>Help</a></nav>"
        "<div class='drawer'><h2>Cart (0)</h2><p>Loading...</p><p>Subtotal</p></div>"
        "<div id='root'></div></body></html>"
    )
    warc = tmp_path / "shell.warc.gz"
    warc.write_bytes(
        build_warc(
            [
                html_response("https://shop.example/p/1", shell),
                html_response("https://a.example/1", ARTICLE_EN),
            ]
        )
    )
    out = tmp_path / "out"
    report = process_warc(str(warc), JobConfig(output=str(out)))
    assert report.stats.docs == 1 and report.stats.rejects == {"no_good_blocks": 1}
    (row,) = pq.read_table(out / "rejects" / f"{report.stem}.parquet").to_pylist()
    assert row["url"] == "https://shop.example/p/1"
    assert re.fullmatch(
        r"all \d+ blocks are boilerplate \(cleaner notes: .*fragments_dropped.*\)", row["detail"]
    )
