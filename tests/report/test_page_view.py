"""``warcclean show PAGE``: the page viewer for a page file, kept text, escaping, --compare."""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from pipeline.clean import clean_html
from pipeline.cli import main as warcclean
from pipeline.report.page_view import render_page, view_of_result, view_of_row
from pipeline.types import CleanResult, Verdict

PARAGRAPHS = "".join(
    f"<p>Paragraph {i} of the report explains in plain words what the council decided about "
    f"the new bridge, how much it will cost and when the work on it is going to start.</p>"
    for i in range(4)
)
MENU = "".join(f'<li class="menu-item"><a href="/m{i}">Menu {i}</a></li>' for i in range(8))
PAGE = (
    "<html><head><title>Bridge</title></head><body>"
    f'<ul class="nav">{MENU}</ul><div class="article"><h1>Council approves bridge</h1>'
    f"{PARAGRAPHS}</div><div class='footer'><a href='/c'>Contact</a></div></body></html>"
)
# Page text that is markup once unescaped, in a block's text, its class and the page's URL.
HOSTILE = (
    '<html><body><div class="x&quot;&gt;&lt;img src=y onerror=alert(1)&gt;">'
    "<p>&lt;script&gt;document.documentElement.setAttribute('data-xss','1')&lt;/script&gt; "
    "The council met on Tuesday and agreed, after a long debate about the cost, that the "
    "bridge over the river will be built next spring by the town's own workers.</p>"
    "<p>&lt;img src=x onerror=alert(2)&gt; A second paragraph of ordinary prose follows here, "
    "so that the page has text enough for every cleaner to keep some of it.</p>"
    "</div></body></html>"
)
HOSTILE_URL = "https://x.example/\"><script>alert('url')</script>"


def kept_texts(page: str) -> list[str]:
    tree = LexborHTMLParser(page)
    return [n.text() for n in tree.css(".blocks > .blk.kept > .txt")]


def page_fields(page: str) -> dict[str, str]:
    tree = LexborHTMLParser(page)
    names, values = [n.text() for n in tree.css("dt")], [n.text() for n in tree.css("dd")]
    return dict(zip(names, values, strict=True))


def show(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(warcclean, ["show", *args])
    return result.exit_code, result.output


def test_show_page_marks_kept_and_removed_blocks(tmp_path: Path) -> None:
    source = tmp_path / "page.html.gz"
    source.write_bytes(gzip.compress(PAGE.encode()))
    target = tmp_path / "view.html"
    code, out = show(str(source), "-o", str(target), "--cleaner", "bte", "--language", "en")
    assert code == 0, out
    assert out == f"wrote {target}\n"
    page = target.read_text()
    result = clean_html(PAGE, cleaner="bte", language="en")
    # The viewer's kept blocks are the document's text, block for block.
    assert "\n\n".join(kept_texts(page)) == result.text
    tree = LexborHTMLParser(page)
    assert tree.css_first("#kept-text").text() == result.text
    removed = tree.css(".blk.removed")
    assert len(removed) == len(result.blocks) - result.n_good > 0
    menu = next(n for n in removed if n.css_first(".txt").text() == "Menu 3")
    assert "removed (bad)" in menu.css_first(".badge").text()
    features = menu.css_first(".feat").text()
    assert "link density 1.000" in features and "class cues nav" in features
    assert "li.menu-item" in menu.css_first(".feat.where").text()
    fields = page_fields(page)
    assert fields["language"] == "en (p=1.000)" and fields["cleaner"] == "bte"


def test_every_page_derived_string_is_escaped(tmp_path: Path) -> None:
    source = tmp_path / "hostile.html"
    source.write_text(HOSTILE)
    target = tmp_path / "view.html"
    code, out = show(str(source), "-o", str(target), "--url", HOSTILE_URL, "--compare", "justext")
    assert code == 0, out
    page = target.read_text()
    tree = LexborHTMLParser(page)
    assert tree.css("script") == [] and tree.css("img") == []
    assert not [a for n in tree.css("*") for a in n.attributes if a.startswith("on")]
    # ... and the text is still there for a person to read, exactly.
    texts = [n.text() for n in tree.css(".txt")]
    assert any(t.startswith("<script>document.documentElement") for t in texts)
    url_row = next(r for r in tree.css("table.fields2 tr") if r.css_first("th").text() == "url")
    assert [td.text() for td in url_row.css("td")] == [HOSTILE_URL, HOSTILE_URL]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(min_size=1, max_size=60), min_size=1, max_size=6))
