"""Appeals for support: a short block asking the reader to fund the site is never kept by the
default cleaner, in the languages the rule knows, and the page's notes say so; text that uses the
same words to say something else stays."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.segment import parse, segment
from pipeline.rules import script_notice, sequence, support_appeal
from pipeline.types import Block, Verdict
from tests.rules.guard_checks import assert_drops_exactly

# Appeals as the dev pages write them (the page each comes from in brackets), then as others do,
# each with its page's language.
APPEALS = [
    # multilingual-dev de-traf-060, a must-not snippet the model kept
    ("Wenn Ihnen unser Artikel gefallen hat: Unterstützen Sie diese Form des Journalismus.", "de"),
    # pl-traf-019, likewise: a promotional box whose last sentence asks for a donation
    (
        "Czytasz właśnie nowy rodzaj materiału na naszym portalu. W krótki sposób informujemy Cię "
        "o tym, co ważne z perspektywy naszych priorytetów. Wesprzyj nas darowizną lub przekaż "
        "nam 1% podatku.",
        "pl",
    ),
    # WCXB 0421
    (
        "Support CNX Software! Donate via cryptocurrencies, become a Patron on Patreon, or "
        "purchase goods on Amazon or Aliexpress.",
        "en",
    ),
    # WCXB 0418 (363 characters: under the bound)
    (
        "Playful Void is a production of Idle Cartulary. If you liked this article, please "
        "consider liking, sharing, and subscribing to the Idle Digest Newsletter. If you want to "
        "support Idle Cartulary continuing to provide Bathtub Reviews, I Read Reviews, and "
        "Dungeon Regular, please consider a one-off donation or becoming a regular supporter of "
        "Idle Cartulary on Ko-fi.",
        "en",
    ),
    ("♥ DONATE TODAY! ♥", "en"),  # WCXB 2102
    ("esk8.news esk8 calc donate now", "en"),  # WCXB 4278: a bar's links, one block
    # WCXB 0462
    ("Support our mission to keep content open and free by engaging with theCUBE community.", "en"),
    # magic-html art-005
    (
        "But we can't do it without your help. Reader funding is one of the key ways we support "
        "our newsroom. Would you consider making a donation to help fund our news during this "
        "critical time?",
        "en",
    ),
    ("Unterstützen Sie uns mit Ihrem Beitrag", "de"),  # de-traf-060
    ("Unterstützen Sie Qualitätsjournalismus und erhalten Sie Zugriff auf alle Inhalte.", "de"),
    ("Soutenez-nous", "fr"),  # fr-traf-018
    ("Sostieni il nostro giornalismo.", "it"),  # it-merc-003
    ("Rifiuta e Sostienici", "it"),  # it-merc-003
    ("Wesprzyj nas", "pl"),  # pl-traf-019
    ("Make a Donation", "en"),  # WCXB 0136
    # WCXB 4125
    ("Help us transform patient care and perform lifesaving surgeries. Donate today", "en"),
    ("Please support independent journalism.", "en"),
    ("Become a supporter", "en"),
    ("Jetzt spenden", "de"),
    ("Faites un don pour soutenir notre rédaction.", "fr"),
    ("Apoya el periodismo independiente: hazte socio.", "es"),
    ("Apoie o jornalismo independente. Faça uma doação.", "pt"),
    ("Steun ons werk", "nl"),
    # One for each pattern and cue of each language alone.
    ("If you value what we do, please support us.", "en"),  # "please" inside a sentence
    ("Wenn Sie können, bitte unterstützen Sie uns.", "de"),  # "bitte" inside one
    ("Werden Sie Förderer", "de"),
    ("Si vous le pouvez, s'il vous plaît, faites un don.", "fr"),  # "s'il vous plaît" inside
    ("Soutenez notre journalisme", "fr"),
    ("Devenez mécène", "fr"),
    ("Devenez donateur", "fr"),
    ("Apoya el periodismo independiente.", "es"),
    ("Haz una donación", "es"),
    ("Dona ahora", "es"),
    ("Apóyanos", "es"),
    ("Hazte socio", "es"),
    ("Apoie o jornalismo independente.", "pt"),
    ("Faça uma doação", "pt"),
    ("Doe agora", "pt"),
    ("Apoie-nos", "pt"),
    ("Fai una donazione", "it"),
    ("Dona ora", "it"),
    ("Doneer nu", "nl"),
    ("Przekaż 1,5% podatku", "pl"),
    ("Podpořte nás", "cs"),
    ("Поддержите нас!", "ru"),
    ("Пожертвуйте на развитие проекта", "ru"),
]
TEXTS = [text for text, _ in APPEALS]

# Text that uses an appeal's words to say something else, some of them kept content on the dev
# pages (in brackets).
CONTENT = [
    # WCXB 0472, kept by its reference: a request to share, not to fund
    "If you enjoyed this article, the ultimate compliment is to share our work.",
    # WCXB 0136, kept by its reference: a service page saying what it is, "donate" mid-sentence
    "At Levine Music, our core values—excellence and opportunity—infuse everything we do. Learn "
    "more about our program areas and upcoming performances, and donate today to help us bring "
    "lifelong joy and inspiration through music!",
    "Become a Member",  # a club's page introducing itself as much as an appeal
    "Support Vector Machines",
    "Customer Support",
    "We support independent journalism through grants to local newsrooms.",
    "Wir unterstützen Sie bei Ihrer Arbeit.",  # a service's own offer
    "Die Stiftung will die Redaktion nicht unterstützen.",
    "El gobierno apoya la reforma del sistema de pensiones.",
    "Vous soutenez le projet depuis le début.",
    "The museum received a gift of 400 paintings.",
    "Donations to the fund rose by a third last year.",
    "She gave the mayor a coffee mug.",
    "Please note that the office is closed on Mondays.",  # a "please" that asks for nothing
]


def page(body: str) -> str:
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


def blocks_of(html: str) -> list[Block]:
    return segment(parse(html.encode()), record_runs=True)


@pytest.mark.parametrize(("text", "language"), APPEALS)
def test_appeals_are_appeals_in_their_language_and_any(text: str, language: str) -> None:
    assert language in support_appeal.LANGUAGES
    assert support_appeal.is_support_appeal(text, language)
    # A page whose language is not known is searched for every language's appeals.
    assert support_appeal.is_support_appeal(text)
    assert support_appeal.is_support_appeal(text, "und")


@pytest.mark.parametrize("text", CONTENT)
def test_text_that_uses_the_words_for_something_else_is_not_an_appeal(text: str) -> None:
    assert not support_appeal.is_support_appeal(text)


@pytest.mark.parametrize(("text", "language"), APPEALS)
def test_every_appeal_holds_a_cue(text: str, language: str) -> None:
    # The guard searches only the blocks that hold a cue: an appeal without one would pass.
    assert support_appeal.holds_cue(text, language)
    assert support_appeal.holds_cue(text)


def test_a_page_is_searched_for_english_and_its_own_language() -> None:
    german = "Unterstützen Sie uns mit Ihrem Beitrag"
    assert support_appeal.is_support_appeal(german, "de")
    assert not support_appeal.is_support_appeal(german, "fr")
    assert not support_appeal.is_support_appeal(german, "en")
    assert not support_appeal.is_support_appeal(german, "ja")  # a language without a list
    english = "Please support independent journalism."
    for language in ("en", "de", "ja", None):
        assert support_appeal.is_support_appeal(english, language), language
    # The guard follows the page's language the same way.
    blocks = blocks_of(page(f"<p>{german}</p><p>{english}</p>"))
    both = np.array([True, True])
    assert support_appeal.guard(both, blocks, "de")[0].tolist() == [False, False]
    assert support_appeal.guard(both, blocks, "fr")[0].tolist() == [True, False]


def at_bound(appeal: str = "Please support our journalism.") -> str:
    """``appeal`` after filler, exactly `support_appeal.MAX_CHARS` characters in all."""
    return "x" * (support_appeal.MAX_CHARS - len(appeal) - 1) + " " + appeal


def test_a_block_longer_than_the_bound_says_more_than_an_appeal() -> None:
    # The bound the docs give: an appeal is a sentence or three.
    assert support_appeal.MAX_CHARS == 400
    assert len(at_bound()) == support_appeal.MAX_CHARS
    assert support_appeal.is_support_appeal(at_bound())
    assert not support_appeal.is_support_appeal("x" + at_bound())
    # The guard reads the same bound.
    blocks = [
        Block(i, text, "p", "html.body.p", "p", False, len(text), 1, 0, 1, 0)
        for i, text in enumerate([at_bound(), "x" + at_bound()])
    ]
    out, _ = support_appeal.guard(np.array([True, True]), blocks)
    assert out.tolist() == [False, True]


def test_a_button_says_donate_now_anywhere_prose_only_where_a_sentence_opens() -> None:
    button = "Our shop · Calculator · donate now"
    assert len(button) <= support_appeal.BUTTON_CHARS
    assert support_appeal.is_support_appeal(button)
    prose = "Our shop has new stock every week, so come and see, or donate now to help."
    assert len(prose) > support_appeal.BUTTON_CHARS
    assert not support_appeal.is_support_appeal(prose)
    # The same words opening the sentence are an appeal at any length.
    opened = "Our shop has new stock every week. Donate now to help."
    assert support_appeal.is_support_appeal(opened)


def test_a_button_is_at_most_its_bound() -> None:
    # "donate now" where no sentence opens: an appeal only in a block of at most 60 characters.
    assert support_appeal.BUTTON_CHARS == 60
    button = "Shop, tickets and news for the members, or donate now"
    padded = button.replace(", or", "," + " " * (60 - len(button)) + " or")
    assert len(padded) == 60
    assert support_appeal.is_support_appeal(padded)
    assert not support_appeal.is_support_appeal("x" + padded)


def test_the_note_is_the_documented_name() -> None:
    assert support_appeal.APPEAL_DROPPED == "appeal_dropped"


def test_a_text_the_parser_would_not_give_is_read_without_error() -> None:
    # NUL, which the parser never leaves in a text, separates the texts in the guard's search:
    # one inside a text only shifts which blocks are searched (here past the last block: the
    # second appeal is missed), and a lone surrogate is encoded as it stands.
    appeal = "Please support our journalism."
    texts = [appeal + "\ud800", "Read more\0 of this. " + appeal]
    blocks = [Block(i, t, "p", "p", "p", False, len(t), 1, 0, 1, 0) for i, t in enumerate(texts)]
    out, notes = support_appeal.guard(np.ones(2, bool), blocks)
    assert out.tolist() == [False, True] and notes == (support_appeal.APPEAL_DROPPED,)


def test_guard_drops_only_kept_appeals_and_notes_it() -> None:
    article = "The council voted on Tuesday to keep the library open on Sundays through 2027."
    blocks = blocks_of(page(f"<p>{article}</p><p>{TEXTS[0]}</p><p>{CONTENT[0]}</p>"))
    assert [b.text for b in blocks] == [article, TEXTS[0], CONTENT[0]]
    out, notes = support_appeal.guard(np.array([True, True, True]), blocks)
    assert out.tolist() == [True, False, True]
    assert notes == (support_appeal.APPEAL_DROPPED,)
    # Not kept: nothing to drop, nothing to say.
    keep = np.array([True, False, True])
    out, notes = support_appeal.guard(keep, blocks)
    assert out is keep and notes == ()


def test_an_appeal_is_found_in_any_case_and_wherever_it_stands() -> None:
    for text in ("PLEASE SUPPORT OUR JOURNALISM.", "please support our journalism."):
        blocks = blocks_of(page(f"<p>Read on.</p><p>Thanks for reading!</p><p>{text}</p>"))
        out, notes = support_appeal.guard(np.array([True, True, True]), blocks)
        assert out.tolist() == [True, True, False] and notes, text


def test_the_page_rules_drop_a_notice_and_an_appeal_from_the_one_list() -> None:
    # The two guards read one list of short kept blocks, and each drops its own.
    article = "The council voted on Tuesday to keep the library open on Sundays through 2027."
    notice = "Please enable JavaScript to view the comments."
    appeal = "Please support independent journalism."
    blocks = blocks_of(page(f"<p>{article}</p><p>{notice}</p><p>{appeal}</p><p>{article}</p>"))
    off = dict(link_guard=False, lead=False, lists=False, teasers=False, consent=False)
    off.update(code=False, list_items=False, title=False)
    keep, notes = sequence.guarded(np.ones(4, bool), np.full(4, 0.9), blocks, None, "en", **off)
    assert keep.tolist() == [True, False, False, True]
    assert notes == (script_notice.NOTICE_DROPPED, support_appeal.APPEAL_DROPPED)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(TEXTS[:8] + CONTENT[:6]), max_size=8), st.data())
def test_guard_only_ever_removes_appeals(parts: list[str], data: st.DataObject) -> None:
    blocks = blocks_of(page("".join(f"<div>{p}</div>" for p in parts)))
    n = len(blocks)
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    out, notes = support_appeal.guard(keep, blocks)
    assert_drops_exactly(keep, out, notes, blocks, TEXTS)


def test_a_long_run_of_near_appeals_is_searched_quickly() -> None:
    # Every repetition in the patterns is bounded, and the text is cut at the bound first.
    text = ("please support our " * 30)[: support_appeal.MAX_CHARS - 10] + "journalism"
    started = time.process_time()
    for _ in range(1000):
        support_appeal.is_support_appeal(text)
    assert time.process_time() - started < 5.0


def test_the_default_cleaner_drops_a_kept_appeal_and_records_it(keep_long: str) -> None:
    article = (
        "Der Stadtrat hat am Dienstag beschlossen, die Bibliothek auch sonntags bis 2027 "
        "geöffnet zu halten."
    )
    html = page(f"<article><p>{article}</p><p>{TEXTS[0]}</p></article>")
    result = clean_html(html, language="de", model=keep_long)
    kept = [lb.block.text for lb in result.blocks if lb.verdict is Verdict.GOOD]
    assert kept == [article]
    assert support_appeal.APPEAL_DROPPED in result.notes
    assert "Unterstützen" not in result.text and "Unterstützen" not in (result.markdown or "")
