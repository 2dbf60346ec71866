"""The functions an Argo expression tag may call, with Go's results (#16).

Argo's environment (`util/expr/env/env.go`) offers expr-lang's built-ins, its own `asInt`
and `asFloat` (aliases of `int` and `float`), `toJson`, `jsonpath`, and sprig v3.3.0's
generic function map under `sprig.`. The reference supports the subset below; any other
name fails the expression with "... is not supported by the reference controller".

Where Go and Python disagree (Unicode case mappings, byte vs character indexes, `%q`
quoting, spf13/cast turning an unparsable string into 0 silently) the function refuses
the input with ExpressionError instead of guessing, so no result is silently different.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from reference_impl.controller.formats import gojson
from reference_impl.controller.formats.expr_syntax import ExpressionError

Function = Callable[..., Any]

_GO_INT = re.compile(r"[+-]?[0-9]+")
_GO_FLOAT = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?"
    r"|inf|infinity|nan)",
    re.IGNORECASE,
)
_INT64 = (-(2**63), 2**63 - 1)
# Go's unicode.IsSpace, which strings.TrimSpace uses.
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def type_name(value: Any) -> str:
    """Return the Go type name a value has inside expr-lang, for messages."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    return "map[string]interface {}"


def check_int(value: int) -> int:
    """Return an int that fits Go's 64-bit int; refuse one that would wrap around."""
    if not _INT64[0] <= value <= _INT64[1]:
        raise ExpressionError(f"integer overflow: {value} does not fit in int64")
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _string_arg(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ExpressionError(f"{name}: expected a string, got {type_name(value)}")
    return value


def _int_arg(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ExpressionError(f"{name}: expected an int, got {type_name(value)}")
    return value


def _ascii(name: str, value: str) -> str:
    if not value.isascii():
        raise ExpressionError(
            f"{name} of a non-ASCII string is not supported by the reference controller"
        )
    return value


# ---------------------------------------------------------------- expr-lang built-ins


def _convertible(name: str, value: Any) -> int | float | str:
    """Return `value` if expr-lang's `int` and `float` convert it: numbers and strings."""
    if (
        isinstance(value, bool)
        or value is None
        or not isinstance(value, (int, float, str))
    ):
        raise ExpressionError(f"invalid operation: {name}({type_name(value)})")
    return value


def to_int(value: Any) -> int:
    """expr-lang's `int` (Argo's `asInt`): Atoi for strings, truncation for floats."""
    number = _convertible("int", value)
    if isinstance(number, str):
        if not _GO_INT.fullmatch(number):
            raise ExpressionError(f'strconv.Atoi: parsing "{number}": invalid syntax')
        return check_int(int(number))
    if isinstance(number, float):
        if math.isnan(number) or math.isinf(number):
            raise ExpressionError(f"invalid operation: int({number})")
        return check_int(int(number))
    return number


def to_float(value: Any) -> float:
    """expr-lang's `float` (Argo's `asFloat`): ParseFloat for strings."""
    _convertible("float", value)
    if isinstance(value, str):
        if not _GO_FLOAT.fullmatch(value):
            raise ExpressionError(
                f'strconv.ParseFloat: parsing "{value}": invalid syntax'
            )
        return float(value.lower().replace("infinity", "inf"))
    return float(value)


def to_string(value: Any) -> str:
    """expr-lang's `string`: Go's `fmt.Sprintf("%v", value)`."""
    return gojson.format_v(value)


def length(value: Any) -> int:
    """expr-lang's `len` of a list, a map, or an ASCII string."""
    if isinstance(value, str):
        return len(_ascii("len", value))
    if isinstance(value, (list, dict)):
        return len(value)
    raise ExpressionError(f"invalid argument for len (type {type_name(value)})")


def to_json(value: Any) -> str:
    """Argo's `toJson`: compact `json.Marshal` output (map keys sorted, HTML escaped)."""
    return gojson.dumps(value, sort_all=True)


def from_json(text: Any) -> Any:
    """expr-lang's `fromJSON`: numbers come back as float64, as Go's decoder gives them."""
    try:
        return _floats(json.loads(_string_arg("fromJSON", text)))
    except json.JSONDecodeError as err:
        raise ExpressionError(f"fromJSON: {err}") from None


def _floats(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    return value


_PATH_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_-]*)|\[(-?[0-9]+)\]|\['([^']*)'\]")


