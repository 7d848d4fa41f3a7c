"""A DynamoDB item of a whole row (ENCODING.md, "Value fields on DynamoDB"):
the key in its two binary (or, for text keys, string) attributes, ``pk`` and
``sk`` unless named otherwise, and each value field in its own attribute,
as boto3's low-level client gives an item (``{'amount': {'N': '125'}}``) or
as its resource API and ``TypeDeserializer`` give it (``Decimal``, ``str``,
``Binary``, ``set``)."""

import base64
import binascii
import decimal

from ._errors import DecodeError, ValueError_
from ._nested import N, Set
from ._values import finish, kinds_for

# Lists and maps nest at most 32 levels in DynamoDB; an item deeper than
# this is refused rather than read (each level recurses once).
MAX_DEPTH = 64
_TAGS = frozenset(["S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"])
# What each tag of the low-level form holds (a resource-form map whose
# one key is `B` or `S` holds a Decimal or a dict there, not these).
_TAG_HOLDS = {
    "S": (str,), "N": (str,), "B": (bytes, bytearray, memoryview, str),
    "BOOL": (bool,), "NULL": (bool,), "L": (list,), "M": (dict,),
    "SS": (list,), "NS": (list,), "BS": (list,),
}


def _is_tagged(v):
    if not isinstance(v, dict) or len(v) != 1:
        return False
    tag, held = next(iter(v.items()))
    return tag in _TAGS and isinstance(held, _TAG_HOLDS[tag])


def is_low_level(item):
    """Whether every attribute is ``{TYPE: value}`` (boto3's client), its
    value of the kind the tag says."""
    return all(_is_tagged(v) for v in item.values())


def _bytes(v, at):
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    inner = getattr(v, "value", None)          # boto3.dynamodb.types.Binary
    if isinstance(inner, (bytes, bytearray)):
        return bytes(inner)
    if isinstance(v, str):                     # DynamoDB JSON (the AWS CLI): base64
        try:
            return base64.b64decode(v, validate=True)
        except (binascii.Error, ValueError):
            raise DecodeError("attribute `%s`: B %r is not base64" % (at, v)) from None
    raise DecodeError("attribute `%s`: expected binary, found %s" % (at, type(v).__name__))


def low_level(v, at, depth=0):
    """One attribute of boto3's low-level form, as the Rust reader maps it."""
    if depth > MAX_DEPTH:
        raise DecodeError("attribute `%s` nests deeper than %d levels" % (at, MAX_DEPTH))
    if not isinstance(v, dict) or len(v) != 1:
        raise DecodeError("attribute `%s`: expected {TYPE: value} (boto3's low-level client), found %r" % (at, v))
    [(tag, x)] = v.items()
    try:
        if tag == "S":
            if not isinstance(x, str):
                raise TypeError
            return x
        if tag == "N":
            if not isinstance(x, str):
                raise TypeError
            return N(x)
        if tag == "B":
            return _bytes(x, at)
        if tag == "BOOL":
            if not isinstance(x, bool):
                raise TypeError
            return x
        if tag == "L":
            return [low_level(e, at, depth + 1) for e in x]
        if tag == "M":
            return {_key(k, at): low_level(e, "%s.%s" % (at, k), depth + 1) for k, e in x.items()}
        if tag == "SS":
            if not all(isinstance(e, str) for e in x):
                raise TypeError
            return Set("SS", list(x))
        if tag == "NS":
            if not all(isinstance(e, str) for e in x):
                raise TypeError
            return Set("NS", [N(n) for n in x])
        if tag == "BS":
            return Set("BS", [_bytes(b, at) for b in x])
    except (TypeError, AttributeError):
        raise DecodeError("attribute `%s`: %s holds %r" % (at, tag, x)) from None
    return None                                # NULL, and a type a later DynamoDB adds


def _key(k, at):
    if not isinstance(k, str):
        raise DecodeError("attribute `%s`: a map key is not a string: %r" % (at, k))
    return k


def resource(v, at, depth=0):
    """One attribute as boto3's resource API (``TypeDeserializer``) gives it."""
    if depth > MAX_DEPTH:
        raise DecodeError("attribute `%s` nests deeper than %d levels" % (at, MAX_DEPTH))
    if v is None or isinstance(v, (bool, str, float)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, decimal.Decimal):
        return N(str(v))
    if isinstance(v, (list, tuple)):
        return [resource(e, at, depth + 1) for e in v]
    if isinstance(v, dict):
        return {_key(k, at): resource(e, "%s.%s" % (at, k), depth + 1) for k, e in v.items()}
    if isinstance(v, (set, frozenset)):
        items = [resource(e, at, depth + 1) for e in v]
        kinds = {type(e) for e in items}
        if len(kinds) > 1:
            raise DecodeError("attribute `%s`: a set of mixed types" % at)
        if kinds == {N}:
            items.sort(key=lambda n: decimal.Decimal(n.text))     # a set has no order of its own
            return Set("NS", items)
        items.sort()
        return Set("BS" if kinds == {bytes} else "SS", items)
    return _bytes(v, at)


