"""Bytes to HTML text, choosing the encoding as a browser would, corrected by evidence.

Order of evidence (first usable one wins):

1. a byte order mark (UTF-8, UTF-16 LE/BE);
2. the ``charset`` parameter of the HTTP ``Content-Type`` header;
3. a prescan of the first `PRESCAN_BYTES` bytes for ``<meta charset>`` or
   ``<meta http-equiv="Content-Type" content="...; charset=...">`` (comments and other tags'
   attribute values are skipped, as in the HTML standard's prescan), then an XML declaration;
4. detection: bytes that are valid UTF-8 are UTF-8, otherwise charset-normalizer on a bounded
   sample (only the lines that hold non-ASCII bytes, at most `DETECT_BYTES`);
5. UTF-8 with replacement characters.

Labels map to decoders through the WHATWG Encoding Standard's label table (`LABELS`), so
``iso-8859-1``/``us-ascii`` decode as windows-1252, ``gb2312`` as GBK, ``shift_jis`` as Windows-31J
(cp932), ``euc-kr`` as cp949. Unknown labels (``Big5_Solaris``) and the standard's "replacement"
labels fall through to the next source. A ``<meta>`` or XML declaration of UTF-16 means UTF-8.

Declarations are checked against the bytes, because real pages lie about their charset:

- a page declared in a legacy charset whose bytes are valid UTF-8 and contain multi-byte
  sequences is UTF-8 (for the multi-byte legacy charsets GBK/Big5/EUC/Shift_JIS at least
  `MIN_UTF8_SEQUENCES_VS_CJK` sequences are required, since short CJK text can be valid UTF-8 by
  accident);
- a page declared UTF-8 whose invalid sequences outnumber its valid multi-byte ones is not UTF-8
  (legacy CJK pages measured 9-24 % valid sequences; single-byte legacy pages 0 %), and the next
  sources decide; a page that is mostly UTF-8 with a few corrupt bytes stays UTF-8;
- a UTF-16 declaration without any NUL byte in the head is wrong (HTML markup is ASCII, which
  UTF-16 encodes with NULs).

``Decoded.source`` vocabulary:

==================================  ==========================================================
``bom``                             byte order mark
``http``                            HTTP Content-Type charset
``meta``                            ``<meta>`` prescan or XML declaration
``detected``                        no usable declaration; UTF-8 validity or charset-normalizer
``fallback``                        nothing usable; UTF-8 with replacement characters
``http-overridden:utf8-valid``      HTTP declared a legacy charset, bytes are UTF-8: decoded as
``meta-overridden:utf8-valid``      UTF-8 (likewise for a meta declaration)
``http-overridden:utf8-invalid``    HTTP declared UTF-8, bytes are not: ``encoding`` is what the
``meta-overridden:utf8-invalid``    later sources (meta, detection, fallback) chose
``http-overridden:not-utf16``       HTTP declared UTF-16, bytes have no NUL: later sources chose
``str``                             not set here: `pipeline.clean` uses it for text input
==================================  ==========================================================

Any source may end in ``+repaired:<codec>`` (after ``+repaired:double-utf8`` or alone): the
page declared a multi-byte charset (GBK, Big5, Shift_JIS, EUC), its bytes are valid UTF-8 that
overruled the declaration, but their text is the declared charset's bytes once read as
windows-1252 ("¡¡¡¡ŒÇÕßÔÚ"): no character beyond windows-1252, every byte decodes with the
declared codec, and at least `MIN_LEGACY_CJK` CJK characters come back (`_undo_legacy_as_cp1252`).

Any source may end in ``+repaired:double-utf8``: the bytes were valid UTF-8 of text that had
already been mis-decoded once (UTF-8 read as windows-1252/latin-1 and saved as UTF-8 again:
"cafÃ©", "donâ€™t"), and the second decoding was undone. This needs strong evidence: the whole
document must map back through windows-1252 to valid UTF-8 with at least
`MIN_REPAIRED_CHARS` non-ASCII characters, so a page with any genuine non-Latin-1 text (or
with a single genuine "Ã") is left alone. 23 of the 1,358 WCXB development pages are stored
this way. Pass ``repair=False`` to keep the browser's view.

``Decoded.encoding`` is always a name Python's `codecs` accepts: the WHATWG name where Python
knows it (``utf-8``, ``windows-1252``, ``gbk``, ``iso-8859-2``), otherwise the Python codec that
implements the WHATWG decoder (``cp932`` for Shift_JIS, ``cp949`` for EUC-KR, ``cp950`` for Big5,
``cp874`` for windows-874). Decoding never raises: the chosen codec runs with
``errors="replace"``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable

from pipeline.lang.words import HANGUL, IDEOGRAPHS, KANA
from pipeline.types import Decoded

# The UTF-8 check as a C loop (markup_scan.pyx), where the build compiled it: it says whether
# the bytes decode without decoding them, so a valid page's text is built only if asked for.
try:
    from pipeline.html.markup_scan import utf8_valid as _utf8_valid
except ModuleNotFoundError as exc:  # an install without a C compiler
    if exc.name != "pipeline.html.markup_scan":
        raise
    _utf8_valid = None

PRESCAN_BYTES = 4096
"""How much of the body the meta prescan reads (the HTML standard asks for at least 1024)."""

DETECT_BYTES = 64 * 1024
"""Upper bound on the sample given to charset-normalizer (measured 0.4-4 ms per KB here)."""

MIN_UTF8_SEQUENCES_VS_CJK = 8
"""Valid UTF-8 multi-byte sequences needed to overrule a declared multi-byte legacy charset.

