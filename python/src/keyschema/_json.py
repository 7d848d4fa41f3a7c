"""Values as JSON (ENCODING.md, "Values as JSON")."""

import math

from ._encoding import Some
from ._errors import ValueError_
from ._text import _TextError


def value_from_json(enc, j):
    """A field value from its JSON form."""
    if enc.options:
        if j is None:
            return None
        if isinstance(j, dict) and set(j) == {"some"}:
            return Some(value_from_json(enc.inner(), j["some"]))
        return value_from_json(enc.inner(), j)
    if enc.kind:
        try:
            return enc.kind.from_json(j)
        except (ValueError, _TextError) as e:
            raise ValueError_("%r is not a %s: %s" % (j, enc, e))
    b = enc.base
    if b in ("Vec<u8>", "array"):
        return bytes.fromhex(j)
    if b in ("f32", "f64"):
        if isinstance(j, str):
            special = {"inf": math.inf, "-inf": -math.inf, "NaN": math.nan, "-NaN": math.copysign(math.nan, -1.0)}
            if j not in special:
                raise ValueError_("%r is not a float" % j)
            return special[j]
        return float(j)
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
