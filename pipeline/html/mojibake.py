"""Mojibake inside a page: UTF-8 that was read as Windows-1252 somewhere upstream, in some of
its text only ("isnâ€™t" for "isn’t", "82.0Â° F", "ktÃ³rymi" for "którymi").

`pipeline.html.decode` undoes a page encoded twice as a whole; this is the rest: a page whose
template is right and whose articles came through a feed, a database or an editor that got it
wrong, often as entities (WCXB dev 2362 writes ``isn&acirc;&euro;&trade;t``, which only the
parsed text shows). OpenWebMath and the large crawl corpora run ftfy over their text for this
reason; NeMo Curator and datatrove offer it as a step.

Every text node the segmentation walks read is tested here first, with a test that is cheap and
rarely wrong, and only a node that passes it is handed to ftfy (`ftfy.fix_encoding`), whose
judgement decides; ftfy over whole pages costs too much (BENCHMARKS.md, "Mojibake inside pages
(stop 78)"). The test: a character that begins
a UTF-8 sequence when read as Windows-1252 (U+00C2-U+00F4 but "ß") directly followed by as many
characters as that sequence's continuation bytes would make ("Ã" then one of U+0080-U+00BF or
the 27 characters Windows-1252 puts at 0x80-0x9F). Some pairs are written on purpose:
"NESCAFÉ®", "été »" (with a no-break space), "2 × 3" (likewise), so after a lead other than "Â"
and "Ã" (the two that Latin-1 mojibake begins with) the first continuation may not be a
no-break space, and after a two-byte lead not a symbol either (® © ° « »; "Ä™" is "ę").

What ftfy then decides: it undoes what is provably mojibake ("Ð¡Ð»Ð¾Ð¹" is "Слой", a C1
character inside a sequence too) and leaves text it would make worse ("JOSÉ’S", "Fuß“"). A
genuine mention of mojibake ("I saw "Ã¤" instead of "ä"") is repaired too, as ftfy does.
"""

from __future__ import annotations

from collections.abc import Iterator

# Kinds of continuation characters.
PLAIN = 1
SYMBOL = 2  # written after some letters on purpose
NBSP = 4  # likewise, French and typographic spacing

_SYMBOLS = frozenset("®©°«»")  # not ™: "Ä™" is Polish "ę"


def _continuation_kinds() -> dict[int, int]:
    kinds: dict[int, int] = {}
    for byte in range(0x80, 0xC0):
        # Both readings: Windows-1252's character, and Latin-1's (a C1 control) where a decoder
        # let the byte through.
        for ch in {chr(byte), bytes([byte]).decode("cp1252", "ignore")} - {""}:
            kinds[ord(ch)] = NBSP if ch == "\xa0" else SYMBOL if ch in _SYMBOLS else PLAIN
    return kinds


CONTINUATION: dict[int, int] = _continuation_kinds()
"""Code point -> kind, for every character a continuation byte (0x80-0xBF) becomes when read as
Windows-1252 or Latin-1."""


ANY = PLAIN | SYMBOL | NBSP
FIRST_LEAD = 0xC2


def _leads() -> tuple[tuple[int, int], ...]:
    leads = []
    for code in range(FIRST_LEAD, 0xF5):
        if code == 0xDF:  # "ß“" is German
            leads.append((0, 0))
        elif code <= 0xC3:
            leads.append((1, ANY))
        elif code < 0xE0:
            leads.append((1, PLAIN))
        else:
            leads.append((2 if code < 0xF0 else 3, PLAIN | SYMBOL))
    return tuple(leads)


LEADS: tuple[tuple[int, int], ...] = _leads()
"""For U+00C2 + i: (the continuations the UTF-8 sequence its byte starts needs, the kinds its
first one may be); (0, 0): it starts no mojibake sequence."""
LAST_LEAD = FIRST_LEAD + len(LEADS) - 1


def suspect_at(text: str) -> Iterator[tuple[int, int]]:
    """The (start, end) of every stretch of ``text`` that passes the module's test, in order.

    The segmentation walks restate this scan in their compiled loops (`pipeline.html.walk`,
    `pipeline.html.lexbor_walk`); this is its definition."""
    need = accepts = 0
    start = 0
    for i, ch in enumerate(text):
        code = ord(ch)
        if need:
            kind = CONTINUATION.get(code, 0)
            if kind and kind & accepts:
                need -= 1
                accepts = ANY
                if not need:
                    yield start, i + 1
                continue
        need, accepts = LEADS[code - FIRST_LEAD] if FIRST_LEAD <= code <= LAST_LEAD else (0, 0)
        start = i


def holds_mojibake(text: str) -> bool:
    """Whether ``text`` passes the module's test anywhere."""
    return next(suspect_at(text), None) is not None


# Characters either side of a suspect stretch that ftfy sees with it, at most, in whole words:
# "siÄ™" alone could be "si" and a trade mark, "zapoznaÄ‡ siÄ™ z" is plainly Polish misread.
_WINDOW = 48


def repair(text: str) -> str:
    """``text`` with the mojibake ftfy finds around each suspect stretch undone (the same str
    when there is none). Each stretch is judged with the whole words around it within `_WINDOW`
    characters, so a long node costs little and a few words decide, not a whole paragraph."""
    windows: list[list[int]] = []
    for start, end in suspect_at(text):
        left, right = _widen_left(text, start), _widen_right(text, end)
        if windows and left <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], right)
        else:
            windows.append([left, right])
    if not windows:
        return text
    from ftfy import fix_encoding  # a page with mojibake is rare: most workers never import it

    pieces: list[str] = []
    at = 0
    for start, end in windows:
        pieces.append(text[at:start])
        pieces.append(fix_encoding(text[start:end]))
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def _widen_left(text: str, start: int) -> int:
    left = max(0, start - _WINDOW)
    if left:
        # from the first word that starts within reach
        for i in range(left, start):
            if text[i].isspace():
                return i + 1
    return left


def _widen_right(text: str, end: int) -> int:
    right = min(len(text), end + _WINDOW)
    if right < len(text):
        for i in range(right, end, -1):
            if text[i - 1].isspace():
                return i - 1
    return right
