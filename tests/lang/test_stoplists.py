"""Stoplist files: coverage, format, lookup rules, where the data is found, and the README table."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from pipeline.lang import stoplists
from pipeline.lang.stoplists import StoplistDataMissing, available_languages, stoplist
from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
STOPLIST_DIR = REPO / "stoplists"


@functools.cache
def _build_script() -> ModuleType:
    """The generator script, for its explicit jusText name -> code map."""
    return load_script(STOPLIST_DIR / "build_stoplists.py")


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    stoplists.clear_cache()
    yield
    stoplists.clear_cache()


def test_covers_justext_languages_and_unspaced_scripts() -> None:
    langs = available_languages()
    build = _build_script()
    assert set(build.JUSTEXT_CODES.values()) <= langs
    assert {"zh", "ja", "ko", "th", "my"} <= langs
    assert len(langs) >= 100
    # Merged or skipped lists must not appear under codes no detector produces.
    assert not {"nb", "nn", "simple", "be-tarask"} & langs


@pytest.mark.parametrize("code", sorted(available_languages()))
def test_every_list_loads_lowercased_and_nonempty(code: str) -> None:
    words = stoplist(code)
    assert words, code
    assert all(w and w == w.lower() and not any(c.isspace() for c in w) for w in words)


def test_file_format_is_sorted_one_word_per_line() -> None:
    text = (STOPLIST_DIR / "en.txt").read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[-1] == "" and "" not in lines[:-1]
    assert lines[:-1] == sorted(set(lines[:-1]))
    assert {"the", "and", "of"} <= set(lines)


def test_no_stoplist_means_language_independent_mode() -> None:
    assert stoplist("und") is None
    assert stoplist("xh") is None  # a real language without a list
    assert stoplist("EN") is None  # codes must be normalised first (langid.normalize_code)
    assert stoplist("../stoplists/en") is None
    assert stoplist("") is None


def test_same_object_every_call() -> None:
    # Cleaners cache derived structures keyed on the frozenset, so identity matters.
    assert stoplist("zh") is stoplist("zh")


def test_equals_justext_lists() -> None:
    justext = pytest.importorskip("justext")
    build = _build_script()
    for name, code in build.JUSTEXT_CODES.items():
        if code == "no":
            continue
        assert stoplist(code) == justext.get_stoplist(name), name
    norwegian = justext.get_stoplist("Norwegian_Bokmal") | justext.get_stoplist("Norwegian_Nynorsk")
    assert stoplist("no") == norwegian


def test_unspaced_lists_fixed_up() -> None:
    zh, th = stoplist("zh"), stoplist("th")
    assert zh is not None and th is not None
    assert {"的", "我们", "們", "這"} <= zh  # Traditional spellings added to the Simplified list
    assert not {"、", "。", "《"} & zh  # punctuation entries dropped
    assert "ทำ" in th and "\u0e17\u0e4d\u0e32" in th  # precomposed SARA AM beside the NFKC form


def test_readme_table_matches_files() -> None:
    readme = (STOPLIST_DIR / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| ([a-z]{2,3}) \| [^|]+ \| (\d+) \|", readme, flags=re.M))
    assert set(rows) == available_languages()
    for code, count in rows.items():
        assert len(stoplist(code) or ()) == int(count), code


def test_checkout_folder_used_when_package_has_none(
    fresh_cache: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "xx.txt").write_text("foo\nbar\n", encoding="utf-8")
    monkeypatch.setattr(stoplists, "_packaged_dir", lambda: tmp_path / "absent")
    monkeypatch.setattr(stoplists, "_checkout_dir", lambda: tmp_path)
    assert available_languages() == {"xx"}
    assert stoplist("xx") == {"foo", "bar"}


def test_packaged_folder_wins_over_checkout(
    fresh_cache: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    packaged, checkout = tmp_path / "pkg", tmp_path / "repo"
    packaged.mkdir()
    checkout.mkdir()
    (packaged / "aa.txt").write_text("packaged\n", encoding="utf-8")
    (checkout / "aa.txt").write_text("checkout\n", encoding="utf-8")
    monkeypatch.setattr(stoplists, "_packaged_dir", lambda: packaged)
    monkeypatch.setattr(stoplists, "_checkout_dir", lambda: checkout)
    assert stoplist("aa") == {"packaged"}


def test_missing_data_is_a_clear_error(
    fresh_cache: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(stoplists, "_packaged_dir", lambda: tmp_path / "absent")
    monkeypatch.setattr(stoplists, "_checkout_dir", lambda: tmp_path)  # exists but empty
    with pytest.raises(StoplistDataMissing, match="no stoplist files found"):
        stoplist("en")
