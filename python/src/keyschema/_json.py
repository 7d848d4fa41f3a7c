"""Values as JSON (ENCODING.md, "Values as JSON")."""

import json
import math
import re
import struct

from ._encoding import _INTS, Some, _bits_range
from ._errors import ValueError_
from ._text import _TextError
from ._types import EnumKind


_SPECIAL = {"inf": math.inf, "-inf": -math.inf, "NaN": math.nan, "-NaN": math.copysign(math.nan, -1.0)}


class _Num(str):
    """A JSON number's text as written (``json.loads``'s ``parse_int`` and
    ``parse_float``), so an integer of any size and ``7.0`` are told apart
    as the Rust reader tells them apart."""


class _Pairs(list):
    """A JSON object's members in the order written (``object_pairs_hook``),
    so a member given twice is seen."""


class _Refusal(Exception):
    def __init__(self, reason):
        Exception.__init__(self, reason)
        self.reason = reason


def _kind(j):
    """The kind of JSON value ``j`` is, for a refusal (the Rust reader's words)."""
    if isinstance(j, _Num) or (isinstance(j, (int, float)) and not isinstance(j, bool)):
        return "a number"
    if isinstance(j, str):
        return "a string"
    if isinstance(j, bool):
        return "a boolean"
    if j is None:
        return "null"
    if isinstance(j, (dict, _Pairs)):
        return "an object"
    return "an array"


def _number_text(j):
    return str(j) if isinstance(j, (_Num, int)) else repr(j)


_WANTED = {"float": 'a JSON number or one of "inf", "-inf", "NaN", "-NaN"', "bool": "true or false",
           "hex": "a string of lowercase hex", "int": "a JSON integer"}


def _read(enc, j):
    """A value of ``enc`` from its one JSON form, or ``_Refusal`` with the
    reason the Rust ``DynSchema::fields_from_json`` gives."""
    if enc.options:
        if j is None:
            return None
        if isinstance(j, (dict, _Pairs)):
            pairs = list(j.items()) if isinstance(j, dict) else list(j)
            if not pairs or pairs[0][0] != "some":
                raise _Refusal('an object is {"some": v}, with no other member')
            v = pairs[0][1]
            if not (v is None or isinstance(v, (dict, _Pairs))):
                raise _Refusal('{"some": v} is written only when v is null or itself {"some": ...}; write v alone')
            inner = _read(enc.inner(), v)
            if len(pairs) != 1:
                raise _Refusal('an object is {"some": v}, with no other member')
            return Some(inner)
        return _read(enc.inner(), j)
    b = enc.base
    group = "int" if b in _INTS else "float" if b in ("f32", "f64") else "bool" if b == "bool" \
        else "hex" if b in ("Vec<u8>", "array") else "string"
    found = _kind(j)
    right = {"int": ("a number",), "float": ("a number", "a string"), "bool": ("a boolean",)}.get(group, ("a string",))
    if found not in right:
        raise _Refusal("expected %s, found %s" % (_WANTED.get(group, "a string"), found))
    if group == "bool":
        return j
    if group == "int":
        raw = _number_text(j)
        if any(c in raw for c in ".eE"):
            raise _Refusal("%s is not an integer: write it without fraction or exponent" % raw)
        lo, hi = _bits_range(enc)
        if not lo <= int(raw) <= hi:
            raise _Refusal("%s is outside the range of %s, %d..=%d" % (raw, enc, lo, hi))
        return int(raw)
    if group == "float":
        if found == "a string":
            if j not in _SPECIAL:
                raise _Refusal('a float\'s string is one of "inf", "-inf", "NaN", "-NaN"')
            return _SPECIAL[j]
        raw = _number_text(j)
        v = float(raw)
        if math.isinf(v):
            raise _Refusal("%s is beyond the range of f64" % raw)
        if b == "f32":
            try:
                v = struct.unpack(">f", struct.pack(">f", v))[0]
            except OverflowError:
                raise _Refusal("%s is beyond the range of f32" % raw)
        return v
    if group == "hex":
        if not re.fullmatch(r"(?:[0-9a-f]{2})*", j):
            raise _Refusal("expected lowercase hex, two digits per byte")
        if b == "array" and len(j) != 2 * enc.array:
            raise _Refusal("expected %d bytes, found %d" % (enc.array, len(j) // 2))
        return bytes.fromhex(j)
    if b == "char" and len(j) != 1:
        raise _Refusal("expected one character, found %d" % len(j))
    if not enc.kind:
        return j
    if isinstance(enc.kind, EnumKind):
        if j not in enc.kind.by_name:
            raise _Refusal("not the name of a variant of the enum")
        return j
    try:
        v = enc.kind.from_json(j)
    except (ValueError, TypeError, AttributeError, _TextError) as e:
        raise _Refusal(str(e))
    rendered = enc.kind.to_json(v)
    if rendered != j:
        raise _Refusal("not the value's one rendering, which is %s" % rendered)
    return v


def value_from_json(enc, j):
    """A field value from its JSON form, which is the one form of each value
    (ENCODING.md, "Values as JSON"): any other is ``ValueError_``, never a
    guess (``7.0`` for an integer, uppercase hex, ``{"some": v}`` with
    another member). ``j`` as ``json.loads`` gives it; the message is
    ``TYPE: REASON`` with the reason ``Schema.fields_from_json`` gives."""
    try:
        return _read(enc, j)
    except _Refusal as r:
        raise ValueError_("%s: %s" % (enc, r.reason))


def _not_json(_constant):
    raise ValueError("NaN and Infinity are no JSON")


def fields_from_json(schema, text):
    """The key's fields (a dict by name, in key order) from the JSON text of
    an object of them by name, each in its one form: the Rust
    ``DynSchema::fields_from_json``, refusal for refusal and word for word
    (but for text that is not JSON at all, which each parser words its
    own way). The members are read in the order written and the first
    refusal is the error; then each missing field, in key order."""
    try:
        obj = json.loads(text, object_pairs_hook=_Pairs, parse_int=_Num, parse_float=_Num,
                         parse_constant=_not_json)
    except ValueError as e:
        raise ValueError_("the key's fields as JSON: not JSON: %s" % e)
    if not isinstance(obj, _Pairs):
        raise ValueError_("the key's fields as JSON: expected an object of the fields by name, found %s" % _kind(obj))
    by_name = {f.name: f for f in schema.fields}
    values = {}
    for name, j in obj:
        f = by_name.get(name)
        if f is None:
            raise ValueError_("the key has no field `%s`; its fields are %s" % (name, ", ".join(f.name for f in schema.fields)))
        if name in values:
            raise ValueError_("field `%s` is given twice" % name)
        try:
            values[name] = _read(f.encoding, j)
        except _Refusal as r:
            raise ValueError_("field `%s` is %s: %s" % (name, f.encoding, r.reason))
    for f in schema.fields:
        if f.name not in values:
            raise ValueError_("field `%s` is missing" % f.name)
    return {f.name: values[f.name] for f in schema.fields}


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
