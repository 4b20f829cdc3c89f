"""Regenerate ``stoplists/<code>.txt`` and the table in ``stoplists/README.md`` from packages.

Build-time tool only: the pipeline reads the generated text files and never imports the packages
below. Run from the repository root after installing the sources::

    pip install "justext==3.0.2" "stopwordsiso==0.7.1" "burmesenlp==1.2.0" "opencc==1.4.2"
    python stoplists/build_stoplists.py

Sources (their word lists are data, redistributed with their licences cited in README.md):

* jusText 3.0.2 (BSD-2-Clause): ``justext/stoplists/<Language>.txt``, 100 lists. Kept verbatim
  apart from lower-casing and de-duplication, exactly what ``justext.get_stoplist`` does, so a
  differential test against jusText sees the same set.
* stopwordsiso 0.7.1 (MIT; data from the stopwords-iso project): zh, ja, th, so (not in jusText).
  The zh list is Simplified; OpenCC 1.4.2 (Apache-2.0) adds the Traditional spellings.
* burmesenlp 1.2.0 (Apache-2.0): ``burmesenlp/corpus/dictionaries/stopwords.txt`` for my.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.resources
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

# jusText file stem -> (ISO 639-1 code, else ISO 639-3; English name). Explicit on purpose: the
# codes must be the ones langdetect and `pipeline.lang.langid.normalize_code` produce.
JUSTEXT_CODES: dict[str, str] = {
    "Afrikaans": "af",
    "Albanian": "sq",
    "Arabic": "ar",
    "Aragonese": "an",
    "Armenian": "hy",
    "Aromanian": "rup",
    "Asturian": "ast",
    "Azerbaijani": "az",
    "Basque": "eu",
    "Belarusian": "be",
    "Bengali": "bn",
    "Bishnupriya_Manipuri": "bpy",
    "Bosnian": "bs",
    "Breton": "br",
    "Bulgarian": "bg",
    "Catalan": "ca",
    "Cebuano": "ceb",
    "Chuvash": "cv",
    "Croatian": "hr",
    "Czech": "cs",
    "Danish": "da",
    "Dutch": "nl",
    "English": "en",
    "Esperanto": "eo",
    "Estonian": "et",
    "Finnish": "fi",
    "French": "fr",
    "Galician": "gl",
    "Georgian": "ka",
    "German": "de",
    "Greek": "el",
    "Gujarati": "gu",
    "Haitian": "ht",
    "Hebrew": "he",
    "Hindi": "hi",
    "Hungarian": "hu",
    "Icelandic": "is",
    "Ido": "io",
    "Igbo": "ig",
    "Indonesian": "id",
    "Irish": "ga",
    "Italian": "it",
    "Javanese": "jv",
    "Kannada": "kn",
    "Kazakh": "kk",
    "Korean": "ko",
    "Kurdish": "ku",
    "Kyrgyz": "ky",
    "Latin": "la",
    "Latvian": "lv",
    "Lithuanian": "lt",
    "Lombard": "lmo",
    "Low_Saxon": "nds",
    "Luxembourgish": "lb",
    "Macedonian": "mk",
    "Malay": "ms",
    "Malayalam": "ml",
    "Maltese": "mt",
    "Marathi": "mr",
    "Neapolitan": "nap",
    "Nepali": "ne",
    "Newar": "new",
    # Both Norwegian written standards go into one "no" list: langdetect (and most labelled web
    # data) reports Norwegian as "no" and cannot tell Bokmål from Nynorsk.
    "Norwegian_Bokmal": "no",
    "Norwegian_Nynorsk": "no",
    "Occitan": "oc",
    "Persian": "fa",
    "Piedmontese": "pms",
    "Polish": "pl",
    "Portuguese": "pt",
    "Quechua": "qu",
    "Romanian": "ro",
    "Russian": "ru",
    "Samogitian": "sgs",
    "Serbian": "sr",
    "Serbo_Croatian": "sh",
    "Sicilian": "scn",
    "Slovak": "sk",
    "Slovenian": "sl",
    "Spanish": "es",
    "Sundanese": "su",
    "Swahili": "sw",
    "Swedish": "sv",
    "Tagalog": "tl",
    "Tamil": "ta",
    "Telugu": "te",
    "Turkish": "tr",
    "Turkmen": "tk",
    "Ukrainian": "uk",
    "Urdu": "ur",
    "Uzbek": "uz",
    "Vietnamese": "vi",
    "Volapuk": "vo",
    "Walloon": "wa",
    "Waray_Waray": "war",
    "Welsh": "cy",
    "West_Frisian": "fy",
    "Western_Panjabi": "pnb",
    "Yoruba": "yo",
}
# jusText lists that have no ISO 639 code of their own, so no detector can ever select them.
JUSTEXT_SKIPPED: dict[str, str] = {
    "Simple_English": "Simple English Wikipedia is English (en); no code of its own",
    "Belarusian_Taraskievica": "classical Belarusian orthography (BCP 47 be-tarask)",
}
LANGUAGE_NAMES: dict[str, str] = {
    code: stem.replace("_", " ") for stem, code in JUSTEXT_CODES.items() if code != "no"
} | {
    "no": "Norwegian (Bokmål + Nynorsk)",
    "zh": "Chinese",
    "ja": "Japanese",
    "th": "Thai",
    "so": "Somali",
    "my": "Burmese",
}

# zh/ja/th: jusText has none. so: the one langdetect language left without a list otherwise.
STOPWORDSISO_CODES = ("zh", "ja", "th", "so")
BURMESENLP_FILE = "burmesenlp/corpus/dictionaries/stopwords.txt"


@dataclass(frozen=True)
class Stoplist:
    code: str
    words: frozenset[str]
    source: str
    licence: str


def _has_letter(word: str) -> bool:
    return any(unicodedata.category(c)[0] in "LM" for c in word)


def _clean_extra(words: Iterable[str]) -> set[str]:
    """Lower-case and drop entries that are no words (stopwords-iso's zh list has 、 。 《 》)."""
    return {w.strip().lower() for w in words if w.strip() and _has_letter(w)}


def _thai_variants(words: set[str]) -> set[str]:
    """Add the SARA AM spelling of words the list stores in NFKC form.

    stopwords-iso writes ทำ as NIKHAHIT + SARA AA (U+0E4D U+0E32), the compatibility
    decomposition; web text almost always uses the precomposed U+0E33, which would never match.
    """
    return words | {w.replace("\u0e4d\u0e32", "\u0e33") for w in words}


def _traditional_variants(words: set[str]) -> set[str]:
    """Add the Traditional spellings of a Simplified list (们 -> 們, 这 -> 這).

    langdetect maps zh-tw to the same "zh" as zh-cn, so one list must serve both scripts.
    Three OpenCC standards because they differ (为 -> 爲 in s2t, 為 in s2tw and s2hk).
    """
    import opencc  # build-time only

    converters = [opencc.OpenCC(config) for config in ("s2t", "s2tw", "s2hk")]
    return words | {c.convert(w) for c in converters for w in words}


def _justext_lists() -> list[Stoplist]:
    version = importlib.metadata.version("justext")
    root = importlib.resources.files("justext") / "stoplists"
    stems = sorted(p.name[:-4] for p in root.iterdir() if p.name.endswith(".txt"))
    unknown = set(stems) - set(JUSTEXT_CODES) - set(JUSTEXT_SKIPPED)
    if unknown:
        raise SystemExit(f"jusText {version} has lists this script does not map: {sorted(unknown)}")
    merged: dict[str, set[str]] = {}
    stems_of: dict[str, list[str]] = {}
    for stem in stems:
        if stem in JUSTEXT_SKIPPED:
            continue
        text = (root / f"{stem}.txt").read_bytes().decode("utf-8")
        # Exactly justext.get_stoplist: every line, lower-cased, as a set.
        words = {w.lower() for w in text.splitlines()}
        code = JUSTEXT_CODES[stem]
        merged.setdefault(code, set()).update(words)
        stems_of.setdefault(code, []).append(stem)
    return [
        Stoplist(
            code,
            frozenset(words),
            f"jusText {version} `{'` + `'.join(f'{s}.txt' for s in stems_of[code])}`",
            "BSD-2-Clause",
        )
        for code, words in merged.items()
    ]


def _stopwordsiso_lists() -> list[Stoplist]:
    import stopwordsiso  # build-time only

    version = importlib.metadata.version("stopwordsiso")
    lists = []
    for code in STOPWORDSISO_CODES:
        words = _clean_extra(stopwordsiso.stopwords(code))
        source, licence = f"stopwordsiso {version}", "MIT"
        if code == "th":
            words = _thai_variants(words)
        if code == "zh":
            words = _traditional_variants(words)
            source += f" + OpenCC {importlib.metadata.version('opencc')} s2t/s2tw/s2hk"
            licence += " (OpenCC: Apache-2.0)"
        lists.append(Stoplist(code, frozenset(words), source, licence))
    return lists


def _burmese_list() -> Stoplist:
    # Read the file from the distribution without importing burmesenlp (and its dependencies).
    dist = importlib.metadata.distribution("burmesenlp")
    text = Path(str(dist.locate_file(BURMESENLP_FILE))).read_text(encoding="utf-8")
    words = _clean_extra(text.splitlines())
    return Stoplist("my", frozenset(words), f"burmesenlp {dist.version}", "Apache-2.0")


README = HERE / "README.md"
TABLE_START = "<!-- generated table: build_stoplists.py -->"
TABLE_END = "<!-- end of generated table -->"


def _table(lists: list[Stoplist]) -> str:
    rows = "".join(
        f"| {s.code} | {LANGUAGE_NAMES[s.code]} | {len(s.words)} | {s.source} | {s.licence} |\n"
        for s in lists
    )
    return "| code | language | words | source | licence |\n|---|---|---:|---|---|\n" + rows


def _update_readme(readme: Path, lists: list[Stoplist]) -> None:
    """Replace the table between the markers; the prose around it is maintained by hand."""
    text = readme.read_text(encoding="utf-8")
    start, end = text.find(TABLE_START), text.find(TABLE_END)
    if start < 0 or end < start:
        raise SystemExit(f"{readme}: table markers {TABLE_START!r} / {TABLE_END!r} not found")
    head = text[: start + len(TABLE_START)]
    readme.write_text(f"{head}\n{_table(lists)}{text[end:]}", encoding="utf-8")


def write_all(out_dir: Path) -> list[Stoplist]:
    lists = sorted(
        [*_justext_lists(), *_stopwordsiso_lists(), _burmese_list()], key=lambda s: s.code
    )
    codes = [s.code for s in lists]
    if len(codes) != len(set(codes)):
        raise SystemExit(f"two sources for one code: {codes}")
    for old in out_dir.glob("*.txt"):
        old.unlink()
    for s in lists:
        (out_dir / f"{s.code}.txt").write_text(
            "".join(f"{w}\n" for w in sorted(s.words)), encoding="utf-8"
        )
    readme = out_dir / "README.md"
    if not readme.exists():
        readme.write_text(README.read_text(encoding="utf-8"), encoding="utf-8")
    _update_readme(readme, lists)
    return lists


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="output folder (default: here)")
    args = parser.parse_args()
    lists = write_all(args.out)
    print(f"wrote {len(lists)} stoplists to {args.out}")


if __name__ == "__main__":
    main()
