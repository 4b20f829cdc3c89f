"""What the bench scripts' results files share: the stamp of a run and the write.

Each script records beside its figures when it ran, on which commit and with which command, and
writes them as JSON with a trailing newline (``bench/results/NAME.json`` unless ``--out``). The
keys stay each script's own (``date`` or ``when``, the commit at the top or under ``machine``,
one space an indent level or two): bench/doc_figures.py and the tests read the files, and a
re-run should change the figures, not the layout. So this module gives the values and the write,
not a fixed set of keys.

The scripts import it with bench/ on ``sys.path`` for that one import only: left there,
bench/pipeline.py would shadow the package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def utc_now() -> str:
    """Now in UTC to the second, ISO 8601: ``2025-06-01T12:00:00+00:00``."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def git_commit(*, short: bool = True, repo: Path = REPO) -> str | None:
    """The commit checked out in ``repo``, abbreviated unless ``short`` is false; None where git
    cannot tell (no git, not a checkout)."""
    command = ["git", "-C", str(repo), "rev-parse", *(["--short"] if short else []), "HEAD"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError:
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def command_line(script: str | Path, argv: Sequence[str] | None = None) -> str:
    """The command that runs ``script`` (a bench script's ``__file__``) again from the repository
    root, ``python bench/NAME.py ARGS``; ``argv``: the arguments, this process's when None."""
    path = Path(script).resolve()
    name = path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)
    return " ".join(["python", name, *(sys.argv[1:] if argv is None else argv)])


def write_results(
    path: str | Path, payload: Mapping[str, Any], *, indent: int = 1, **options: Any
) -> None:
    """Write ``payload`` to ``path`` as JSON indented by ``indent`` with a trailing newline,
    creating the folder; ``options`` go to `json.dumps` (``ensure_ascii=False``, ``default=str``).

    The JSON goes to ``PATH.tmp`` beside it first and is then renamed over ``path``: a run stopped
    while writing leaves the previous results whole, not half a file for bench/doc_figures.py
    to fail on."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, indent=indent, **options) + "\n"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
