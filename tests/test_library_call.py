"""The library call's defaults and bounds (`pipeline.clean_html`, `pipeline.clean.output_cap`):
what a user gets without options, how long a page's text may grow, and the HTTP header it
reads the charset from."""

from __future__ import annotations

from pipeline import clean_html
from pipeline.clean import OUTPUT_MIN, OUTPUT_PER_BYTE, clean_decoded, output_cap
from pipeline.config import Limits
from pipeline.html.decode import decode_html

PROSE = (
    "Съешь же ещё этих мягких французских булок, да выпей чаю. Городской совет во вторник "
    "утвердил бюджет на следующий год, и большая часть денег пойдёт на ремонт школ и дорог."
)
PAGE = f"<html><body><article><h1>Бюджет</h1><p>{PROSE}</p><p>{PROSE}</p></article></body></html>"


def test_the_output_cap_grows_with_the_page_within_its_bounds() -> None:
    unlimited = Limits(max_body_bytes=None)
    assert output_cap(10, unlimited) == OUTPUT_MIN  # a small page still gets the floor
    assert output_cap(10_000, unlimited) == OUTPUT_PER_BYTE * 10_000
    # The body cap bounds it too, never below the floor.
    assert output_cap(10**6, Limits(max_body_bytes=500_000)) == 500_000
    assert output_cap(10**6, Limits(max_body_bytes=100)) == OUTPUT_MIN
    assert output_cap(10_000, Limits(max_body_bytes=10**9)) == OUTPUT_PER_BYTE * 10_000


def test_defaults_write_markdown_and_leave_the_page_type_out() -> None:
    result = clean_html(PAGE)
    assert PROSE in result.text and PROSE in result.markdown
    assert result.page_type is None and result.page_type_prob is None
    assert clean_html(PAGE, markdown=False).markdown == ""
    assert clean_html(PAGE, classify_page=True).page_type is not None
    from_decoded = clean_decoded(decode_html(PAGE.encode()))
    assert from_decoded.page_type is None and PROSE in from_decoded.markdown


def test_the_charset_comes_from_the_content_type_header_in_any_case() -> None:
    body = PAGE.encode("koi8-r")
    for name in ("Content-Type", "content-type", "CONTENT-TYPE"):
        result = clean_html(body, http_headers={name: "text/html; charset=koi8-r"})
        assert (result.encoding, result.encoding_source) == ("koi8-r", "http"), name
        assert PROSE in result.text