A GBK/EUC-JP page's two-byte characters form valid UTF-8 sequences about 20 % of the time
(measured on the CJK pages in ``shared/warcs/real``), so a whole page of k such characters is
valid UTF-8 with probability ~0.2^k; at 8 that is below 1e-5."""


def _labels(table: dict[str, Iterable[str]]) -> dict[str, str]:
    return {label: codec for codec, labels in table.items() for label in labels}


# WHATWG Encoding Standard (https://encoding.spec.whatwg.org/#names-and-labels), keyed by the
# Python codec that implements each encoding. Left out on purpose: "replacement" (csiso2022kr,
# hz-gb-2312, iso-2022-cn, iso-2022-cn-ext, iso-2022-kr: browsers refuse to decode these and a
# corpus gains nothing from one U+FFFD) and x-user-defined (no Python codec).
LABELS: dict[str, str] = _labels(
    {
        "utf-8": (
            "unicode-1-1-utf-8",
            "unicode11utf8",
            "unicode20utf8",
            "utf-8",
            "utf8",
            "x-unicode20utf8",
        ),
        "cp866": ("866", "cp866", "csibm866", "ibm866"),
        "iso-8859-2": (
            "csisolatin2",
            "iso-8859-2",
            "iso-ir-101",
            "iso8859-2",
            "iso88592",
            "iso_8859-2",
            "iso_8859-2:1987",
            "l2",
            "latin2",
        ),
        "iso-8859-3": (
            "csisolatin3",
            "iso-8859-3",
            "iso-ir-109",
            "iso8859-3",
            "iso88593",
            "iso_8859-3",
            "iso_8859-3:1988",
            "l3",
            "latin3",
        ),
        "iso-8859-4": (
            "csisolatin4",
            "iso-8859-4",
            "iso-ir-110",
            "iso8859-4",
            "iso88594",
            "iso_8859-4",
            "iso_8859-4:1988",
            "l4",
            "latin4",
        ),
        "iso-8859-5": (
            "csisolatincyrillic",
            "cyrillic",
            "iso-8859-5",
            "iso-ir-144",
            "iso8859-5",
            "iso88595",
            "iso_8859-5",
            "iso_8859-5:1988",
        ),
        "iso-8859-6": (
            "arabic",
            "asmo-708",
            "csiso88596e",
            "csiso88596i",
            "csisolatinarabic",
            "ecma-114",
            "iso-8859-6",
            "iso-8859-6-e",
            "iso-8859-6-i",
            "iso-ir-127",
            "iso8859-6",
            "iso88596",
            "iso_8859-6",
            "iso_8859-6:1987",
        ),
        "iso-8859-7": (
            "csisolatingreek",
            "ecma-118",
            "elot_928",
            "greek",
            "greek8",
            "iso-8859-7",
            "iso-ir-126",
            "iso8859-7",
            "iso88597",
            "iso_8859-7",
            "iso_8859-7:1987",
            "sun_eu_greek",
        ),
        # ISO-8859-8-I differs from ISO-8859-8 only in bidi handling, not in its bytes.
        "iso-8859-8": (
            "csiso88598e",
            "csisolatinhebrew",
            "hebrew",
            "iso-8859-8",
            "iso-8859-8-e",
            "iso-ir-138",
            "iso8859-8",
            "iso88598",
            "iso_8859-8",
            "iso_8859-8:1988",
            "visual",
            "csiso88598i",
            "iso-8859-8-i",
            "logical",
        ),
        "iso-8859-10": (
            "csisolatin6",
            "iso-8859-10",
            "iso-ir-157",
            "iso8859-10",
            "iso885910",
            "l6",
            "latin6",
        ),
        "iso-8859-13": ("iso-8859-13", "iso8859-13", "iso885913"),
        "iso-8859-14": ("iso-8859-14", "iso8859-14", "iso885914"),
        "iso-8859-15": (
            "csisolatin9",
            "iso-8859-15",
            "iso8859-15",
            "iso885915",
            "iso_8859-15",
            "l9",
        ),
        "iso-8859-16": ("iso-8859-16",),
        "koi8-r": ("cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"),
        "koi8-u": ("koi8-ru", "koi8-u"),
        "mac-roman": ("csmacintosh", "mac", "macintosh", "x-mac-roman"),
        "cp874": (
            "dos-874",
            "iso-8859-11",
            "iso8859-11",
            "iso885911",
            "tis-620",
            "windows-874",
        ),
        "windows-1250": ("cp1250", "windows-1250", "x-cp1250"),
        "windows-1251": ("cp1251", "windows-1251", "x-cp1251"),
        "windows-1252": (
            "ansi_x3.4-1968",
            "ascii",
            "cp1252",
            "cp819",
            "csisolatin1",
            "ibm819",
            "iso-8859-1",
            "iso-ir-100",
            "iso8859-1",
            "iso88591",
            "iso_8859-1",
            "iso_8859-1:1987",
            "l1",
            "latin1",
            "us-ascii",
            "windows-1252",
            "x-cp1252",
        ),
        "windows-1253": ("cp1253", "windows-1253", "x-cp1253"),
        "windows-1254": (
            "cp1254",
            "csisolatin5",
            "iso-8859-9",
            "iso-ir-148",
            "iso8859-9",
            "iso88599",
            "iso_8859-9",
            "iso_8859-9:1989",
            "l5",
            "latin5",
            "windows-1254",
            "x-cp1254",
        ),
        "windows-1255": ("cp1255", "windows-1255", "x-cp1255"),
        "windows-1256": ("cp1256", "windows-1256", "x-cp1256"),
        "windows-1257": ("cp1257", "windows-1257", "x-cp1257"),
        "windows-1258": ("cp1258", "windows-1258", "x-cp1258"),
        "mac-cyrillic": ("x-mac-cyrillic", "x-mac-ukrainian"),
        "gbk": (
            "chinese",
            "csgb2312",
            "csiso58gb231280",
            "gb2312",
            "gb_2312",
            "gb_2312-80",
            "gbk",
            "iso-ir-58",
            "x-gbk",
        ),
        "gb18030": ("gb18030",),
        "cp950": ("big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"),
        "euc-jp": ("cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"),
        "iso-2022-jp": ("csiso2022jp", "iso-2022-jp"),
        "cp932": (
            "csshiftjis",
            "ms932",
            "ms_kanji",
            "shift-jis",
            "shift_jis",
            "sjis",
            "windows-31j",
            "x-sjis",
        ),
        "cp949": (
            "cseuckr",
            "csksc56011987",
            "euc-kr",
            "iso-ir-149",
            "korean",
            "ks_c_5601-1987",
            "ks_c_5601-1989",
            "ksc5601",
            "ksc_5601",
            "windows-949",
        ),
        "utf-16-be": ("unicodefffe", "utf-16be"),
        "utf-16-le": (
            "csunicode",
            "iso-10646-ucs-2",
            "ucs-2",
            "unicode",
            "unicodefeff",
            "utf-16",
            "utf-16le",
        ),
    }
)

MIN_REPAIRED_CHARS = 2
"""Non-ASCII characters a double-encoding repair must restore before it is trusted."""

_MULTIBYTE_LEGACY = frozenset({"gbk", "gb18030", "cp950", "euc-jp", "cp932", "cp949"})
_UTF16 = frozenset({"utf-16-le", "utf-16-be"})

# When the declared codec cannot decode every byte, a superset that can is what the page meant
# (WHATWG's Big5 includes HKSCS; its GBK decoder is the GB18030 decoder).
_SUPERSETS: dict[str, tuple[str, ...]] = {"gbk": ("gb18030",), "cp950": ("big5hkscs",)}

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_ASCII_WS = " \t\n\f\r"


def normalize_label(label: str) -> str | None:
    """WHATWG encoding label → Python codec name (see `LABELS`), None when the label is unknown."""
    return LABELS.get(label.strip(_ASCII_WS).lower())


# --- HTTP Content-Type ---------------------------------------------------------------------------

_PARAM_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([^"'\s;,]+)""", re.IGNORECASE)


