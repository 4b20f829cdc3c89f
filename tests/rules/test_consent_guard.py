"""Consent dialogs: kept blocks inside a cookie-consent platform's banner or preference centre
are dropped in every language, a page about cookies keeps its text, and the page says so."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.segment import parse, segment
from pipeline.learned.neighbours import NeighboursCleaner
from pipeline.rules import consent_guard
from pipeline.types import Block, Verdict
from tests.model_builders import stump

ARTICLE = [
    "The city council approved the new budget on Tuesday after a long debate that ran late "
    "into the evening, and most members voted for the administration's draft.",
    "Opposition members had asked for more money for public transport and for the libraries, "
    "which have cut their opening hours twice in three years.",
]
DIALOG = [
    "We value your privacy and the choices you make about your data",
    "Strictly Necessary Cookies are needed for the website to function and cannot be "
    "switched off in our systems.",
    "These cookies are set by a range of social media services that we have added to the "
    "site to enable you to share our content with your friends and networks.",
]
ABOUT_COOKIES = [
    "To access cookies you can use the cookies attribute of the request object, a dictionary "
    "of all the cookies the client transmits.",
    "Note that cookies are set on response objects: since you normally just return strings "
    "from the view functions, the framework converts them into a response object for you.",
]


def page(body: str, lang: str = "en") -> bytes:
    return (
        f'<html lang="{lang}"><head><title>Budget</title></head><body>{body}</body></html>'
    ).encode()


def article(paragraphs: list[str] = ARTICLE) -> str:
    text = "".join(f"<p>{t}</p>" for t in paragraphs)
    return f"<main><article><h1>Council approves the budget</h1>{text}</article></main>"


def onetrust(paragraphs: list[str] = DIALOG) -> str:
    """A OneTrust-like preference centre, hidden at the end of the body as the SDK writes it."""
    heading, *rest = paragraphs
    groups = "".join(
        f'<div class="ot-accordion-layout ot-cat-item"><p class="ot-category-desc">{t}</p></div>'
        for t in rest
    )
    return (
        '<div id="onetrust-consent-sdk"><div class="onetrust-pc-dark-filter ot-hide"></div>'
        '<div id="onetrust-pc-sdk" class="otPcCenter ot-hide" role="dialog" aria-modal="true">'
        f'<h2 id="ot-pc-title">{heading}</h2><section class="ot-sdk-row">{groups}</section>'
        "<button>Confirm My Choices</button></div></div>"
    )


def blocks_of(html: bytes) -> list[Block]:
    return segment(parse(html), record_runs=True)


def keep_all_model(tmp_path: Path) -> dict:
    """Cleaner parameters of a model that keeps every block longer than about 20 characters."""
    path = tmp_path / "keep-all.json"
    path.write_text(json.dumps({**stump(3.0, short=-4.0, long=4.0), "fallback_ratio": 0.0}))
    return {"model": str(path)}


def kept(result) -> list[str]:
    return [lb.block.text for lb in result.blocks if lb.verdict is Verdict.GOOD]


def test_a_onetrust_dialog_beside_an_article_is_dropped(tmp_path: Path):
    html = page(article() + onetrust())
    params = keep_all_model(tmp_path)
    off = clean_html(html, language="en", consent_guard=False, **params)
    assert set(DIALOG) <= set(kept(off))
    assert consent_guard.CONSENT_DROPPED not in off.notes
    on = clean_html(html, language="en", **params)
    assert consent_guard.CONSENT_DROPPED in on.notes
    assert set(ARTICLE) <= set(kept(on))
    assert not set(DIALOG) & set(kept(on))
    assert "Strictly Necessary" not in on.text and ARTICLE[0] in on.text


@pytest.mark.parametrize("lang", ["de", "ja", "pl", None])
def test_every_language_is_guarded(tmp_path: Path, lang: str | None):
    html = page(article() + onetrust(), lang=lang or "en")
    result = clean_html(html, language=lang, **keep_all_model(tmp_path))
    assert not set(DIALOG) & set(kept(result))
    assert set(ARTICLE) <= set(kept(result))


def cookiebot(paragraphs: list[str] = DIALOG) -> str:
    """A Cookiebot-like dialog: its ids and classes are single CamelCase words, so no class word
    the segmentation's cues know names it; the selector pass would find it by its id and role."""
    text = "".join(
        f'<div id="CybotCookiebotDialogBodyContentText{i}">{t}</div>'
        for i, t in enumerate(paragraphs)
    )
    return (
        '<div id="CybotCookiebotDialog" class="CybotEdge" role="dialog" aria-modal="true">'
        f'<div class="CybotCookiebotDialogContentWrapper">{text}</div></div>'
    )


