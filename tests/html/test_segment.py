"""jusText block segmentation on lexbor: boundaries, counts, paths, removals, robustness."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from pipeline.compiled import load_source
from pipeline.errors import PageTooComplex
from pipeline.html.segment import close_noscript_frames, parse, segment
from pipeline.html.walk import BLOCK_TAGS, normalize_whitespace
from pipeline.lang import words


def texts(html: str) -> list[str]:
    return [b.text for b in segment(html)]


def page(body: str) -> str:
    return f"<!doctype html><html><head><title>T</title></head><body>{body}</body></html>"


# Tags whose content the HTML parser re-parents or treats as raw text are tested separately.
_PLAIN_BLOCK_TAGS = sorted(
    BLOCK_TAGS
    - {"body", "table", "tr", "td", "th", "thead", "tfoot", "col", "colgroup", "caption"}
    - {"option", "optgroup", "textarea", "form"}
)


@pytest.mark.parametrize("tag", _PLAIN_BLOCK_TAGS)
def test_each_block_tag_starts_and_ends_a_block(tag: str) -> None:
    html = page(f"<span>before</span><{tag}>inside</{tag}><span>after</span>")
    assert texts(html) == ["before", "inside", "after"]


def test_table_cells_and_captions_are_blocks() -> None:
    html = page(
        "<table><caption>Cap</caption><thead><tr><th>H1</th><th>H2</th></tr></thead>"
        "<tr><td>a</td><td>b</td></tr><tfoot><tr><td>f</td></tr></tfoot></table>"
    )
    assert texts(html) == ["Cap", "H1", "H2", "a", "b", "f"]


def test_inline_tags_do_not_split() -> None:
    html = page("<p>one <b>two</b> <i>three</i> <a href='#'>four</a> <span>five</span></p>")
    assert texts(html) == ["one two three four five"]


def test_double_br_splits_single_br_does_not() -> None:
    blocks = segment(page("<p>one<br>two<br><br>three<br>\n<br>four</p>"))
    assert [b.text for b in blocks] == ["one two", "three", "four"]
    # As in jusText, the block opened by <br><br> has the <br> at the end of its path.
    assert blocks[1].dom_path.endswith(".p.br")


def test_triple_br_does_not_make_empty_blocks() -> None:
    assert texts(page("<div>a<br><br><br>b</div>")) == ["a", "b"]


def test_link_chars_count_normalised_link_text() -> None:
    (b,) = segment(page("<p>Read <a href='/x'>the   full\n story</a> here</p>"))
    assert b.text == "Read the full\nstory here"
    assert b.n_link_chars == len("the full\nstory")
    assert b.link_density == pytest.approx(len("the full story") / len(b.text))


def test_link_chars_include_edge_whitespace_as_in_justext() -> None:
    (b,) = segment(page("<div><a href='#'>abc </a></div>"))
    assert (b.text, b.n_link_chars) == ("abc", 4)


def test_link_state_ends_with_the_link() -> None:
    (b,) = segment(page("<div><a href='#'>abc</a>defgh</div>"))
    assert b.n_link_chars == 3


def test_dom_path_and_tag() -> None:
    blocks = segment(page("<div><ul><li>item <b>bold</b></li></ul></div><p>x</p>"))
    assert [(b.dom_path, b.tag) for b in blocks] == [
        ("html.body.div.ul.li", "li"),
        ("html.body.p", "p"),
    ]


def test_text_after_a_closed_block_gets_the_parent_path() -> None:
    blocks = segment(page("<div><p>inner</p>tail text</div>"))
    assert [(b.text, b.dom_path) for b in blocks] == [
        ("inner", "html.body.div.p"),
        ("tail text", "html.body.div"),
    ]


def test_style_is_tag_and_classes() -> None:
    (b,) = segment(page("<div class=' main  article '>x</div>"))
    assert b.style == "div.main.article"


def test_heading_flag_inside_headings_only() -> None:
    blocks = segment(page("<h1>Title</h1><h3><span>Sub</span></h3><p>Body</p>"))
    assert [(b.text, b.is_heading) for b in blocks] == [
        ("Title", True),
        ("Sub", True),
        ("Body", False),
    ]
    # a block opened inside a heading (a div in an h2) is a heading block too
    (b,) = segment(page("<h2><div>In heading</div></h2>"))
    assert b.is_heading


@pytest.mark.parametrize(
    "removed",
    [
        "<script>var hidden = 1;</script>",
        "<style>.hidden { color: red }</style>",
        "<template><p>hidden</p></template>",
        "<select><option>hidden</option></select>",
        "<textarea>hidden</textarea>",
        "<button>hidden</button>",
        "<input value='hidden'>",
        "<!-- hidden -->",
        "<applet>hidden</applet>",
        "<iframe src='/x'>hidden source</iframe>",
    ],
)
def test_removed_content(removed: str) -> None:
    html = page(f"<div>kept {removed} too</div>")
    assert texts(html) == ["kept too"]


def test_noscript_content_is_kept_as_in_justext() -> None:
    # Discourse forums, for one, serve their whole server-rendered content inside <noscript>.
    html = page("<div>kept <noscript><div>fallback text</div></noscript></div>")
    assert texts(html) == ["kept", "fallback text"]


# Google Tag Manager's fallback as React and others write it: the frame self-closed.
GTM = (
    '<noscript><iframe src="https://www.googletagmanager.com/ns.html?id=GTM-X" height="0" '
    'width="0" style="display: none; visibility: hidden;" /></noscript>'
)
ARTICLE = "<main><h1>Your fastest path to production</h1><p>Deploy any app in minutes.</p></main>"


@pytest.mark.parametrize(
    "html",
    [
        page(GTM + ARTICLE),  # in the body (WCXB 2838, 0041)
        f"<!doctype html><html><head>{GTM}</head><body>{ARTICLE}</body></html>",  # in the head
    ],
)
def test_a_frame_left_open_in_noscript_does_not_swallow_the_page(html: str) -> None:
    # In a browser that runs scripts <noscript> is text and the page is whole; parsed as markup,
    # the open frame's raw text would run to the end of the page.
    expected = ["Your fastest path to production", "Deploy any app in minutes."]
    assert texts(html) == expected
    assert [b.text for b in segment(parse(html.encode()))] == expected
    assert [b.text for b in segment(LexborHTMLParser(html))] == []  # what lexbor alone gives


def test_close_noscript_frames_closes_only_the_frames_left_open() -> None:
    closed = '<noscript><iframe src="a"></iframe></noscript>'
    html = f"{closed}<p>x</p>{GTM}<p>y</p><noscript><p>kept</p></noscript>"
    fixed = GTM.replace("/></noscript>", "/></iframe></noscript>")
    assert (
        close_noscript_frames(html)
        == f"{closed}<p>x</p>{fixed}<p>y</p><noscript><p>kept</p></noscript>"
    )
    assert close_noscript_frames(html.encode()) == close_noscript_frames(html).encode()
    assert close_noscript_frames(GTM + "<p>x</p>") == fixed + "<p>x</p>"  # at the very start
    # Nothing to close: the very same text, and the page parsed once.
    assert close_noscript_frames(closed) is closed
    assert close_noscript_frames("<p>no noscript</p>") == "<p>no noscript</p>"
    assert close_noscript_frames("<noscript><iframe src=a />") == "<noscript><iframe src=a />"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["<noscript>", "</noscript>", "<iframe src=a />", "</iframe>", "<p>x</p>", "y", "<"]
        ),
        max_size=12,
    ).map("".join)
)
def test_closing_frames_only_inserts_a_closing_tag_before_a_noscript_end(html: str) -> None:
    fixed = close_noscript_frames(html)
    assert close_noscript_frames(html.encode()) == fixed.encode()
    # Read both side by side: where they differ, the fixed page has a "</iframe>" the page has
    # not, right before a "</noscript"; otherwise they are the same.
    i = j = 0
    while j < len(fixed):
        if html.startswith("</iframe>", i) or not fixed.startswith("</iframe></noscript", j):
            assert i < len(html) and fixed[j] == html[i]
            i += 1
            j += 1
        else:
            j += len("</iframe>")
    assert i == len(html)
    segment(parse(html))  # and the page parses either way


def test_a_page_that_ends_in_a_frame_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A frame's fallback text at the end of a page, outside <noscript>, is no swallowed page.
    import pipeline.html.segment as segment_module

    calls: list[object] = []
    monkeypatch.setattr(segment_module, "close_noscript_frames", calls.append)
    tree = parse(page("<p>text</p><iframe src=a>Your browser does not support frames.</iframe>"))
    assert calls == [] and [b.text for b in segment(tree)] == ["text"]
    tree = parse(page("<p>text</p><iframe src=a /><p>gone in a browser too</p>"))
    assert calls == []
    # Nor is a page that ends in an element without text.
    tree = parse(page("<p>text</p><img src=a>"))
    assert calls == [] and [b.text for b in segment(tree)] == ["text"]


def test_head_is_removed() -> None:
    html = "<html><head><title>Hidden title</title><meta name='x'></head><body>Body</body></html>"
    assert texts(html) == ["Body"]


def test_form_content_kept_without_a_block_boundary() -> None:
    html = page(
        "<div>Before <form action='/s'>Search the <b>site</b> <input name=q></form> after</div>"
    )
    assert texts(html) == ["Before Search the site after"]


def test_object_content_unwrapped() -> None:
    html = page("<div>a <object>b <param name='x'> c</object> d</div>")
    assert texts(html) == ["a b c d"]


def test_whitespace_normalisation() -> None:
    html = page("<p>  many\t\t spaces\u00a0and\n\n  lines \r\n here  </p>")
    assert texts(html) == ["many spaces and\nlines\nhere"]


def test_whitespace_only_node_between_inline_tags_keeps_words_apart() -> None:
    # jusText drops whitespace-only text nodes and would give "onetwo" here.
    assert texts(page("<p><b>one</b> <i>two</i></p>")) == ["one two"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a  b", "a b"),
        ("a \t\u00a0b", "a b"),
        ("a \n b", "a\nb"),
        ("a\r\nb", "a\nb"),
        ("a\n\n \n b  c", "a\nb c"),
        ("a\u2028b", "a b"),  # only \n and \r count as line breaks, as in jusText
    ],
)
def test_normalize_whitespace(raw: str, expected: str) -> None:
    assert normalize_whitespace(raw) == expected


def test_markup_chars_estimate() -> None:
    (b,) = segment(page('<p class="x">one <a href="/abc">two</a><br></p>'))
    # <p class="x"></p> = 17, <a href="/abc"></a> = 19, <br> = 4
    assert b.n_markup_chars == 17 + 19 + 4
    assert b.n_tags == 2  # a and br; the block's own tag is not counted, as in jusText
    assert 0 < b.text_density < 1


def test_markup_heavy_block_has_low_text_density() -> None:
    links = "".join(f'<a class="nav-link item" href="/section/{i}">S{i}</a>' for i in range(10))
    nav, article = segment(page(f"<div>{links}</div><p>{'Plain prose. ' * 20}</p>"))
    assert nav.text_density < 0.2 < 0.9 < article.text_density


def test_record_runs() -> None:
    blocks = segment(
        page("<p>Hello <b>big</b> world</p><div><a href='x'>two words</a> tail</div>"),
        record_runs=True,
    )
    # tokens positive, tags negative, alternating; tags before the first text (html, body, p,
    # with the removed head not counted) are carried into the first block
    assert blocks[0].runs == (-3, 1, -1, 1, -1, 1, -1)
    assert blocks[1].runs == (-2, 2, -1, 1, -1)
    assert segment(page("<p>x</p>"))[0].runs is None
    # the last block of a page keeps its runs too
    assert segment("plain text", record_runs=True)[-1].runs is not None


def test_runs_alternate_in_sign() -> None:
    for b in segment(page("<div>a<b>b</b><i><u>c</u></i>  d<p>e</p></div>"), record_runs=True):
        assert b.runs
        for left, right in zip(b.runs, b.runs[1:], strict=False):
            assert (left > 0) != (right > 0)


def test_no_unspaced_script_below_the_counting_threshold() -> None:
    # Compiled, a text node with no character from _UNSPACED_FROM on counts its words without
    # asking count_words whether it holds an unspaced script: none may start lower.
    # (Read from the source: a compiled module keeps the constant in C.)
    threshold = load_source("pipeline.html.walk")._UNSPACED_FROM
    assert words.UNSPACED_CHAR.search("".join(map(chr, range(threshold)))) is None
    assert words.UNSPACED_CHAR.search(chr(threshold)) is not None


def test_lower_casing_never_creates_or_removes_whitespace() -> None:
    # count_words splits lower-cased text, the compiled run counter splits the text itself:
    # they agree because no character's lower case differs from it in whitespace.
    for code in range(0x110000):
        char = chr(code)
        lowered = char.lower()
        if char.isspace():
            assert lowered == char, hex(code)
        else:
            assert not any(c.isspace() for c in lowered), hex(code)


def test_runs_count_words_of_any_script() -> None:
    blocks = segment(
        page("<p>caf\xe9\xa0cr\xe8me <b>\u2019x\u2019</b> \u0e20\u0e32\u0e29\u0e32</p>"),
        record_runs=True,
    )
    # a no-break space separates words; the Thai word counts by segmentation, not as a token
    thai = words.count_words("\u0e20\u0e32\u0e29\u0e32", None)[0]
    assert blocks[0].runs == (-3, 2, -1, 1, -1, thai, -1)


def test_max_nodes_raises() -> None:
    html = page("<p>x</p>" * 100)
    assert len(segment(html, max_nodes=1000)) == 100
    with pytest.raises(PageTooComplex, match="more than 50 DOM nodes"):
        segment(html, max_nodes=50)


def test_accepts_a_parsed_tree() -> None:
    html = page("<p>tree</p>")
    assert segment(parse(html)) == segment(html)


def test_empty_and_textless_pages() -> None:
    assert segment("") == []
    assert segment("<html></html>") == []
    assert segment(page("<div><br><br></div><p>   </p>")) == []


def test_indices_are_positions() -> None:
    blocks = segment(page("<p>a</p><p>b</p><p>c</p>"))
    assert [b.index for b in blocks] == [0, 1, 2]


# lexbor's tree construction is quadratic in nesting depth (100,000 nested divs take ~40 s in
# the parser alone), so 20,000 proves there is no recursion limit (Python's is 1,000, libxml2
# drops text below depth 255, jusText F5) while keeping the test fast.
@pytest.mark.parametrize("depth", [5_000, 20_000])
def test_deep_nesting_keeps_text(depth: int) -> None:
    html = "<html><body>" + "<div>" * depth + "deep text" + "</div>" * depth + "<p>after</p>"
    deep, after = segment(html)
    assert (deep.text, after.text) == ("deep text", "after")
    assert len(deep.dom_path) < 1000  # the path is abbreviated, not `depth` elements long
    assert deep.dom_path.startswith("html.body…") and deep.dom_path.endswith(".div.div")
    assert after.dom_path == "html.body.p"
    if depth <= 5_000:  # inline nesting is no different for the walk; keep the test fast
        inline = "<html><body>" + "<span>" * depth + "in spans" + "</span>" * depth
        assert [b.text for b in segment(inline)] == ["in spans"]


# --- properties ---------------------------------------------------------------------------


def _text_nodes(html: str) -> int:
    root = LexborHTMLParser(html).root
    if root is None:
        return 0
    return sum(1 for n in root.traverse(include_text=True) if n.tag == "-text")


def _check(html: str) -> None:
    blocks = segment(html)
    assert len(blocks) <= _text_nodes(html)
    for b in blocks:
        assert b.text
        assert b.text == b.text.strip()
        assert b.n_chars == len(b.text)
        assert b.n_words == len(b.text.split())
        # Link characters are counted per text node before the block is stripped, as jusText
        # counts them, so a link at a block's edge can count one more character than remains.
        assert b.n_link_chars >= 0
        assert b.n_markup_chars >= 0


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_any_text_segments(text: str) -> None:
    _check(text)


TAGS = ["div", "p", "a", "b", "br", "li", "ul", "table", "td", "tr", "h1", "h2", "span", "pre"]
TAGS += ["script", "style", "noscript", "template", "select", "option", "form", "head", "title"]
TAGS += ["textarea", "button", "iframe", "svg", "math", "body", "html"]
soup_piece = st.one_of(
    st.sampled_from(TAGS).map(lambda t: f"<{t}>"),
    st.sampled_from(TAGS).map(lambda t: f"</{t}>"),
    st.sampled_from(TAGS).map(lambda t: f"<{t} class='c d' href=x>"),
    st.sampled_from(["<!--", "-->", "<!doctype html>", "&amp;", "&copy;", "<", ">", "\n", " "]),
    st.text(max_size=8),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(soup_piece, max_size=40).map("".join))
def test_tag_soup_segments(html: str) -> None:
    _check(html)


def test_processing_instruction_in_body_is_skipped() -> None:
    # Found on a real page (multilingual-dev de-traf-072): a stray "<?php ... ?>" in the body
    # parses as a nameless node (tag None), which must be skipped, not crash the walk.
    html = (
        "<html><body><p>Before the widget.</p><div><?php wp_get_archives(); ?></div><p>After.</p>"
    )
    assert [b.text for b in segment(html)] == ["Before the widget.", "After."]


# --- control characters (pipeline.html.controls) ---


def test_controls_are_dropped_and_c1_is_read_as_windows_1252() -> None:
    # daniel en-0172 as served: Windows-1252 quotes read as Latin-1 upstream (U+0093, U+0092).
    html = page(
        "<p>\x93With any business, whether it\x92s McDonald\x92s or Microsoft\x94 \x96 a\x08b"
        "<b>\x01</b>c \x81d \x85</p><pre>x\x08y\x1b[0m\n\x95 z</pre>"
    )
    assert texts(html) == [
        "“With any business, whether it’s McDonald’s or Microsoft” – abc d …",
        "xy[0m\n• z",
    ]


_PRINTED = st.text(
    st.sampled_from(
        list("ab ,\n\t\xa0\u4e2d")
        + [chr(c) for c in range(0x00, 0x20)]
        + [chr(c) for c in range(0x7F, 0xA0)]
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PRINTED, min_size=1, max_size=4))
def test_no_block_holds_a_control(parts: list[str]) -> None:
    """Whatever a page's text holds, its blocks hold no C0 control (but whitespace), no DEL
    and no C1 character."""
    html = page(
        "".join(
            f"<p>{p}<b>{q}</b></p><pre>{p}</pre>" for p, q in zip(parts, parts[::-1], strict=True)
        )
    )
    for block in segment(parse(html)):
        assert not any(
            (ord(ch) < 0x20 and ch not in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")
            or 0x7F <= ord(ch) < 0xA0
            for ch in block.text
        ), repr(block.text)