def jsonpath(text: Any, path: Any) -> Any:
    """Argo's `jsonpath(json, path)` for definite paths: `$`, `.key`, `['key']`, `[n]`."""
    document = from_json(text)
    path = _string_arg("jsonpath", path)
    if not path.startswith("$"):
        raise ExpressionError(f"jsonpath: path {path!r} must start with '$'")
    position, value = 1, document
    while position < len(path):
        match = _PATH_STEP.match(path, position)
        if match is None:
            raise ExpressionError(
                f"jsonpath: only '$', '.key', ['key'] and [n] are supported by the "
                f"reference controller, not {path!r}"
            )
        key, index, quoted = match.groups()
        if index is not None:
            if not isinstance(value, list) or not -len(value) <= int(index) < len(
                value
            ):
                raise ExpressionError(
                    f"jsonpath: index {index} out of range in {path!r}"
                )
            value = value[int(index)]
        else:
            name = key if key is not None else quoted
            if not isinstance(value, dict) or name not in value:
                raise ExpressionError(f"jsonpath: key {name!r} not found in {path!r}")
            value = value[name]
        position = match.end()
    return value


def _go_upper(name: str, text: str) -> str:
    out = []
    for char in _string_arg(name, text):
        mapped = char.upper() if name.endswith("upper") else char.lower()
        if len(mapped) != 1 and not char.isascii():
            raise ExpressionError(
                f"{name} of {char!r} is not supported by the reference controller"
            )
        out.append(mapped)
    return "".join(out)


def upper(text: Any) -> str:
    """Go's `strings.ToUpper` (simple per-character mappings)."""
    return _go_upper("upper", text)


def lower(text: Any) -> str:
    """Go's `strings.ToLower` (simple per-character mappings)."""
    return _go_upper("lower", text)


def trim_space(text: Any) -> str:
    """Go's `strings.TrimSpace`."""
    return _string_arg("trim", text).strip(_GO_SPACE)


BUILTINS: dict[str, Function] = {
    "asInt": to_int,
    "asFloat": to_float,
    "int": to_int,
    "float": to_float,
    "string": to_string,
    "len": length,
    "upper": upper,
    "lower": lower,
    "trim": trim_space,
    "toJson": to_json,
    "fromJSON": from_json,
    "jsonpath": jsonpath,
}

# ---------------------------------------------------------------- sprig


def cast_int64(value: Any) -> int:
    """spf13/cast's `ToInt64` for the inputs where it cannot silently give 0."""
    if _is_number(value):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            raise ExpressionError(f"cannot convert {value} to an integer")
        return check_int(int(value))
    if isinstance(value, str) and re.fullmatch(r"-?(0|[1-9][0-9]*)(\.0*)?", value):
        return check_int(int(value.split(".")[0]))
    raise ExpressionError(
        f"converting {type_name(value)} {gojson.format_v(value)!r} to an integer is not "
        "supported by the reference controller (sprig would silently use 0)"
    )


def _go_div(a: int, b: int) -> int:
    if b == 0:
        raise ExpressionError("runtime error: integer divide by zero")
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def go_mod(a: int, b: int) -> int:
    """Go's `%`: the remainder has the dividend's sign."""
    return a - b * _go_div(a, b)


def _sprig_add(*values: Any) -> int:
    return check_int(sum(cast_int64(v) for v in values))


def _sprig_mul(first: Any, *values: Any) -> int:
    product = cast_int64(first)
    for value in values:
        product = check_int(product * cast_int64(value))
    return product


def _trunc(count_arg: Any, text_arg: Any) -> str:
    count = _int_arg("trunc", count_arg)
    text = _ascii("trunc", _string_arg("trunc", text_arg))
    if count < 0 and len(text) + count > 0:
        return text[len(text) + count :]
    if count >= 0 and len(text) > count:
        return text[:count]
    return text