def test_the_tree_is_searched_only_where_a_class_word_names_cookies_or_a_modal(tmp_path: Path):
    # Alone, the dialog gives the page no cue: the pass (0.1 ms a page if run on every page) is
    # not run and the model's answer stands. Shown in a theme's modal, it is found and dropped.
    alone = page(article() + cookiebot())
    assert not any(b.ancestor_cues & consent_guard._COOKIE_CUE for b in blocks_of(alone))
    result = clean_html(alone, language="de", **keep_all_model(tmp_path))
    assert consent_guard.CONSENT_DROPPED not in result.notes
    assert set(DIALOG) <= set(kept(result))

    shown = page(article() + f'<div class="modal">{cookiebot()}</div>')
    result = clean_html(shown, language="de", **keep_all_model(tmp_path))
    assert consent_guard.CONSENT_DROPPED in result.notes
    assert not set(DIALOG) & set(kept(result))
    assert set(ARTICLE) <= set(kept(result))


def test_a_dialog_is_named_by_its_labelling_heading():
    dialog = (
        '<div role="dialog" aria-labelledby="t1"><h2 id="t1">Paramètres des cookies</h2>'
        f"<p>{DIALOG[1]}</p></div>"
    )
    menu = (
        '<div role="dialog" aria-labelledby="t2"><h2 id="t2">Main menu</h2>'
        "<p>News, sport, weather and the rest of the site's sections.</p></div>"
    )
    # The label's text is all of its text, in whatever elements it sits.
    nested = dialog.replace("Paramètres des cookies", "<span>Paramètres</span> <b>des cookies</b>")
    for markup, expected in ((dialog, 1), (nested, 1), (menu, 0)):
        tree = parse(page(article() + markup))
        assert len(consent_guard.consent_containers(tree)) == expected


def test_a_page_about_cookies_keeps_its_text(tmp_path: Path):
    # Cookie words in the text, in ids and in classes that do not name a banner or dialog.
    body = (
        '<main><section id="cookies" class="cookies"><h2>Cookies</h2>'
        + "".join(f'<p class="cookie-doc">{t}</p>' for t in ABOUT_COOKIES)
        + "</section></main>"
        '<div class="cookie-recipe-card"><p>Chocolate chip cookies need butter, sugar, eggs, '
        "flour and a lot of chocolate.</p></div>"
    )
    result = clean_html(page(body), language="en", **keep_all_model(tmp_path))
    assert set(ABOUT_COOKIES) <= set(kept(result))
    assert consent_guard.CONSENT_DROPPED not in result.notes
    assert consent_guard.consent_containers(parse(page(body))) == []


def test_a_cookie_policy_keeps_the_embedded_cookie_list(tmp_path: Path):
    # OneTrust's and Cookiebot's policy widgets are the content of a policy page.
    body = article() + (
        '<div id="ot-sdk-cookie-policy"><p>'
        + DIALOG[1]
        + '</p></div><div id="CookieDeclaration"><p>'
        + DIALOG[2]
        + "</p></div>"
    )
    result = clean_html(page(body), language="en", **keep_all_model(tmp_path))
    assert set(DIALOG[1:]) <= set(kept(result))


def test_a_wrapper_around_the_whole_page_is_not_a_dialog(tmp_path: Path):
    # A class that a consent script sets on the page's wrapper (or the body) holds the article.
    body = f'<div class="cookie-consent">{article()}</div>'
    html = page(body).replace(b"<body>", b'<body class="cookie-banner">')
    result = clean_html(html, language="en", **keep_all_model(tmp_path))
    assert set(ARTICLE) <= set(kept(result))
    assert consent_guard.consent_containers(parse(html)) == []


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        ('<div id="CybotCookiebotDialog">', True),
        ('<div class="cky-consent-container cky-banner-bottom">', True),
        ('<div class="cmplz-cookiebanner cmplz-hidden">', True),
        ('<div id="qc-cmp2-ui" role="dialog" aria-label="qc-cmp2-ui">', True),
        ('<div id="cookieBanner">', True),
        ('<div class="site-x gdpr_notice">', True),
        ('<div class="consent-popup">', True),
        ('<div class="banner-cookies">', True),
        ('<div role="dialog" aria-label="Datenschutz-Einstellungen">', True),
        ('<div role="alertdialog" aria-labelledby="t"><h2 id="t">Prywatność</h2>', True),
        # aria-labelledby lists ids: the name may come from the second
        (
            '<div role="dialog" aria-labelledby="brand t"><span id="brand">Acme</span>'
            '<h2 id="t">Cookie settings</h2>',
            True,
        ),
        ('<section aria-modal="true" aria-label="クッキーの設定">', True),
        ('<div role="dialog" aria-label="Sign in to your account">', False),
        ('<div class="comment-form-cookies-consent">', False),
        ('<div class="cookies">', False),
        ('<div class="cookie-recipe">', False),
        ('<div class="cmp-container">', False),  # Adobe's components, not a consent platform
        ('<div class="cli-parent li-compact">', False),
        ('<div class="enableInlineConsent filterNonGdprEmbeds">', False),
    ],
)
def test_containers_are_named_by_platform_markup(markup: str, expected: bool):
    tree = parse(page(f"{article()}{markup}<p>Some text in the element.</p>"))
    found = consent_guard.consent_containers(tree)
    assert bool(found) is expected


