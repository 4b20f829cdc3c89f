"""JavaScript notices: a short block asking the reader to turn JavaScript on is never kept by the
default cleaner, in any language, and the page's notes say so; text that only mentions the
language stays."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.segment import parse, segment
from pipeline.jobconfig import JobConfig
from pipeline.rules import script_notice
from pipeline.run import clean_page
from pipeline.types import Block, RawPage, Rejected, Verdict
from tests.rules.guard_checks import assert_drops_exactly

# Notices as the dev pages write them (the page each comes from in brackets).
NOTICES = [
    "You need to enable JavaScript to run this app.",  # a single-page app's shell (WCXB 4577)
    "Please turn on JavaScript. Media requires JavaScript to play.",  # BBC (daniel en-0009)
    "Please enable JavaScript to view the comments powered by Disqus.",  # daniel en-0379
    "This slideshow requires JavaScript.",  # WCXB 0189
    "You must enable JavaScript to shop on IKEA.com",  # WCXB 0622
    "Your browser does not seem to support JavaScript. As a result, your viewing experience "
    "will be diminished, and you may not be able to execute some actions.",  # Discourse
    "Please download a browser that supports JavaScript, or enable it if it's disabled "
    "(i.e. NoScript).",  # Discourse
    "This forum requires Javascript to be enabled for posting content",  # magic-html for-058
    # Twitter (magic-html for-049)
    "我们检测到浏览器禁用了 JavaScript。请启用 JavaScript 或改用支持的浏览器来继续访问。",
    "現在JavaScriptが無効になっています。",  # Yahoo! JAPAN (ja-read-021)
    "JavaScript is disabled in your browser.",
    "JavaScript required",
    "JavaScript must be enabled to use this site.",
    "Bitte aktivieren Sie JavaScript, um diese Seite zu nutzen.",
    "Pour utiliser ce site, activez JavaScript dans votre navigateur.",
    "Para ver este contenido, habilita JavaScript.",
    "Włącz obsługę JavaScript w przeglądarce.",
    "Включите JavaScript в настройках браузера.",
]

# Content that names JavaScript, several of them kept content on the dev pages (in brackets).
CONTENT = [
    "These apps are built with web technologies like HTML, CSS, and JavaScript yet are not "
    "enclosed within a browser.",  # WCXB 0278
    "Functions provides varying levels of support for languages including C#, JavaScript, F#, "
    "Java, and Python.",  # WCXB 0702
    "Basic workflows require no coding, but having JavaScript or API knowledge helps when "
    "building advanced logic.",  # WCXB 2684
    "Please note that Anubis requires the use of modern JavaScript features that plugins like "
    "JShelter will disable.",  # WCXB 0551, which its reference keeps
    "A web app under this process is only fully interactive once JavaScript has fully completed "
    "its operations.",  # magic-html art-031
    "It contains CSS and JavaScript files that need to be fetched.",  # magic-html art-031
    "JavaScript remains the most widely used programming language in the world.",  # WCXB 4138
    "Learn JavaScript",
    "JavaScript is enabled by default in every modern browser.",
    "Copy this into your browser's JavaScript console:",  # MDN (WCXB 2856)
    "Die Bibliothek ist in JavaScript geschrieben und läuft im Browser.",
    "Please enable notifications to hear about new releases.",  # a notice, not about JavaScript
]


def page(body: str) -> str:
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


def blocks_of(html: str) -> list[Block]:
    return segment(parse(html.encode()), record_runs=True)


@pytest.mark.parametrize("text", NOTICES)
def test_notices_in_every_language_are_notices(text: str) -> None:
    assert script_notice.is_script_notice(text)


@pytest.mark.parametrize("text", CONTENT)
def test_text_that_only_mentions_javascript_is_not_a_notice(text: str) -> None:
    assert not script_notice.is_script_notice(text)


def at_bound(notice: str = "Please enable JavaScript.") -> str:
    """``notice`` after filler, exactly `script_notice.MAX_CHARS` characters in all."""
    return "x" * (script_notice.MAX_CHARS - len(notice) - 1) + " " + notice


def test_a_block_longer_than_the_bound_is_about_javascript_not_a_notice() -> None:
    # The bound the docs give: a notice is a sentence or two.
    assert script_notice.MAX_CHARS == 300
    assert len(at_bound()) == script_notice.MAX_CHARS
    assert script_notice.is_script_notice(at_bound())
    assert not script_notice.is_script_notice("x" + at_bound())
    # The guard reads the same bound.
    blocks = [
        Block(i, text, "p", "html.body.p", "p", False, len(text), 1, 0, 1, 0)
        for i, text in enumerate([at_bound(), "x" + at_bound()])
    ]
    out, _ = script_notice.guard(np.array([True, True]), blocks)
    assert out.tolist() == [False, True]


def test_a_notice_is_recognised_however_it_writes_the_name() -> None:
    assert script_notice.is_script_notice("Please enable JAVASCRIPT to continue.")
    assert script_notice.is_script_notice("Please enable Java Script to continue.")
    assert script_notice.is_script_notice("PLEASE ENABLE JAVA SCRIPT TO CONTINUE.")
    # ... and where it stands in the page's kept text, which the guard tests joined first.
    for name in ("JavaScript", "Javascript", "JAVASCRIPT", "Java Script", "JAVA SCRIPT"):
        blocks = blocks_of(page(f"<p>Learn more.</p><p>Please enable {name} to continue.</p>"))
        out, notes = script_notice.guard(np.array([True, True]), blocks)
        assert out.tolist() == [True, False] and notes == (script_notice.NOTICE_DROPPED,), name
    # Java alone is another thing.
    assert not script_notice.is_script_notice("Please enable Java to continue.")


def test_guard_drops_only_kept_notices_and_notes_it() -> None:
    article = "The council voted on Tuesday to keep the library open on Sundays through 2027."
    blocks = blocks_of(page(f"<p>{article}</p><noscript><p>{NOTICES[1]}</p></noscript>"))
    assert [b.text for b in blocks] == [article, NOTICES[1]]
    out, notes = script_notice.guard(np.array([True, True]), blocks)
    assert out.tolist() == [True, False]
    assert notes == (script_notice.NOTICE_DROPPED,)
    # Not kept: nothing to drop, nothing to say.
    keep = np.array([True, False])
    out, notes = script_notice.guard(keep, blocks)
    assert out is keep and notes == ()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(NOTICES[:4] + CONTENT[:4]), max_size=8), st.data())
def test_guard_only_ever_removes_notices(parts: list[str], data: st.DataObject) -> None:
    blocks = blocks_of(page("".join(f"<div>{p}</div>" for p in parts)))
    n = len(blocks)
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    out, notes = script_notice.guard(keep, blocks)
    assert_drops_exactly(keep, out, notes, blocks, NOTICES)


def test_a_long_run_of_near_notices_is_searched_quickly() -> None:
    # Every repetition in the pattern is bounded, and the text is cut at the bound first.
    text = ("please enable " * 20)[: script_notice.MAX_CHARS - 10] + "javascript"
    started = time.process_time()
    for _ in range(1000):
        script_notice.is_script_notice(text)
    assert time.process_time() - started < 5.0


def test_the_default_cleaner_drops_a_kept_notice_and_records_it(keep_long: str) -> None:
    article = "The council voted on Tuesday to keep the library open on Sundays through 2027."
    html = page(f"<p>{article}</p><noscript><div><p>{NOTICES[2]}</p></div></noscript>")
    result = clean_html(html, language="en", model=keep_long)
    kept = [lb.block.text for lb in result.blocks if lb.verdict is Verdict.GOOD]
    assert kept == [article]
    assert script_notice.NOTICE_DROPPED in result.notes
    assert "Disqus" not in result.text and "Disqus" not in (result.markdown or "")


SHELL = page(
    "<noscript>You need to enable JavaScript to run this app.</noscript><div id='root'></div>"
)


def test_a_shell_whose_only_text_is_the_notice_gives_no_text(keep_long: str) -> None:
    result = clean_html(SHELL, language="en", model=keep_long)
    assert [lb.verdict for lb in result.blocks] == [Verdict.BAD]
    assert result.text == ""
    assert script_notice.NOTICE_DROPPED in result.notes


def test_the_job_rejects_a_shell_and_says_why(tmp_path: Path) -> None:
    # The shipped model keeps the notice (WCXB 4577's text, whose reference is empty).
    raw = RawPage(
        warc_path="shell.warc.gz",
        record_id="<urn:uuid:00000000-0000-0000-0000-000000000001>",
        record_type="response",
        warc_offset=0,
        warc_length=100,
        url="https://shop.example/app",
        warc_date="2026-01-01T00:00:00Z",
        http_status=200,
        content_type="text/html",
        http_headers=(("Content-Type", "text/html; charset=utf-8"),),
        body=SHELL.encode(),
        truncated=False,
    )
    rejected = clean_page(raw, JobConfig(output=str(tmp_path)))
    assert isinstance(rejected, Rejected)
    assert rejected.reason == "no_good_blocks"
    assert "script_notice" in rejected.detail