def key_of(schema, item, low, partition_key, sort_key):
    """The row key: the partition attribute's bytes, then the sort
    attribute's when the key has a sort part (``then = (a), b``)."""
    names = [partition_key]
    if schema.partition is not None and schema.partition < len(schema.components):
        names.append(sort_key)
    key = b""
    for name in names:
        if name not in item:
            raise DecodeError("the item has no key attribute `%s`" % name)
        v = item[name]
        if low:
            if not isinstance(v, dict) or len(v) != 1:
                raise DecodeError("key attribute `%s`: expected {TYPE: value}, found %r" % (name, v))
            [(tag, v)] = v.items()
        else:
            tag = "S" if isinstance(v, str) else "B"
        if schema.sep is not None:
            if tag != "S" or not isinstance(v, str):
                raise DecodeError("key attribute `%s`: a text key is a string (S), found %s" % (name, tag))
            key += v.encode("utf-8")
        else:
            if tag != "B":
                raise DecodeError("key attribute `%s`: a binary key is binary (B), found %s" % (name, tag))
            key += _bytes(v, name)
    return key


def _escaped(key):
    """A key as Rust's ``escape_ascii`` prints it in its errors."""
    out = []
    for b in key:
        c = chr(b)
        if c in "\\'\"":
            out.append("\\" + c)
        elif c in "\t\r\n":
            out.append({"\t": "\\t", "\r": "\\r", "\n": "\\n"}[c])
        elif 0x20 <= b < 0x7F:
            out.append(c)
        else:
            out.append("\\x%02x" % b)
    return "".join(out)


def _refuse_raw_value(schema, item, low, key):
    """Rust's ``DynamoError::RawValue``: an item of a key type with value
    fields that holds a binary ``v`` (what ``put_row`` wrote before the
    type had value fields) is not read as a row of missing fields."""
    if not schema.values or "v" not in item or any(f.name == "v" for f in schema.values):
        return
    v = item["v"]
    if low:
        raw = isinstance(v, dict) and list(v) == ["B"]
    else:
        raw = isinstance(v, (bytes, bytearray, memoryview)) or isinstance(getattr(v, "value", None), (bytes, bytearray))
    if raw:
        where = "the item" if key is None else "the item under key %s" % _escaped(key)
        raise DecodeError("%s holds a raw value (a binary `v` attribute, written by put_row before the key type had value fields), not its value fields: rewrite it with put_record (docs/guide/rows.md, \"Upgrading from raw values\")" % where)


def item_values(schema, item, kinds, low, key=None):
    """``Schema.decode_item_values``: the value fields of an item, its
    attributes by name (the others, key attributes too, skipped)."""
    if not isinstance(item, dict):
        raise ValueError_("expected a DynamoDB item (a dict), got %s" % type(item).__name__)
    if low is None:
        low = is_low_level(item)
    _refuse_raw_value(schema, item, low, key)
    kinds = kinds_for(schema, kinds)
    read = low_level if low else resource
    found = {name: read(v, name) for name, v in item.items() if name in kinds}
    return finish(schema, found, kinds, dynamodb=True)


def decode_item(schema, item, kinds, low, partition_key, sort_key):
    """``Schema.decode_item``."""
    if not isinstance(item, dict):
        raise ValueError_("expected a DynamoDB item (a dict), got %s" % type(item).__name__)
    if low is None:
        low = is_low_level(item)
    key = key_of(schema, item, low, partition_key, sort_key)
    fields = schema.decode_stored(key)[0]
    fields.update(item_values(schema, item, kinds, low, key))
    return fields


def to_resource(item):
    """A low-level item in the resource API's shape: ``N`` a ``Decimal``,
    ``S`` a ``str``, ``B`` ``bytes``, ``BOOL`` a ``bool``, ``NULL``
    ``None``, ``L`` a list, ``M`` a dict."""
    def one(a):
        [(tag, v)] = a.items()
        if tag == "N":
            return decimal.Decimal(v)
        if tag == "NULL":
            return None
        if tag == "L":
            return [one(x) for x in v]
        if tag == "M":
            return {k: one(x) for k, x in v.items()}
        return v
    return {k: one(a) for k, a in item.items()}