def test_any_text_round_trips_through_the_viewer(paragraphs: list[str]) -> None:
    """Whatever a block's text is, the viewer shows exactly it and never as markup."""
    import html

    page = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    result = clean_html(page, cleaner="bte", language="en")
    rendered = render_page(view_of_result(result, title="<t>"))
    tree = LexborHTMLParser(rendered)
    assert tree.css("script") == []
    # The parser normalises CR and NUL exactly as it did in the page, so compare like with like.
    assert [n.text() for n in tree.css(".blk > .txt")] == [lb.block.text for lb in result.blocks]


def test_compare_shows_two_cleaners_side_by_side(tmp_path: Path) -> None:
    source = tmp_path / "page.html"
    source.write_text(PAGE)
    target = tmp_path / "view.html"
    code, out = show(str(source), "-o", str(target), "--compare", "justext", "--language", "en")
    assert code == 0, out
    tree = LexborHTMLParser(target.read_text())
    heads = [n.text() for n in tree.css(".colhead")]
    assert heads[0].startswith("neighbours:") and heads[1].startswith("justext:")
    cells = tree.css(".blocks.two > .blk")
    first = clean_html(PAGE, language="en")
    second = clean_html(PAGE, cleaner="justext", language="en")
    assert len(cells) == 2 * len(first.blocks)
    left, right = cells[0::2], cells[1::2]
    assert [c.attributes["data-label"] for c in left] == [str(b.verdict) for b in first.blocks]
    assert [c.attributes["data-label"] for c in right] == [str(b.verdict) for b in second.blocks]
    differ = sum(a.verdict != b.verdict for a, b in zip(first.blocks, second.blocks, strict=True))
    assert len(tree.css(".blk.differs")) == 2 * differ


def test_new_page_level_fields_show_without_a_change() -> None:
    """Issue 19 adds a per-page fallback: as a CleanResult field or as a row column, it shows."""

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithFallback(CleanResult):
        fallback: str | None = None

    result = clean_html(PAGE, cleaner="bte", language="en")
    values = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
    extended = WithFallback(**values, fallback="justext")
    fields = page_fields(render_page(view_of_result(extended, title="t")))
    assert fields["fallback"] == "justext"
    row = {"record_id": "r", "cleaner": "neighbours", "text": "", "blocks": [], "fallback": "bte"}
    fields = page_fields(render_page(view_of_row(row, title="t")))
    assert fields["fallback"] == "bte" and "text" not in fields and "blocks" not in fields


def test_the_page_metadata_shows_as_the_columns_name_it() -> None:
    head = (
        "<head><title>Bridge | Town</title><meta property='og:site_name' content='Town'>"
        "<meta name='author' content='Ann &lt;b&gt;Lee'>"
        "<link rel='canonical' href='/bridge'></head>"
    )
    page = PAGE.replace("<head><title>Bridge</title></head>", head)
    result = clean_html(page, cleaner="bte", language="en", url="https://town.example/b?x=1")
    rendered = render_page(view_of_result(result, title="t"))
    fields = page_fields(rendered)
    assert fields["title"] == "Bridge | Town" and fields["site_name"] == "Town"
    assert fields["author"] == "Ann <b>Lee" and fields["description"] == "–"
    assert fields["canonical_url"] == "https://town.example/bridge"
    assert "metadata" not in fields
    assert "Ann &lt;b&gt;Lee" in rendered  # escaped, never markup
    # A stored row shows its columns by the same names.
    row = {"record_id": "r", "cleaner": "bte", "text": "", "blocks": [], "title": "Bridge"}
    assert page_fields(render_page(view_of_row(row, title="t")))["title"] == "Bridge"


# Markdown as a page can make it: a table, a fence, and page text that is markup once unescaped.
HOSTILE_MARKDOWN = (
    "# Council <b>approves</b> bridge\n\n| cost | <script>alert(1)</script> |\n| --- | --- |\n"
    "| 5 & 6 | x |\n\n```html\n<img src=x onerror=alert(2)>\n    indented\n```\n"
)


