"""Safety: output paths stay under the output root; inputs and config are data; non-root image.

What is checked, and how:

- every output path built from an input name or a detected language stays inside the output
  directory, for hostile names (``../``, absolute, URL-encoded, NUL, very long, unicode) and for
  any text hypothesis generates; one end-to-end run on a hostile file name writes only inside;
- the package never deserialises or evaluates what it reads: an AST scan of ``pipeline/`` and
  ``jobs/`` finds no pickle/marshal/shelve, eval/exec/compile, ``yaml.load``, ``shell=True`` or
  ``np.load(allow_pickle=True)``; the documented safe uses are listed in ``ALLOWED``;
- the Docker image's last ``USER`` is not root.
"""

from __future__ import annotations

import ast
import posixpath
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import get_cleaner
from pipeline.jobconfig import JobConfig, parse_value
from pipeline.output.schema import partition_language
from pipeline.output.sink import OutputPaths
from pipeline.run import process_warc
from pipeline.warc.inputs import input_stem
from tests.warc_builders import build_warc, html_response

REPO = Path(__file__).resolve().parents[1]
ROOT = "/data/out"

HOSTILE_NAMES = [
    "../../x.warc",
    "../../../etc/passwd",
    "/etc/cron.d/evil.warc.gz",
    "..",
    ".",
    "",
    "/",
    "%2e%2e%2f%2e%2e%2fx.warc.gz",
    "..%2F..%2Fx.warc",
    "a\x00b.warc.gz",
    "a/b/../../../c.warc",
    "x" * 5000 + ".warc.gz",
    "s3://bucket/../../k.warc.gz",
    "C:\\Windows\\..\\x.warc",
    ".hidden.warc",
    "données/日本語 ファイル.warc.gz",
    "\u202eexe.warc",
    "a\nb\r\tc.warc",
]
HOSTILE_LANGS = ["../..", "en/../../x", "..", "", "\x00", "zh-cn", "EN", "x" * 100, "/", "e n"]


def inside(root: str, path: str) -> bool:
    normalized = posixpath.normpath(path)
    return normalized.startswith(root.rstrip("/") + "/") and "\x00" not in normalized


def all_paths(root: str, name: str, language: str) -> list[str]:
    paths = OutputPaths(root, input_stem(name))
    return [paths.docs(partition_language(language)), paths.rejects, paths.marker]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
@pytest.mark.parametrize("language", HOSTILE_LANGS)
def test_hostile_names_and_languages_stay_inside(name: str, language: str) -> None:
    for path in all_paths(ROOT, name, language):
        assert inside(ROOT, path), path
        # one directory level per component we chose, nothing the input added
        rel = posixpath.relpath(path, ROOT).split("/")
        assert len(rel) <= 3 and not any(part in ("", ".", "..") for part in rel), rel
        assert len(rel[-1]) < 255  # a valid file name on every common file system


def test_stems_are_distinct_for_distinct_hostile_names() -> None:
    stems = {input_stem(n) for n in HOSTILE_NAMES}
    assert len(stems) == len(set(HOSTILE_NAMES))


@settings(max_examples=300, deadline=None)
@given(name=st.text(max_size=300), language=st.text(max_size=30))
def test_any_text_as_name_or_language_stays_inside(name: str, language: str) -> None:
    for path in all_paths(ROOT, name, language):
        assert inside(ROOT, path), path


def test_hostile_file_name_end_to_end_writes_only_inside(tmp_path: Path) -> None:
    inputs = tmp_path / "in" / ".." / "in"
    (tmp_path / "in").mkdir()
    name = "..%2f..%2f évil name;$(touch pwned).warc.gz"
    path = inputs / name
    path.write_bytes(
        build_warc(
            [
                html_response(
                    "https://e.example/",
                    "<html><body><p>"
                    + "The river runs through the old town and the people like it. " * 8
                    + "</p></body></html>",
                )
            ]
        )
    )
    out = tmp_path / "out"
    before = set(tmp_path.rglob("*"))
    report = process_warc(str(path), JobConfig(output=str(out)))
    assert report.stats.docs == 1
    created = set(tmp_path.rglob("*")) - before
    assert created and all(out in p.parents or p == out for p in created), created
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


