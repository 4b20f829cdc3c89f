"""Clean one page in a child process that can be killed at a deadline.

lexbor's parse cannot be interrupted from Python, and Dask tasks run in threads where signals do not
arrive, so the only hard time cap is a separate process. A child is started with ``subprocess``
(``python -m pipeline.sandbox``, which runs this package's ``__main__``), not ``multiprocessing``:
Dask worker processes are daemonic and may not have multiprocessing children. Only pages that
`pipeline.html.guard` marks as risky come here; starting a child costs about half a second.
This serves library calls (`pipeline.clean_html`, `pipeline.process_warc`): the job runs each
whole input in a long-lived supervised child instead (`pipeline.supervise`), which forks no page.

Protocol (data only, no pickle): the parent writes one JSON header line (cleaner, parameters,
language, limits, encoding) followed by the decoded HTML as UTF-8 (lone surrogates kept with
``surrogatepass``); the child writes one JSON object: ``{"ok": true, "result": {...}}`` or
``{"ok": false, "error": "<type>", "message": "..."}``.

The child caps its own address space (``Limits.isolate_memory_bytes``) once its imports are
done: setting it from the parent would need ``preexec_fn``, which is unsafe in the threads Dask
runs tasks in.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from dataclasses import asdict, replace
from typing import Any

from pipeline.compiled import child_command, child_env
from pipeline.config import Limits
from pipeline.errors import PageTimeout, PageTooComplex
from pipeline.types import (
    Block,
    CfClass,
    CleanResult,
    Decoded,
    LabeledBlock,
    LangGuess,
    PageMetadata,
    Shape,
    Verdict,
)


class SandboxError(RuntimeError):
    """The child failed for a reason other than a cap (its error type and message are kept)."""


def clean_isolated(
    decoded: Decoded,
    *,
    cleaner: str,
    language: str | None,
    limits: Limits,
    params: dict[str, Any],
    timeout: float | None,
    url: str | None = None,
    markdown: bool = True,
    include_comments: bool = False,
    classify_page: bool = False,
) -> CleanResult:
    """`pipeline.clean.clean_decoded` in a child process, killed after ``timeout`` seconds.

    Raises `PageTimeout` when the child is killed, `PageTooComplex` when a cap fired in the
    child, `SandboxError` for anything else that went wrong there.
    """
    # The child must not isolate again, and the parent owns the clock.
    child_limits = replace(limits, isolate_depth=None, max_seconds=None)
    header = {
        "cleaner": cleaner,
        "language": language,
        "url": url,
        "markdown": markdown,
        "include_comments": include_comments,
        "classify_page": classify_page,
        "params": params,
        "limits": asdict(child_limits),
        "encoding": decoded.encoding,
        "encoding_source": decoded.source,
    }
    payload = json.dumps(header).encode() + b"\n" + decoded.html.encode("utf-8", "surrogatepass")
    proc = subprocess.Popen(
        child_command("pipeline.sandbox"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    )
    try:
        out, err = proc.communicate(payload, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise PageTimeout(
            f"page parse isolated in a child process was killed after {timeout:g} s"
        ) from None
    except BaseException:
        # KeyboardInterrupt, a cancelled task: never leave a child running behind us.
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait()
        raise
    return _parse_reply(out, err, proc.returncode)


def _parse_reply(out: bytes, err: bytes, returncode: int) -> CleanResult:
    try:
        reply = json.loads(out)
    except ValueError:
        tail = err.decode("utf-8", "replace")[-500:]
        raise SandboxError(f"sandbox child exited with {returncode} and no reply: {tail}") from None
    if reply.get("ok"):
        return result_from_json(reply["result"])
    kind, message = reply.get("error", "?"), reply.get("message", "")
    if kind == "PageTooComplex":
        raise PageTooComplex(message)
    if kind == "MemoryError":
        raise PageTooComplex(f"page needs more memory than the sandbox allows: {message}")
    raise SandboxError(f"{kind}: {message}")


def result_to_json(result: CleanResult) -> dict[str, Any]:
    """A `CleanResult` as plain JSON data (round-trips through `result_from_json`)."""
    return {
        "text": result.text,
        "blocks": [
            {
                "block": list(lb.block),
                "verdict": lb.verdict.value,
                "cf_class": None if lb.cf_class is None else lb.cf_class.value,
                "score": lb.score,
                "stopword_density": lb.stopword_density,
            }
            for lb in result.blocks
        ],
        "language": [result.language.code, result.language.prob],
        "encoding": result.encoding,
        "encoding_source": result.encoding_source,
        "cleaner": result.cleaner,
        "stoplist": result.stoplist,
        "params": [list(p) for p in result.params],
        "notes": list(result.notes),
        "markdown": result.markdown,
        "structure": list(result.structure),
        "metadata": asdict(result.metadata),
        "page_type": result.page_type,
        "page_type_prob": result.page_type_prob,
    }


_RUNS = Block._fields.index("runs")
_SHAPE = Block._fields.index("shape")


def _block(fields: list[Any]) -> Block:
    # JSON turned the tuples into lists: runs, the shape and its spans become tuples again.
    runs = fields[_RUNS]
    shape = fields[_SHAPE]
    if shape is not None:
        shape = Shape(*shape[:-1], tuple(tuple(span) for span in shape[-1]))
    return Block(
        *fields[:_RUNS],
        tuple(runs) if runs is not None else None,
        *fields[_RUNS + 1 : _SHAPE],
        shape,
    )


def _param_value(value: Any) -> Any:
    # JSON has no tuples: parameters that were tuples come back as lists; keep them hashable.
    return tuple(value) if isinstance(value, list) else value


def result_from_json(data: dict[str, Any]) -> CleanResult:
    return CleanResult(
        text=data["text"],
        blocks=tuple(
            LabeledBlock(
                block=_block(b["block"]),
                verdict=Verdict(b["verdict"]),
                cf_class=None if b["cf_class"] is None else CfClass(b["cf_class"]),
                score=b["score"],
                stopword_density=b["stopword_density"],
            )
            for b in data["blocks"]
        ),
        language=LangGuess(data["language"][0], float(data["language"][1])),
        encoding=data["encoding"],
        encoding_source=data["encoding_source"],
        cleaner=data["cleaner"],
        stoplist=data["stoplist"],
        params=tuple((k, _param_value(v)) for k, v in data["params"]),
        notes=tuple(data["notes"]),
        markdown=data["markdown"],
        structure=tuple(data["structure"]),
        metadata=PageMetadata(**data["metadata"]),
        page_type=data.get("page_type"),
        page_type_prob=data.get("page_type_prob"),
    )


def cap_memory(limit: int | None) -> None:
    """Cap this process's address space at ``limit`` bytes (no-op where POSIX limits are absent)."""
    if limit is None:
        return
    try:
        import resource
    except ImportError:  # Windows
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