def test_the_markdown_pane_sits_beside_the_blocks_and_shows_the_markdown_as_text() -> None:
    result = dataclasses.replace(
        clean_html(PAGE, cleaner="bte", language="en"),
        markdown=HOSTILE_MARKDOWN,
        structure=("code", "table"),
    )
    page = render_page(view_of_result(result, title="t"))
    tree = LexborHTMLParser(page)
    assert tree.css("script") == [] and tree.css("img") == [] and tree.css(".md-pane b") == []
    (pane,) = tree.css(".with-md > .md-pane")
    assert pane.css_first("pre#markdown").text() == HOSTILE_MARKDOWN  # exactly, as text
    # Beside the blocks: the two are the children of one grid.
    assert [c.attributes.get("class") for c in tree.css_first(".with-md").iter()] == [
        "blocks",
        "md-pane",
    ]
    assert len(kept_texts(page)) == result.n_good
    fields = page_fields(page)
    assert "markdown" not in fields and fields["structure"] == "code, table"


def test_a_row_without_markdown_has_no_pane() -> None:
    """``--formats text`` (null) and schema 1 (no column): the blocks alone, as before."""
    blocks = [{"text": "Kept prose.", "label": "good", "score": None}]
    for extra in ({"markdown": None, "structure": []}, {}):
        row = {"record_id": "r", "cleaner": "bte", "text": "Kept prose.", "blocks": blocks}
        tree = LexborHTMLParser(render_page(view_of_row({**row, **extra}, title="t")))
        assert tree.css(".md-pane") == [] and tree.css(".with-md") == []
        assert [n.text() for n in tree.css(".blocks > .blk.kept > .txt")] == ["Kept prose."]
    row = {"record_id": "r", "cleaner": "bte", "text": "", "blocks": blocks, "markdown": "| a |"}
    tree = LexborHTMLParser(render_page(view_of_row(row, title="t")))
    assert tree.css_first(".with-md pre#markdown").text() == "| a |"


def test_compare_shows_both_markdowns_side_by_side() -> None:
    first = dataclasses.replace(clean_html(PAGE, language="en"), markdown="# One\n")
    second = dataclasses.replace(clean_html(PAGE, cleaner="justext", language="en"), markdown="")
    tree = LexborHTMLParser(
        render_page(view_of_result(first, title="t"), view_of_result(second, title="t"))
    )
    panes = tree.css(".with-md.two > .md-pane")
    assert len(panes) == 2
    assert panes[0].css_first("pre#markdown").text() == "# One\n"
    assert panes[1].css_first("pre") is None and "No Markdown" in panes[1].text()


def test_usage_errors_are_messages_not_tracebacks(tmp_path: Path) -> None:
    code, out = show(str(tmp_path), "-o", str(tmp_path / "v.html"))
    assert code == 2 and "--record-id" in out
    code, out = show(str(tmp_path / "nope.html"), "-o", str(tmp_path / "v.html"))
    assert code == 2 and "is not a file" in out
    page = tmp_path / "p.html"
    page.write_text(PAGE)
    code, out = show(str(page), "-o", str(tmp_path / "v.html"), "--compare", "nosuch")
    assert code == 2 and "unknown cleaner" in out
    code, out = show(str(page), "-o", str(tmp_path / "v.html"), "--param", "nosuch=1")
    assert code == 2 and "Traceback" not in out
    bad = tmp_path / "bad.html.gz"
    bad.write_bytes(b"not gzip")
    code, out = show(str(bad), "-o", str(tmp_path / "v.html"))
    assert code == 1 and "not a valid gzip file" in out


@pytest.mark.shared
def test_dev_page_shows_kept_and_removed_blocks(wcxb_dir: Path, tmp_path: Path) -> None:
    source = sorted((wcxb_dir / "html").glob("*.html.gz"))[0]
    target = tmp_path / "view.html"
    code, out = show(str(source), "-o", str(target))
    assert code == 0, out
    page = target.read_text()
    result = clean_html(gzip.decompress(source.read_bytes()))
    tree = LexborHTMLParser(page)
    assert tree.css(".blk.kept") and tree.css(".blk.removed")
    assert "\n\n".join(kept_texts(page)) == result.text


