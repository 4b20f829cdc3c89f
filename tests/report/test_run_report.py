"""The HTML run report: written by the job, rebuilt by ``warcclean report``, numbers = Parquet."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from click.testing import CliRunner
from selectolax.lexbor import LexborHTMLParser

from pipeline.cli import main as warcclean
from pipeline.html.page_type import PAGE_TYPES
from pipeline.job import command
from pipeline.jobconfig import JobConfig
from pipeline.report import charts
from pipeline.report.collect import LENGTH_EDGES, Histogram, ReportError, collect
from pipeline.report.run_report import (
    _count_table,
    _hist_table,
    _top,
    build_report,
    render_report,
)
from pipeline.run import process_warc
from pipeline.warc.inputs import input_stem
from tests.jobhelpers import make_inputs
from tests.warc_builders import build_warc, html_response, request_record

HOSTILE_URL = 'https://evil.example/"><script>document.title="pwned"</script>'


def _table(page: str, table_id: str) -> dict[str, int]:
    """First cell -> second cell (a count) of every body row of the table ``table_id``."""
    tree = LexborHTMLParser(page)
    table = tree.css_first(f"table#{table_id}")
    assert table is not None, f"no table #{table_id}"
    out = {}
    for tr in table.css("tbody tr"):
        cells = [td.text() for td in tr.css("td")]
        out[cells[0]] = int(cells[1].replace(",", ""))
    return out


def _external_references(page: str) -> list[str]:
    """Anything a browser would fetch: src/href to another document, CSS url() or @import."""
    tree = LexborHTMLParser(page)
    refs = []
    for node in tree.css("[src], [href], link, script, iframe, object, embed"):
        for name in ("src", "href"):
            value = node.attributes.get(name)
            if value is not None and not value.startswith(("#", "data:")):
                refs.append(f"{node.tag} {name}={value}")
        if node.tag in ("script", "iframe", "object", "embed", "link"):
            refs.append(node.tag)
    refs += re.findall(r"url\((?!#)[^)]*\)|@import", page)
    return refs


def _failed(output: Path) -> str:
    return str(output.parent / "in" / "crawl-02.warc.gz")


def _odd_input(directory: Path) -> str:
    """A WARC with a hostile URL, a page of boilerplate only and a non-HTML record."""
    path = directory / "odd.warc.gz"
    menu = "".join(f'<li><a href="/{i}">Menu {i}</a></li>' for i in range(8))
    path.write_bytes(
        build_warc(
            [
                request_record(HOSTILE_URL),
                html_response(
                    HOSTILE_URL,
                    "<html><body><p>The &lt;script&gt;alert(1)&lt;/script&gt; river flows by "
                    "the old mill, where the town keeps its records of every flood since the "
                    "year the bridge was built and the market moved to the square.</p>"
                    "<p>Another paragraph of plain prose about the river and the mill, long "
                    "enough for any cleaner to keep it as the page's text.</p></body></html>",
                ),
                html_response("https://odd.example/menu", f"<ul>{menu}</ul>"),
                html_response(
                    "https://odd.example/x.png", b"\x89PNG\r\n", content_type="image/png"
                ),
            ]
        )
    )
    return str(path)


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An output written by two runs of the job (the second resumes), with a failed input."""
    root = tmp_path_factory.mktemp("report")
    inputs = [*make_inputs(root / "in", n=3), _odd_input(root / "in")]
    out = root / "out"
    runner = CliRunner()
    common = ["--output", str(out), "--scheduler", "inproc", "--no-progress", "--retries", "0"]
    first = runner.invoke(command.main, [*inputs[:2], *common])
    assert first.exit_code == 0, first.output
    # The second run resumes (two inputs are done) and one input fails: its rejects file
    # cannot replace a directory; the directory is gone afterwards, as a user would fix it.
    blocker = out / "rejects" / f"{input_stem(inputs[2])}.parquet"
    blocker.mkdir(parents=True)
    second = runner.invoke(command.main, [*inputs, *common])
    assert second.exit_code == 1, second.output
    blocker.rmdir()
    return out