# --- data, never code ----------------------------------------------------------------------

FORBIDDEN_MODULES = {"pickle", "cPickle", "dill", "cloudpickle", "marshal", "shelve", "joblib"}
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "execfile", "input"}
# yaml.load builds arbitrary objects; import_module with a name read from data runs code.
FORBIDDEN_SUFFIXES = ("yaml.load", "yaml.unsafe_load", "import_module")
# (file, what): each is a use the scan would flag that is safe by construction.
ALLOWED = {
    # a fixed table of the package's own public names (lazy import), never data
    ("pipeline/__init__.py", "importlib.import_module"),
    # the same for the cleaners: a fixed table of the package's own classes, never data
    ("pipeline/cleaners/registry.py", "importlib.import_module"),
    # the same for the commands that import Dask (`warcclean run`): a fixed table, never data
    ("pipeline/cli.py", "importlib.import_module"),
}


def _python_files() -> list[Path]:
    return sorted([*(REPO / "pipeline").rglob("*.py"), *(REPO / "jobs").rglob("*.py")])


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def _findings(path: Path) -> list[tuple[str, str]]:
    rel = path.relative_to(REPO).as_posix()
    tree = ast.parse(path.read_text(), filename=rel)
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [
                (rel, a.name) for a in node.names if a.name.split(".")[0] in FORBIDDEN_MODULES
            ]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in FORBIDDEN_MODULES:
                found.append((rel, node.module))
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            keywords = {k.arg: k.value for k in node.keywords}
            if name in FORBIDDEN_CALLS or name.endswith(FORBIDDEN_SUFFIXES):
                found.append((rel, name))
            elif name in ("np.load", "numpy.load"):
                flag = keywords.get("allow_pickle")
                if not (isinstance(flag, ast.Constant) and flag.value is False):
                    found.append((rel, f"{name} without allow_pickle=False"))
            shell = keywords.get("shell")
            if shell is not None and not (isinstance(shell, ast.Constant) and not shell.value):
                found.append((rel, f"{name}(shell=...)"))
    return found


def test_the_scan_flags_what_it_looks_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = REPO / "pipeline" / "_scan_probe.py"
    source = (
        "import pickle\nimport yaml\nimport numpy as np\nimport subprocess\n"
        "eval('1')\nyaml.load(x)\nnp.load(p)\nsubprocess.run('ls', shell=True)\n"
    )
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: source)
    kinds = {what for _, what in _findings(bad)}
    assert kinds == {
        "pickle",
        "eval",
        "yaml.load",
        "np.load without allow_pickle=False",
        "subprocess.run(shell=...)",
    }


def test_no_code_is_ever_loaded_from_data() -> None:
    found = {f for path in _python_files() for f in _findings(path)}
    assert found - ALLOWED == set()


def test_configuration_values_are_plain_data() -> None:
    # --param values are JSON or strings, never evaluated
    assert parse_value("__import__('os').system('true')") == "__import__('os').system('true')"
    assert parse_value("[1, 2]") == [1, 2]
    with pytest.raises(ValueError, match="plain data"):
        get_cleaner("justext", {"length_low": object()})


# --- the image -----------------------------------------------------------------------------


def test_docker_image_runs_as_a_non_root_user() -> None:
    dockerfile = REPO / "docker" / "Dockerfile"
    users = [
        line.split(None, 1)[1].strip()
        for line in dockerfile.read_text().splitlines()
        if line.strip().upper().startswith("USER ")
    ]
    assert users, "the Dockerfile has no USER: the image would run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), users
    assert user.isdigit() or "useradd" in dockerfile.read_text()