def test_the_body_is_never_a_container():
    # A consent script's class on the body of a page with no main or article element.
    html = page(f"<p>{DIALOG[1]}</p>").replace(b"<body>", b'<body class="cookie-banner">')
    assert consent_guard.consent_containers(parse(html)) == []


def test_only_the_outermost_container_is_found():
    # OneTrust's preference centre is a platform element inside another: one container.
    found = consent_guard.consent_containers(parse(page(article() + onetrust())))
    assert [node.attributes.get("id") for node in found] == ["onetrust-consent-sdk"]


def test_a_dialog_the_model_did_not_keep_gets_no_note():
    # The site's notice above the article says what the dialog's heading says, so the dialog is
    # looked for, found and its blocks placed; but none of them was kept: nothing to drop,
    # nothing to say.
    html = page(f'<div class="notice"><p>{DIALOG[0]}</p></div>' + article() + onetrust())
    blocks = blocks_of(html)
    keep = np.zeros(len(blocks), dtype=bool)
    keep[: len(ARTICLE) + 2] = True  # the notice, the article's heading and paragraphs
    inside = consent_guard.consent_blocks(blocks, parse(html))
    assert inside and not keep[inside].any()
    out, notes = consent_guard.guard(keep, blocks, parse(html))
    assert notes == ()
    assert out.tolist() == keep.tolist()


def test_a_short_heading_far_below_the_article_is_placed_when_unique():
    # A script of over `comments._MAX_GAP` characters between the article and the dialog, as
    # pages have (the body's text holds it, the blocks do not): the dialog's short heading is
    # placed only because its text occurs once in the page.
    script = "<script>var config = {" + "'key': 'value', " * 400 + "};</script>"
    html = page(article() + script + onetrust(["Your privacy", *DIALOG[1:]]))
    blocks = blocks_of(html)
    inside = {blocks[i].text for i in consent_guard.consent_blocks(blocks, parse(html))}
    assert inside == {"Your privacy", *DIALOG[1:]}
    # The guard places it the same way.
    out, notes = consent_guard.guard(np.ones(len(blocks), dtype=bool), blocks, parse(html))
    assert notes == (consent_guard.CONSENT_DROPPED,)
    assert {b.text for b, k in zip(blocks, out.tolist(), strict=True) if not k} == inside


def test_a_page_that_is_only_a_consent_wall_keeps_it():
    html = page(onetrust())
    blocks = blocks_of(html)
    keep = np.array([b.text in DIALOG for b in blocks])
    out, notes = consent_guard.guard(keep, blocks, parse(html))
    assert notes == ()
    assert out.tolist() == keep.tolist()


def test_no_tree_no_guard():
    html = page(article() + onetrust())
    blocks = blocks_of(html)
    keep = np.ones(len(blocks), dtype=bool)
    out, notes = consent_guard.guard(keep, blocks, None)
    assert notes == () and out.all()


def test_consent_guard_parameter_is_recorded_only_when_off():
    assert "consent_guard" not in NeighboursCleaner().params()
    assert NeighboursCleaner(consent_guard=False).params() == {"consent_guard": False}
    with pytest.raises(ValueError, match="consent_guard must be true or false"):
        NeighboursCleaner(consent_guard="no")  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(keep=st.lists(st.booleans(), min_size=1), with_dialog=st.booleans())
def test_the_guard_only_drops_kept_dialog_blocks(keep: list[bool], with_dialog: bool):
    html = page(article() + (onetrust() if with_dialog else ""))
    blocks = blocks_of(html)
    before = np.resize(np.array(keep), len(blocks))
    after, notes = consent_guard.guard(before, blocks, parse(html))
    inside = np.zeros(len(blocks), dtype=bool)
    inside[consent_guard.consent_blocks(blocks, parse(html))] = True
    assert not (after & ~before).any()
    assert not ((before & ~after) & ~inside).any()
    if notes:
        assert notes == (consent_guard.CONSENT_DROPPED,) and after.any() and with_dialog
    else:
        assert after.tolist() == before.tolist()
        assert (
            not with_dialog
            or not before.any()
            or not (before & ~inside).any()
            or not (before & inside).any()
        )