def _split_unquoted(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside double-quoted strings (MIME parameter values may hold it)."""
    parts: list[str] = []
    start = 0
    in_quotes = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and in_quotes:
            i += 1
        elif ch == '"':
            in_quotes = not in_quotes
        elif ch == sep and not in_quotes:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts


def _unquote(value: str) -> str:
    value = value.strip(_ASCII_WS)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    elif value[:1] in "\"'":
        value = value[1:]
    return value.replace('\\"', '"').strip(_ASCII_WS)


def charset_from_content_type(content_type: str | None) -> str | None:
    """The charset label of an HTTP ``Content-Type`` value, as sent (not normalised).

    Follows WHATWG "extract a MIME type" for comma-joined repeated headers (the last MIME type
    wins, and keeps an earlier charset only when its essence is the same), and tolerates quotes,
    case and extra parameters. A value without a well-formed MIME type still yields a
    ``charset=`` found anywhere in it, because servers send things like ``text/html charset=x``.
    """
    if not content_type:
        return None
    charset: str | None = None
    essence: str | None = None
    for segment in _split_unquoted(content_type, ","):
        pieces = _split_unquoted(segment, ";")
        this_essence = pieces[0].strip(_ASCII_WS).lower()
        if "/" not in this_essence or any(c in this_essence for c in " \t="):
            continue
        this_charset = None
        for param in pieces[1:]:
            name, eq, value = param.partition("=")
            if eq and name.strip(_ASCII_WS).lower() == "charset":
                this_charset = _unquote(value) or None
                break
        if this_charset is not None:
            charset = this_charset
        elif this_essence != essence:
            charset = None
        essence = this_essence
    if charset is None and essence is None:
        found = _PARAM_CHARSET.search(content_type)
        charset = found.group(1) if found else None
    return charset


# --- <meta> prescan (HTML standard, "prescan a byte stream to determine its encoding") ---------

_WS = b"\t\n\f\r "
_TAG_START = re.compile(rb"<(?:!--|meta[\t\n\f\r /]|/?[a-z]|[!/?])", re.IGNORECASE)
_ATTRIBUTE = re.compile(
    rb"[\t\n\f\r /]*([^\t\n\f\r />][^\t\n\f\r /=>]*)"
    rb"(?:[\t\n\f\r ]*=[\t\n\f\r ]*(\"[^\"]*\"?|'[^']*'?|[^\t\n\f\r >]*))?"
)
# All of a tag's attributes at once, where only the tag's end matters: the repetition keeps each
# attribute's first match, since nothing after it could make it backtrack, so it stops where
# `_attributes`' loop of single matches stops.
_ATTRIBUTE_RUN = re.compile(b"(?:" + _ATTRIBUTE.pattern + b")*")
_CHARSET_IN_CONTENT = re.compile(
    rb"charset[\t\n\f\r ]*=[\t\n\f\r ]*(?:\"([^\"]*)\"|'([^']*)'|([^\t\n\f\r ;\"']+))",
    re.IGNORECASE,
)
_XML_DECLARATION = re.compile(
    rb"[\t\n\f\r ]*<\?xml[\t\n\f\r ][^>]*?encoding[\t\n\f\r ]*=[\t\n\f\r ]*([\"'])([^\"'>]*)\1"
)


def _attributes(buf: bytes, pos: int) -> tuple[list[tuple[bytes, bytes]], int]:
    """A tag's attributes from ``pos`` to its ``>``, and the position after the tag."""
    attrs: list[tuple[bytes, bytes]] = []
    while True:
        m = _ATTRIBUTE.match(buf, pos)
        if m is None:
            # Only whitespace and slashes are left before '>' or the end of the buffer.
            end = buf.find(b">", pos)
            return attrs, (len(buf) if end < 0 else end + 1)
        value = m.group(2) or b""
        if value[:1] in (b'"', b"'"):
            value = value[1:-1] if len(value) > 1 and value[-1:] == value[:1] else value[1:]
        attrs.append((m.group(1).lower(), value))
        pos = m.end()


def _tag_end(buf: bytes, pos: int) -> int:
    """The position after the tag whose attributes start at ``pos``: `_attributes`' second
    value, without building the attributes."""
    run = _ATTRIBUTE_RUN.match(buf, pos)  # never None: the run may be empty
    pos = run.end() if run is not None else pos
    end = buf.find(b">", pos)
    return len(buf) if end < 0 else end + 1


def _charset_in_content(content: bytes) -> bytes | None:
    m = _CHARSET_IN_CONTENT.search(content)
    if m is None:
        return None
    value = m.group(1) if m.group(1) is not None else m.group(2)
    return value if value is not None else m.group(3)


def _meta_charset(attrs: list[tuple[bytes, bytes]]) -> bytes | None:
    """The charset one ``<meta>`` declares, per the prescan's pragma rules."""
    seen: set[bytes] = set()
    got_pragma = False
    need_pragma: bool | None = None
    charset: bytes | None = None
    for name, value in attrs:
        if name in seen:
            continue
        seen.add(name)
        if name == b"http-equiv":
            got_pragma = value.strip(_WS).lower() == b"content-type"
        elif name == b"content" and charset is None:
            found = _charset_in_content(value)
            if found is not None:
                charset, need_pragma = found, True
        elif name == b"charset":
            charset, need_pragma = value, False
    if need_pragma is None or (need_pragma and not got_pragma):
        return None
    return charset


def _declared_encoding(label: bytes) -> str | None:
    encoding = normalize_label(label.decode("latin-1"))
    # A document that can state its own charset in ASCII markup is not UTF-16 (HTML standard).
    return "utf-8" if encoding in _UTF16 else encoding


def prescan(head: bytes) -> str | None:
    """Encoding declared by ``<meta>`` (or else an XML declaration) in ``head``, as a codec name.

    A small scanner rather than one regex, so that comments and other tags' attribute values
    (``<div title="<meta charset=x>">``) are skipped as browsers skip them. Unknown labels are
    passed over and scanning goes on, as the standard says.
    """
    pos = 0
    while True:
        m = _TAG_START.search(head, pos)
        if m is None:
            break
        token = m.group(0)
        if token == b"<!--":
            # "<!-->" closes at once; otherwise skip to the first "-->" after "<!--".
            end = head.find(b"-->", m.start() + 2)
            if end < 0:
                break
            pos = end + 3
        elif token[1:5].lower() == b"meta":
            attrs, pos = _attributes(head, m.end() - 1)
            label = _meta_charset(attrs)
            if label is not None:
                encoding = _declared_encoding(label)
                if encoding is not None:
                    return encoding
        elif token[-1:].isalpha():
            pos = _tag_end(head, m.end())
        else:  # <! <? </ followed by a non-letter: bogus comment up to '>'
            end = head.find(b">", m.end())
            if end < 0:
                break
            pos = end + 1
    xml = _XML_DECLARATION.match(head)
    return _declared_encoding(xml.group(2)) if xml else None


# --- evidence from the bytes ---------------------------------------------------------------------

_UTF8_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]"
    rb"|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]"
    rb"|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)


