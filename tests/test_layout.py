"""The package's shape: its parts import one way (no import circles, no part importing one above
it) and the top level stays small.

Every import statement in every module counts, including those inside functions (lazy imports
are still dependencies), except those under ``if TYPE_CHECKING:``, which never run. The compiled
walk (``.pyx``) is read with a line pattern, as ``ast`` cannot parse Cython.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "pipeline"

# The parts from the bottom up. A module may import modules of its own part and of parts on
# lower levels only. `pipeline` itself (its __init__: the version, and the public names resolved
# lazily by a fixed table) is imported by Python before any submodule anyway, so it sits at the
# bottom. The sandbox's child (`python -m pipeline.sandbox`) is an entry point like the CLI.
LEVELS: tuple[frozenset[str], ...] = (
    frozenset({"pipeline", "pipeline.types", "pipeline.errors", "pipeline.compiled"}),
    frozenset({"pipeline.config", "pipeline.threads"}),
    frozenset({"pipeline.lang"}),
    frozenset(
        {"pipeline.html", "pipeline.warc", "pipeline.output", "pipeline.sandbox", "pipeline.render"}
    ),
    frozenset({"pipeline.cleaners", "pipeline.site"}),
    # The rules that correct the model sit below it: the cleaner (learned.neighbours) runs both,
    # and a rule reads only blocks, probabilities and the seed cleaners' verdicts.
    frozenset({"pipeline.rules"}),
    frozenset({"pipeline.learned"}),
    frozenset({"pipeline.clean"}),
    frozenset({"pipeline.evaluate", "pipeline.jobconfig", "pipeline.report"}),
    frozenset({"pipeline.run"}),
    frozenset({"pipeline.supervise"}),
    frozenset({"pipeline.job"}),
    frozenset({"pipeline.cli", "pipeline.sandbox.__main__"}),
)
MAX_TOP_LEVEL_MODULES = 12
_PYX_IMPORT = re.compile(
    r"^\s*(?:from\s+(pipeline[\w.]*)\s+c?import\s+([\w, ]+)|import\s+(pipeline[\w.]*))"
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyx")]):
        if "__pycache__" not in path.parts:
            found[_module_name(path)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST) -> list[tuple[str, list[str]]]:
    """(module, imported names) of every import that can run; ``import x`` has no names."""
    out: list[tuple[str, list[str]]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.module, [alias.name for alias in node.names]))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def _imports_of(path: Path) -> list[tuple[str, list[str]]]:
    text = path.read_text("utf-8")
    if path.suffix == ".py":
        return _runtime_imports(ast.parse(text))
    out = []
    for line in text.splitlines():
        m = _PYX_IMPORT.match(line)
        if m and m.group(1):
            out.append((m.group(1), [n.strip() for n in m.group(2).split(",") if n.strip()]))
        elif m and m.group(3):
            out.append((m.group(3), []))
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the pipeline modules it imports (``from pkg import submodule`` names the
    submodule)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for module, names in _imports_of(path):
            if module != "pipeline" and not module.startswith("pipeline."):
                continue
            targets = [f"{module}.{n}" for n in names if f"{module}.{n}" in modules]
            if len(targets) < len(names) or not names:
                targets.append(module)
            graph[name].update(t for t in targets if t != name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def part_of(module: str) -> str:
    """The part a module belongs to: the longest entry of `LEVELS` that is it or contains it."""
    best = None
    for level in LEVELS:
        for part in level:
            if (module == part or module.startswith(part + ".")) and (
                best is None or len(part) > len(best)
            ):
                best = part
    if best is None:
        raise KeyError(f"{module} belongs to no part of LEVELS: add it where it belongs")
    return best


def _level(part: str) -> int:
    return next(i for i, level in enumerate(LEVELS) if part in level)


def test_no_import_circles() -> None:
    assert _cycles(import_graph()) == []


def test_parts_import_only_downwards() -> None:
    upward = []
    for module, targets in sorted(import_graph().items()):
        part = part_of(module)
        for target in sorted(targets):
            other = part_of(target)
            if other != part and _level(other) >= _level(part):
                upward.append(f"{module} ({part}) imports {target} ({other})")
    assert upward == []


def test_every_module_has_a_part() -> None:
    for module in _modules():
        part_of(module)  # raises for a module no level names


def test_top_level_stays_small() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


# --- the checker itself ----------------------------------------------------------------------


def test_cycle_finder_finds_a_circle_and_only_it() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_lazy_imports_count_and_type_checking_ones_do_not() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pipeline.run import process_warc\n"
        "def f():\n    from pipeline.clean import clean_html\n    import pipeline.html.segment\n"
    )
    modules = [m for m, _ in _runtime_imports(tree)]
    assert "pipeline.clean" in modules and "pipeline.html.segment" in modules
    assert "pipeline.run" not in modules


def test_pyx_imports_are_read() -> None:
    graph = import_graph()
    if "pipeline.html.lexbor_walk" not in graph:
        pytest.skip("no .pyx module in this tree")
    assert "pipeline.html.walk" in graph["pipeline.html.lexbor_walk"]


def test_an_upward_import_would_be_caught() -> None:
    # The rule the test above applies, on an edge the package must never have.
    assert _level(part_of("pipeline.html.segment")) < _level(part_of("pipeline.clean"))
    assert _level(part_of("pipeline.sandbox.__main__")) > _level(part_of("pipeline.clean"))
    assert part_of("pipeline.sandbox.__main__") == "pipeline.sandbox.__main__"