def test_job_writes_the_html_report_beside_the_json(output: Path) -> None:
    reports = sorted((output / "_runs").glob("*.json"))
    assert len(reports) in (1, 2)  # two runs in the same second share a name
    for json_path in reports:
        page = json_path.with_suffix(".html").read_text()
        assert page.startswith("<!DOCTYPE html>")
        assert "<script" not in page.lower()
        assert _external_references(page) == []


def test_report_numbers_equal_the_parquet_files(output: Path) -> None:
    page = build_report(str(output))
    docs = ds.dataset(output / "docs", format="parquet", partitioning="hive").to_table(
        columns=[
            "language",
            "n_chars",
            "n_blocks",
            "n_good",
            "cleaner",
            "cleaner_version",
            "markdown",
            "structure",
        ]
    )
    rejects = ds.dataset(output / "rejects", format="parquet").to_table(columns=["reason"])
    # Counted here with plain Python over the rows, independently of the report's code.
    langs = Counter(docs.column("language").to_pylist())
    reasons = Counter(rejects.column("reason").to_pylist())
    assert _table(page, "languages") == dict(langs)
    assert _table(page, "rejects") == dict(reasons)
    chars = docs.column("n_chars").to_pylist()
    good, blocks = docs.column("n_good").to_pylist(), docs.column("n_blocks").to_pylist()
    shares = [g / b for g, b in zip(good, blocks, strict=True)]
    length_bins = Counter(max(i for i, e in enumerate(LENGTH_EDGES) if c >= e) for c in chars)
    share_bins = Counter(min(int(s * 20 + 1e-9), 19) for s in shares)
    summary = collect(str(output))
    assert summary.docs == docs.num_rows and summary.text_chars == sum(chars)
    assert {i: n for i, n in enumerate(summary.length.counts) if n} == dict(length_bins)
    assert {i: n for i, n in enumerate(summary.kept_share.counts) if n} == dict(share_bins)
    assert sum(_table(page, "length-bins").values()) == docs.num_rows
    assert sum(_table(page, "share-bins").values()) == docs.num_rows
    # The failed input left files behind (its rejects file could not be written): readers see
    # its documents, so the report counts them, and says whose they are.
    (problem,) = summary.problems
    assert "without a completion marker" in problem and input_stem(_failed(output)) in problem
    assert problem in LexborHTMLParser(page).css_first("#problems").text()
    cards = LexborHTMLParser(page).css_first("#totals").text()
    assert f"{docs.num_rows:,}documents" in cards.replace(" ", "")
    assert f"{rejects.num_rows:,}rejected" in cards.replace(" ", "")
    (version,) = set(docs.column("cleaner_version").to_pylist())
    assert version in LexborHTMLParser(page).css_first("table#cleaners").text()
    structure = Counter(k for kinds in docs.column("structure").to_pylist() for k in kinds)
    assert _table(page, "structure-counts") == {k: structure[k] for k in ("code", "table", "math")}
    assert summary.structure_docs == docs.num_rows
    assert summary.markdown_docs == sum(m is not None for m in docs.column("markdown").to_pylist())


def test_skips_failed_inputs_runs_and_reader_state(output: Path) -> None:
    page = build_report(str(output))
    summary = collect(str(output))
    markers = [json.loads(p.read_text()) for p in (output / "_done").glob("*.json")]
    skipped = sum((Counter(m["skipped"]) for m in markers), Counter())
    assert _table(page, "skips") == dict(skipped)
    assert summary.records == sum(m["records"] for m in markers)
    # The failure names the input and the error, and both runs are listed.
    failed = LexborHTMLParser(page).css_first("table#failed").text()
    assert "crawl-02.warc.gz" in failed and "IsADirectoryError" in failed
    assert len(LexborHTMLParser(page).css("table#runs tbody tr")) == len(summary.runs) >= 1
    assert len(summary.inputs) == 3 and all(i.finished_at is not None for i in summary.inputs)


