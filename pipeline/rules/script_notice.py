"""A block that tells the reader to turn JavaScript on is never content.

Pages write a notice for browsers without JavaScript, usually inside ``<noscript>``, which the
walk keeps (a forum such as Discourse serves its whole server-rendered text there): "You need to
enable JavaScript to run this app." (the only text of a single-page app's shell), "Please turn on
JavaScript. Media requires JavaScript to play." (under every BBC video), "This slideshow requires
JavaScript.", Disqus's "Please enable JavaScript to view the comments", Discourse's "Your browser
does not seem to support JavaScript", Twitter's Chinese "请启用 JavaScript". A browser with
JavaScript on never shows them, and they are short link-free sentences, so the model often keeps
them.

A kept block of at most `MAX_CHARS` characters is dropped when a sentence of it names JavaScript
in the way only such a notice does (`is_script_notice`): in English an imperative to enable it
("please enable", "you must turn on ... JavaScript"), JavaScript said to be disabled, required or
unsupported by the browser, a block that ends in "requires JavaScript"; in other languages
JavaScript and a notice's word (enable, disable, require: `aktivieren Sie`, `désactivé`,
`włącz`, `включите`, `启用`, `無効`, ...) within one sentence. A sentence that only mentions the
language ("written in HTML, CSS and JavaScript", "npm hosts JavaScript packages") or explains what
a framework needs is not one: on the dev sets no kept block of content matches. When the notice
is all a page kept, the page keeps nothing (a `no_good_blocks` rejection in the job): a shell
that shows only that sentence has no text to give.

Measured on every dev set with the shipped model (BENCHMARKS.md, "JavaScript notices"): every
page it changes on WCXB, multilingual-dev and magic-html gains or stays; on daniel, whose
references keep the BBC's line on 2 of its 6 pages, the mean moves by less than 0.0001.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from pipeline.rules.short_kept import holding, lowered, short_kept
from pipeline.types import Block, block_column

# Notices are a sentence or two; a longer block that names JavaScript is about it.
MAX_CHARS = 300

# The page note that says the guard dropped blocks the model kept.
NOTICE_DROPPED = "script_notice"

_JS = r"java\s?script"
# English notices, each bounded to one sentence.
_ENGLISH = (
    # "Please enable JavaScript", "You must turn on JavaScript", "you will need to re-enable it"
    rf"\b(?:please|you\s+(?:must|need\s+to|have\s+to|should|will\s+need\s+to|may\s+need\s+to))"
    rf"\s+(?:\w+\s+){{0,2}}?(?:enable|turn\s+on|activate|allow|switch\s+on|re-?enable)\b"
    rf"[^.!?]{{0,30}}{_JS}",
    # "JavaScript is disabled" (but "JavaScript is enabled by default" is a statement)
    rf"{_JS}\s+(?:is|are|seems\s+to\s+be|appears\s+to\s+be|has\s+been)\s+(?:currently\s+)?"
    rf"(?:disabled|turned\s+off|not\s+enabled|switched\s+off|blocked|unavailable|not\s+available)",
    # "JavaScript must be enabled"
    rf"{_JS}\s+(?:must|needs\s+to|should)\s+be\s+(?:enabled|turned\s+on|activated|allowed)",
    # "This slideshow requires JavaScript.", "Media requires JavaScript to play."
    rf"\b(?:requires?|needs?)\s+{_JS}(?:\s+to\s+[^.!?]{{0,40}})?\s*[.!]?\s*$",
    # "This forum requires JavaScript to be enabled ..."
    rf"\b(?:requires?|needs?)\s+{_JS}\s+(?:to\s+be\s+)?(?:enabled|turned\s+on|activated)",
    # "Enable JavaScript to view the comments", "turn on JavaScript in your browser"
    rf"\b(?:enable|turn\s+on|activate)\s+{_JS}\s+(?:to\s+(?:view|see|use|run|watch|play|read|"
    rf"continue|comment|access|load|display|shop)|in\s+your\s+browser|and\s+(?:refresh|reload|try))",
    # "Your browser does not seem to support JavaScript"
    rf"\bbrowser\s+(?:does\s*n[o']t|doesn't|did\s*n[o']t|may\s+not|cannot|can't)\s+"
    rf"(?:seem\s+to\s+)?support\s+{_JS}",
    rf"\b(?:download|use|switch\s+to|upgrade\s+to)\s+a\s+browser\s+that\s+supports\s+{_JS}",
    # A notice's heading: "JavaScript required", "JavaScript disabled"
    rf"\b{_JS}\s+(?:required|disabled|not\s+(?:enabled|available|supported))\b",
)
# Other languages' words for enabling, disabling and requiring it, as such notices say them.
_NOTICE_WORDS = (
    r"aktivieren\s+sie|bitte\s+aktivier|deaktiviert|ausgeschaltet|einschalten|aktiviert\s+sein|"
    r"activez|activer\s+javascript|désactivé|est\s+requis|nécessite|"
    r"habilita|deshabilitad|desactivad|requiere|activa\s+javascript|actívalo|ativ[ae]\s+o|"
    r"desativad|requer|"
    r"abilita|disabilitat|richiede|attiva\s+javascript|"
    r"włącz|wyłączon|wymaga|obsługi\s+javascript|"
    r"включите|отключен|выключен|требуется|необходимо\s+включить|"
    r"inschakel|uitgeschakeld|vereist|"
    r"povolte|zapněte|vypnut|vyžaduje|"
    r"etkinleştir|devre\s+dışı|"
    r"ενεργοποι|απενεργοποι|"
    r"aktivera|aktiver|inaktiverat|deaktiveret|kräver|kræver|krever|"
    r"启用|禁用|开启|啟用|停用|開啟|を有効|が無効|無効になって|활성화|비활성"
)
_SAME_SENTENCE = r"[^.!?。！？\n]{0,40}"
_OTHER = rf"(?:{_NOTICE_WORDS}){_SAME_SENTENCE}{_JS}|{_JS}{_SAME_SENTENCE}(?:{_NOTICE_WORDS})"
# Every repetition is bounded and none nests another, so a search is linear in the text.
_NOTICE = re.compile("|".join((*_ENGLISH, _OTHER)), re.IGNORECASE)
_CUES = (b"avas", b"ava s")


def is_script_notice(text: str) -> bool:
    """Whether ``text`` is a notice asking for JavaScript (see the module's docstring)."""
    return len(text) <= MAX_CHARS and _names_javascript(text) and _NOTICE.search(text) is not None


def _names_javascript(text: str) -> bool:
    """Whether ``text`` may name JavaScript: "ava" before an "s" or " s" of either case (the
    name as pages write it, which tells it from "Java" and "available"), or "AVAS": three passes
    of substring search, where lowering the text first cost several times as much."""
    at = text.find("ava")
    while at >= 0:
        after = text[at + 3 : at + 5]
        if after[:1] in ("s", "S") or after in (" s", " S"):
            return True
        at = text.find("ava", at + 3)
    return "AVAS" in text or "AVA S" in text


def guard(keep: np.ndarray, blocks: Sequence[Block]) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without the kept blocks that are JavaScript notices, and the page note when it
    dropped any."""
    return drop_notices(keep, short_kept(keep, block_column(blocks, "text"), MAX_CHARS))


def drop_notices(
    keep: np.ndarray, short: Sequence[tuple[int, str]], data: bytes | None = None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """`guard` on the kept blocks ``short`` (`pipeline.rules.short_kept.short_kept`'s list, of
    this bound or a larger one) and their `pipeline.rules.short_kept.lowered` text ``data`` (None:
    written here), which the page rules build once for the guards that read them."""
    if data is None:
        data = lowered(short)
    # Only the texts that may name JavaScript are tested: lowered, every one that
    # `_names_javascript` finds holds one of `_CUES` (as a few more do), and almost no page has
    # one.
    drop = [i for i, text in holding(short, data, _CUES) if is_script_notice(text)]
    if not drop:
        return keep, ()
    out = keep.copy()
    out[drop] = False
    return out, (NOTICE_DROPPED,)