class _Body:
    """The bytes plus the UTF-8 facts about them, each computed at most once."""

    __slots__ = ("_strict", "_tried", "_valid", "data")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._tried = False
        self._strict: str | None = None
        self._valid: bool | None = None

    def valid_utf8(self) -> bool:
        """Whether the bytes are valid UTF-8 (without decoding them where that is compiled)."""
        if self._valid is None:
            if self._tried or _utf8_valid is None:
                self._valid = self.utf8() is not None
            else:
                self._valid = _utf8_valid(self.data)
        return self._valid

    def utf8(self) -> str | None:
        """The text when the bytes are valid UTF-8, else None."""
        if not self._tried:
            self._tried = True
            if self._valid is not False:
                try:
                    self._strict = self.data.decode("utf-8")
                except UnicodeDecodeError:
                    self._strict = None
        return self._strict

    def as_utf8(self, source: str) -> Decoded:
        """The bytes' decoding, valid UTF-8 as checked, left undecoded unless it already was."""
        return Decoded.from_utf8(self.data, source, self._strict)

    def mostly_utf8(self) -> bool:
        """Invalid UTF-8 sequences do not outnumber valid multi-byte ones."""
        if self.valid_utf8():
            return True
        replaced = self.data.decode("utf-8", "replace")
        invalid = replaced.count("\ufffd") - self.data.count(b"\xef\xbf\xbd")
        valid = len(_UTF8_MULTIBYTE.findall(self.data))
        return invalid <= valid