def test_an_input_that_failed_and_later_finished_is_no_longer_listed(
    output: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "out"
    shutil.copytree(output, copy)
    summary = collect(str(copy))
    (failed,) = summary.failed
    # A later run finishes it: its marker retires the failure.
    (inp,) = [p for p in make_inputs(tmp_path / "in", n=3) if p.endswith("crawl-02.warc.gz")]
    assert input_stem(failed.input) != input_stem(inp)  # another path: still failed
    marker = json.loads(next((copy / "_done").glob("*.json")).read_text())
    marker.update(warc_path=failed.input, stem=input_stem(failed.input))
    (copy / "_done" / f"{input_stem(failed.input)}.json").write_text(json.dumps(marker))
    assert collect(str(copy)).failed == []


def test_page_derived_strings_are_escaped(output: Path) -> None:
    page = build_report(str(output))
    tree = LexborHTMLParser(page)
    assert tree.css("script") == []
    assert all(not a.startswith("on") for n in tree.css("*") for a in n.attributes)
    assert "pwned" not in (tree.css_first("title").text() or "")


def test_without_matplotlib_the_report_has_tables_and_says_how_to_get_charts(
    output: Path,
) -> None:
    import builtins

    real_import = builtins.__import__

    def without_matplotlib(name: str, *args: object, **kwargs: object) -> object:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    summary = collect(str(output))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(builtins, "__import__", without_matplotlib)
        assert not charts.available()
        page = render_report(summary)
    assert "<svg" not in page
    hint = LexborHTMLParser(page).css_first("#no-charts").text()
    assert charts.INSTALL_HINT in hint
    assert _table(page, "languages") == dict(summary.docs_by_language)


@pytest.mark.skipif(not charts.available(), reason="matplotlib (the report extra) is absent")
def test_charts_are_inline_svg_and_a_rebuild_is_identical(output: Path) -> None:
    first = build_report(str(output))
    assert build_report(str(output)) == first  # reproducible: no dates, fixed hash salt
    tree = LexborHTMLParser(first)
    svgs = tree.css("#charts svg")
    assert len(svgs) >= 5
    # Each chart this output has data for, once: its languages, the menu page rejected and the
    # image skipped, the documents' lengths and kept shares, and the inputs' throughput.
    captions = [n.text() for n in tree.css("#charts figcaption")]
    for start in (
        "Detected language of every document",
        "Rejected: a page that gave no document",
        "Characters of each document's text",
        "Pages near 0 lost most of their blocks",
        "Records read per second of each input's task",
        "All inputs' records per second",
    ):
        assert sum(c.startswith(start) for c in captions) == 1, (start, captions)
    # A count table draws each row's bar to scale: the largest count 160 px wide.
    widths = [
        int(n.attributes["style"][len("width:") : -2]) for n in tree.css("#languages span.bar")
    ]
    assert widths and max(widths) == 160 and min(widths) >= 1
    ids = [n.attributes["id"] for n in tree.css("[id]")]
    assert len(ids) == len(set(ids)), "several inline SVGs must not share ids"
    assert _external_references(first) == []


@pytest.mark.skipif(not charts.available(), reason="matplotlib (the report extra) is absent")
def test_charts_leave_no_global_matplotlib_state(output: Path) -> None:
    # In a fresh interpreter: whether pyplot was imported, and rcParams after the charts
    # (all but "backend", whose reading itself imports pyplot to resolve the default).
    code = (
        "import sys, matplotlib\n"
        "def params():\n"
        "    return {k: matplotlib.rcParams[k] for k in matplotlib.rcParams if k != 'backend'}\n"
        "before = params()\n"
        "from pipeline.report.run_report import build_report\n"
        f"page = build_report({str(output)!r})\n"
        "assert page.count('<svg') >= 5, page.count('<svg')\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
        "assert params() == before\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


@pytest.mark.skipif(not charts.available(), reason="matplotlib (the report extra) is absent")
def test_the_warm_up_loads_matplotlib_and_draws_nothing(output: Path) -> None:
    # In a fresh interpreter, as a job's client runs it: the thread leaves matplotlib's modules
    # loaded and no figure made (a drawing there would be CPU the job pays twice), and the
    # report drawn after it is the one a cold process draws.
    code = (
        "import sys\n"
        "import matplotlib.figure as mf\n"
        "made = []\n"
        "init = mf.Figure.__init__\n"
        "def counted(self, *a, **k):\n"
        "    made.append(1)\n"
        "    init(self, *a, **k)\n"
        "mf.Figure.__init__ = counted\n"
        "from pipeline.report.run_report import build_report, warm_up\n"
        "warm_up().join()\n"
        "assert 'matplotlib.backends.backend_svg' in sys.modules\n"
        "assert not made, len(made)\n"
        f"sys.stdout.write(build_report({str(output)!r}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == build_report(str(output))


def test_report_command(output: Path, tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    result = CliRunner().invoke(warcclean, ["report", str(output), "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert target.read_text() == build_report(str(output))
    assert result.output.splitlines()[0] == f"wrote {target}"
    default = CliRunner().invoke(warcclean, ["report", str(output), "--no-charts"])
    assert default.exit_code == 0, default.output
    assert "<svg" not in (output / "_runs" / "report.html").read_text()
    assert default.output == f"wrote {output}/_runs/report.html\n"  # no hint when asked for none
    (output / "_runs" / "report.html").unlink()


def test_report_command_says_how_to_get_the_charts(
    output: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(charts, "available", lambda: False)
    result = CliRunner().invoke(warcclean, ["report", str(output), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert f"tables only: {charts.INSTALL_HINT} adds the charts" in result.output
    asked = CliRunner().invoke(
        warcclean, ["report", str(output), "-o", str(tmp_path / "r.html"), "--no-charts"]
    )
    assert asked.exit_code == 0 and "tables only" not in asked.output  # none asked for, no hint


def test_report_command_names_an_unexpected_failure_without_a_traceback(
    output: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.report import run_report

    def broken(*_args: object, **_kwargs: object) -> None:
        raise KeyError("num_rows")

    monkeypatch.setattr(run_report, "write_report", broken)
    result = CliRunner().invoke(warcclean, ["report", str(output), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 1
    assert f"cannot build the report of {output}: KeyError: 'num_rows'" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "r.html").exists()


def test_report_command_on_something_that_is_not_an_output(tmp_path: Path) -> None:
    result = CliRunner().invoke(warcclean, ["report", str(tmp_path / "nope")])
    assert result.exit_code == 1
    assert "is not a directory" in result.output and "Traceback" not in result.output
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(warcclean, ["report", str(tmp_path / "empty")])
    assert result.exit_code == 1 and "holds no warcclean output" in result.output
    with pytest.raises(ReportError):
        collect(str(tmp_path / "empty"))


def test_a_new_page_level_column_is_counted_without_a_change(tmp_path: Path) -> None:
    """A column the report does not know (issue 19's per-page fallback, say) is counted."""
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    (inp,) = make_inputs(tmp_path / "in", n=1)
    process_warc(inp, JobConfig(output=str(out), cleaner="justext"))
    written: Counter[str] = Counter()
    for path in (out / "docs").rglob("*.parquet"):
        table = pq.ParquetFile(path).read()
        fallback = ["bte" if i % 2 == 0 else None for i in range(table.num_rows)]
        pq.write_table(table.append_column("fallback", [fallback]), path)
        written.update("(none)" if f is None else f for f in fallback)
    summary = collect(str(out))
    counts = summary.other_columns["fallback"]
    assert counts == written and sum(written.values()) == summary.docs
    page = render_report(summary, with_charts=False)
    assert _table(page, "col-fallback")["bte"] == counts["bte"]


def test_truncated_pages_and_notes_are_counted_as_the_rows_say(tmp_path: Path) -> None:
    from pipeline.config import Limits

    out = tmp_path / "out"
    long = "<p>" + "The river runs by the old mill and the market square. " * 60 + "</p>"
    short = "<p>" + "A short page about the bridge over the river, kept whole. " * 3 + "</p>"
    pages = [long, short, long, short, short]
    warc = tmp_path / "in.warc.gz"
    warc.write_bytes(
        build_warc(
            [
                html_response(f"https://t.example/{i}", f"<html><body>{p}</body></html>")
                for i, p in enumerate(pages)
            ]
        )
    )
    process_warc(str(warc), JobConfig(output=str(out), limits=Limits(max_body_bytes=1500)))
    docs = ds.dataset(out / "docs", format="parquet", partitioning="hive").to_table(
        columns=["truncated", "notes"]
    )
    truncated = sum(docs.column("truncated").to_pylist())
    notes = Counter(n for row in docs.column("notes").to_pylist() for n in row)
    assert truncated == 2 and notes == {"truncated_by_cap": 2}  # the two long pages, cut by the cap
    summary = collect(str(out))
    assert summary.truncated == truncated and summary.notes == notes


@pytest.mark.parametrize("formats", ["both", "text"])
def test_documents_with_code_tables_and_math_are_counted(tmp_path: Path, formats: str) -> None:
    from tests.test_run import structured_warc

    out = tmp_path / "out"
    process_warc(str(structured_warc(tmp_path)), JobConfig(output=str(out), formats=formats))
    summary = collect(str(out))
    assert summary.structure == {"code": 1, "table": 1} and summary.structure_docs == 2
    assert summary.markdown_docs == (2 if formats == "both" else 0)
    page = render_report(summary, with_charts=False)
    assert _table(page, "structure-counts") == {"code": 1, "table": 1, "math": 0}
    note = LexborHTMLParser(page).css_first("#structure p").text()
    assert f"{summary.markdown_docs} documents have their Markdown written" in note


def test_an_output_of_schema_1_reports_without_structure_counts(tmp_path: Path) -> None:
    """Documents written before the structure column: counted as ever, the counts absent."""
    import pyarrow.parquet as pq

    from tests.test_run import structured_warc

    out = tmp_path / "out"
    process_warc(str(structured_warc(tmp_path)), JobConfig(output=str(out)))
    new = collect(str(out))
    for path in (out / "docs").rglob("*.parquet"):
        table = pq.read_table(path).drop_columns(["markdown", "structure"])
        meta = {**table.schema.metadata, b"warcclean.schema_version": b"1"}
        pq.write_table(table.replace_schema_metadata(meta), path)
    old = collect(str(out))
    assert old.structure is None and old.markdown_docs is None and old.structure_docs == 0
    assert (old.docs, old.text_chars, old.docs_by_language) == (
        new.docs,
        new.text_chars,
        new.docs_by_language,
    )
    assert old.problems == [] and "markdown" not in old.other_columns
    page = render_report(old, with_charts=False)
    tree = LexborHTMLParser(page)
    assert tree.css_first("table#structure-counts") is None
    assert "Not counted" in tree.css_first("#structure").text()


def _metadata_warc(tmp_path: Path) -> Path:
    """Two articles whose heads say things (one all, one its title alone) and one that says
    nothing."""
    from tests.test_run import ARTICLE_EN

    full = (
        "<head><title>The bridge | Town</title><meta name=description content='Repairs.'>"
        "<meta name=author content='Ann Lee'>"
        "<meta property='article:published_time' content='2024-05-17T08:00:00Z'>"
        "<meta property='og:site_name' content='Town'><link rel=canonical href='/bridge'></head>"
    )
    path = tmp_path / "meta.warc.gz"
    path.write_bytes(
        build_warc(
            [
                html_response(
                    "https://t.example/b?x", ARTICLE_EN.replace("<html>", "<html>" + full)
                ),
                html_response(
                    "https://t.example/c",
                    ARTICLE_EN.replace("<html>", "<html><head><title>Bridge</title></head>"),
                ),
                html_response("https://t.example/d", ARTICLE_EN),
            ]
        )
    )
    return path


def test_the_page_metadata_fill_rates_are_counted(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    process_warc(str(_metadata_warc(tmp_path)), JobConfig(output=str(out)))
    table = ds.dataset(out / "docs", format="parquet", partitioning="hive").to_table()
    rows = {r["url"]: r for r in table.to_pylist()}
    assert rows["https://t.example/b?x"]["canonical_url"] == "https://t.example/bridge"
    assert rows["https://t.example/b?x"]["published"] == "2024-05-17T08:00:00+00:00"
    assert rows["https://t.example/c"]["title"] == "Bridge"
    assert rows["https://t.example/d"]["title"] is None
    summary = collect(str(out))
    assert summary.metadata_docs == 3
    assert summary.metadata_filled == {
        "title": 2,
        "description": 1,
        "author": 1,
        "published": 1,
        "site_name": 1,
        "canonical_url": 1,
    }
    assert not set(summary.other_columns) & set(summary.metadata_filled)
    page = render_report(summary, with_charts=False)
    assert _table(page, "metadata-fill") == dict(summary.metadata_filled)
    # An output written before schema 3 reports everything else, and says why not these.
    for path in (out / "docs").rglob("*.parquet"):
        table = pq.read_table(path).drop_columns(list(summary.metadata_filled))
        meta = {**table.schema.metadata, b"warcclean.schema_version": b"2"}
        pq.write_table(table.replace_schema_metadata(meta), path)
    old = collect(str(out))
    assert old.metadata_filled is None and old.docs == 3 and old.problems == []
    tree = LexborHTMLParser(render_report(old, with_charts=False))
    assert tree.css_first("table#metadata-fill") is None
    assert "Not counted" in tree.css_first("#metadata").text()


@pytest.mark.shared
@pytest.mark.skipif(not charts.available(), reason="matplotlib (the report extra) is absent")
def test_real_warcs_report_has_charts_and_no_external_reference(
    real_warcs_dir: Path, tmp_path: Path
) -> None:
    # (the directory, as a user gives it: its Common Crawl WET and WAT files are passed over)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        command.main,
        [str(real_warcs_dir), "--output", str(out), "--scheduler", "inproc", "--no-progress"],
    )
    assert result.exit_code in (0, 1), result.output
    (html,) = (out / "_runs").glob("*.html")
    page = html.read_text()
    assert len(LexborHTMLParser(page).css("#charts svg")) >= 3
    assert _external_references(page) == []
    summary = collect(str(out))
    assert summary.issues_by_kind  # the real files include damaged ones
    assert _table(page, "issues") == dict(summary.issues_by_kind)


def _with_foreign_files(output: Path, target: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = target / "out"
    shutil.copytree(output, out)
    (out / "notes.txt").write_text("my own notes")
    (out / "docs" / "part-0").mkdir()
    pq.write_table(pa.table({"a": [1, 2]}), out / "docs" / "language=en" / "theirs.parquet")
    pq.write_table(pa.table({"a": [1]}), out / "rejects" / "theirs.parquet")
    (out / "_done" / "theirs.json").write_text("[1, 2]")
    (out / "_runs" / "theirs.json").write_text('{"started_at": "x", "inputs": [1]}')
    return out


def test_foreign_files_are_named_and_ignored_never_a_crash(output: Path, tmp_path: Path) -> None:
    out = _with_foreign_files(output, tmp_path)
    clean, mixed = collect(str(output)), collect(str(out))
    assert (mixed.docs, mixed.n_rejects, len(mixed.inputs), len(mixed.runs)) == (
        clean.docs,
        clean.n_rejects,
        len(clean.inputs),
        len(clean.runs),
    )
    said = "\n".join(mixed.problems)
    for name in ("notes.txt", "docs/part-0", "theirs.parquet", "_done/theirs.json", "theirs.json"):
        assert name in said
    target = tmp_path / "r.html"
    result = CliRunner().invoke(warcclean, ["report", str(out), "-o", str(target), "--no-charts"])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert "notes.txt" in target.read_text()


def test_an_output_of_foreign_files_only_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "notes.txt").write_text("mine")
    result = CliRunner().invoke(warcclean, ["report", str(tmp_path)])
    assert result.exit_code == 1 and "holds no warcclean output" in result.output
    assert isinstance(result.exception, SystemExit)
    (tmp_path / "docs" / "language=en").mkdir(parents=True)
    pq.write_table(pa.table({"a": [1]}), tmp_path / "docs" / "language=en" / "x.parquet")
    result = CliRunner().invoke(warcclean, ["report", str(tmp_path), "--no-charts"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "_runs" / "report.html").read_text()
    assert "x.parquet is not a warcclean documents file" in page and "notes.txt" in page


def test_the_job_says_the_html_report_failed_and_leaves_no_partial_file(
    output: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fsspec.implementations.local import LocalFileOpener

    real = LocalFileOpener.write

    def half_then_full(self: LocalFileOpener, data: bytes) -> int:
        # the disk fills up halfway through the HTML report
        if ".html" in self.path:
            real(self, data[: len(data) // 2])
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(LocalFileOpener, "write", half_then_full)
    from pipeline.report.run_report import write_report

    target = tmp_path / "report" / "r.html"
    with pytest.raises(OSError, match="No space left"):
        write_report(str(output), str(target), with_charts=False)
    assert list(target.parent.iterdir()) == []  # neither the report nor its temporary file
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    args = [*inputs, "-o", str(out), "--scheduler", "inproc", "--no-progress"]
    result = CliRunner().invoke(command.main, args)
    assert result.exit_code == 0, result.output
    assert "HTML report not written" in result.output and "No space left" in result.output
    assert [p.suffix for p in (out / "_runs").iterdir()] == [".json"]


def test_documents_are_counted_per_page_type(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    process_warc(str(_metadata_warc(tmp_path)), JobConfig(output=str(out), classify_page=True))
    table = ds.dataset(out / "docs", format="parquet", partitioning="hive").to_table()
    types = table.column("page_type").to_pylist()
    assert len(types) == 3 and all(t in PAGE_TYPES for t in types)
    assert all(0 < p <= 1 for p in table.column("page_type_prob").to_pylist())
    summary = collect(str(out))
    assert summary.page_types == Counter(types)
    assert "page_type" not in summary.other_columns
    page = render_report(summary, with_charts=False)
    assert _table(page, "page-types") == dict(Counter(types))
    # An output without the column (written before it existed) has no such table.
    for path in (out / "docs").rglob("*.parquet"):
        pq.write_table(pq.read_table(path).drop_columns(["page_type", "page_type_prob"]), path)
    old = collect(str(out))
    assert old.page_types is None and old.docs == 3
    assert (
        LexborHTMLParser(render_report(old, with_charts=False)).css_first("table#page-types")
        is None
    )


def test_histogram_bins_are_labelled_by_their_edges() -> None:
    # Lengths: every bin half-open, the last open-ended; shares: the last bin closed.
    lengths = Histogram((0.0, 10.0, 100.0), [1, 0, 2], open_ended=True)
    shares = Histogram((0.0, 0.5, 1.0), [3, 4], open_ended=False)
    fmt = "{:g}".format

    def labels(hist: Histogram) -> list[str]:
        tree = LexborHTMLParser(str(_hist_table(hist, "t", fmt)))
        return [row.css_first("td").text() for row in tree.css("tbody tr")]

    assert labels(lengths) == ["0 – <10", "≥ 100"]  # an empty bin gets no row
    assert labels(shares) == ["0 – <0.5", "0.5 – 1"]


def test_a_long_count_table_ends_in_one_row_of_the_others() -> None:
    counter = Counter({f"k{i:02d}": 100 - i for i in range(25)})
    rows = _top(counter, 20)
    assert rows[:19] == counter.most_common(19)
    assert rows[19] == ("6 others", sum(100 - i for i in range(19, 25)))
    assert _top(counter, 25) == counter.most_common()  # as many as the limit: all of them


def test_a_count_tables_shares_and_bars_follow_its_counts() -> None:
    tree = LexborHTMLParser(str(_count_table([("a", 3), ("b", 1)], "key", 8, "t")))
    cells = [[td.text() for td in row.css("td")] for row in tree.css("tbody tr")]
    assert [c[:3] for c in cells] == [["a", "3", "37.5 %"], ["b", "1", "12.5 %"]]
    bars = [n.attributes["style"] for n in tree.css("span.bar")]
    assert bars == ["width:160px", "width:53px"]
