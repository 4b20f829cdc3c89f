"""The run report's words and lists: counts that agree with their nouns, the rejected records by
reason with the viewer's command for each, and inputs a trial run (``--limit``) cut short."""

from __future__ import annotations

import shlex
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from click.testing import CliRunner
from selectolax.lexbor import LexborHTMLParser

from pipeline.cli import main as warcclean
from pipeline.jobconfig import JobConfig
from pipeline.report.collect import MAX_REJECT_EXAMPLES, collect
from pipeline.report.plural import agree, count
from pipeline.report.run_report import build_report
from pipeline.run import process_warc
from tests.test_run import ARTICLE_EN
from tests.warc_builders import build_warc, html_response

MENU = "<html><body><ul>" + "".join(f"<li><a href='/{i}'>M{i}</a></li>" for i in range(6))


def test_counts_agree_with_their_nouns() -> None:
    assert count(1, "document") == "1 document"
    assert count(0, "document") == "0 documents"
    assert count(2_500, "record") == "2,500 records"
    assert count(1.2, "task second") == "1 task second"
    assert count(1.2, "task second", digits=1) == "1.2 task seconds"
    assert count(3, "entry") == "3 entries"
    assert agree(1, "was", "were") == "was" and agree(7, "was", "were") == "were"


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One document, 12 pages answering 404 (more than the list shows), one page of links only
    (a rare reason), in one WARC; the cleaner is jusText, which rejects the links page."""
    root = tmp_path_factory.mktemp("lists")
    records = [html_response("https://a.example/article", ARTICLE_EN)]
    records += [
        html_response(f"https://a.example/gone/{i}", "<p>x</p>", status=404, record_id=f"<g{i}>")
        for i in range(12)
    ]
    records.append(html_response("https://a.example/menu", MENU, record_id="<urn:uuid:menu>"))
    warc = root / "crawl.warc.gz"
    warc.write_bytes(build_warc(records))
    out = root / "out"
    process_warc(str(warc), JobConfig(output=str(out), cleaner="justext"))
    return out


def test_one_document_reads_as_one(output: Path) -> None:
    page = build_report(str(output))
    tree = LexborHTMLParser(page)
    cards = {c.css_first("span").text(): c.css_first("b").text() for c in tree.css(".card")}
    assert cards["document"] == "1" and cards["input done"] == "1"
    # A small output's characters are counted exactly, not as "0.0 M".
    (chars,) = ds.dataset(output / "docs", partitioning="hive").to_table(["n_chars"])["n_chars"]
    assert cards["characters of text"] == f"{chars.as_py():,}"
    assert " M" not in "".join(cards)
    text = tree.body.text()
    assert "1 documents" not in text and "1 inputs" not in text
    assert "1 document, " in text and "1 input took " in text


def test_rejected_records_are_listed_by_reason_with_the_viewers_command(
    output: Path, tmp_path: Path
) -> None:
    summary = collect(str(output))
    gone = summary.reject_examples["http_status"]
    # The first ones in file order, capped.
    assert [e.record_id for e in gone] == [f"<g{i}>" for i in range(MAX_REJECT_EXAMPLES)]
    assert gone[0].url == "https://a.example/gone/0" and "404" in gone[0].detail
    (menu,) = summary.reject_examples["no_good_blocks"]
    assert menu.url == "https://a.example/menu"
    tree = LexborHTMLParser(build_report(str(output)))
    sections = {d.attributes["data-reason"]: d for d in tree.css("#rejected-records details")}
    assert set(sections) == {"http_status", "no_good_blocks"}
    # Every record of a rare reason is listed, and shown open; a frequent one is folded.
    assert "open" in sections["no_good_blocks"].attributes
    assert "open" not in sections["http_status"].attributes
    head = sections["http_status"].css_first("summary").text()
    assert head == f"http_status: 12 records, the first {MAX_REJECT_EXAMPLES} listed"
    assert len(sections["http_status"].css("tbody tr")) == MAX_REJECT_EXAMPLES
    # The command beside each record is one the viewer runs as it is written.
    command = sections["no_good_blocks"].css("tbody td code")[-1].text()
    argv = shlex.split(command)
    assert argv[:2] == ["warcclean", "show"] and argv[2] == str(output)
    target = tmp_path / "page.html"
    argv[argv.index("-o") + 1] = str(target)
    result = CliRunner().invoke(warcclean, argv[1:])
    assert result.exit_code == 0, result.output
    assert "no_good_blocks" in LexborHTMLParser(target.read_text()).css_first(".warn").text()
    # Nothing that leaves the file: the URLs are text, not links.
    assert not tree.css("a[href]")


def test_inputs_cut_by_a_trial_run_are_noted(tmp_path: Path) -> None:
    warc = tmp_path / "crawl.warc.gz"
    warc.write_bytes(
        build_warc([html_response(f"https://a.example/{i}", ARTICLE_EN) for i in range(5)])
    )
    out = tmp_path / "out"
    report = process_warc(str(warc), JobConfig(output=str(out), record_limit=2))
    assert report.limit == 2 and report.stats.records == 2
    tree = LexborHTMLParser(build_report(str(out)))
    note = tree.css_first("#limited").text()
    assert note.startswith("1 input was read only up to --limit 2")
    assert "_done/<stem>.limited.json" in note