def _latin1_passthrough(exc: UnicodeError) -> tuple[bytes, int]:
    """Encode error handler: characters below U+0100 become their latin-1 byte.

    WHATWG's windows-1252 decoder maps the five bytes cp1252 leaves undefined (0x81, 0x8D, 0x8F,
    0x90, 0x9D) to C1 controls, so text mis-decoded that way ("â€\x9d" for "”") holds them.
    """
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    chunk = exc.object[exc.start : exc.end]
    if max(chunk) > "\xff":
        raise exc
    return chunk.encode("latin-1"), exc.end


_LATIN1_PASSTHROUGH = "warcclean-latin1-passthrough"
codecs.register_error(_LATIN1_PASSTHROUGH, _latin1_passthrough)


def _undo_double_utf8(decoded: Decoded, raw: bytes) -> str | None:
    """The text decoded once more, when ``decoded``'s text is UTF-8 that was once read as
    windows-1252 (it is decoded here only when the bytes' markers do not settle it)."""
    # Cheap gates first (memchr, then one-character searches; a regex on the text or a
    # multi-byte needle cost 0.6-7 ms on a 240 KB page): Latin-script text encoded twice always
    # shows "Ã" (any accented letter), "Â" (no-break space, ©, °) or "â" (curly quotes, dashes).
    if b"\xc3" not in raw:
        return None
    # Encoding the whole page back costs ~40 ns a character; a genuine "château" fails within
    # the first few characters after the marker, so try a window there before the whole page.
    # Any window that starts at a marker will do: when the whole page maps back, so does every
    # stretch of it that starts at one (each marker encodes to a UTF-8 lead byte).
    at = _marker_in_bytes(raw)
    if at is None and decoded.utf8 is not None:
        # The text is these bytes decoded, so its first marker is their first marker's two bytes
        # (a lead byte is never part of another character). One regex over the bytes costs half
        # of decoding them and searching the text: 0.12 instead of 0.23 ms on the 211 pages of
        # wcxb-dev and multilingual-dev that come here (German, Spanish and the like, whose
        # first 32 lead bytes \xc3 are other accented letters), 13% of them.
        found = _MARKER_PAIR.search(decoded.utf8)
        if found is None:
            return None
        at = found.start()
        head = decoded.utf8[at : at + 1024].decode("utf-8", "ignore")
    elif at is None:
        text = decoded.html
        first = min((i for i in (text.find(c) for c in "ÃÂâ") if i >= 0), default=-1)
        if first < 0:
            return None
        head = text[first : first + 256]
    elif at < 0:
        return None
    else:
        # The bytes at a marker decode as the text there (a lead byte restarts decoding after any
        # invalid bytes); "ignore" drops the character the slice may cut at its end.
        head = raw[at : at + 1024].decode("utf-8", "ignore")
    try:
        window = head.encode("cp1252", _LATIN1_PASSTHROUGH)
        codecs.utf_8_decode(window, "strict", False)
    except UnicodeError:
        return None
    try:
        repaired = decoded.html.encode("cp1252", _LATIN1_PASSTHROUGH).decode("utf-8")
    except UnicodeError:
        return None
    non_ascii = len(repaired) - len(repaired.encode("ascii", "ignore"))
    return repaired if non_ascii >= MIN_REPAIRED_CHARS else None


