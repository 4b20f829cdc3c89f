"""The language profiles' on-disk cache: read back exactly as built, and never a reason to fail.

Each test points ``WARCCLEAN_CACHE_DIR`` at its own directory and builds through
`profiles._load_or_build` (the process's own model stays as it is).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeline.lang import cache, profiles

TEXTS = (
    "Der schnelle braune Fuchs springt über den faulen Hund und läuft dann weiter in den Wald.",
    "El rápido zorro marrón salta sobre el perro perezoso y sigue corriendo por el bosque.",
    "敏捷的棕色狐狸跳过了懒狗，然后继续跑进森林里。",
    "素早い茶色の狐がのろまな犬を飛び越えて、森の中へ走っていった。",
)


@pytest.fixture(scope="module")
def built() -> profiles.NgramModel:
    return profiles._build()


def _entry(root: Path) -> Path:
    (entry,) = root.glob(f"langprofiles-{profiles.inputs_digest()}")
    return entry


def _same(a: profiles.NgramModel, b: profiles.NgramModel) -> None:
    assert a.languages == b.languages
    for key in profiles._ARRAYS:
        x, y = getattr(a, key), getattr(b, key)
        assert x.dtype == y.dtype and np.array_equal(x, y), key
    for text in TEXTS:
        (sa, na), (sb, nb) = a.score(text), b.score(text)
        assert na == nb and np.array_equal(sa, sb)


def test_the_second_process_maps_what_the_first_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, built: profiles.NgramModel
) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path))
    first = profiles._load_or_build()
    entry = _entry(tmp_path)
    assert json.loads((entry / "meta.json").read_text())["languages"] == list(built.languages)
    assert first.scores.flags.owndata  # built here
    second = profiles._load_or_build()
    # read back: views of the mapped files, not copies and not np.memmap objects
    assert not second.scores.flags.owndata and type(second.scores) is np.ndarray
    assert not second.scores.flags.writeable
    _same(second, built)
    _same(first, built)


def test_a_fresh_interpreter_detects_the_same_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = (
        "import json, sys; from pipeline.lang import langid, profiles;"
        "m = profiles.model(); codes = [langid.detect(t).code for t in sys.argv[1:]];"
        "print(json.dumps([m.scores.flags.owndata, *codes]))"
    )
    env = {**os.environ, cache.ENV: str(tmp_path)}
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", code, *TEXTS],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        for _ in range(2)
    ]
    assert runs[0][0] is True and runs[1][0] is False  # built, then mapped
    assert runs[0][1:] == runs[1][1:] == ["de", "es", "zh", "ja"]


@pytest.mark.parametrize("damage", ["meta", "array", "shape"])
def test_a_damaged_entry_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, built: profiles.NgramModel, damage: str
) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path))
    profiles._load_or_build()
    entry = _entry(tmp_path)
    if damage == "meta":
        (entry / "meta.json").write_text("{not json")
    elif damage == "array":
        (entry / "scores.npy").write_bytes(b"\x93NUMPY truncated")
    else:
        np.save(entry / "slots.npy", np.zeros(7, np.int32))
    _same(profiles._load_or_build(), built)


def test_off_or_unwritable_means_built_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, built: profiles.NgramModel
) -> None:
    monkeypatch.setenv(cache.ENV, "off")
    assert cache.cache_dir() is None
    _same(profiles._load_or_build(), built)
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache directory's path is taken by a file")
    monkeypatch.setenv(cache.ENV, str(blocker / "cache"))
    _same(profiles._load_or_build(), built)
    assert not cache.save("x", "0", {"a": np.zeros(3)}, {})


def test_default_location_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cache.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "warcclean"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / ".cache" / "warcclean"


def test_the_digest_covers_the_build_constants(monkeypatch: pytest.MonkeyPatch) -> None:
    before = profiles.inputs_digest()
    monkeypatch.setattr(profiles, "SMOOTHING", profiles.SMOOTHING * 2)
    assert profiles.inputs_digest() != before


def test_save_says_whether_the_entry_is_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    arrays = {"a": np.arange(5, dtype=np.int32)}
    monkeypatch.setenv(cache.ENV, "off")
    assert cache.save("x", "0", arrays, {}) is False
    monkeypatch.setenv(cache.ENV, str(tmp_path / "not" / "yet"))  # made, parents and all
    assert cache.save("x", "0", arrays, {"k": 1}) is True
    entry = tmp_path / "not" / "yet" / "x-0"
    # Readable by every user's processes (mkdtemp makes it 0700), as the Docker image's
    # prebuilt cache is read by workers running under another uid.
    assert entry.stat().st_mode & 0o777 == 0o755
    # Already there (another process's copy): in place, and left as it was.
    (entry / "marker").write_text("first")
    assert cache.save("x", "0", {"a": np.zeros(2)}, {}) is True
    assert (entry / "marker").read_text() == "first"
    loaded, meta = cache.load("x", "0")
    assert meta == {"k": 1, "arrays": ["a"]} and loaded["a"].tolist() == [0, 1, 2, 3, 4]
    assert cache.load("x", "1") is None  # another digest: no entry


def test_a_failed_save_leaves_no_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path))

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache.np, "save", full_disk)
    assert cache.save("x", "0", {"a": np.zeros(3)}, {}) is False
    assert list(tmp_path.iterdir()) == []


def test_an_entry_holding_a_pickle_is_never_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cache directory other users can write to must not make this process unpickle: an
    # object array is refused and the caller builds its own.
    monkeypatch.setenv(cache.ENV, str(tmp_path))
    entry = tmp_path / "x-0"
    entry.mkdir()
    np.save(entry / "a.npy", np.array([{"not": "numbers"}], dtype=object), allow_pickle=True)
    (entry / "meta.json").write_text(json.dumps({"arrays": ["a"]}))
    assert cache.load("x", "0") is None
