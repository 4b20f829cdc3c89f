"""A block asking the reader to fund the site is never content.

News sites, blogs and non-profits close their texts with an appeal for money: "Wenn Ihnen unser
Artikel gefallen hat: Unterstützen Sie diese Form des Journalismus.", "Wesprzyj nas darowizną lub
przekaż nam 1% podatku.", "Support CNX Software! Donate via cryptocurrencies, ...", "♥ DONATE
TODAY! ♥". They sit right under the article, in the text's own container, as short link-free
prose, so the model keeps some of them; the dev sets' references leave them out (WCXB's, and the
must-not snippets of multilingual-dev).

A kept block of at most `MAX_CHARS` characters is dropped when it makes such an appeal in English
or in the page's language (`is_support_appeal`; German, French, Spanish, Portuguese, Italian,
Dutch, Polish, Czech and Russian have theirs, `LANGUAGES`; a page whose language is not known is
searched for all of them): an imperative that opens a sentence and asks for support of the site
or its journalism ("Support us", "Please support independent journalism", "Unterstützen Sie
uns", "Soutenez-nous", "Sostieni il nostro giornalismo"), or for a donation ("Donate via ...",
"Make a donation", "Faites un don", "Jetzt spenden"); "please consider a donation / becoming a
supporter"; imperatives no statement uses ("Sostienici", "Apóyanos", "Wesprzyj nas", "Przekaż
1%", "Поддержите нас"); or a button's "donate now" when that is about all the block says.
An opening imperative is required because the same words inside a sentence are often what a
page says about itself ("... and donate today to help us bring lifelong joy ...", kept by WCXB
0136's reference; "Wir unterstützen Sie bei Ihrer Arbeit"). An appeal for membership alone
("Become a member") is not one: it is also how a club's page introduces itself. Nor is a request
to share the text ("If you enjoyed this article, the ultimate compliment is to share our work.",
kept by WCXB 0472's reference). Chinese and Japanese appeals are not matched: no dev page has one
to check the wording against.

The guard first looks for a few words every appeal holds (`holds_cue`: in English only
"support" and "dona"), in the page's short kept text as UTF-8 with ASCII letters lowered, and
searches only the blocks that hold one: the pass costs a page less than one percent of its
cleaning. Text in capitals of a non-Latin script ("ПОДДЕРЖИТЕ НАС") is therefore not searched.

Measured on every dev set with the shipped model (BENCHMARKS.md, "Support appeals"): two pages
lose, whose references keep an appeal as part of the text (a release post asking for donations,
WCXB 0573; an affiliate disclosure ending "Support our editorial work by supporting them!",
WCXB 4111).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.rules.short_kept import holding, lowered, short_kept
from pipeline.types import Block, block_column

# Appeals are a sentence or three; a longer block that asks for money says more than that.
MAX_CHARS = 400
# A block this short that says "donate now" anywhere is a button or a bar's link, not prose.
BUTTON_CHARS = 60

# The page note that says the guard dropped blocks the model kept.
APPEAL_DROPPED = "appeal_dropped"

# Where a sentence may open: after the end of one, a colon, a guillemet, a quote, a bullet or a
# line's end (and at the block's start). Not after "and": "... and donate today to help us ..."
# is a service page describing itself.
_BREAK = re.compile(r"[.!?:;…»\"“”•|\n]\s*")
# What may stand before an imperative where a sentence opens: an icon or a heart, a "please".
_LEAD = r"[^\w\n]*(?:please\s+|bitte\s+|s'il\s+vous\s+plaît,?\s+)?"
_PLEASE = ("please", "bitte", "s'il")
# What an appeal asks to support: the site, its people or its kind of journalism.
_OURS = (
    r"(?:us|our\s+(?:\S+\s+){0,2}?(?:work|journalism|reporting|mission|newsroom|site|website|"
    r"podcast|channel|writers?|team|magazine|newspaper|project|coverage|content)|"
    r"(?:independent|quality|local|nonprofit|non-profit|public[- ]interest)\s+"
    r"(?:journalism|media|news|reporting)|this\s+(?:site|website|blog|podcast|project|work))\b"
)


@dataclass(frozen=True)
class _Appeals:
    """One language's appeals: the words one of which each holds (``cues``, lower case), the
    appeals that open a sentence (`_BREAK`, `_LEAD`) as imperatives do, and those that may stand
    anywhere in one (words no statement uses), each opening with a word (the word boundary
    before it is checked in code, so that the search can skip to the word's first letters)."""

    cues: tuple[str, ...]
    opened: tuple[str, ...] = ()
    anywhere: tuple[str, ...] = ()


_BY_LANGUAGE = {
    # Two cues only: each is a pass over the page's text, on every English page.
    "en": _Appeals(
        ("support", "dona"),
        opened=(
            # "Support us", "Please support independent journalism", "Help support our work"
            rf"(?:help\s+)?support\s+{_OURS}",
            r"donate\s+(?:now|today|here|via|to\s+us|online|monthly|securely|what\s+you\s+can)\b",
            r"make\s+a\s+(?:\S+\s+)?donation\b",
            r"become\s+a\s+(?:\S+\s+)?supporter\b",
        ),
        anywhere=(
            # "please consider a one-off donation or becoming a regular supporter"
            r"consider\s+(?:(?:a|an|making\s+a)\s+(?:\S+\s+){0,2}?donation|donating|"
            r"supporting\s+(?:us|our|this)|becoming\s+a\s+(?:\S+\s+)?supporter)\b",
        ),
    ),
    "de": _Appeals(
        ("unterstütz", "spende", "förder"),
        opened=(
            # "Unterstützen Sie uns / diese Form des Journalismus" (not "Wir unterstützen Sie bei
            # Ihrer Arbeit", a service page's own offer), "Jetzt spenden"
            r"(?:bitte\s+)?unterstützen\s+sie\s+(?:\S+\s+){0,3}?(?:uns|unsere?[nmrs]?|"
            r"\w*journalismus|redaktion|arbeit)\b",
            r"(?:jetzt\s+)?(?:spenden\s+sie|spenden\b|unterstützer(?:in)?\s+werden|"
            r"werden\s+sie\s+(?:unterstützer|förderer|förderin|spender))",
        ),
    ),
    "fr": _Appeals(
        ("soutenez", "un don", "mécène"),
        opened=(
            # Not "vous soutenez ...", which states.
            r"soutenez(?:-nous|\s+(?:\S+\s+){0,2}?(?:journalisme|information|rédaction|travail|"
            r"média|presse|indépendance|site|projet))",
            r"(?:faites|faire)\s+un\s+don\b",
            r"devenez\s+(?:donateur|donatrice|mécène)",
        ),
    ),
    # "dona" (donación, dona ahora) is an English cue, which every page is searched for.
    "es": _Appeals(
        ("apoy", "apóy", "hazte"),
        opened=(
            # Not "el gobierno apoya la reforma".
            r"apoy[ae]\s+(?:el|nuestro|al)\s+(?:\S+\s+)?(?:periodismo|trabajo|proyecto|medio)",
            r"(?:haz|hacer)\s+(?:una|tu)\s+donaci[oó]n\b",
            r"dona\s+(?:ahora|hoy|aquí|aqui)\b",
        ),
        anywhere=(r"(?:apóyanos|apoyanos|apóyenos|hazte\s+(?:socio|socia|mecenas|donante))\b",),
    ),
    "pt": _Appeals(
        ("apoie", "doa", "doe "),
        opened=(
            r"apoie\s+(?:o\s+)?(?:nosso\s+)?(?:\S+\s+)?(?:jornalismo|trabalho|projeto)",
            r"(?:faça|fazer)\s+(?:uma|sua)\s+doa(?:ção|cao)\b",
            r"doe\s+(?:agora|hoje|aqui)\b",
        ),
        anywhere=(r"apoie-nos\b",),
    ),
    "it": _Appeals(
        ("sostien",),
        opened=(
            r"sostieni\s+(?:\S+\s+){0,2}?(?:giornalismo|informazione|lavoro|progetto|sito|"
            r"redazione)",
            r"(?:fai|fate)\s+una\s+donazione\b",
            r"dona\s+ora\b",
        ),
        anywhere=(r"sostienici\b",),
    ),
    "nl": _Appeals(
        ("steun", "doneer"),
        opened=(r"steun\s+(?:ons|onze|de\s+onafhankelijke)\b", r"doneer\s+(?:nu|vandaag)\b"),
    ),
    # Imperatives that no statement uses.
    "pl": _Appeals(
        ("wesprzyj", "przekaż"),
        anywhere=(
            r"wesprzyj(?:cie)?\s+(?:nas|nasz\w*|\w+\s+darowizn\w*)",
            r"przekaż\s+(?:nam\s+)?1(?:,5)?\s*%",
        ),
    ),
    "cs": _Appeals(("podpořte",), anywhere=(r"podpořte\s+(?:nás|naš\w*|nezávisl\w*)",)),
    # Without the first letter, which a capital makes another byte (see `drop_appeals`).
    "ru": _Appeals(
        ("оддержите", "ожертв"),
        anywhere=(r"поддержите\s+(?:нас|проект|редакцию|наш\w*|независим\w*)|пожертвуйте\b",),
    ),
}
# The languages whose appeals are known, for the docs and the tests.
LANGUAGES = tuple(_BY_LANGUAGE)


@dataclass(frozen=True)
class _Rule:
    """The appeals a page is searched for: English and its own language's."""

    cues: tuple[bytes, ...]  # as `pipeline.rules.short_kept.lowered` writes text
    opened: re.Pattern[str]
    anywhere: re.Pattern[str]


def _rule(*appeals: _Appeals) -> _Rule:
    # Every repetition is bounded, and the one inside another (`(?:\S+\s+){0,3}`) splits its
    # text one way only, so no search backtracks far. The patterns are lower case and searched
    # in lowered text: a case-blind search cost several times as much.
    opened = re.compile(_LEAD + f"(?:{'|'.join(p for a in appeals for p in a.opened)})")
    anywhere = re.compile("|".join(p for a in appeals for p in a.anywhere))
    cues = dict.fromkeys(cue.encode() for a in appeals for cue in a.cues)
    return _Rule(tuple(cues), opened, anywhere)


_ENGLISH = _BY_LANGUAGE["en"]
_RULES = {code: _rule(_ENGLISH, appeals) for code, appeals in _BY_LANGUAGE.items()}
# A page whose language is not known is searched for every language's appeals.
_EVERY = _rule(*_BY_LANGUAGE.values())
_BUTTON = re.compile(r"\bdonate\s+(?:now|today)\b")


def _rule_for(language: str | None) -> _Rule:
    # "und" is how `pipeline.lang` names a language it could not detect.
    if language is None or language == "und":
        return _EVERY
    return _RULES.get(language, _RULES["en"])


def is_support_appeal(text: str, language: str | None = None) -> bool:
    """Whether ``text`` asks the reader to fund the site, in English or in ``language`` (None:
    in any language the rule knows; see the module's docstring)."""
    return len(text) <= MAX_CHARS and _is_appeal(text.lower(), _rule_for(language))


def _is_appeal(text: str, rule: _Rule) -> bool:
    # The imperatives are tried where a sentence opens (a dozen places in a block), not at every
    # character: a search for them from each cost several times as much.
    if rule.opened.match(text) is not None:
        return True
    for end in _BREAK.finditer(text):
        if rule.opened.match(text, end.end()) is not None:
            return True
    for word in _PLEASE:
        at = text.find(word)
        while at >= 0:
            if _starts_word(text, at) and rule.opened.match(text, at) is not None:
                return True
            at = text.find(word, at + 1)
    for found in rule.anywhere.finditer(text):
        if _starts_word(text, found.start()):
            return True
    return len(text) <= BUTTON_CHARS and _BUTTON.search(text) is not None


def _starts_word(text: str, at: int) -> bool:
    return at == 0 or not text[at - 1].isalnum()


def guard(
    keep: np.ndarray, blocks: Sequence[Block], language: str | None = None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without the kept blocks that are appeals for support in English or the page's
    ``language``, and the page note when it dropped any."""
    return drop_appeals(keep, short_kept(keep, block_column(blocks, "text"), MAX_CHARS), language)


def drop_appeals(
    keep: np.ndarray,
    short: Sequence[tuple[int, str]],
    language: str | None = None,
    data: bytes | None = None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """`guard` on the kept blocks ``short`` (`pipeline.rules.short_kept.short_kept`'s list, of
    this bound or a larger one) and their `pipeline.rules.short_kept.lowered` text ``data`` (None:
    written here), which the page rules build once for the guards that read them."""
    rule = _rule_for(language)
    if data is None:
        data = lowered(short)
    drop = [i for i, text in holding(short, data, rule.cues) if is_support_appeal(text, language)]
    if not drop:
        return keep, ()
    out = keep.copy()
    out[drop] = False
    return out, (APPEAL_DROPPED,)


def holds_cue(text: str, language: str | None = None) -> bool:
    """Whether ``text`` holds a word the guard looks for before it searches for an appeal in
    English or ``language``: a block without one is not searched."""
    data = lowered([(0, text)])
    return any(cue in data for cue in _rule_for(language).cues)