def _substr(start_arg: Any, end_arg: Any, text_arg: Any) -> str:
    start, end = _int_arg("substr", start_arg), _int_arg("substr", end_arg)
    text = _ascii("substr", _string_arg("substr", text_arg))
    if start < 0:
        return text[:end]
    if end < 0 or end > len(text):
        return text[start:]
    return text[start:end]


def _quote(*values: Any) -> str:
    out = []
    for value in values:
        if value is None:
            continue
        text = to_string(value)
        if not all(" " <= c <= "~" for c in text):
            raise ExpressionError(
                "sprig.quote of a string with non-printable or non-ASCII characters is "
                "not supported by the reference controller"
            )
        out.append('"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return " ".join(out)


def _empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, (str, list, dict)):
        return len(value) == 0
    if isinstance(value, bool):
        return not value
    return bool(value == 0)


def _default(fallback: Any, *given: Any) -> Any:
    if not given or _empty(given[0]):
        return fallback
    return given[0]


def _join(separator_arg: Any, values: Any) -> str:
    separator = _string_arg("join", separator_arg)
    if isinstance(values, str):
        return values
    if not isinstance(values, list):
        raise ExpressionError(f"join: expected a list, got {type_name(values)}")
    return separator.join(to_string(v) for v in values if v is not None)


def _atoi(text: Any) -> int:
    return to_int(_string_arg("atoi", text))


def _float64(value: Any) -> float:
    if isinstance(value, str) and not _GO_FLOAT.fullmatch(value):
        raise ExpressionError(
            f"converting {value!r} to a float is not supported by the reference "
            "controller (sprig would silently use 0)"
        )
    return to_float(value)


def _split(separator: str, text: str) -> list[str]:
    """Go's `strings.Split`: an empty separator splits into characters."""
    return text.split(separator) if separator else list(text)


def _s(name: str, value: Any) -> str:
    return _string_arg(f"sprig.{name}", value)


SPRIG: dict[str, Function] = {
    "upper": lambda s: _go_upper("sprig.upper", s),
    "lower": lambda s: _go_upper("sprig.lower", s),
    "trim": lambda s: _s("trim", s).strip(_GO_SPACE),
    "trimAll": lambda cut, s: _s("trimAll", s).strip(_s("trimAll", cut)),
    "trimPrefix": lambda p, s: _s("trimPrefix", s).removeprefix(_s("trimPrefix", p)),
    "trimSuffix": lambda p, s: _s("trimSuffix", s).removesuffix(_s("trimSuffix", p)),
    "replace": lambda old, new, s: _s("replace", s).replace(
        _s("replace", old), _s("replace", new)
    ),
    "contains": lambda sub, s: _s("contains", sub) in _s("contains", s),
    "hasPrefix": lambda p, s: _s("hasPrefix", s).startswith(_s("hasPrefix", p)),
    "hasSuffix": lambda p, s: _s("hasSuffix", s).endswith(_s("hasSuffix", p)),
    "repeat": lambda n, s: _s("repeat", s) * max(_int_arg("sprig.repeat", n), 0),
    "trunc": _trunc,
    "substr": _substr,
    "quote": _quote,
    "squote": lambda *v: " ".join(f"'{to_string(x)}'" for x in v if x is not None),
    "toString": to_string,
    "toJson": to_json,
    "default": _default,
    "empty": _empty,
    "join": _join,
    "splitList": lambda sep, s: (
        _s("splitList", s).split(_s("splitList", sep))
        if sep
        else list(_s("splitList", s))
    ),
    "atoi": _atoi,
    "int": cast_int64,
    "int64": cast_int64,
    "float64": _float64,
    "add": _sprig_add,
    "add1": lambda v: check_int(cast_int64(v) + 1),
    "sub": lambda a, b: check_int(cast_int64(a) - cast_int64(b)),
    "mul": _sprig_mul,
    "div": lambda a, b: _go_div(cast_int64(a), cast_int64(b)),
    "mod": lambda a, b: go_mod(cast_int64(a), cast_int64(b)),
    "max": lambda a, *v: max([cast_int64(a), *(cast_int64(x) for x in v)]),
    "min": lambda a, *v: min([cast_int64(a), *(cast_int64(x) for x in v)]),
}
