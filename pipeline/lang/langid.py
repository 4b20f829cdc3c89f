"""Language identification on langdetect's profiles: deterministic, cheap per page, ISO-coded.

The detector scores a text against the 55 language profiles that langdetect ships (its data, not
its code: `pipeline.lang.profiles`): multinomial naive Bayes over all of the text's 1-3-grams,
summed with numpy, instead of langdetect's random walks over a few of them. There is no random
trial, so the same text gets the same answer in every process and on every call. The profiles
are loaded once per process, on first use (0.4-0.8 s CPU, under a lock because Dask worker
threads may race to build them).

`detect_blocks` detects on a bounded sample of the page (its longest, least linked blocks that
are not code, each text once, `SAMPLE_CHARS` characters). Against langdetect's own detector (1
seeded trial) on the same pages (bench/langid.py): as accurate or more (multilingual-dev 293 vs 288
of 297 pages, wcxb-dev 1343 vs 1338 of the 1350 with text, daniel 1610 vs 1474 of 1611: see
`_SCRIPT_GATES`) and 4-6x cheaper: inside `clean_html`, about 0.4 ms instead of 1.6-2.1 ms CPU
per page (medians of two runs on a loaded 2-core machine), 1.5-4.5% of a page's cost instead of
11-19%.

The probability is the naive-Bayes posterior tempered by `TEMPERATURE`, so that it behaves as a
confidence: on single blocks of 30-300 characters of multilingual-dev and wcxb, guesses reported
at about 0.6 were right about 6 times in 10, at about 0.96 about 19 times in 20.

Codes are those of ``stoplists/``: ISO 639-1 where one exists, region and script subtags dropped
(langdetect's ``zh-cn``/``zh-tw`` become ``zh``, their probabilities added), deprecated or variant
codes mapped (`normalize_code`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import cache
from operator import itemgetter

from pipeline.lang import profiles as langprofiles
from pipeline.lang.words import HANGUL, IDEOGRAPHS, KANA
from pipeline.types import UND, Block, LangGuess

# Characters of page text detected on. Chosen with langdetect's detector on multilingual-dev +
# wcxb-dev (stoplists/README.md, "Language ID"), and again with this scorer: 200 loses accuracy,
# 450 and 600 gain none on multilingual-dev (bench/langid.py --sample-chars 200 450 600).
SAMPLE_CHARS = 300
# Each character of a text is in up to three grams (its 1-, 2- and 3-gram), and neighbouring
# grams are far from independent, so the untempered posterior is overconfident (0.96 right
# 52% of the time). Dividing the log scores by 4 made the reported probability match the share
# of right guesses best (Brier score; 3 and 5 are close) on 38,000 blocks of multilingual-dev and
# wcxb-dev cut to 30-300 characters (bench/langid.py --calibrate).
TEMPERATURE = 4.0
# Below this probability the guess is uncertain (mixed-language page, very little text). It is
# still reported, code and probability, so callers can decide; only a page with no detectable
# text at all is "und".
LOW_CONFIDENCE = 0.6
# The sample takes at most max_chars // _BLOCKS_SAMPLED characters from each block.
_BLOCKS_SAMPLED = 3
_MIN_BLOCK_SAMPLE = 100
# Blocks with more link text than this are navigation: sampled only when nothing else is left.
_MAX_LINK_DENSITY = 0.5

# Deprecated, variant and three-letter codes -> the code the stoplist files use.
_ALIASES = {
    "iw": "he",  # Hebrew, withdrawn 1989; Java's Locale still emits it
    "in": "id",  # Indonesian, withdrawn 1989
    "ji": "yi",  # Yiddish, withdrawn 1989
    "jw": "jv",  # Javanese, never valid but common (Google)
    "mo": "ro",  # Moldavian, deprecated 2008
    "nb": "no",  # Norwegian Bokmål: langdetect and the stoplist only know "no"
    "nn": "no",  # Norwegian Nynorsk
    "nob": "no",
    "nno": "no",
    "nor": "no",
    "fil": "tl",  # Filipino, the standard form of Tagalog
    "hbs": "sh",  # Serbo-Croatian
    "cmn": "zh",  # Mandarin
    "zho": "zh",
    "chi": "zh",
    "jpn": "ja",
    "kor": "ko",
    "tha": "th",
    "mya": "my",
    "bur": "my",
    "eng": "en",
    "deu": "de",
    "ger": "de",
    "fra": "fr",
    "fre": "fr",
    "spa": "es",
    "por": "pt",
    "ita": "it",
    "nld": "nl",
    "dut": "nl",
    "rus": "ru",
    "pol": "pl",
    "ara": "ar",
}
# Codes that name no language: undetermined, multiple, no linguistic content.
_NOT_A_LANGUAGE = frozenset({"und", "mul", "zxx", "mis"})
_PRIMARY = re.compile(r"[a-z]{2,3}")

# Scripts langdetect has no profile for, each written (almost) only by one language.
_SCRIPT_LANGUAGES = {
    code: re.compile(f"[{ranges}]")
    for code, ranges in {
        "my": "\u1000-\u109f\ua9e0-\ua9ff\uaa60-\uaa7f",
        "ka": "\u10a0-\u10ff\u1c90-\u1cbf",
        "hy": "\u0530-\u058f",
        "km": "\u1780-\u17ff\u19e0-\u19ff",
        "lo": "\u0e80-\u0eff",
        "si": "\u0d80-\u0dff",
        "am": "\u1200-\u139f",
        "bo": "\u0f00-\u0fff",
    }.items()
}
_OWN_SCRIPTS = re.compile("|".join(p.pattern for p in _SCRIPT_LANGUAGES.values()))
# Korean is written in Hangul and Japanese with kana, beside ideographs: a text with (almost) none
# of its script's letters is not that language, whatever its ideographs' grams say. langdetect's
# ko profile out-scores zh-tw on Traditional Chinese: without this, 137 of the 512 Chinese pages of
# the four dev sets (136 of daniel's 399, its Big5 news sites) were detected as Korean, and got
# Korean's stoplist. A script's share is of its letters plus the ideographs. Japanese prose is
# about 60% kana and Korean mostly Hangul; the dev sets' Japanese samples had 17% or more (5th
# percentile), their Korean ones 100%.
_SCRIPT_GATES = {
    "ko": (re.compile(f"[{HANGUL}]"), 0.05),
    "ja": (re.compile(f"[{KANA}]"), 0.05),
}
_IDEOGRAPH = re.compile(f"[{IDEOGRAPHS}]")
_LETTER = re.compile(r"[^\W\d_]")
_N_CHARS = itemgetter(Block._fields.index("n_chars"))  # faster than attrgetter on a NamedTuple


def normalize_code(code: str) -> str:
    """Map a language tag to the code the stoplists use, or ``"und"`` when it names none.

    Lower-cases, keeps the primary subtag (``pt-BR`` -> ``pt``, ``zh_TW`` -> ``zh``,
    ``sr-Latn`` -> ``sr``) and maps aliases (``iw`` -> ``he``, ``nb``/``nn`` -> ``no``). A
    well-formed code without a stoplist is kept (``xh`` stays ``xh``: it is still the page's
    language, and `pipeline.lang.stoplists.stoplist` returns None for it); only malformed input and
    ``und``/``mul``/``zxx``/``mis`` give ``"und"``.
    """
    primary = code.strip().lower().replace("_", "-").split("-", 1)[0]
    if not _PRIMARY.fullmatch(primary):
        return "und"
    primary = _ALIASES.get(primary, primary)
    return "und" if primary in _NOT_A_LANGUAGE else primary


@cache
def _codes() -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The distinct codes of the profiles, and each profile's index among them."""
    codes = [normalize_code(name) for name in langprofiles.model().languages]
    distinct = tuple(sorted(set(codes)))
    return distinct, tuple(distinct.index(c) for c in codes)


