r"""JSON and `%v` text exactly as Go writes them, where Argo puts such text into names and values.

Loop items become node names (`name(0:a)`) and `{{item}}` values through Go's
`encoding/json` and `fmt`, and `when` errors quote values with `%v`. Python's `json` and
`repr` differ in small ways that would change a node name (and so a node ID): Go escapes
`<`, `>` and `&` as `\\u003c`..., switches to exponents at other magnitudes, and keeps a
number's text as written when it re-encodes a `json.RawMessage`. Sources: Go's
`encoding/json` (`encode.go`, `scanner.go`), `strconv.FormatFloat`, `fmt` (`%v`), and
Argo's `util/json/fix.go`.
"""

from __future__ import annotations

import decimal
import json
import math
from typing import Any

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


class RawNumber(str):
    """A JSON number kept as written, like the bytes of Go's `json.RawMessage`."""


def loads(text: str) -> Any:
    """Parse JSON keeping numbers as `RawNumber`; raises ValueError with Go's message."""
    try:
        return json.loads(
            text,
            parse_int=RawNumber,
            parse_float=RawNumber,
            parse_constant=_reject_constant,
        )
    except json.JSONDecodeError as err:
        raise ValueError(syntax_error(text, err)) from None


def _reject_constant(name: str) -> Any:
    raise json.JSONDecodeError("Expecting value", name, 0)


def syntax_error(text: str, err: json.JSONDecodeError) -> str:
    """Return the message Go's `json.Unmarshal` gives for the error Python found."""
    if err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated"):
        return "unexpected end of JSON input"
    char = quote_char(text[err.pos])
    if err.msg.startswith("Extra data"):
        return f"invalid character {char} after top-level value"
    if err.msg.startswith("Expecting ':'"):
        return f"invalid character {char} after object key"
    if err.msg.startswith("Expecting property name"):
        return f"invalid character {char} looking for beginning of object key string"
    if err.msg.startswith("Expecting ','"):
        inside = _innermost_container(text, err.pos)
        where = "object key:value pair" if inside == "{" else "array element"
        return f"invalid character {char} after {where}"
    if err.msg.startswith("Invalid control character"):
        return f"invalid character {char} in string literal"
    return f"invalid character {char} looking for beginning of value"


def _innermost_container(text: str, position: int) -> str:
    depth: list[str] = []
    in_string = escaped = False
    for char in text[:position]:
        if in_string:
            escaped = not escaped and char == "\\"
            in_string = escaped or char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth.append(char)
        elif char in "]}" and depth:
            depth.pop()
    return depth[-1] if depth else ""


def quote_char(char: str) -> str:
    """Return a character as Go's JSON scanner quotes it in errors, e.g. `'h'`."""
    if char == "'":
        return "'\\''"
    if char == '"':
        return "'\"'"
    inner = quote(char)[1:-1]
    return f"'{inner}'"


def quote(text: str, *, escape_html: bool = True) -> str:
    """Return a JSON string literal as Go's encoder writes it."""
    out = ['"']
    for char in text:
        if char in _ESCAPES and (escape_html or char not in "<>&"):
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def dumps(value: Any, *, sort_keys: bool = False, sort_all: bool = False) -> str:
    """Return compact JSON as Go's `json.Marshal` writes it (HTML characters escaped).

    `sort_keys` sorts the top level only: a Go map of raw items is marshalled in key order
    while the raw values inside it keep theirs. `sort_all` sorts every level, as when Go
    marshals values it decoded into `map[string]any`.
    """
    if isinstance(value, RawNumber):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float_json(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, list):
        return "[" + ",".join(dumps(v, sort_all=sort_all) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value) if sort_keys or sort_all else list(value)
        return (
            "{"
            + ",".join(
                f"{quote(str(k))}:{dumps(value[k], sort_all=sort_all)}" for k in keys
            )
            + "}"
        )
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def fix(text: str) -> str:
    """Undo Go's HTML escaping (Argo's `jsonutil.Fix`)."""
    return text.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&")


def _digits(value: float) -> tuple[str, int]:
    """Return the shortest round-trip digits of a finite, non-zero float and its exponent."""
    _, digits, exponent = decimal.Decimal(repr(abs(value))).normalize().as_tuple()
    text = "".join(str(d) for d in digits)
    assert isinstance(exponent, int)
    return text, exponent + len(text) - 1


def format_float_json(value: float) -> str:
    """Return a float as Go's JSON encoder writes it (`1e-7`, `100000000000000000000`)."""
    return _shortest(value, fixed_from=-6, fixed_below=21, exponent_width=1)


def format_float_v(value: float) -> str:
    """Return a float as Go's `%v` writes it (`1e+06`, `0.0001`, `+Inf`)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return _shortest(value, fixed_from=-4, fixed_below=6, exponent_width=2)


def _shortest(
    value: float, *, fixed_from: int, fixed_below: int, exponent_width: int
) -> str:
    """A finite float in its shortest round-trip digits, as Go writes it.

    Plain for a decimal exponent in [fixed_from, fixed_below), else `d.ddde±x` with
    at least `exponent_width` exponent digits: Go's JSON encoder and `%v` differ
    only in these three.
    """
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    digits, exponent = _digits(value)
    sign = "-" if value < 0 else ""
    if exponent < fixed_from or exponent >= fixed_below:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        shown = f"{abs(exponent):0{exponent_width}d}"
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{shown}"
    return sign + _fixed(digits, exponent)


def _fixed(digits: str, exponent: int) -> str:
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + digits
    if len(digits) <= exponent + 1:
        return digits + "0" * (exponent + 1 - len(digits))
    return digits[: exponent + 1] + "." + digits[exponent + 1 :]


def format_v(value: Any) -> str:
    """Return any value as Go's `%v` writes the corresponding Go value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_float_v(value)
    if isinstance(value, list):
        return "[" + " ".join(format_v(v) for v in value) + "]"
    return str(value)
