"""Text that is not language at all, whatever the detector would say about it.

A decompression bomb of one letter cleans to megabytes of ``aaaa...``, and the language detector,
which must pick one of its profiles, calls it Somali with probability 1.0. The rule that rejects
such text measures how much each character tells: the Shannon entropy of the text's character
frequencies (whitespace left out), in bits per character.

- One character repeated has 0 bits, two alternating 1, four equally used 2.
- Language has far more. Of the 3,509 pages with text in ../shared/data (wcxb-dev,
  multilingual-dev, magic-html, daniel) and samples/sample.warc.gz, cleaned by the default
  cleaner, none has less than 3.5 bits, and none from `MIN_CHARS` characters on less than 4.0
  (the lowest, 4.04, a 321-character Italian article; CJK text has more, not less); of the 205
  in the real WARCs of ../shared/warcs/real, none less than 3.3, or 4.1 from `MIN_CHARS` on.
  Measured by ``python bench/degenerate_text.py [FILE...]`` run in the repository.

So text below `MIN_BITS` bits per character, half what the lowest real page of that length has,
is rejected. So is text of which `MAX_CONTROL_SHARE` or more is control characters: binary bytes
served as HTML (random bytes decode to about 10%, whatever the codec), where the entropy is high.
Of the 2,042 pages of wcxb-dev, multilingual-dev and the first 400 of daniel with 50 characters
or more, the most has 0.6%. The segmentation walks drop control characters from a page's text
(`pipeline.html.controls`), so the job measures the same share on the page's body instead
(`body_control_share`): random bytes have 10.5% control bytes (C0 but whitespace, and DEL), the
raw HTML of the 3,491 dev pages at most 0.03% over the whole body and 0.8% in the sample
judged. A body in UTF-16 or UTF-32, whose ASCII characters each carry NUL bytes, is judged by its
text alone.

Short text is never judged: a real word can be low ("Mississippi": 1.8 bits), and a page of a few
characters is cheap whatever it holds; a bomb is long.
"""

from __future__ import annotations

import re

import numpy as np

MIN_BITS = 2.0
MIN_CHARS = 50
# Binary bytes served as text/html decode to about 10% control characters whatever the codec;
# no real page measured has more than 0.6% (two daniel pages; the rest under 0.1%).
MAX_CONTROL_SHARE = 0.05
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
# Text longer than this is judged on `_WINDOWS` evenly spaced stretches of `_WINDOW` characters
# instead of in full: 2,048 characters estimate the entropy of real text to a few hundredths of
# a bit, and a 10 MB bomb costs no more than a page. Whole stretches, not every n-th character: a
# text repeated with a period dividing n would look like one character.
_FULL_CHARS = 2048
_WINDOWS = 32
_WINDOW = 64


def _sample(text: str) -> str:
    """The characters of ``text`` that are judged: its non-space characters, of a sample."""
    if len(text) > _FULL_CHARS:
        stride = (len(text) - _WINDOW) / (_WINDOWS - 1)
        text = "".join(text[int(k * stride) : int(k * stride) + _WINDOW] for k in range(_WINDOWS))
    return "".join(text.split())


def _counts(chars: str) -> tuple[np.ndarray, np.ndarray]:
    """The distinct code points of ``chars`` and how often each occurs."""
    # numpy counts a sample several times faster than collections.Counter (35 ns a character),
    # and this runs on every document of a job.
    codes = np.frombuffer(chars.encode("utf-32-le", "surrogatepass"), np.uint32)
    return np.unique(codes, return_counts=True)


def _entropy(counts: np.ndarray, n: int) -> float:
    p = counts / n
    return max(0.0, float(-(p * np.log2(p)).sum()))


def _control(values: np.ndarray, counts: np.ndarray) -> int:
    return int(counts[(values <= 0x1F) | ((values >= 0x7F) & (values <= 0x9F))].sum())


def _wide(encoding: str | None) -> bool:
    name = (encoding or "").lower().replace("_", "-")
    return name.startswith(("utf-16", "utf-32", "utf16", "utf32"))


def bits_per_char(text: str) -> tuple[float, int]:
    """The entropy of ``text``'s non-space characters in bits, and how many were counted."""
    chars = _sample(text)
    if not chars:
        return 0.0, 0
    return _entropy(_counts(chars)[1], len(chars)), len(chars)


def control_share(text: str) -> float:
    """The share of control characters (C0 and C1, whitespace aside) in ``text``'s sample."""
    chars = _sample(text)
    return len(_CONTROL.findall(chars)) / len(chars) if chars else 0.0


_CONTROL_BYTES = bytes((*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F))


# The body is judged on four stretches of 512 bytes (its start, end and two between): binary
# bytes are binary throughout, and the job runs this on every document (8 us at the median, where
# the 32 stretches of the text's sample took 30 us).
_BODY_WINDOW = 512
_BODY_WINDOWS = 4


def body_control_share(body: bytes) -> float:
    """The share of control bytes (C0 but tab, line feed, vertical tab, form feed and carriage
    return; DEL) in a sample of ``body``."""
    if len(body) > _BODY_WINDOW * _BODY_WINDOWS:
        step = (len(body) - _BODY_WINDOW) // (_BODY_WINDOWS - 1)
        body = b"".join(body[k * step : k * step + _BODY_WINDOW] for k in range(_BODY_WINDOWS))
    return (len(body) - len(body.translate(None, _CONTROL_BYTES))) / len(body) if body else 0.0


def degenerate_reason(
    text: str, body: bytes | None = None, encoding: str | None = None
) -> str | None:
    """Why ``text`` is not language (see the module), or None when it may be. ``body``, the
    page's bytes, and ``encoding``, what they were decoded as, let the bytes say they are
    binary."""
    chars = _sample(text)
    n = len(chars)
    if not n:
        return None
    if body is not None and not _wide(encoding) and len(text) >= MIN_CHARS:
        share = body_control_share(body)
        if share >= MAX_CONTROL_SHARE:
            return (
                f"{share:.1%} of the body's bytes are control characters, "
                f"{MAX_CONTROL_SHARE:.0%} or more: binary data served as a page"
            )
    values, counts = _counts(chars)
    if len(text) >= MIN_CHARS:
        share = _control(values, counts) / n
        if share >= MAX_CONTROL_SHARE:
            return (
                f"{share:.1%} of the characters are control characters, {MAX_CONTROL_SHARE:.0%} or "
                "more: binary data decoded as text"
            )
    if n < MIN_CHARS:
        return None
    bits = _entropy(counts, n)
    if bits >= MIN_BITS:
        return None
    head = _counts("".join(text[:_FULL_CHARS].split()))
    top = chr(int(head[0][np.argmax(head[1])]))
    return (
        f"{bits:.2f} bits per character, under {MIN_BITS} (language has 3.5 or more): "
        f"{len(text):,} characters, most often {top!r}"
    )