def _by_script(text: str) -> LangGuess | None:
    """A guess from the writing system alone, for scripts langdetect has no profile for."""
    if _OWN_SCRIPTS.search(text) is None:
        return None
    letters = len(_LETTER.findall(text))
    for code, script in _SCRIPT_LANGUAGES.items():
        share = len(script.findall(text)) / letters if letters else 0.0
        if share >= 0.5:
            return LangGuess(code, min(1.0, share))
    return None


def detect(text: str, *, max_chars: int = 10_000) -> LangGuess:
    """The language of the first ``max_chars`` of ``text``, and its probability.

    ``LangGuess("und", 0.0)`` when the text has no gram of any profile (empty, digits,
    punctuation, a URL). Text mostly in a script that langdetect has no profile for but that one
    language dominates (Burmese, Georgian, Armenian, Khmer, Lao, Sinhala, Amharic, Tibetan) gets
    that language, with its share of letters as the probability. Korean needs Hangul and
    Japanese kana (5% of those letters and the ideographs): without them the text is neither.
    """
    text = text[:max_chars]
    scripted = _by_script(text)
    if scripted is not None:
        return scripted
    scores, n_grams = langprofiles.model().score(text)
    if not n_grams:
        return UND
    # Softmax in plain floats: for 55 values, faster than numpy's per-call overhead.
    logits = scores.tolist()
    codes, profile_code = _codes()
    best_profile = max(range(len(logits)), key=logits.__getitem__)
    if codes[profile_code[best_profile]] in _SCRIPT_GATES:
        _gate_scripts(text, logits, profile_code)
    top = max(logits)
    probs = [0.0] * len(codes)
    for code, logit in zip(profile_code, logits, strict=True):
        if logit != -math.inf:
            probs[code] += math.exp((logit - top) / TEMPERATURE)
    total = sum(probs)
    best = max(range(len(codes)), key=probs.__getitem__)
    return LangGuess(codes[best], probs[best] / total)