# "Ã", "Â" and "â" in UTF-8, after their common lead byte \xc3.
_MARKER_SECONDS = frozenset(b"\x82\x83\xa2")
_MARKER_PAIR = re.compile(b"\xc3[" + bytes(sorted(_MARKER_SECONDS)) + b"]")
_MARKER_TRIES = 32


def _marker_in_bytes(raw: bytes) -> int | None:
    """Where the first UTF-8 "Ã", "Â" or "â" starts in ``raw`` (-1: none), or None when the
    first `_MARKER_TRIES` lead bytes \xc3 (accented Latin letters) are all something else.

    memchr finds the lead byte; the text itself is several times slower to search, since most
    pages hold a character beyond Latin-1 (a curly quote) and are stored two bytes a character.
    """
    at = raw.find(b"\xc3")
    for _ in range(_MARKER_TRIES):
        if at < 0:
            return -1
        if raw[at + 1 : at + 2] and raw[at + 1] in _MARKER_SECONDS:
            return at
        at = raw.find(b"\xc3", at + 1)
    return None


def _decode(data: bytes, encoding: str) -> tuple[str, str]:
    """Decode with ``encoding`` or, when it cannot decode every byte, a superset that can;
    else with ``encoding``, replacing what it cannot decode."""
    try:
        return _decode_strict(data, encoding)
    except UnicodeDecodeError:
        return data.decode(encoding, "replace"), encoding


