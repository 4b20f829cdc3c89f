"""Control characters in a page's text, and what becomes of them.

C0 (but tab, line feed, vertical tab, form feed, carriage return and U+001C-U+001F, which are
whitespace) and DEL: a browser draws nothing for them, and in a corpus they are noise that breaks
tools (a NUL ends a C string, XML refuses them all), so they are dropped: "a\\x08b" is "ab".

C1 (U+0080-U+009F) on the web is nearly always Windows-1252 read as Latin-1 somewhere upstream
("it\\x92s" for "it’s"; daniel's en-0172: "\\x93With any business, whether it\\x92s McDonald\\x92s
..."), so each becomes its Windows-1252 character, as HTML's numeric references in that range do
(``&#146;`` is "’"); the five that Windows-1252 leaves undefined are dropped. U+0085 is "…" then,
not a line break.

The segmentation walks (`pipeline.html.walk`, `pipeline.html.lexbor_walk`) make every text node
so before anything reads it; the page's metadata (`pipeline.html.metadata`) reads C1 the same way.
"""

from __future__ import annotations

CONTROLS = frozenset(chr(c) for c in (*range(0x00, 0x09), *range(0x0E, 0x1C), *range(0x7F, 0xA0)))


def _as_cp1252(code: int) -> str | None:
    try:
        return bytes([code]).decode("cp1252")
    except UnicodeDecodeError:
        return None


# For str.translate: C1 to its Windows-1252 character (None: dropped).
C1_AS_CP1252: dict[int, str | None] = {c: _as_cp1252(c) for c in range(0x80, 0xA0)}
# For str.translate: every control to what it becomes.
CONTROL_TABLE: dict[int, str | None] = {
    ord(ch): C1_AS_CP1252[ord(ch)] if ord(ch) >= 0x80 else None for ch in CONTROLS
}
