"""Values as JSON (ENCODING.md, "Values as JSON")."""

import math
import re

from ._encoding import _INTS, Some, _bits_range
from ._errors import ValueError_
from ._text import _TextError


_SPECIAL = {"inf": math.inf, "-inf": -math.inf, "NaN": math.nan, "-NaN": math.copysign(math.nan, -1.0)}


def value_from_json(enc, j):
    """A field value from its JSON form, which is the one form of each value
    (ENCODING.md, "Values as JSON"): any other is ``ValueError_``, never a
    guess (``7.0`` for an integer, uppercase hex, ``{"some": v}`` with
    another member)."""
    if enc.options:
        if j is None:
            return None
        if isinstance(j, dict):
            if set(j) != {"some"}:
                raise ValueError_("%r is not a %s: an object is {\"some\": v}, with no other member" % (j, enc))
            return Some(value_from_json(enc.inner(), j["some"]))
        return value_from_json(enc.inner(), j)
    if enc.kind:
        try:
            return enc.kind.from_json(j)
        except (ValueError, TypeError, AttributeError, _TextError) as e:
            raise ValueError_("%r is not a %s: %s" % (j, enc, e))
    b = enc.base
    if b in _INTS:
        if type(j) is not int:
            raise ValueError_("%r is not a %s: expected a JSON integer (no fraction or exponent)" % (j, enc))
        lo, hi = _bits_range(enc)
        if not lo <= j <= hi:
            raise ValueError_("%r is not a %s: out of its range %d..=%d" % (j, enc, lo, hi))
        return j
    if b in ("Vec<u8>", "array"):
        if not isinstance(j, str) or not re.fullmatch(r"(?:[0-9a-f]{2})*", j):
            raise ValueError_("%r is not a %s: expected lowercase hex, two digits per byte" % (j, enc))
        if b == "array" and len(j) != 2 * enc.array:
            raise ValueError_("%r is not a %s: expected %d bytes" % (j, enc, enc.array))
        return bytes.fromhex(j)
    if b in ("f32", "f64"):
        if isinstance(j, str):
            if j not in _SPECIAL:
                raise ValueError_("%r is not a float: a string is one of \"inf\", \"-inf\", \"NaN\", \"-NaN\"" % j)
            return _SPECIAL[j]
        if type(j) not in (int, float):
            raise ValueError_("%r is not a %s: expected a JSON number" % (j, enc))
        return float(j)
    if b == "bool" and type(j) is not bool:
        raise ValueError_("%r is not a bool: expected true or false" % (j,))
    if b in ("char", "String") and not isinstance(j, str):
        raise ValueError_("%r is not a %s: expected a JSON string" % (j, enc))
    if b == "char" and len(j) != 1:
        raise ValueError_("%r is not a char: expected one character" % (j,))
    return j


def value_to_json(enc, v):
    """A field value's JSON form (the inverse of ``value_from_json``)."""
    if enc.options:
        if v is None:
            return None
        inner = value_to_json(enc.inner(), v.value if isinstance(v, Some) else v)
        if inner is None or (isinstance(inner, dict) and set(inner) == {"some"}):
            return {"some": inner}
        return inner
    if enc.kind:
        return enc.kind.to_json(v)
    b = enc.base
    if b in ("Vec<u8>", "array"):
        return bytes(v).hex()
    if b in ("f32", "f64"):
        if math.isnan(v):
            return "-NaN" if math.copysign(1.0, v) < 0 else "NaN"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    return v
