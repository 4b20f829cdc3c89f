"""The harness that finds the docs' examples (`tests/doc_examples.py`), on Markdown built here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.doc_examples import DocError, examples


def _doc(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_blocks_their_kinds_lines_and_markers(tmp_path: Path) -> None:
    doc = _doc(
        tmp_path,
        "# Title\n\n"
        "```sh\nwarcclean --help\n```\n\n"
        "<!-- example: skip needs a Dask cluster of several machines -->\n"
        "```bash\ndask scheduler\n```\n\n"
        "- a list item with an example inside\n\n"
        "  ```python\n  import pipeline\n  print(pipeline)\n  ```\n\n"
        "<!--\n  example: instead `dask submit jobs/clean_warcs.py x --output out`\n"
        "  the install itself is tested from a wheel\n-->\n"
        "```sh\npip install . && dask submit jobs/clean_warcs.py x --output out\n```\n\n"
        "```text\nwarcclean run INPUT... --output OUT\n```\n\n"
        "<!-- an ordinary comment -->\n```sh\ntrue\n```\n",
    )
    found = examples(doc)
    assert [(e.line, e.kind, e.runs) for e in found] == [
        (3, "sh", True),
        (8, "sh", False),
        (14, "python", True),
        (23, "sh", True),
        (27, "shown", False),
        (32, "sh", True),
    ]
    assert found[1].skip == "needs a Dask cluster of several machines"
    # A block in a list item loses the item's indentation, as a reader copies it.
    assert found[2].code == "import pipeline\nprint(pipeline)\n"
    assert found[3].instead == "dask submit jobs/clean_warcs.py x --output out"
    assert found[3].reason == "the install itself is tested from a wheel"
    assert found[5].skip is None and found[5].instead is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("```\nls\n```\n", "without a language"),
        ("```rust\nfn main() {}\n```\n", "unknown code block language 'rust'"),
        ("<!-- example: skip -->\n```sh\nls\n```\n", "neither 'skip REASON'"),
        ("<!-- example: instead ls reason -->\n```sh\nls\n```\n", "neither 'skip REASON'"),
        ("<!-- example: skip never runs -->\n```text\nls\n```\n", "never runs"),
    ],
)
def test_blocks_that_say_nothing_or_the_wrong_thing_are_errors(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(DocError, match=message) as info:
        examples(_doc(tmp_path, text))
    assert f"{tmp_path / 'doc.md'}:" in str(info.value)
