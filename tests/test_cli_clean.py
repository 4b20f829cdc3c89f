"""`warcclean clean PAGE`: the one-page debugging command."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipeline.cleaners.registry import DEFAULT_CLEANER
from pipeline.cli import main
from pipeline.html.page_type import PAGE_TYPES

PARAGRAPHS = "".join(
    f"<p>Paragraph {i} of the report explains in plain words what the council decided about "
    f"the new bridge, how much it will cost and when the work on it is going to start.</p>"
    for i in range(5)
)
MENU = "".join(f'<li><a href="/m{i}"><span>Menu {i}</span></a></li>' for i in range(10))
PAGE = (
    '<html><head><meta charset="windows-1252"><title>Bridge</title></head><body>'
    f"<ul>{MENU}</ul><div class='article'><h1>Council approves bridge</h1>{PARAGRAPHS}</div>"
    "<div class='foot'><a href='/c'>Caf\xe9 contact</a></div></body></html>"
).encode("windows-1252")


@pytest.fixture
def page(tmp_path: Path) -> Path:
    path = tmp_path / "page.html"
    path.write_bytes(PAGE)
    return path


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["clean", *args])
    return result.exit_code, result.output


def test_table_shows_encoding_language_and_one_row_per_block(page: Path) -> None:
    code, out = invoke(str(page), "--cleaner", "bte", "--language", "en")
    assert code == 0, out
    assert "windows-1252" in out and "(from meta)" in out
    assert "language   en" in out
    assert "stoplist   en" in out
    assert "title      Bridge" in out
    assert "blocks     17, good " in out
    assert "Menu 3" in out and "Paragraph 4 of the report" in out
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == 10 + 1 + 5 + 1  # menu items, heading, paragraphs, footer link
    (header,) = [line for line in out.splitlines() if line.startswith("┃")]
    names = [cell.strip() for cell in header.strip("┃").split("┃")]
    assert names == [
        *("#", "label", "cf", "score", "chars", "words", "link", "stop", "tag", "path", "text")
    ]
    # Where a block sits: its innermost three elements, the rest elided; a path of three whole.
    assert all("….body.ul.li" in row for row in rows[:10])
    assert "│ h1 (h) " in rows[10]  # the heading, marked
    assert "html.body.div" in rows[-1] and "…" not in rows[-1].split("│")[-3]
    # Piped (not a terminal), the table is laid out wider than rich's 80 columns: the text
    # column is not squeezed to a few characters.
    assert max(len(line) for line in out.splitlines()) > 120
    assert "notes" not in out  # bte's answer on this page notes nothing


def test_the_pages_notes_are_shown(tmp_path: Path) -> None:
    path = tmp_path / "shell.html"
    path.write_bytes(
        b"<html><body><div><a href=/a>Home</a></div>"
        b"<noscript>You need to enable JavaScript to run this app.</noscript></body></html>"
    )
    code, out = invoke(str(path), "--language", "en")
    assert code == 0, out
    assert f"{path}  cleaner=neighbours (defaults)" in out
    assert "notes      script_notice" in out
    code, out = invoke(str(path), "--language", "en", "--json")
    assert json.loads(out)["notes"] == ["script_notice"]


def test_help_lists_every_command_and_loads_the_lazy_ones() -> None:
    """`run` and `site` import Dask only when asked for, but are listed and run like the rest."""
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    listed = [line.split()[0] for line in result.output.split("Commands:")[1].splitlines()[1:]]
    assert listed == ["clean", "eval", "report", "run", "show", "site"]
    for name in ("run", "site"):
        result = CliRunner().invoke(main, [name, "--help"])
        assert result.exit_code == 0, result.output
        assert f"Usage: main {name} " in result.output


def test_json_has_every_block_with_its_features(page: Path) -> None:
    code, out = invoke(str(page), "--cleaner", "bte", "--language", "en", "--json", "--page-type")
    assert code == 0, out
    data = json.loads(out)
    assert data["cleaner"] == "bte"
    assert data["encoding"] == "windows-1252" and data["encoding_source"] == "meta"
    assert data["language"] == {"code": "en", "prob": 1.0}
    assert data["n_blocks"] == len(data["blocks"]) == 17
    good = [b for b in data["blocks"] if b["verdict"] == "good"]
    assert {b["text"][:11] for b in good} >= {f"Paragraph {i}" for i in range(5)}
    assert not any(b["text"].startswith("Menu") for b in good)
    assert "Café contact" in {b["text"] for b in data["blocks"]}
    first = data["blocks"][0]
    for key in ("index", "tag", "dom_path", "n_chars", "n_words", "link_density", "runs"):
        assert key in first
    assert first["link_density"] == 1.0
    # The enclosing elements' class cues by name: the paragraphs sit in div.article.
    assert first["ancestor_cues"] == []
    assert {tuple(b["ancestor_cues"]) for b in good} == {("content",)}
    assert 0.0 <= good[0]["stopword_density"] <= 1.0
    assert data["text"].count("Paragraph") == 5
    assert data["metadata"] == {
        "title": "Bridge",
        "description": None,
        "author": None,
        "published": None,
        "site_name": None,
        "canonical_url": None,
    }
    assert data["page_type"] in PAGE_TYPES and 0 < data["page_type_prob"] <= 1
    # Without --page-type the page is not classified (it adds a tenth to the cleaning).
    _, plain = invoke(str(page), "--cleaner", "bte", "--language", "en", "--json")
    assert json.loads(plain)["page_type"] is None


def test_gzipped_page_and_params(tmp_path: Path) -> None:
    path = tmp_path / "page.html.gz"
    path.write_bytes(gzip.compress(PAGE))
    code, out = invoke(
        str(path), "--cleaner", "bte", "--language", "en", "--json", "--param", "tag_weight=0.5"
    )
    assert code == 0, out
    assert json.loads(out)["params"] == {"tag_weight": 0.5, "min_fraction": 0.5}


def test_default_cleaner_detects_language(page: Path) -> None:
    code, out = invoke(str(page), "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["cleaner"] == DEFAULT_CLEANER == "neighbours"
    assert data["language"]["code"] == "en"
    assert {b["verdict"] for b in data["blocks"]} == {"good", "bad"}


def test_url_reaches_the_default_cleaner(page: Path) -> None:
    """The same scores as `clean_html` with that URL, and other scores than without one."""
    from pipeline.clean import clean_html

    url = "https://news.example.org/2024/05/council-approves-bridge"
    code, out = invoke(str(page), "--json", "--url", url)
    assert code == 0, out
    scores = [b["score"] for b in json.loads(out)["blocks"]]
    assert scores == [lb.score for lb in clean_html(PAGE, url=url).blocks]
    code, out = invoke(str(page), "--json")
    assert code == 0, out
    assert scores != [b["score"] for b in json.loads(out)["blocks"]]


def test_justext_detects_language(page: Path) -> None:
    code, out = invoke(str(page), "--cleaner", "justext", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["cleaner"] == "justext"
    assert data["language"]["code"] == "en"
    assert all(b["cf_class"] in ("good", "neargood", "short", "bad") for b in data["blocks"])


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    code, out = invoke(str(tmp_path / "nope.html"))
    assert code == 2
    assert "does not exist" in out


def test_unknown_cleaner_is_a_usage_error(page: Path) -> None:
    code, out = invoke(str(page), "--cleaner", "nosuch")
    assert code == 2
    assert "unknown cleaner 'nosuch'" in out and "bte" in out


@pytest.mark.parametrize(
    ("param", "message"),
    [("tag_weight", "expected KEY=VALUE"), ("tag_weight=-2", "tag_weight"), ("zeta=1", "zeta")],
)
def test_bad_params_are_usage_errors(page: Path, param: str, message: str) -> None:
    code, out = invoke(str(page), "--cleaner", "bte", "--param", param)
    assert code == 2
    assert message in out


def test_bad_language_is_a_usage_error(page: Path) -> None:
    code, out = invoke(str(page), "--language", "not a code!")
    assert code == 2
    assert "--language" in out


def test_corrupt_gzip_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "page.html.gz"
    path.write_bytes(b"<html>not gzipped</html>")
    code, out = invoke(str(path))
    assert code == 1
    assert "not a valid gzip file" in out


def test_markdown_prints_the_pages_markdown_instead_of_the_table(tmp_path: Path) -> None:
    from pipeline.clean import clean_html
    from tests.test_run import CODE_FENCE, STRUCTURED

    path = tmp_path / "gauge.html"
    path.write_text(STRUCTURED)
    code, out = invoke(str(path), "--markdown")
    assert code == 0, out
    # As it is, ending in one newline: no table, no colours, no header.
    assert out == clean_html(STRUCTURED).markdown.rstrip("\n") + "\n"
    assert out.startswith("# Reading the river gauge\n")
    assert CODE_FENCE.search(out)
    assert "| Monday" in out and "│" not in out and "encoding" not in out
    code, data = invoke(str(path), "--json")
    assert code == 0, data
    parsed = json.loads(data)
    assert parsed["markdown"] == out.rstrip("\n") and parsed["structure"] == ["code", "table"]


def test_markdown_of_a_page_without_structure_is_its_paragraphs(page: Path) -> None:
    code, out = invoke(str(page), "--markdown", "--cleaner", "bte", "--language", "en")
    assert code == 0, out
    paragraphs = [p for p in out.split("\n\n") if p.startswith("Paragraph")]
    assert len(paragraphs) == 5 and "Menu 3" not in out


def test_json_and_markdown_together_are_a_usage_error(page: Path) -> None:
    code, out = invoke(str(page), "--markdown", "--json")
    assert code == 2 and "exclusive" in out