def _judge(body: _Body, encoding: str) -> tuple[Decoded | None, str | None]:
    """Apply one declaration: a result, or the reason the bytes overrule it (None, reason).

    A result's ``source`` is left empty for the caller to fill in; a non-None reason together
    with a result means the result is UTF-8 that overruled the declaration.
    """
    data = body.data
    if encoding == "utf-8":
        if body.valid_utf8():
            return body.as_utf8(""), None
        if body.mostly_utf8():
            return Decoded(data.decode("utf-8", "replace"), "utf-8", ""), None
        return None, "utf8-invalid"
    if encoding in _UTF16:
        if b"\x00" not in data[:PRESCAN_BYTES]:
            return None, "not-utf16"
        return Decoded(data.decode(encoding, "replace"), encoding, ""), None
    if not data.isascii() and body.valid_utf8():
        if encoding in _MULTIBYTE_LEGACY:
            text = body.utf8() or ""
            # in valid UTF-8 each non-ASCII character is one multi-byte sequence
            is_utf8 = len(text) - len(text.encode("ascii", "ignore")) >= MIN_UTF8_SEQUENCES_VS_CJK
        else:
            is_utf8 = True
        if is_utf8:
            return body.as_utf8(""), "utf8-valid"
    text, used = _decode(data, encoding)
    return Decoded(text, used, ""), None


def _python_codec_name(name: str) -> str:
    """Our name for a codec charset-normalizer reports (``cp1252`` → ``windows-1252``)."""
    for candidate in (name, name.replace("_", "-")):
        encoding = normalize_label(candidate)
        if encoding is not None:
            return encoding
    canonical = codecs.lookup(name).name
    return normalize_label(canonical) or canonical


def _detection_sample(data: bytes) -> bytes:
    """The lines holding non-ASCII bytes: markup is ASCII and only dilutes the statistics."""
    if len(data) <= DETECT_BYTES:
        lines = [line for line in data.split(b"\n") if not line.isascii()]
        sample = b"\n".join(lines)
        # Too little text left to judge by: give the detector the whole (small) page.
        return sample if len(sample) >= 512 else data
    picked: list[bytes] = []
    size = 0
    for line in data.split(b"\n"):
        if not line.isascii():
            picked.append(line)
            size += len(line) + 1
            if size >= DETECT_BYTES:
                break
    sample = b"\n".join(picked)[:DETECT_BYTES]
    return sample if len(sample) >= 512 else data[:DETECT_BYTES]


def detect(data: bytes) -> str | None:
    """charset-normalizer's verdict on ``data`` as our codec name, None when it has none.

    Among encodings that decode the sample equally well it takes windows-1252, the browsers'
    default for unlabelled Western pages: charset-normalizer ranks cp1250 first for English
    pages with a stray é or em dash (seen on archive.org pages in shared/warcs/real).
    """
    from charset_normalizer import from_bytes  # imported on first use: it costs ~100 ms

    matches = from_bytes(_detection_sample(data))
    best = matches.best()
    if best is None:
        return None
    equally_good = {best.encoding, *best.could_be_from_charset}
    equally_good.update(
        m.encoding for m in matches if m.chaos <= best.chaos and m.coherence >= best.coherence
    )
    if "cp1252" in equally_good:
        return "windows-1252"
    return _python_codec_name(best.encoding)


