"""langdetect's language profiles as one n-gram score matrix, and the text normalisation they need.

Data, not code, is taken from langdetect 1.0.9 (Apache-2.0, a port of Nakatani Shuyo's
language-detection): the JSON profiles in ``langdetect/profiles`` and the kanji classes in
``langdetect/utils/messages.properties``, both read from the installed package at run time. Facts
about that data this module relies on:

* A profile is ``{"name": code, "freq": {ngram: count}, "n_words": [n1, n2, n3]}``: counts of
  1-, 2- and 3-grams of the language's text, and the total count of grams of each length.
* The grams were taken word by word from normalised text, each word padded with one space on
  either side: ``" ab "`` gives ``a``, ``b``, ``" a"``, ``"ab"``, ``"b "``, ``" ab"``, ``"ab "``
  (every substring of length 1-3 but a lone space). Case is kept.
* Normalisation before counting: ASCII non-letters, general punctuation (U+2000-206F) and four
  Latin-1 characters (``NGram.LATIN1_EXCLUDE``: NBSP, guillemets, degree sign) became spaces;
  Vietnamese letters from U+1EA0 on became one class letter; each Hiragana, Katakana, Bopomofo
  and Hangul syllable became one letter of its script; CJK ideographs became the first ideograph
  of their frequency class (``NGram.KANJI_*``); Romanian comma-below s/t became cedilla s/t and
  Farsi yeh Arabic yeh.
* Profiles of languages not written in Latin script contain no Latin grams at all.

The scorer is multinomial naive Bayes over those grams: a language's score for a text is the sum,
over the text's grams that some profile knows, of ``log(p + SMOOTHING)`` with ``p`` the gram's
relative frequency in the profile (count / n_words of its length). Everything is built once per
machine into numpy arrays, about 23 MB, kept in the cache (`pipeline.lang.cache`) and mapped by
every later process: the per-gram scores (87,598 grams x 55 profiles, float32,
19 MB) and the tables that find a gram's row (`NgramModel`). Scoring a text is then a dozen numpy
calls on arrays of a few thousand elements, with no Python loop over characters or grams.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
import threading
import unicodedata
from dataclasses import dataclass
from importlib import resources
from itertools import chain
from pathlib import Path

import numpy as np

from pipeline.lang import cache

# Additive smoothing of a gram's relative frequency, so that a gram a profile lacks costs a
# bounded penalty instead of ruling the language out. langdetect's mean weight is the same
# (alpha 0.5 / base frequency 10,000); 1e-5 to 2e-4 are within a page or two of it on
# multilingual-dev and wcxb-dev (bench/langid.py --smoothing 1e-5 1e-4 2e-4).
SMOOTHING = 5e-5

_PUNCT_TO_SPACE = {
    **{c: " " for c in range(0x80) if not chr(c).isalpha()},
    **{c: " " for c in (0xA0, 0xAB, 0xB0, 0xBB)},
    **{c: " " for c in range(0x2000, 0x2070)},
}
_LETTER_CLASSES = {
    0x0219: "\u015f",  # Romanian s with comma below -> with cedilla, as in the ro profile
    0x021B: "\u0163",
    0x06CC: "\u064a",  # Farsi yeh -> Arabic yeh, as in the fa/ar/ur profiles
    **{c: "\u1ec3" for c in range(0x1EA0, 0x1F00)},  # Vietnamese letters with tone marks
    **{c: "\u3042" for c in range(0x3040, 0x30A0)},  # Hiragana
    **{c: "\u30a2" for c in range(0x30A0, 0x3100)},  # Katakana
    **{c: "\u3105" for c in chain(range(0x3100, 0x3130), range(0x31A0, 0x31C0))},  # Bopomofo
    **{c: "\uac00" for c in range(0xAC00, 0xD7B0)},  # Hangul syllables
}
# 2**19 slots (2 MB of int32) for the 84,439 2- and 3-grams: 7,899 of them find their slot taken
# and go to the overflow list, searched only for the grams the slots did not match.
_SLOT_BITS = 19
_GOLDEN = np.int64(-0x61C8864680B583EB)  # 2**64 / golden ratio, as a wrapping int64 multiplier
# URLs and e-mail addresses are not text of any language; their letters would vote for English.
_URL_OR_MAIL = re.compile(r"\b(?:https?://|www\.)\S+|\S+@\S+\.\w+")


@dataclass(frozen=True, eq=False)  # numpy fields: identity, not value, equality
class NgramModel:
    """Per-gram log scores of every profile, and the tables that find a gram's row.

    Rows of `scores`: the 1-grams, then the 2- and 3-grams, then a row of zeros that every gram
    no profile has is sent to. A 1-gram's row is read from a table indexed by its code point; a
    2- or 3-gram's `gram_key` is hashed to a slot of `slots`, which holds the row of the first
    gram that hashed there, and the grams that found their slot taken are searched for in the
    small sorted `overflow_keys`.
    """

    languages: tuple[str, ...]  # profile names, as langdetect ships them ("zh-cn", "zh-tw")
    # log(1 + p / SMOOTHING): log(p + eps) minus the same constant for every language, so the
    # ranking and the softmax are those of log(p + eps) and an unknown gram's row is zero.
    scores: np.ndarray  # float32 [n_grams + 1, len(languages)]
    # Code point -> code point of its normalised character. Every character the normalisation
    # changes, and every 1-gram of the profiles, is in the Basic Multilingual Plane.
    table: np.ndarray  # uint16 [0x10000]
    # Normalised code point -> row of its 1-gram.
    unigram_rows: np.ndarray  # int32 [0x10000]
    keys: np.ndarray  # int64 [n_grams + 1]: `gram_key` of each row; -1 for the row of zeros
    slots: np.ndarray  # int32 [2**_SLOT_BITS]: row of the gram that hashed there first
    overflow_keys: np.ndarray  # int64, sorted, then a sentinel above any key
    overflow_rows: np.ndarray  # int32, rows of `overflow_keys`; the sentinel's is the zeros

    @property
    def unknown(self) -> int:
        """The row of zeros."""
        return len(self.scores) - 1

    def code_points(self, text: str) -> np.ndarray:
        """Normalised code points of `` text ``, space-padded, as the profiles saw the text.

        Runs of spaces are left in: a gram with two spaces is in no profile and scores nothing,
        which is what collapsing them would achieve at a higher cost.
        """
        if "@" in text or "//" in text or "www." in text:
            text = _URL_OR_MAIL.sub(" ", text)
        text = unicodedata.normalize("NFC", text)
        # Lone surrogates (broken HTML entities) become "?": one code point each, no error.
        raw = np.frombuffer(f" {text} ".encode("utf-32-le", "replace"), np.uint32)
        points = self.table.take(raw & 0xFFFF).astype(np.int64)
        top = raw.max()
        if top >= 0x10000:  # emoji and rare scripts: no profile changes them
            points = np.where(raw < 0x10000, points, raw)
        if top >= 0x300:
            # Text written mostly in another script loses its ASCII letters: the profiles of
            # those languages have no Latin grams, so a few English words in a Chinese
            # paragraph would otherwise outvote it. A CJK character (kana, Hangul, ideograph)
            # counts for four letters, as it carries about a word: Chinese forum and news pages
            # whose sample was 35-62% ideographs beside a copyright line, user names and
            # "Your browser is not supported" were read as English or Vietnamese. (Six counted
            # too: a Pinterest page in English with a Chinese interface became Chinese.)
            latin = (points >= 0x41) & (points <= 0x7A)  # the table left only letters in ASCII
            other = (points >= 0x300) & ((points < 0x1E00) | (points >= 0x1F00))
            cjk = (points >= 0x3040) & (points < 0xD800)
            n_other = np.count_nonzero(other) + 3 * np.count_nonzero(cjk)
            if 2 * np.count_nonzero(latin) < n_other:
                points[latin] = 0x20
        return points

    def score(self, text: str) -> tuple[np.ndarray, int]:
        """Summed log scores per profile of the text's 1-3-grams, and how many grams scored.

        Every substring of length 1-3 of the padded text is looked up; those that no profile has
        (a lone space, grams across a word gap such as "x y") find the row of zeros.
        """
        c = self.code_points(text)
        unigrams = self.unigram_rows.take(c, mode="clip")  # astral: clipped to U+FFFF, unknown
        pairs = (c[:-1] << 21) | c[1:]
        grams = np.concatenate((pairs, (pairs[:-1] << 21) | c[2:]))
        rows = self.slots.take(_slot(grams))
        hit = self.keys.take(rows) == grams
        rest = grams[~hit]  # grams of no profile, mostly, and the few whose slot was taken
        at = np.searchsorted(self.overflow_keys, rest)
        overflow = self.overflow_rows.take(at)[self.overflow_keys.take(at) == rest]
        rows = np.concatenate((unigrams[unigrams != self.unknown], rows[hit], overflow))
        # A vector-matrix product sums the rows several times faster than ndarray.sum(axis=0).
        total = np.ones(len(rows), np.float32) @ self.scores.take(rows, axis=0)
        return total.astype(np.float64), len(rows)


def _slot(keys: np.ndarray) -> np.ndarray:
    """Multiplicative (Fibonacci) hashing of int64 keys to `_SLOT_BITS` bits."""
    return ((keys * _GOLDEN) >> (64 - _SLOT_BITS)) & ((1 << _SLOT_BITS) - 1)


def gram_key(gram: str) -> int:
    """A 1-3-gram as one integer: its code points, 21 bits each (no code point needs more)."""
    key = 0
    for ch in gram:
        key = (key << 21) | ord(ch)
    return key


def _kanji_classes() -> dict[int, str]:
    """Each CJK ideograph of a frequency class -> the class's first ideograph."""
    text = (
        resources.files("langdetect").joinpath("utils").joinpath("messages.properties").read_text()
    )
    table: dict[int, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.startswith("NGram.KANJI_"):
            members = codecs.decode(value.strip(), "unicode_escape")
            table.update((ord(ch), members[0]) for ch in members)
    return table


def _table() -> np.ndarray:
    table = np.arange(0x10000, dtype=np.uint16)
    for point, ch in {**_PUNCT_TO_SPACE, **_kanji_classes(), **_LETTER_CLASSES}.items():
        table[point] = ord(ch)
    return table


def _build(smoothing: float = SMOOTHING) -> NgramModel:
    profiles = []
    for entry in sorted(resources.files("langdetect").joinpath("profiles").iterdir(), key=str):
        profiles.append(json.loads(entry.read_text(encoding="utf-8")))
    grams = sorted(
        {g for p in profiles for g in p["freq"]}, key=lambda g: (len(g) > 1, gram_key(g))
    )
    n_unigrams = sum(len(g) == 1 for g in grams)
    row = {g: i for i, g in enumerate(grams)}
    # Built in float32 and in place: float64 temporaries would double the peak memory of every
    # worker process for the sake of digits that the float32 scores drop anyway.
    scores = np.zeros((len(grams) + 1, len(profiles)), np.float32)
    for column, profile in enumerate(profiles):
        counts = profile["freq"]
        totals = np.asarray(profile["n_words"], np.float64)
        index = np.fromiter(map(row.__getitem__, counts), np.int64, len(counts))
        lengths = np.fromiter(map(len, counts), np.int64, len(counts))
        freq = np.fromiter(counts.values(), np.float64, len(counts)) / totals[lengths - 1]
        scores[index, column] = freq / smoothing
    np.log1p(scores, out=scores)
    unknown = len(grams)  # the row of zeros
    unigram_rows = np.full(0x10000, unknown, np.int32)
    for i, gram in enumerate(grams[:n_unigrams]):
        if ord(gram) < 0x10000:
            unigram_rows[ord(gram)] = i
    keys = np.fromiter(map(gram_key, grams), np.int64, unknown)
    pair_rows = np.arange(n_unigrams, unknown, dtype=np.int32)
    slot = _slot(keys[n_unigrams:])
    _, first = np.unique(slot, return_index=True)
    slots = np.full(1 << _SLOT_BITS, unknown, np.int32)
    slots[slot[first]] = pair_rows[first]
    overflow = np.ones(len(slot), bool)
    overflow[first] = False
    return NgramModel(
        languages=tuple(p["name"] for p in profiles),
        scores=scores,
        table=_table(),
        unigram_rows=unigram_rows,
        keys=np.append(keys, -1),
        slots=slots,
        overflow_keys=np.append(keys[n_unigrams:][overflow], np.iinfo(np.int64).max),
        overflow_rows=np.append(pair_rows[overflow], np.int32(unknown)),
    )


_CACHE_NAME = "langprofiles"
_ARRAYS = ("scores", "table", "unigram_rows", "keys", "slots", "overflow_keys", "overflow_rows")


def inputs_digest() -> str:
    """A digest of everything `_build` reads or is: langdetect's profiles and kanji classes,
    this module's source and its constants (a cache entry is valid for exactly these)."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(f"{SMOOTHING!r} {_SLOT_BITS}".encode())
    package = resources.files("langdetect")
    for entry in sorted(package.joinpath("profiles").iterdir(), key=str):
        digest.update(entry.name.encode() + b"\0" + entry.read_bytes())
    digest.update(package.joinpath("utils").joinpath("messages.properties").read_bytes())
    return digest.hexdigest()[:24]


def _from_arrays(arrays: dict[str, np.ndarray], languages: list[str]) -> NgramModel:
    """The model over arrays read back from the cache, after checking they fit together."""
    # np.asarray: plain ndarray views of the mapped files, so results are never np.memmap
    a = {key: np.asarray(arrays[key]) for key in _ARRAYS}
    rows = len(a["keys"])
    expected = {
        "scores": ((rows, len(languages)), np.float32),
        "table": ((0x10000,), np.uint16),
        "unigram_rows": ((0x10000,), np.int32),
        "keys": ((rows,), np.int64),
        "slots": ((1 << _SLOT_BITS,), np.int32),
        "overflow_keys": ((len(a["overflow_rows"]),), np.int64),
        "overflow_rows": ((len(a["overflow_keys"]),), np.int32),
    }
    for key, (shape, dtype) in expected.items():
        if a[key].shape != shape or a[key].dtype != dtype:
            raise ValueError(f"cached {key} is {a[key].dtype}{a[key].shape}")
    if not all(isinstance(code, str) for code in languages):
        raise ValueError("cached language names are not strings")
    return NgramModel(languages=tuple(languages), **a)


def _load_or_build() -> NgramModel:
    digest = inputs_digest()
    cached = cache.load(_CACHE_NAME, digest)
    if cached is not None:
        arrays, meta = cached
        try:
            return _from_arrays(arrays, meta["languages"])
        except (ValueError, KeyError, TypeError):
            pass  # a damaged entry: build, as without a cache
    built = _build()
    arrays = {key: getattr(built, key) for key in _ARRAYS}
    cache.save(_CACHE_NAME, digest, arrays, {"languages": list(built.languages)})
    return built


_lock = threading.Lock()
_model: NgramModel | None = None


def model() -> NgramModel:
    """The process's model under a lock (worker threads race): read from the machine's cache
    (`pipeline.lang.cache`, a few ms) or built (about 0.5 s) and put there."""
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                _model = _load_or_build()
    return _model