def _gate_scripts(text: str, logits: list[float], profile_code: Sequence[int]) -> None:
    """Rule out, in place, the profiles of the gated languages whose script the text lacks."""
    codes = _codes()[0]
    ideographs = len(_IDEOGRAPH.findall(text))
    for code, (script, min_share) in _SCRIPT_GATES.items():
        own = len(script.findall(text))
        if own < min_share * (own + ideographs) or not own:
            gated = codes.index(code)
            for i, c in enumerate(profile_code):
                if c == gated:
                    logits[i] = -math.inf


def sample_text(blocks: Sequence[Block], max_chars: int = SAMPLE_CHARS) -> str:
    """Up to ``max_chars`` of the page's most telling text: its longest blocks first.

    Long blocks are the page's prose, and prose identifies a language best; link-heavy blocks
    (menus, tag clouds) and code (`<pre>`) are used only when the page has nothing else, and a
    text that repeats (a notice printed twice) is taken once.
    """
    # Several blocks rather than one: a single long block is sometimes in another language than
    # the page (a legal notice, an English abstract), and a few blocks outvote it.
    per_block = max(_MIN_BLOCK_SAMPLE, max_chars // _BLOCKS_SAMPLED)
    # Most pages have enough prose blocks of at least `per_block` characters to fill the sample,
    # and those come first in the ranking: sorting just them skips sorting hundreds of blocks.
    long_prose = [
        b
        for b in blocks
        if b.n_chars >= per_block
        and b.n_link_chars / b.n_chars <= _MAX_LINK_DENSITY
        and (b.shape is None or not b.shape.pre)
    ]
    parts, total = _fill(long_prose, per_block, max_chars)
    if total < max_chars:
        parts, total = _fill(blocks, per_block, max_chars)
    return "\n".join(parts)


def _fill(blocks: Sequence[Block], per_block: int, max_chars: int) -> tuple[list[str], int]:
    """Block texts, cut to ``per_block``, until ``max_chars``: prose longest first, then links
    and code."""
    parts: list[str] = []
    total = 0
    later: list[Block] = []

    def take(block: Block) -> int:
        """Add the block's part to the sample; the characters it adds, 0 for a text the sample
        has: a text repeated (a licence line in the header and the footer, markup printed as
        text in each of a page's frames) would outvote the rest of the page."""
        part = block.text[: min(per_block, max_chars - total)]
        if part in parts:
            return 0
        parts.append(part)
        return len(part) + 1

    # Longest first, ties in page order (the sort is stable also when reversed), prose before
    # link-heavy blocks and code. One C-level sort on a field, then a walk that stops once the
    # sample is full. Code is English keywords whatever the page's language (a Japanese post's
    # Rust, a Chinese forum's shell commands), and the longest blocks of a page are often its
    # code: those read as English.
    for block in sorted(blocks, key=_N_CHARS, reverse=True):
        n = block.n_chars
        if not n or total >= max_chars:
            break
        if block.n_link_chars / n > _MAX_LINK_DENSITY or (
            block.shape is not None and block.shape.pre
        ):
            later.append(block)
        else:
            total += take(block)
    for block in later:
        if total >= max_chars:
            break
        total += take(block)
    return parts, total


def detect_blocks(blocks: Sequence[Block]) -> LangGuess:
    """The language of a page, from a bounded sample of its blocks (see module docstring)."""
    text = sample_text(blocks)
    if not text:
        return UND
    return detect(text, max_chars=SAMPLE_CHARS)
