"""Word and stopword counting for every script, spaced or not.

Spaced scripts follow jusText exactly: the lower-cased text split on whitespace, punctuation left
attached, a word is a stopword when the whole token is in the stoplist. A differential test
against jusText relies on this, so do not "improve" it.

Scripts written without spaces (Han, Hiragana/Katakana, Thai, Lao, Myanmar, Khmer) would make a
whole sentence one "word" under that rule, so a whitespace token containing such characters is
segmented instead:

* stopwords are found by greedy longest match against the stoplist's entries in those scripts
  (the zh/ja/th/my lists are mostly multi-character), each one word and one stopword;
* the characters between matches count as ``ceil(run / n)`` words, where ``n`` is a typical word
  length of the script (`CJK_CHARS_PER_WORD`, `SEA_CHARS_PER_WORD`); counting every character as
  a word instead would put the stopword density of real zh/th prose far below jusText's
  thresholds (measured numbers: stoplists/README.md, "Unspaced scripts");
* anything else in the token (Latin letters, digits) counts one word per piece that has a letter
  or digit; bare punctuation such as 。 or 、 counts nothing.

The script is decided per token, so mixed text needs no language argument.
"""

from __future__ import annotations

import functools
import re
from collections import Counter

# Typical code points per word, used for text between stopword matches. Han/kana content words
# are mostly two characters (Chinese word-segmented corpora average 1.5-1.7 including function
# words, which are matched separately here); Thai/Lao/Khmer/Myanmar words are several code points
# because vowels and tone marks are separate characters.
CJK_CHARS_PER_WORD = 2
SEA_CHARS_PER_WORD = 4

# Character-class ranges of the CJK scripts, for the scorers that tell them apart (language ID,
# the decoder's repairs) as well as for word counting.
KANA = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\uff66-\uff9f"  # half-width Katakana
)
IDEOGRAPHS = (
    "\u3005-\u3007"  # 々 〆 〇
    "\u3400-\u4dbf"  # CJK Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\U00020000-\U0003134f"  # CJK Extensions B-G
)
# Hangul is written with spaces between words: not in the unspaced class below.
HANGUL = (
    "\u1100-\u11ff"  # Jamo
    "\u3130-\u318f"  # compatibility Jamo
    "\uac00-\ud7af"  # syllables
)
_CJK = KANA + IDEOGRAPHS
_SEA = (
    "\u0e00-\u0e7f"  # Thai
    "\u0e80-\u0eff"  # Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u19e0-\u19ff"  # Khmer symbols
    "\ua9e0-\ua9ff"  # Myanmar Extended-B
    "\uaa60-\uaa7f"  # Myanmar Extended-A
)
# One character of a script written without spaces between words: text without one is counted
# by whitespace alone. Public because the compiled segmentation walk and block features make the
# same decision per text without calling `count_words`.
UNSPACED_CHAR = re.compile(f"[{_CJK}{_SEA}]")
_HAN_KANA = re.compile(f"[{_CJK}]")
_UNSPACED_RUN = re.compile(f"[{_CJK}{_SEA}]+")
_MARK = "\x00"
# Anything but whitespace and the marker: what is left to count once unspaced runs are marked.
_OTHER_CHAR = re.compile(r"[^\s\x00]")
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")


def han_kana_chars(text: str) -> int:
    """How many Han and kana characters ``text`` has.

    Length thresholds tuned on European text (jusText's 70/200 characters) are about twice too
    strict for Chinese and Japanese, where one character carries roughly what two letters do;
    callers weight these characters to compare lengths across scripts.
    """
    if text.isascii():
        return 0
    return len(_HAN_KANA.findall(text))


def count_words(text: str, stoplist: frozenset[str] | None) -> tuple[int, int]:
    """Return (words, stopwords) in ``text``; stopwords are 0 without a stoplist.

    ``stoplist`` holds lower-cased words (`pipeline.lang.stoplists.stoplist`).
    """
    # isascii() is a flag check in CPython, so English never pays for the script scan.
    if text.isascii() or UNSPACED_CHAR.search(text) is None:
        tokens = text.lower().split()
        if not stoplist:
            return len(tokens), 0
        return len(tokens), sum(map(stoplist.__contains__, tokens))
    return _count_unspaced(text.lower(), stoplist)


def _count_unspaced(text: str, stoplist: frozenset[str] | None) -> tuple[int, int]:
    """Count a text that has unspaced-script characters, working on the whole text at once.

    Stopwords cannot span whitespace (entries with spaces are never matched), so matching the
    whole text equals matching token by token, and the C-level regex passes replace a Python
    loop over tokens. Stopword matches and unspaced runs are replaced by NUL, a marker that is
    not whitespace, so a token still shows afterwards whether it held unspaced script.
    """
    words = stops = 0
    matcher = _stopword_matcher(stoplist) if stoplist else None
    if matcher is not None:
        text, stops = matcher.subn(_MARK, text)
        words = stops
    for run in _UNSPACED_RUN.findall(text):
        per_word = SEA_CHARS_PER_WORD if _is_sea(run[0]) else CJK_CHARS_PER_WORD
        words += -(-len(run) // per_word)
    marked = _UNSPACED_RUN.sub(_MARK, text)
    if _OTHER_CHAR.search(marked) is None:
        return words, stops
    for token in marked.split():
        if _MARK not in token:
            # A token without unspaced script: jusText's rule, one word, punctuation and all.
            words += 1
            if stoplist and token in stoplist:
                stops += 1
            continue
        for piece in token.split(_MARK):
            if piece and _LETTER_OR_DIGIT.search(piece):
                words += 1
                if stoplist and piece in stoplist:
                    stops += 1
    return words, stops


def _is_sea(ch: str) -> bool:
    # Every CJK range starts at or above U+3005; of the SEA ranges only Myanmar's extensions do.
    return ch < "\u3000" or "\ua9e0" <= ch <= "\uaa7f"


@functools.lru_cache(maxsize=16)
def _stopword_matcher(stoplist: frozenset[str]) -> re.Pattern[str] | None:
    """A regex matching the stoplist's unspaced-script entries, longest first at each position.

    Built as a trie: one alternative per first character, then nested optional groups, so the
    greedy ``?`` makes the longest entry win. Every top-level alternative starts with a literal,
    which lets `re` derive a first-character set and skip non-candidate positions in C (a
    lookahead or a character class in front disables that and cost 25% more on zh pages).
    Alternatives are ordered by how many entries contain their character, a corpus-free proxy
    for frequency, because `re` tries them in order. Keyed on the frozenset itself:
    `pipeline.lang.stoplists.stoplist` returns the same object each time and CPython caches a
    frozenset's hash, so the lookup is cheap.
    """
    entries = [w for w in stoplist if UNSPACED_CHAR.search(w) and not any(c.isspace() for c in w)]
    if not entries:
        return None
    trie: dict[str, dict] = {}
    for word in entries:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    uses = Counter(ch for word in entries for ch in word)
    first = sorted(trie, key=lambda ch: (-uses[ch], ch))
    return re.compile("|".join(re.escape(ch) + _trie_pattern(trie[ch]) for ch in first))


def _trie_pattern(node: dict[str, dict]) -> str:
    """Pattern for what may follow a trie node (empty when the node only ends a word)."""
    branches = [re.escape(ch) + _trie_pattern(child) for ch, child in sorted(node.items()) if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body
