"""The code blocks of the user docs (README.md, docs/**/*.md), read as examples to run.

Every fenced block must say what it is. ``sh``/``bash``/``shell`` and ``python``/``py`` blocks are
examples: `tests/test_doc_examples.py` runs them in order, one document at a time, in a scratch
directory that looks like a clone (the repository's files linked in, but not the package: that
comes from the installed warcclean). Any other language (``text`` for synopses, listings and
trees; ``yaml``, ``json``, ...) is shown, not run.

An example that cannot run here carries an HTML comment, invisible on the rendered page, on the
line before its fence, with the reason:

    <!-- example: skip REASON -->               not run: REASON says why (needs a cluster, S3)
    <!-- example: instead `COMMAND` REASON -->  COMMAND runs in its place: a local stand-in

Blocks are found with markdown-it-py, the CommonMark parser, so a fence inside a list item or
a quote is found as a reader sees it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

SHELL = frozenset({"sh", "bash", "shell"})
PYTHON = frozenset({"python", "py"})
# What a block may be besides an example: shown as it is, never run.
SHOWN = frozenset({"text", "yaml", "json", "toml", "ini", "sql", "diff", "csv", "html"})

_MARKER = re.compile(r"^\s*<!--\s*example:\s*(?P<body>.*?)\s*-->\s*$", re.S)
_SKIP = re.compile(r"^skip\s+(?P<reason>\S.*)$", re.S)
_INSTEAD = re.compile(r"^instead\s+`(?P<command>[^`]+)`\s+(?P<reason>\S.*)$", re.S)


class DocError(ValueError):
    """A block or marker the harness cannot classify: the message names the file and line."""


@dataclass(frozen=True)
class Example:
    """One fenced block: ``kind`` is "sh", "python" or "shown"; ``skip`` (a reason) or
    ``instead`` (a stand-in command, with ``reason``) come from the marker before it."""

    path: Path
    line: int  # 1-based line of the opening fence
    language: str
    kind: str
    code: str
    skip: str | None = None
    instead: str | None = None
    reason: str | None = None

    @property
    def name(self) -> str:
        return f"{self.path.name}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.kind != "shown" and self.skip is None


def _marker(previous: object, where: str) -> tuple[str | None, str | None, str | None]:
    """(skip, instead, reason) from the token before a fence, if it is a marker comment."""
    if getattr(previous, "type", None) != "html_block":
        return None, None, None
    found = _MARKER.match(previous.content)  # type: ignore[attr-defined]
    if found is None:
        return None, None, None
    body = " ".join(found.group("body").split())
    if skip := _SKIP.match(body):
        return skip.group("reason"), None, skip.group("reason")
    if instead := _INSTEAD.match(body):
        return None, instead.group("command"), instead.group("reason")
    raise DocError(
        f"{where}: marker '{body}' is neither 'skip REASON' nor 'instead `COMMAND` REASON'"
    )


def examples(path: Path) -> list[Example]:
    """Every fenced block of the Markdown file ``path``, in order.

    Raises `DocError` for a block without a language, one of a language that is neither an
    example nor shown, or a malformed marker.
    """
    tokens = MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))
    found = []
    for i, token in enumerate(tokens):
        if token.type != "fence":
            continue
        line = (token.map[0] if token.map else 0) + 1
        where = f"{path}:{line}"
        language = token.info.split()[0].lower() if token.info.strip() else ""
        if not language:
            raise DocError(
                f"{where}: a code block without a language; say 'sh' or 'python' for an example "
                "(run by tests/test_doc_examples.py) or 'text' for a synopsis or a listing"
            )
        if language in SHELL:
            kind = "sh"
        elif language in PYTHON:
            kind = "python"
        elif language in SHOWN:
            kind = "shown"
        else:
            raise DocError(f"{where}: unknown code block language {language!r}")
        skip, instead, reason = _marker(tokens[i - 1] if i else None, where)
        if (skip or instead) and kind == "shown":
            raise DocError(f"{where}: a marker on a {language!r} block, which never runs")
        found.append(Example(path, line, language, kind, token.content, skip, instead, reason))
    return found
