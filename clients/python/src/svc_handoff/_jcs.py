"""RFC 8785 (JSON Canonicalization Scheme): the bytes the service hashes into a receipt's claims."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any


def canonical(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return f"[{','.join(canonical(item) for item in value)}]"
    if isinstance(value, dict):
        # Keys in the order of their UTF-16 code units, as JavaScript sorts them.
        keys = sorted(value, key=lambda key: key.encode("utf-16-be"))
        return f"{{{','.join(f'{canonical(key)}:{canonical(value[key])}' for key in keys)}}}"
    raise TypeError(f"not JSON: {type(value).__name__}")


def _number(number: float) -> str:
    """ECMAScript's Number.prototype.toString: the shortest digits that round-trip (repr's), laid out as JavaScript does."""
    if not math.isfinite(number):
        raise ValueError("JSON has no NaN or Infinity")
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    digits_tuple, exponent = Decimal(repr(abs(number))).normalize().as_tuple()[1:]
    digits = "".join(map(str, digits_tuple))
    k = len(digits)
    n = k + int(exponent)
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        text = f"0.{'0' * -n}{digits}"
    else:
        e = n - 1
        mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
        text = f"{mantissa}e{'+' if e > 0 else '-'}{abs(e)}"
    return sign + text
