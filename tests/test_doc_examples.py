"""The docs' examples run: every shell and Python block of README.md and docs/**/*.md.

Each document's examples run in order, as a reader follows them, in a scratch directory laid out
like a clone (the repository's files linked in, the package itself imported from the install),
with this environment's commands first on PATH. A block marked ``skip`` is not run, and its
reason must name the test that covers it; one marked ``instead`` runs its local stand-in
(`tests/doc_examples.py`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.doc_examples import DocError, Example, examples
from tests.jobhelpers import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("**/*.md"))]
BIN = Path(sys.executable).parent
# What a clone holds that the examples may not see: the package comes from the install, as
# for a user of the wheel; the rest of the checkout is linked in (samples/, jobs/, ...).
NOT_LINKED = frozenset({"pipeline", "build", "dist"})
TIMEOUT = 540

pytestmark = [pytest.mark.slow, pytest.mark.timeout(TIMEOUT + 60)]


def _collect() -> list[Example]:
    found = []
    for doc in DOCS:
        try:
            found += examples(doc)
        except DocError:
            continue  # test_every_code_block_says_what_it_is names it
    return found


ALL = _collect()


def test_every_code_block_says_what_it_is() -> None:
    errors = []
    for doc in DOCS:
        try:
            examples(doc)
        except DocError as exc:
            errors.append(str(exc))
    assert not errors, "\n".join(errors)
    # The README has examples of both kinds, and at least one runs in place of a cluster.
    kinds = {e.kind for e in ALL if e.runs}
    assert kinds == {"sh", "python"}


class Sandbox:
    """A scratch clone for one document; runs its examples in order, each at most once."""

    def __init__(self, root: Path, doc: Path) -> None:
        self.root = root
        self.examples = [e for e in ALL if e.path == doc]
        self.results: dict[int, subprocess.CompletedProcess[str]] = {}
        root.mkdir(parents=True)
        for entry in REPO.iterdir():
            if not entry.name.startswith(".") and entry.name not in NOT_LINKED:
                (root / entry.name).symlink_to(entry)
        self.env = {
            **os.environ,
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            # datasets' caches, and no network: the examples read local files only.
            "HF_HOME": str(root / ".hf"),
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "DASK_DISTRIBUTED__WORKER__DAEMON": "False",
        }

    def _run(self, example: Example) -> subprocess.CompletedProcess[str]:
        if example.kind == "python" and example.instead is None:
            script = self.root / f".example-{example.line}.py"
            script.write_text(example.code, encoding="utf-8")
            argv = [sys.executable, str(script)]
        else:
            argv = ["bash", "-e", "-o", "pipefail", "-c", example.instead or example.code]
        try:
            return subprocess.run(
                argv,
                cwd=self.root,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            return subprocess.CompletedProcess(argv, -9, str(exc.stdout), f"timed out: {exc}")

    def run_through(self, example: Example) -> tuple[subprocess.CompletedProcess[str], list[str]]:
        """Run the examples before ``example`` (if not yet run) and it; its result, and the
        names of earlier examples that failed (what it may have needed)."""
        failed = []
        for i, earlier in enumerate(self.examples):
            if earlier.runs and i not in self.results:
                self.results[i] = self._run(earlier)
            if earlier is example:
                return self.results[i], failed
            if i in self.results and self.results[i].returncode != 0:
                failed.append(earlier.name)
        raise AssertionError(f"{example.name} is not an example of its document")


@pytest.fixture(scope="module")
def sandboxes(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Sandbox]:
    root = tmp_path_factory.mktemp("doc-examples")
    return {doc: Sandbox(root / doc.stem, doc) for doc in DOCS}


def test_every_example_not_run_says_what_runs_instead() -> None:
    # An example that cannot run here (a multi-machine cluster, Docker, a remote bucket) is not a
    # skipped test: its marker must name the test that covers what it shows.
    not_run = [e for e in ALL if e.kind != "shown" and e.skip is not None]
    vague = [e.name for e in not_run if "test" not in e.skip and "CI" not in e.skip]
    assert not vague, f"examples not run without naming what covers them: {vague}"


@pytest.mark.parametrize("example", [e for e in ALL if e.runs], ids=lambda e: e.name)
def test_example_runs(example: Example, sandboxes: dict[Path, Sandbox]) -> None:
    result, failed_before = sandboxes[example.path].run_through(example)
    shown = example.instead or example.code
    assert result.returncode == 0, (
        f"{example.name} exited {result.returncode}"
        + (f" (after failed examples {', '.join(failed_before)})" if failed_before else "")
        + f":\n{shown}\n--- stdout ---\n{result.stdout[-3000:]}\n--- stderr ---\n"
        + result.stderr[-5000:]
    )