def test_the_viewer_caps_what_it_draws() -> None:
    # Issue 48: the viewer on the ragged table's record wrote a 229 MB HTML file. It draws the
    # first blocks and characters now, and says how much more there is.
    from pipeline.report.page_view import (
        MAX_DRAWN_BLOCKS,
        MAX_DRAWN_CHARS,
        BlockView,
        PageView,
        render_page,
    )

    blocks = tuple(
        BlockView(i, f"cell {i} " * 10, i % 2 == 0, "good" if i % 2 == 0 else "bad", 0.5, ())
        for i in range(3 * MAX_DRAWN_BLOCKS)
    )
    huge = "x" * (5 * MAX_DRAWN_CHARS)
    view = PageView("t", "neighbours", (), blocks, text=huge, markdown=huge)
    html = render_page(view)
    assert len(html) < 4 * MAX_DRAWN_CHARS + 2_000 * MAX_DRAWN_BLOCKS
    assert f"{2 * MAX_DRAWN_BLOCKS:,} more blocks" in html
    assert f"{4 * MAX_DRAWN_CHARS:,} more characters not drawn" in html
    small = PageView("t", "neighbours", (), blocks[:10], text="short", markdown="short")
    assert "not drawn" not in render_page(small)
    assert "more blocks" not in render_page(view, view) or len(render_page(view, view)) < 2 * len(
        html
    )


def test_one_character_count_the_documents_and_what_the_others_are() -> None:
    # A data table: the text writes it a row per line with tabs, the kept blocks are one per
    # cell, and the Markdown adds its pipes: three lengths, one of them the document's.
    rows = "".join(
        f"<tr><td>Bridge section {i}</td><td>{i * 12} metres</td><td>steel</td></tr>"
        for i in range(1, 6)
    )
    html = (
        "<html><body><article><h1>The new bridge in numbers</h1>"
        f"{PARAGRAPHS}<table>{rows}</table></article></body></html>"
    )
    result = clean_html(html)
    view = view_of_result(result, title="t")
    joined, markdown = len(view.kept_text), len(result.markdown)
    assert len({len(result.text), joined, markdown}) == 3
    tree = LexborHTMLParser(render_page(view))
    heading = next(h.text() for h in tree.css("h2") if h.text().startswith("Blocks"))
    kept = sum(lb.verdict is Verdict.GOOD for lb in result.blocks)
    assert kept > 0
    assert heading.endswith(
        f"{kept} of {len(result.blocks)} blocks kept, {len(result.text):,} characters"
    )
    note = tree.css_first("h2 + p.sub").text()
    assert note.startswith(f"{len(result.text):,} characters: the document's text (n_chars)")
    assert f"joined by blank lines, is {joined:,} characters" in note
    assert f"its Markdown is {markdown:,} characters" in note
    # Nowhere else a count of characters.
    numbers = [
        n.text()
        for n in tree.css(".md-pane .colhead, details > summary")
        if any(ch.isdigit() for ch in n.text())
    ]
    assert numbers == []
    # A page whose lengths agree says nothing more: prose kept, its Markdown left out.
    prose = f"<html><body><article><h1>The bridge</h1>{PARAGRAPHS}</article></body></html>"
    plain = view_of_result(clean_html(prose), title="t")
    assert plain.kept_text and len(plain.kept_text) == len(plain.text)
    page = render_page(dataclasses.replace(plain, markdown=""))
    assert "(n_chars)" in render_page(view) and "(n_chars)" not in page
    # Its Markdown, as long as its text, says nothing more either.
    same_length = dataclasses.replace(plain, markdown="x" * len(plain.text))
    assert "(n_chars)" not in render_page(same_length)


def test_a_repeat_block_shows_as_removed_with_its_count() -> None:
    block = {"text": "Sign up for our newsletter", "label": "repeat", "score": 0.9, "tag": "p",
             "site_pages": 12, "shape": {"heading": 0}}  # fmt: skip
    kept = {"text": "The article itself.", "label": "good", "score": 0.9, "tag": "p",
            "site_pages": 1, "shape": None}  # fmt: skip
    row = {"record_id": "r", "cleaner": "neighbours", "text": kept["text"], "blocks": [kept, block]}
    page = render_page(view_of_row(row, title="t"))
    assert kept_texts(page) == ["The article itself."]
    tree = LexborHTMLParser(page)
    (repeat,) = tree.css('.blk[data-label="repeat"]')
    assert "removed (repeat: on 12 pages of its site)" in repeat.text()
    assert "pages of its site 12" in repeat.css_first(".feat").text()
    assert "heading" not in repeat.css_first(".feat").text()  # the shape is no feature
