"""Limits on untrusted JSON: its size and nesting depth are checked before it is parsed.

Python's JSON decoder recurses once per nesting level, and so do serializers, validators and
encoders that walk the result, so about a thousand nested brackets raise `RecursionError` deep
inside whatever touches them. No request, move or socket frame of ours nests more than a few
levels; anything deeper than `MAX_DEPTH` is refused before the decoder sees it.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 32

# A JSON string, escapes included; brackets inside strings do not nest anything.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_A_BRACKET = re.compile(rb"[^\[\]{}]+")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


class JsonRejected(ValueError):
    """Untrusted JSON that is refused: `code` is "too_large", "too_deep" or "malformed"."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def json_depth(data: bytes) -> int:
    """How deeply `data` nests arrays and objects (0 for a scalar), without recursing.

    For malformed input it may overstate the depth, never understate it.
    """
    brackets = _NOT_A_BRACKET.sub(b"", _STRING.sub(b"", data))
    if not brackets:
        return 0
    return max(0, *accumulate(_STEP[byte] for byte in brackets))


def json_loads_limited(data: str | bytes, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """Parse `data` as JSON, refusing it first if it is longer or deeper than allowed."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > max_bytes:
        raise JsonRejected("too_large", f"The JSON is larger than {max_bytes} bytes.")
    if json_depth(raw) > max_depth:
        raise JsonRejected("too_deep", f"The JSON nests deeper than {max_depth} levels.")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise JsonRejected("malformed", f"The JSON is not valid: {error}".split(":")[0]) from None
