"""``warcclean show OUT --record-id ID``: a record read back from its WARC, as the run stored it."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import fsspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from selectolax.lexbor import LexborHTMLParser

from pipeline.cli import main as warcclean
from pipeline.config import Limits
from pipeline.jobconfig import JobConfig
from pipeline.report.fetch import RecordError, fetch_record, find_record
from pipeline.run import process_warc
from pipeline.types import RawPage, Rejected
from tests.test_run import ARTICLE_DE, ARTICLE_EN
from tests.warc_builders import build_warc, html_response, plain_record, request_record

MENU = "".join(f'<li><a href="/{i}">Menu entry {i}</a></li>' for i in range(6))
BOILERPLATE = f"<html><body><ul>{MENU}</ul></body></html>"
HUGE = "<html><body>" + "<i></i>" * (Limits().max_nodes + 1) + "<p>end</p></body></html>"


def records() -> list:
    return [
        plain_record("warcinfo", "", b"software: test"),
        request_record("https://a.example/en"),
        html_response("https://a.example/en", ARTICLE_EN, record_id="<urn:uuid:doc-en>"),
        html_response(
            "https://a.example/de",
            ARTICLE_DE,
            record_id="<urn:uuid:doc-de>",
            content_encoding="gzip",
            chunked=True,
        ),
        html_response("https://a.example/404", "<p>x</p>", status=404, record_id="<urn:uuid:404>"),
        html_response("https://a.example/menu", BOILERPLATE, record_id="<urn:uuid:menu>"),
        # Over the default element cap: rejected too_complex, and so by any re-cleaning.
        html_response("https://a.example/huge", HUGE, record_id="<urn:uuid:huge>"),
    ]


@pytest.fixture(scope="module", params=["gzip", "plain"])
def output(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(f"show-{request.param}")
    suffix = ".warc.gz" if request.param == "gzip" else ".warc"
    warc = root / f"crawl{suffix}"
    warc.write_bytes(build_warc(records(), gzip=request.param == "gzip"))
    out = root / "out"
    # justext so that the menu-only page is a no_good_blocks reject.
    process_warc(str(warc), JobConfig(output=str(out), cleaner="justext"))
    return out


def doc_row(out: Path, record_id: str) -> dict:
    table = ds.dataset(out / "docs", format="parquet", partitioning="hive").to_table(
        filter=pc.field("record_id") == record_id
    )
    (row,) = table.to_pylist()
    return row


def show(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(warcclean, ["show", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("record_id", ["<urn:uuid:doc-en>", "<urn:uuid:doc-de>"])
def test_viewer_kept_text_equals_the_rows_text(
    output: Path, tmp_path: Path, record_id: str
) -> None:
    target = tmp_path / "view.html"
    code, out = show(str(output), "--record-id", record_id, "-o", str(target))
    assert code == 0, out
    row = doc_row(output, record_id)
    tree = LexborHTMLParser(target.read_text())
    kept = [n.text() for n in tree.css(".blocks > .blk.kept > .txt")]
    assert kept and "\n\n".join(kept) == row["text"]
    heading = next(h.text() for h in tree.css("h2") if h.text().startswith("Blocks"))
    assert heading.endswith(
        f"{row['n_good']} of {row['n_blocks']} blocks kept, {row['n_chars']:,} characters"
    )
    labels = [n.attributes["data-label"] for n in tree.css(".blocks > .blk")]
    assert labels == [b["label"] for b in row["blocks"]]
    # The run's cleaner, the stored columns, and what only the fetched page tells (class).
    fields = dict(
        zip([n.text() for n in tree.css("dt")], [n.text() for n in tree.css("dd")], strict=True)
    )
    assert fields["cleaner"] == "justext" and fields["record_id"] == record_id
    assert fields["warc_offset"] == str(row["warc_offset"])
    assert tree.css_first(".warn") is None  # re-cleaning agreed with the stored row
    first = tree.css_first(".blk .feat").text()
    assert "jusText class" in first and "stopword density" in first
    # The row's Markdown, as the run stored it, in the pane beside the blocks.
    assert row["markdown"] and row["markdown"].startswith("# ")  # the article's <h1>
    assert tree.css_first(".with-md > .md-pane pre#markdown").text() == row["markdown"]
    assert fields["structure"] == ("–" if not row["structure"] else ", ".join(row["structure"]))


def test_compare_with_another_cleaner(output: Path, tmp_path: Path) -> None:
    target = tmp_path / "view.html"
    code, out = show(
        str(output), "--record-id", "<urn:uuid:doc-en>", "-o", str(target), "--compare", "bte"
    )
    assert code == 0, out
    tree = LexborHTMLParser(target.read_text())
    heads = [n.text() for n in tree.css(".colhead")]
    assert heads[0].startswith("justext:") and heads[1].startswith("bte:")
    row = doc_row(output, "<urn:uuid:doc-en>")
    left = tree.css(".blocks.two > .blk")[0::2]
    assert (
        "\n\n".join(n.css_first(".txt").text() for n in left if "kept" in n.attributes["class"])
        == row["text"]
    )


def test_a_rejected_page_is_cleaned_again_to_show_why(output: Path, tmp_path: Path) -> None:
    target = tmp_path / "view.html"
    code, out = show(str(output), "--record-id", "<urn:uuid:menu>", "-o", str(target))
    assert code == 0, out
    tree = LexborHTMLParser(target.read_text())
    notice = tree.css_first(".warn").text()
    assert "no_good_blocks" in notice and "justext" in notice and "documents record" in notice
    assert tree.css(".blk.removed") and not tree.css(".blk.kept")


def test_bad_input_is_a_clear_error(output: Path, tmp_path: Path) -> None:
    target = str(tmp_path / "view.html")
    code, out = show(str(output), "--record-id", "<urn:uuid:nosuch>", "-o", target)
    assert code == 1 and "no record '<urn:uuid:nosuch>'" in out and "Traceback" not in out
    code, out = show(str(tmp_path / "nothing"), "--record-id", "x", "-o", target)
    assert code == 1 and "is not a directory" in out
    code, out = show(str(output), "--record-id", "x", "--cleaner", "bte", "-o", target)
    assert code == 2 and "--compare" in out


def test_missing_warc_and_wrong_offset(output: Path, tmp_path: Path) -> None:
    copy = tmp_path / "out"
    shutil.copytree(output, copy)
    row = doc_row(copy, "<urn:uuid:doc-de>")
    warc = Path(row["warc_path"])
    target = str(tmp_path / "view.html")
    # An offset that points into the middle of a record: rewrite the row's file.
    for path in (copy / "docs").rglob("*.parquet"):
        table = pq.read_table(path)
        offsets = pc.if_else(
            pc.equal(table["record_id"], "<urn:uuid:doc-de>"),
            pc.add(table["warc_offset"], 7),
            table["warc_offset"],
        )
        i = table.schema.get_field_index("warc_offset")
        pq.write_table(table.set_column(i, "warc_offset", offsets.cast(pa.int64())), path)
    code, out = show(str(copy), "--record-id", "<urn:uuid:doc-de>", "-o", target)
    assert code == 1 and "Traceback" not in out, out
    assert f"offset {row['warc_offset'] + 7}" in out
    moved = tmp_path / "moved.warc"
    warc.rename(moved)
    try:
        code, out = show(str(output), "--record-id", "<urn:uuid:doc-de>", "-o", target)
        assert code == 1 and "does not exist" in out and str(warc) in out
    finally:
        moved.rename(warc)


def test_fetch_record_reads_one_record_at_its_offset(output: Path) -> None:
    row = doc_row(output, "<urn:uuid:doc-de>")
    page = fetch_record(
        row["warc_path"], row["warc_offset"], row["warc_length"], record_id=row["record_id"]
    )
    assert isinstance(page, RawPage) and page.url == "https://a.example/de"
    # gzip content coding and chunking undone, as the job's reader did
    assert page.warc_offset == row["warc_offset"] and "Steinbrücke".encode() in page.body
    found = find_record(str(output), "<urn:uuid:404>")
    assert found.table == "rejects" and found.row["reason"] == "http_status"
    reject = fetch_record(
        found.row["warc_path"], found.row["warc_offset"], found.row["warc_length"]
    )
    assert isinstance(reject, Rejected) and reject.reason == "http_status"
    with pytest.raises(RecordError, match="is <urn:uuid:doc-de>, not <urn:uuid:other>"):
        fetch_record(
            row["warc_path"], row["warc_offset"], row["warc_length"], record_id="<urn:uuid:other>"
        )
    with pytest.raises(RecordError, match="ends before"):
        fetch_record(row["warc_path"], row["warc_offset"], 10**9)


def test_fsspec_output_and_warc(tmp_path: Path) -> None:
    """A run on an fsspec store: the record comes back with a range read of the remote WARC."""
    fs = fsspec.filesystem("memory")
    fs.pipe_file("/show-test/in/crawl.warc.gz", build_warc(records()))
    try:
        process_warc(
            "memory://show-test/in/crawl.warc.gz",
            JobConfig(output="memory://show-test/out", cleaner="justext"),
        )
        target = tmp_path / "view.html"
        code, out = show(
            "memory://show-test/out", "--record-id", "<urn:uuid:doc-en>", "-o", str(target)
        )
        assert code == 0, out
        kept = [n.text() for n in LexborHTMLParser(target.read_text()).css(".blk.kept .txt")]
        assert "river" in "\n\n".join(kept)
    finally:
        fs.rm("/show-test", recursive=True)


def test_a_file_gzipped_whole_is_read_through_a_gunzipper(tmp_path: Path) -> None:
    warc = tmp_path / "whole.warc.gz"
    warc.write_bytes(gzip.compress(build_warc(records(), gzip=False)))
    out = tmp_path / "out"
    process_warc(str(warc), JobConfig(output=str(out), cleaner="justext"))
    row = doc_row(out, "<urn:uuid:doc-en>")
    assert any(n.startswith("offset_space:gunzip@") for n in row["notes"])
    target = tmp_path / "view.html"
    code, out_text = show(str(out), "--record-id", "<urn:uuid:doc-en>", "-o", str(target))
    assert code == 0, out_text
    kept = [n.text() for n in LexborHTMLParser(target.read_text()).css(".blk.kept .txt")]
    assert "\n\n".join(kept) == row["text"]


def _notice_and_fields(page: str) -> tuple[str, dict[str, str]]:
    tree = LexborHTMLParser(page)
    names, values = [n.text() for n in tree.css("dt")], [n.text() for n in tree.css("dd")]
    return tree.css_first(".warn").text(), dict(zip(names, values, strict=True))


@pytest.mark.parametrize(
    ("record_id", "reason", "why"),
    [
        ("<urn:uuid:huge>", "too_complex", "cannot clean this page"),
        ("<urn:uuid:404>", "http_status", "holds no HTML page"),
    ],
)
def test_a_rejected_record_that_cannot_be_cleaned_is_shown_with_its_reason(
    output: Path, tmp_path: Path, record_id: str, reason: str, why: str
) -> None:
    target = tmp_path / "view.html"
    code, out = show(str(output), "--record-id", record_id, "-o", str(target))
    assert code == 0, out
    page = target.read_text()
    notice, fields = _notice_and_fields(page)
    assert notice.startswith(f"The run rejected this record: {reason} (")
    assert why in notice
    assert fields["reason"] == reason and fields["record_id"] == record_id
    assert "No blocks to show" in page and not LexborHTMLParser(page).css(".blk")


def test_a_rejected_record_whose_warc_moved_is_shown_with_its_row(
    output: Path, tmp_path: Path
) -> None:
    found = find_record(str(output), "<urn:uuid:menu>")
    warc = Path(found.row["warc_path"])
    moved = tmp_path / "moved.warc"
    target = tmp_path / "view.html"
    warc.rename(moved)
    try:
        code, out = show(str(output), "--record-id", "<urn:uuid:menu>", "-o", str(target))
    finally:
        moved.rename(warc)
    assert code == 0, out
    notice, fields = _notice_and_fields(target.read_text())
    assert "no_good_blocks" in notice and "cannot be read back" in notice and str(warc) in notice
    assert fields["url"] == "https://a.example/menu"
