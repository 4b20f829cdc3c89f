"""The sandbox's child: reads one page from stdin, cleans it, writes the reply to stdout.

Run as ``python -m pipeline.sandbox`` by `pipeline.sandbox.clean_isolated`; the protocol is in
that package's docstring. It sits in ``__main__`` so that the page composition it runs
(`pipeline.clean`) and the parent side that `pipeline.clean` imports do not import each other.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pipeline.clean import clean_decoded, get_cleaner
from pipeline.config import Limits
from pipeline.sandbox import cap_memory, result_to_json
from pipeline.types import Decoded


def main() -> int:
    stdin = sys.stdin.buffer
    header = json.loads(stdin.readline())
    limits = Limits(**header["limits"])
    try:
        # Load the cleaner (and its model) before capping: the cap is for the page's work.
        get_cleaner(header["cleaner"], header["params"])
        cap_memory(limits.isolate_memory_bytes)
        html = stdin.read().decode("utf-8", "surrogatepass")
        result = clean_decoded(
            Decoded(html, header["encoding"], header["encoding_source"]),
            cleaner=header["cleaner"],
            language=header["language"],
            limits=limits,
            params=header["params"],
            url=header.get("url"),
            markdown=header.get("markdown", True),
            include_comments=header.get("include_comments", False),
            classify_page=header.get("classify_page", False),
        )
        reply: dict[str, Any] = {"ok": True, "result": result_to_json(result)}
    except Exception as exc:  # reported to the parent, which decides what it means
        html = result = None  # free the page, so that the reply can be built
        kind, message = type(exc).__name__, str(exc)[:2000]
        cap = limits.isolate_memory_bytes
        # lexbor reports a failed allocation only as a failed parse.
        if cap is not None and kind in ("MemoryError", "SelectolaxError"):
            kind, message = "MemoryError", f"over the {cap}-byte cap ({kind}: {message})"
        reply = {"ok": False, "error": kind, "message": message}
    sys.stdout.buffer.write(json.dumps(reply).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