def decode_html(body: bytes, content_type: str | None = None, *, repair: bool = True) -> Decoded:
    """Decode an HTML payload as a browser would, overruling declarations the bytes contradict.

    ``content_type`` is the HTTP ``Content-Type`` header value, if any; ``repair`` undoes a
    proven double UTF-8 encoding, and a declared multi-byte charset read as windows-1252. Never
    raises; see the module docstring for the order of evidence and the ``source`` vocabulary.
    """
    decoded = _choose(body, content_type)
    if repair and decoded.encoding == "utf-8" and not body.isascii():
        repaired = _undo_double_utf8(decoded, body)
        if repaired is not None:
            decoded = Decoded(repaired, "utf-8", decoded.source + "+repaired:double-utf8")
        if "-overridden:utf8-valid" in decoded.source:
            legacy = _undo_legacy_as_cp1252(decoded, body, content_type)
            if legacy is not None:
                text, codec = legacy
                return Decoded(text, "utf-8", f"{decoded.source}+repaired:{codec}")
    return decoded


# A character windows-1252 cannot encode (CJK, Cyrillic, most symbols): text holding one is not
# a legacy charset's bytes read as windows-1252.
_BEYOND_CP1252 = re.compile(
    "[^\x00-\xff\u0152\u0153\u0160\u0161\u0178\u017d\u017e"
    "\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022"
    "\u2026\u2030\u2039\u203a\u20ac\u2122]"
)
_CJK_CHAR = re.compile(f"[{KANA}{IDEOGRAPHS}{HANGUL}]")
MIN_LEGACY_CJK = 20
"""CJK characters a repair of a multi-byte charset read as windows-1252 must bring back."""


def _undo_legacy_as_cp1252(
    decoded: Decoded, raw: bytes, content_type: str | None
) -> tuple[str, str] | None:
    """The text and codec, when ``decoded`` (valid UTF-8 overruling a declared multi-byte
    charset) is that charset's bytes once read as windows-1252 and saved as UTF-8.

    A page that declares GBK, Big5, Shift_JIS or EUC and whose UTF-8 text has no character
    beyond windows-1252 ("¡¡¡¡ŒÇÕßÔÚ" for "　　记者在") is mapped back to bytes and decoded with
    its declaration; kept only if every byte decodes and at least `MIN_LEGACY_CJK` CJK
    characters come back. Two of daniel's 399 Chinese pages (GB2312) are stored this way.
    """
    label = charset_from_content_type(content_type)
    declared = normalize_label(label) if label else None
    if declared not in _MULTIBYTE_LEGACY:
        declared = prescan(raw[:PRESCAN_BYTES])
    if declared not in _MULTIBYTE_LEGACY:
        return None
    text = decoded.html
    # Genuine UTF-8 Chinese under a stale declaration, the common case, stops at its first
    # ideograph.
    if _BEYOND_CP1252.search(text) is not None:
        return None
    try:
        legacy, used = _decode_strict(text.encode("cp1252", _LATIN1_PASSTHROUGH), declared)
    except UnicodeError:
        return None
    if len(_CJK_CHAR.findall(legacy, 0, 1 << 16)) < MIN_LEGACY_CJK:
        return None
    return legacy, used


def _decode_strict(data: bytes, encoding: str) -> tuple[str, str]:
    """Decode with ``encoding`` or a superset (`_SUPERSETS`); UnicodeDecodeError if neither
    decodes every byte."""
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError:
        for wider in _SUPERSETS.get(encoding, ()):
            try:
                return data.decode(wider), wider
            except UnicodeDecodeError:
                pass
        raise


def _choose(body: bytes, content_type: str | None) -> Decoded:
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return Decoded(body[len(bom) :].decode(encoding, "replace"), encoding, "bom")

    data = _Body(body)
    overruled: str | None = None  # first declaration the bytes contradicted, for the source
    label = charset_from_content_type(content_type)
    declarations = (
        ("http", lambda: normalize_label(label) if label else None),
        ("meta", lambda: prescan(body[:PRESCAN_BYTES])),
    )
    for origin, declared in declarations:
        encoding = declared()
        if encoding is None:
            continue
        result, reason = _judge(data, encoding)
        if result is not None:
            source = f"{origin}-overridden:{reason}" if reason else overruled or origin
            return result.with_source(source)
        overruled = overruled or f"{origin}-overridden:{reason}"

    if data.valid_utf8():
        return data.as_utf8(overruled or "detected")
    detected = detect(body)
    if detected is not None:
        html, used = _decode(body, detected)
        return Decoded(html, used, overruled or "detected")
    return Decoded(body.decode("utf-8", "replace"), "utf-8", overruled or "fallback")
