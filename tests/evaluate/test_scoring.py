"""Evaluation: dataset loading, per-page scoring, aggregation, robustness, and the eval command."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import pipeline.cleaners.density  # noqa: F401  (registers the density cleaners used below)
from pipeline.cli import main
from pipeline.evaluate import datasets as ds
from pipeline.evaluate import scoring as ev

NAV = '<div class="nav"><a href="/a">home</a> <a href="/b">news</a> <a href="/c">sport</a></div>'


def _write_page(root: Path, page_id: str, html: str | bytes, truth: dict) -> None:
    (root / "html").mkdir(parents=True, exist_ok=True)
    (root / "ground-truth").mkdir(parents=True, exist_ok=True)
    body = html.encode("utf-8") if isinstance(html, str) else html
    (root / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(body))
    (root / "ground-truth" / f"{page_id}.json").write_text(json.dumps(truth, ensure_ascii=False))


def _wcxb(main_content: str | None, with_=(), without=(), page_type="article") -> dict:
    return {
        "url": "https://example.org/",
        "_internal": {"page_type": {"primary": page_type}},
        "ground_truth": {
            "main_content": main_content,
            "with": list(with_),
            "without": list(without),
        },
    }


@pytest.fixture
def tiny_wcxb(tmp_path: Path) -> Path:
    root = tmp_path / "wcxb"
    # Kept by density-fixed: "the cat sat on the mat" (6 tokens); the link menu is dropped.
    _write_page(
        root,
        "0001",
        f"<html><body>{NAV}<p>The cat sat on the mat</p></body></html>",
        _wcxb("The cat sat on the mat. It was happy.", without=["home news"]),
    )
    # Nothing but the menu: the output is empty although there is content to find.
    _write_page(
        root,
        "0002",
        f"<html><body>{NAV}</body></html>",
        _wcxb("A long story about dogs.", page_type="listing"),
    )
    # Snippet-only page (main_content null): scored on snippets alone.
    _write_page(
        root,
        "0003",
        "<html><body><p>Dogs bark at  the\nmoon every night</p></body></html>",
        _wcxb(None, with_=["dogs BARK at the moon", "cats purr"], without=["home"]),
    )
    return root


def test_load_dataset_reads_wcxb_layout(tiny_wcxb: Path) -> None:
    pages = ds.load_dataset(tiny_wcxb)
    assert [p.id for p in pages] == ["0001", "0002", "0003"]
    first = pages[0]
    assert first.language == "en"
    assert first.page_type == "article"
    assert first.main_content == "The cat sat on the mat. It was happy."
    assert first.without_snippets == ("home news",)
    assert pages[2].main_content is None
    assert pages[2].with_snippets == ("dogs BARK at the moon", "cats purr")
    assert b"cat sat" in first.read_html()


def test_load_dataset_subset_and_missing_ids(tiny_wcxb: Path) -> None:
    assert [p.id for p in ds.load_dataset(tiny_wcxb, ids=["0003", "0001"])] == ["0001", "0003"]
    with pytest.raises(ds.DatasetError, match="not in the dataset: 9999"):
        ds.load_dataset(tiny_wcxb, ids=["0001", "9999"])


def test_load_dataset_rejects_wrong_layout(tmp_path: Path) -> None:
    with pytest.raises(ds.DatasetError, match="ground-truth"):
        ds.load_dataset(tmp_path)
    _write_page(tmp_path, "x", "<p>a</p>", {"main_content": "a"})  # no language, not WCXB
    with pytest.raises(ds.DatasetError, match="no 'language'"):
        ds.load_dataset(tmp_path)


def test_load_multilingual_layout(tmp_path: Path) -> None:
    _write_page(
        tmp_path,
        "de-traf-001",
        "<p>x</p>",
        {"language": "de", "main_content": None, "with": ["Hund"], "without": []},
    )
    (page,) = ds.load_dataset(tmp_path)
    assert (page.language, page.main_content, page.with_snippets) == ("de", None, ("Hund",))
    assert page.page_type is None


def test_multilingual_layout_reads_a_page_type_where_the_set_has_one(tmp_path: Path) -> None:
    # magic-html's ground truth names the page's kind at the top level.
    truth = {"language": "zh", "main_content": "帖子", "page_type": "forum", "with": []}
    _write_page(tmp_path, "zh-magic-for-001", "<p>帖子</p>", truth)
    (page,) = ds.load_dataset(tmp_path)
    assert (page.language, page.page_type) == ("zh", "forum")


def test_read_ids_ignores_blanks_comments_and_suffixes(tmp_path: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("0001\n\n# a comment\n0002.json  # trailing\n0003.html.gz\n")
    assert ds.read_ids(ids) == ["0001", "0002", "0003"]


def _page(main: str | None, language: str = "en", with_=(), without=()) -> ds.Page:
    return ds.Page("p", Path("unused"), language, main, tuple(with_), tuple(without))


def test_score_text_word_f1_by_hand() -> None:
    # prediction: a b c d (4 tokens); reference: a b c e f f (6 tokens); overlap a b c = 3.
    row = ev.score_text(_page("A b, c e f f"), "a b c d")
    assert row.metric == "word"
    assert row.precision == pytest.approx(3 / 4)
    assert row.recall == pytest.approx(3 / 6)
    assert row.f1 == pytest.approx(2 * 0.75 * 0.5 / 1.25)
    assert not row.empty


def test_score_text_char_f1_for_unspaced_languages() -> None:
    # 6 predicted characters, all in the 7-character reference: P = 1, R = 6/7, F1 = 12/13.
    row = ev.score_text(_page("猫坐在垫子上。", language="zh"), "猫坐在 垫子上")
    assert row.metric == "char"
    assert row.f1 == pytest.approx(12 / 13)


def test_score_text_snippets_normalised() -> None:
    page = _page(
        None,
        language="fa",
        with_=["Dogs  BARK", "ﬁne day", "می\u200cخواهم", "absent text"],
        without=["home", "footer links"],
    )
    # NFKC folds the "ﬁ" ligature; the ZWNJ is ignored; case and whitespace do not matter.
    row = ev.score_text(page, "home\n\ndogs bark\nfine DAY میخواهم")
    assert (row.with_found, row.with_total) == (3, 4)
    assert (row.without_present, row.without_total) == (1, 2)
    assert row.f1 is None and row.metric is None
    assert row.with_share == pytest.approx(0.75)
    # A snippet that normalizes to nothing (a zero-width joiner alone) is in no output.
    blank = _page(None, language="fa", with_=["\u200c"], without=["\u200d "])
    row = ev.score_text(blank, "any text at all")
    assert (row.with_found, row.without_present) == (0, 0)


def test_combined_is_f1_or_snippets_found_times_boilerplate_absent() -> None:
    full = ev.score_text(_page("A b, c e f f", without=["d"]), "a b c d")
    assert full.combined == full.f1  # the without snippet present does not count twice
    snippets = _page(None, with_=["dogs bark", "cats purr"], without=["home", "menu", "login"])
    # 1 of 2 found, 1 of 3 present: 0.5 x (1 - 1/3).
    assert ev.score_text(snippets, "home dogs bark").combined == pytest.approx(1 / 3)
    assert ev.score_text(snippets, "dogs bark cats purr").combined == pytest.approx(1.0)
    assert ev.score_text(snippets, "home menu login").combined == 0.0
    no_without = _page(None, with_=["dogs bark", "cats purr"])
    assert ev.score_text(no_without, "dogs bark").combined == pytest.approx(0.5)
    # Nothing to score by: no combined score, and the page does not count in the mean.
    nothing = ev.score_text(_page(None, without=["home"]), "home")
    assert nothing.combined is None
    assert ev.aggregate([nothing, ev.score_text(no_without, "dogs bark")])["combined"] == 0.5


def test_score_text_unspaced_snippets_ignore_line_breaks() -> None:
    row = ev.score_text(
        _page(None, language="ja", with_=["発表資料を公開します"]), "発表資料を\n公開します"
    )
    assert row.with_found == 1


def test_score_text_empty_output() -> None:
    assert ev.score_text(_page("some words"), "").empty
    assert ev.score_text(_page(None, with_=["x y"]), "  ").empty
    # Nothing to find and nothing found: not "emptied", and F1 1.0 by the metric's convention.
    row = ev.score_text(_page(""), "")
    assert not row.empty and row.f1 == 1.0


def test_evaluate_end_to_end_with_hand_computed_scores(tiny_wcxb: Path) -> None:
    pages = ds.load_dataset(tiny_wcxb)
    report = ev.evaluate(pages, "density-fixed", {"threshold": 0.5}, language_from_truth=True)
    rows = {r.id: r for r in report.rows}
    # Page 1: predicted "the cat sat on the mat" (6), reference 9 tokens, overlap 6:
    # P = 1, R = 2/3, F1 = 0.8.
    assert rows["0001"].f1 == pytest.approx(0.8)
    assert rows["0001"].without_present == 0
    assert rows["0002"].f1 == 0.0 and rows["0002"].empty
    assert rows["0003"].f1 is None
    assert (rows["0003"].with_found, rows["0003"].without_present) == (1, 0)
    assert all(r.error is None and r.ms is not None and r.ms >= 0 for r in report.rows)
    assert all(r.detected_language == "en" for r in report.rows)

    overall = report.summary()["overall"]
    assert overall["pages"] == 3
    assert overall["f1_pages"] == 2
    assert overall["f1"] == pytest.approx(0.4)  # (0.8 + 0.0) / 2
    assert overall["with_share"] == pytest.approx(0.5)
    assert overall["without_share"] == pytest.approx(0.0)
    # Combined: F1 on the full-text pages, 1/2 found x (1 - 0/1 present) on the snippet page.
    assert overall["combined"] == pytest.approx((0.8 + 0.0 + 0.5) / 3)
    assert overall["empty"] == 1
    assert overall["failures"] == 0
    by_type = report.summary()["by_page_type"]
    assert by_type["article"]["f1"] == pytest.approx(0.8)
    assert by_type["listing"]["empty"] == 1
    assert report.params == {"threshold": 0.5}
    # One language: no table by language; and the pages' languages came from the truth.
    assert "by_language" not in report.summary()
    assert report.language_from_truth
    # By default the language is detected, as in production.
    detected = ev.evaluate(pages, "density-fixed", {"threshold": 0.5})
    assert not detected.language_from_truth and not ev.Report("x", {}, []).language_from_truth


def test_percentiles_are_observed_values_at_their_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert ev._percentile(values, 0.99) == 99.0
    assert ev._percentile(values, 0.5) == 50.0
    assert ev._percentile([7.0], 0.99) == 7.0
    assert ev._percentile([], 0.5) is None


def test_evaluate_records_failures_and_continues(
    tiny_wcxb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tiny_wcxb / "html" / "0002.html.gz").write_bytes(b"not gzip")
    real = ev._clean_text

    def flaky(page: ds.Page, *args: object) -> tuple[str, str]:
        if page.id == "0003":
            raise RuntimeError("boom")
        return real(page, *args)

    monkeypatch.setattr(ev, "_clean_text", flaky)
    report = ev.evaluate(ds.load_dataset(tiny_wcxb), "density-fixed", language_from_truth=True)
    rows = {r.id: r for r in report.rows}
    assert rows["0001"].error is None and rows["0001"].f1 == pytest.approx(0.8)
    assert rows["0002"].error.startswith("BadGzipFile")
    assert rows["0003"].error == "RuntimeError: boom"
    assert rows["0003"].with_found == 0  # a failure scores as empty output
    overall = report.summary()["overall"]
    assert overall["failures"] == 2
    assert overall["failure_types"] == {"BadGzipFile": 1, "RuntimeError": 1}
    assert overall["empty"] == 0  # failed pages are counted as failures, not as emptied


def test_evaluate_rejects_bad_cleaner_params_up_front(tiny_wcxb: Path) -> None:
    pages = ds.load_dataset(tiny_wcxb)
    with pytest.raises(TypeError):
        ev.evaluate(pages, "density-fixed", {"no_such_param": 1})
    with pytest.raises(ValueError, match="unknown cleaner"):
        ev.evaluate(pages, "no-such-cleaner")


def test_by_language_groups_for_multilingual(tmp_path: Path) -> None:
    _write_page(
        tmp_path,
        "de-x-001",
        "<p>Der Hund bellt laut und lange in der Nacht.</p>",
        {"language": "de", "main_content": "Der Hund bellt laut und lange in der Nacht."},
    )
    _write_page(
        tmp_path,
        "zh-x-001",
        '<meta charset="utf-8"><p>猫坐在垫子上，今天天气很好</p>',
        {"language": "zh", "main_content": "猫坐在垫子上，今天天气很好。"},
    )
    report = ev.evaluate(ds.load_dataset(tmp_path), "density-fixed", language_from_truth=True)
    summary = report.summary()
    assert summary["by_language"]["de"]["f1"] == pytest.approx(1.0)
    # 13 predicted characters, all in the 14-character reference: F1 = 2·(13/14)/(27/14).
    assert summary["by_language"]["zh"]["f1"] == pytest.approx(26 / 27)
    assert set(summary["by_script_scoring"]) == {"char", "word"}


def test_eval_command_writes_json(tiny_wcxb: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    ids = tmp_path / "ids.txt"
    ids.write_text("0001\n0003\n")
    result = CliRunner().invoke(
        main,
        [
            "eval",
            str(tiny_wcxb),
            "--cleaner",
            "density-fixed",
            "--param",
            "threshold=0.5",
            "--pages",
            str(ids),
            "--language-from-truth",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "density-fixed" in result.output
    data = json.loads(out.read_text())
    assert [r["id"] for r in data["pages"]] == ["0001", "0003"]
    # Page 1's F1; page 3: one of two must-contain snippets found, its one menu snippet absent.
    assert [r["combined"] for r in data["pages"]] == pytest.approx([0.8, 0.5])
    assert data["summary"]["overall"]["f1"] == pytest.approx(0.8)
    assert data["params"] == {"threshold": 0.5}
    assert data["language_from_truth"] is True


def test_eval_command_limit_and_bad_input(tiny_wcxb: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "limited.json"
    args = ["eval", str(tiny_wcxb), "--cleaner", "density-mean", "--limit", "1", "--json", str(out)]
    ok = runner.invoke(main, args)
    assert ok.exit_code == 0, ok.output
    assert [r["id"] for r in json.loads(out.read_text())["pages"]] == ["0001"]
    (tmp_path / "nothing").mkdir()
    not_a_set = runner.invoke(main, ["eval", str(tmp_path / "nothing"), "--cleaner", "bte"])
    assert not_a_set.exit_code == 1 and "expected 'ground-truth/'" in not_a_set.output
    assert "Traceback" not in not_a_set.output
    bad_param = runner.invoke(
        main, ["eval", str(tiny_wcxb), "--cleaner", "density-fixed", "--param", "nope=1"]
    )
    assert bad_param.exit_code == 2 and "nope" in bad_param.output
    bad_name = runner.invoke(main, ["eval", str(tiny_wcxb), "--cleaner", "nonexistent"])
    assert bad_name.exit_code == 2 and "unknown cleaner" in bad_name.output


@pytest.mark.shared
def test_wcxb_dev_loads(wcxb_dir: Path) -> None:
    pages = ds.load_dataset(wcxb_dir)
    assert len(pages) == 1358
    assert {p.page_type for p in pages} >= {"article", "forum", "listing"}


@pytest.mark.shared
def test_multilingual_dev_loads(multilingual_dir: Path) -> None:
    pages = ds.load_dataset(multilingual_dir)
    assert len(pages) == 297
    assert sum(p.main_content is not None for p in pages) == 141


def test_print_report_pools_small_languages(tmp_path: Path) -> None:
    from io import StringIO

    from rich.console import Console

    for lang, n in (("de", 2), ("it", 1)):
        for i in range(n):
            _write_page(
                tmp_path,
                f"{lang}-x-{i}",
                "<p>Ein ziemlich langer Satz mit vielen Wörtern darin.</p>",
                {"language": lang, "main_content": "Ein ziemlich langer Satz."},
            )
    report = ev.evaluate(ds.load_dataset(tmp_path), "density-fixed", language_from_truth=True)
    out = StringIO()
    ev.print_report(report, Console(file=out, width=150), min_language_pages=2)
    text = out.getvalue()
    assert "by language" in text
    assert "other (1 langs)" in text
    assert "│ de " in text and "│ it " not in text


def _two_source_set(root: Path) -> Path:
    """Three pages from two sources: the manifest names the source and site of two of them."""
    _write_page(
        root,
        "de-a-001",
        "<p>Der Hund bellt laut und lange in der Nacht.</p>",
        {"language": "de", "main_content": "Der Hund bellt laut und lange in der Nacht."},
    )
    _write_page(
        root,
        "de-b-001",
        f"<html><body>{NAV}</body></html>",
        {"language": "de", "main_content": "Die Katze schläft den ganzen Tag."},
    )
    _write_page(
        root,
        "fr-c-001",
        "<p>Le chat dort sur le canapé toute la journée.</p>",
        {
            "language": "fr",
            "main_content": "Le chat dort sur le canapé toute la journée.",
            "url": "https://www.journal.example/article/1",
        },
    )
    rows = [
        {"id": "de-a-001", "dataset": "fundus", "site": "a.example"},
        {"id": "de-b-001", "dataset": "goose3", "site": "b.example"},
    ]
    (root / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_pages_carry_source_and_site_from_manifest_or_url(tmp_path: Path) -> None:
    pages = {p.id: p for p in ds.load_dataset(_two_source_set(tmp_path))}
    assert (pages["de-a-001"].source, pages["de-a-001"].site) == ("fundus", "a.example")
    assert (pages["de-b-001"].source, pages["de-b-001"].site) == ("goose3", "b.example")
    # Not in the manifest: no source, the site from the URL's host without "www.".
    assert (pages["fr-c-001"].source, pages["fr-c-001"].site) == (None, "journal.example")


def test_wcxb_metadata_gives_domain_and_source(tiny_wcxb: Path) -> None:
    meta = {"0001": {"domain": "cats.example", "page_type": "article"}}
    (tiny_wcxb / "metadata-dev.json").write_text(json.dumps(meta))
    pages = {p.id: p for p in ds.load_dataset(tiny_wcxb)}
    assert (pages["0001"].source, pages["0001"].site) == ("wcxb", "cats.example")
    assert (pages["0002"].source, pages["0002"].site) == (None, "example.org")


def test_bad_manifest_is_a_dataset_error(tmp_path: Path) -> None:
    root = _two_source_set(tmp_path)
    (root / "manifest.jsonl").write_text('{"id": "de-a-001"}\n[1, 2]\n')
    with pytest.raises(ds.DatasetError, match=r"manifest.jsonl:2"):
        ds.load_dataset(root)


def test_group_by_source_and_site_scores_each_group(tmp_path: Path) -> None:
    pages = ds.load_dataset(_two_source_set(tmp_path))
    report = ev.evaluate(pages, "density-fixed", language_from_truth=True)
    report.group_by = ("source", "site")
    summary = report.summary()
    # density-fixed keeps the lone paragraphs whole and drops the link menu: F1 1, 1 and 0.
    assert summary["by_source"]["fundus"]["f1"] == pytest.approx(1.0)
    assert summary["by_source"]["goose3"]["f1"] == pytest.approx(0.0)
    assert summary["by_source"]["unknown"]["pages"] == 1
    assert summary["overall"]["f1"] == pytest.approx(2 / 3)
    assert set(summary["by_site"]) == {"a.example", "b.example", "journal.example"}
    report.group_by = ("domain",)
    with pytest.raises(ValueError, match="cannot group by 'domain'"):
        report.summary()


def test_eval_command_group_by_prints_and_writes_groups(tmp_path: Path) -> None:
    root = _two_source_set(tmp_path / "set")
    out = tmp_path / "out.json"
    args = ["eval", str(root), "--cleaner", "density-fixed", "--language-from-truth"]
    result = CliRunner().invoke(main, [*args, "--group-by", "source", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "by source" in result.output and "goose3" in result.output
    data = json.loads(out.read_text())
    assert data["summary"]["by_source"]["goose3"]["pages"] == 1
    assert {r["source"] for r in data["pages"]} == {"fundus", "goose3", None}
    bad = CliRunner().invoke(main, [*args, "--group-by", "domain"])
    assert bad.exit_code == 2 and "domain" in bad.output


def test_eval_command_groups_a_one_language_set_by_language(tmp_path: Path) -> None:
    # A set of one language has no by-script table; asking for a language table printed it
    # anyway and failed with KeyError (the WCXB set with --group-by language).
    root = _two_source_set(tmp_path / "set")
    (root / "html" / "fr-c-001.html.gz").unlink()
    (root / "ground-truth" / "fr-c-001.json").unlink()
    out = tmp_path / "out.json"
    args = ["eval", str(root), "--cleaner", "density-fixed", "--language-from-truth"]
    result = CliRunner().invoke(main, [*args, "--group-by", "language", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "by language" in result.output
    assert json.loads(out.read_text())["summary"]["by_language"]["de"]["pages"] == 2


@pytest.mark.shared
def test_dev_sets_have_a_source_and_site_for_every_page(
    wcxb_dir: Path, multilingual_dir: Path
) -> None:
    pages = ds.load_dataset(wcxb_dir) + ds.load_dataset(multilingual_dir)
    assert all(p.source for p in pages)
    # A few WCXB pages have neither a domain in the metadata nor a URL: those alone lack a site.
    assert all(p.site for p in pages if p.url)
    sources = {p.source for p in pages}
    assert {"wcxb", "fundus", "trafilatura", "cwced"} <= sources
