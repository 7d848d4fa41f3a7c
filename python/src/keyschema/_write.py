"""Writing a row's value fields from the schema document alone (ENCODING.md,
"Value fields"): the ordered stores' MessagePack map (and redb's stored
bytes), Bigtable's cells and a DynamoDB item, byte for byte as the Rust
code writes them.

A field's value is a Python value of the MessagePack data model: ``None``,
``bool``, ``int``, ``float``, ``str``, ``bytes``, ``list`` or ``tuple``,
``dict``; ``F32(x)`` marks a float written as a MessagePack float 32
inside a nested value (a field whose kind is ``f32`` is one anyway). A
field whose kind is ``i128`` or ``u128`` takes an ``int`` and is written as
the bin of its 16 big-endian bytes, as rmp-serde writes it."""

import base64
import math
import struct
import zlib

from ._errors import ValueError_
from ._nested import number_shown
from ._render import _shortest_digits


class F32(float):
    """A float written as a MessagePack float 32 (``ca``): the value rounded
    to an f32, as Rust's ``x as f32`` (beyond its range, an infinity)."""

    def __new__(cls, value):
        value = float(value)
        try:
            rounded = struct.unpack(">f", struct.pack(">f", value))[0]
        except OverflowError:
            rounded = math.copysign(math.inf, value)
        return super().__new__(cls, rounded)


def _int(out, n):
    if 0 <= n < 0x80:
        out.append(n)
    elif n >= 0:
        for marker, fmt, top in ((0xCC, ">B", 1 << 8), (0xCD, ">H", 1 << 16), (0xCE, ">I", 1 << 32), (0xCF, ">Q", 1 << 64)):
            if n < top:
                out.append(marker)
                out += struct.pack(fmt, n)
                return
        raise ValueError_("%d does not fit a MessagePack integer" % n)
    elif n >= -32:
        out.append(n & 0xFF)
    else:
        for marker, fmt, bottom in ((0xD0, ">b", -(1 << 7)), (0xD1, ">h", -(1 << 15)), (0xD2, ">i", -(1 << 31)), (0xD3, ">q", -(1 << 63))):
            if n >= bottom:
                out.append(marker)
                out += struct.pack(fmt, n)
                return
        raise ValueError_("%d does not fit a MessagePack integer" % n)


def _header(out, n, fix, fix_max, markers):
    if n <= fix_max and fix is not None:
        out.append(fix | n)
        return
    for marker, fmt, top in markers:
        if n < top:
            out.append(marker)
            out += struct.pack(fmt, n)
            return
    raise ValueError_("%d elements do not fit MessagePack" % n)


def pack(value, out=None):
    """``value`` as MessagePack, each header in its smallest form (rmp's)."""
    out = bytearray() if out is None else out
    if value is None:
        out.append(0xC0)
    elif value is True or value is False:
        out.append(0xC3 if value else 0xC2)
    elif isinstance(value, int):
        _int(out, value)
    elif isinstance(value, F32):
        out.append(0xCA)
        out += struct.pack(">f", value)
    elif isinstance(value, float):
        out.append(0xCB)
        out += struct.pack(">d", value)
    elif isinstance(value, str):
        data = value.encode("utf-8")
        _header(out, len(data), 0xA0, 31, ((0xD9, ">B", 1 << 8), (0xDA, ">H", 1 << 16), (0xDB, ">I", 1 << 32)))
        out += data
    elif isinstance(value, (bytes, bytearray)):
        _header(out, len(value), None, -1, ((0xC4, ">B", 1 << 8), (0xC5, ">H", 1 << 16), (0xC6, ">I", 1 << 32)))
        out += value
    elif isinstance(value, (list, tuple)):
        _header(out, len(value), 0x90, 15, ((0xDC, ">H", 1 << 16), (0xDD, ">I", 1 << 32)))
        for v in value:
            pack(v, out)
    elif isinstance(value, dict):
        _header(out, len(value), 0x80, 15, ((0xDE, ">H", 1 << 16), (0xDF, ">I", 1 << 32)))
        for k, v in value.items():
            pack(k, out)
            pack(v, out)
    else:
        raise ValueError_("%r is not a value of MessagePack's data model" % (value,))
    return out


def _field_value(field, value):
    """A field's value as serde writes its kind: a 128-bit integer as the
    bin of its 16 bytes, an ``f32`` field's float as a float 32."""
    if value is None:
        return None
    if field.kind in ("i128", "u128") and isinstance(value, int) and not isinstance(value, bool):
        return value.to_bytes(16, "big", signed=field.kind == "i128")
    if field.kind == "f32" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return F32(value)
    if field.kind == "f64" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _entries(schema, values):
    unknown = set(values) - {f.name for f in schema.values}
    if unknown:
        raise ValueError_("`%s` has no value field %s" % (schema.name, ", ".join(sorted(unknown))))
    return [(f, _field_value(f, values.get(f.name))) for f in schema.values]


def encode_values(schema, values):
    """``Schema.encode_values``: the map, one entry per value field in the
    document's order (a missing one nil)."""
    return bytes(pack({f.name: v for f, v in _entries(schema, values)}))


def redb_stored(key, value):
    """What the redb store keeps under ``key``: ``value``, then the CRC-32
    of key and value, big-endian."""
    return bytes(value) + struct.pack(">I", zlib.crc32(bytes(value), zlib.crc32(bytes(key))))


def _is_whole_nested(data):
    from ._values import _is_nested
    return _is_nested(data)


def encode_cells(schema, values):
    """``Schema.encode_cells``: ``[(qualifier, cell)]`` in qualifier order."""
    cells = []
    for f, v in _entries(schema, values):
        if v is None:
            continue
        item = bytes(pack(v))
        if f.self_describing:
            text = v.encode("utf-8") if isinstance(v, str) else None
            cell = text if text is not None and not _is_whole_nested(text) else b"\xc1" + item
        elif isinstance(v, bool):
            cell = b"true" if v else b"false"
        elif isinstance(v, int):
            cell = (v & (1 << 64) - 1).to_bytes(8, "big")
        elif isinstance(v, float):
            cell = struct.pack(">d", v)
        elif isinstance(v, str):
            cell = v.encode("utf-8")
        elif isinstance(v, (bytes, bytearray)):
            cell = bytes(v)
        else:
            cell = item
        cells.append((f.name.encode("utf-8"), cell))
    if not cells:
        cells.append((b"", b""))
    return sorted(cells)


def number_text(v):
    """A float as DynamoDB's ``N``: the shortest decimal of its width, plain
    from 1e-7 up to 1e21, else in exponent form; zero as ``0``."""
    if math.isnan(v) or math.isinf(v):
        raise ValueError_("%r is not a number DynamoDB holds (N is finite)" % v)
    if v == 0:
        return "0"
    sign = "-" if v < 0 else ""
    digits, point = _shortest_digits(abs(v), 4 if isinstance(v, F32) else 8)
    if 1e-7 <= abs(v) < 1e21:
        if point <= 0:
            return sign + "0." + "0" * (-point) + digits
        if point >= len(digits):
            return sign + digits + "0" * (point - len(digits))
        return sign + digits[:point] + "." + digits[point:]
    return "%s%s%se%d" % (sign, digits[0], "." + digits[1:] if len(digits) > 1 else "", point - 1)


def attribute(v, at, depth=1):
    """A value as a low-level DynamoDB attribute (``{"N": "5"}``); ``B`` as bytes."""
    if v is None:
        return {"NULL": True}
    if isinstance(v, bool):
        return {"BOOL": v}
    if isinstance(v, int):
        return {"N": str(v)}
    if isinstance(v, float):
        return {"N": number_text(v)}
    if isinstance(v, str):
        return {"S": v}
    if isinstance(v, (bytes, bytearray)):
        return {"B": bytes(v)}
    if depth > 32:
        raise ValueError_("value field `%s` cannot be a DynamoDB attribute: lists and maps nest deeper than DynamoDB's 32 levels" % at)
    if isinstance(v, (list, tuple)):
        return {"L": [attribute(x, at, depth + 1) for x in v]}
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str) or not k:
                raise ValueError_("value field `%s` cannot be a DynamoDB attribute: %s" % (at, _bad_key(k)))
            out[k] = attribute(x, at, depth + 1)
        return {"M": out}
    raise ValueError_("value field `%s`: %r is not a value of MessagePack's data model" % (at, v))


def _bad_key(k):
    """Why ``k`` is no DynamoDB map key, in the Rust writer's words."""
    if k == "":
        return "an empty map key: DynamoDB's map keys are at least one character"
    if isinstance(k, bool):
        found = "boolean `%s`" % ("true" if k else "false")
    elif isinstance(k, int):
        found = "integer `%d`" % k
    elif isinstance(k, float):
        found = "floating point `%s`" % number_shown(k)
    elif isinstance(k, (bytes, bytearray)):
        found = "byte array"
    elif isinstance(k, tuple):
        found = "sequence"
    elif k is None:
        found = "unit value"
    else:
        found = repr(k)
    return "invalid type: %s, expected a non-empty string map key (DynamoDB's maps have string keys)" % found


def encode_item(schema, fields, values, partition_key="pk", sort_key="sk"):
    """``Schema.encode_item``: the low-level item a put writes."""
    key = schema.encode(fields)
    split = _partition_len(schema, fields)
    item = {}
    text = schema.sep is not None
    part, rest = key[:split], key[split:]
    item[partition_key] = {"S": part.decode("utf-8")} if text else {"B": part}
    if schema.partition is not None and schema.partition < len(schema.components):
        item[sort_key] = {"S": rest.decode("utf-8")} if text else {"B": rest}
    for f in schema.fields:
        a = key_attribute(f.encoding, fields[f.name])
        if a is not None:
            item[f.name] = a
    for f, v in _entries(schema, values):
        if v is not None:
            item[f.name] = attribute(v, f.name)
    return item


def _partition_len(schema, fields):
    """The bytes of the key's partition part (``then = (a, b), c``): the
    header and the partition components (each followed by its separator
    in a text key)."""
    from ._encoding import encode_plain
    from ._text import encode_text
    if schema.partition is None:
        raise ValueError_("`%s` has no partition key (`then = (a), b`): DynamoDB needs one" % schema.name)
    comps = schema._component_values(fields)
    n = schema._header_len()
    for c, v in list(zip(schema.components, comps))[:schema.partition]:
        if schema.sep is None:
            n += len(encode_plain(c.encoding, v))
        else:
            n += len(encode_text(c.encoding, v, schema.sep)) + 1
    return n


def key_attribute(enc, v):
    """A key field's own attribute (ENCODING.md, "Value fields on DynamoDB")."""
    from ._encoding import Some
    from ._json import value_to_json
    if enc.options:
        if v is None:
            return None
        return key_attribute(enc.inner(), v.value if isinstance(v, Some) else v)
    b = enc.base
    if enc.kind:
        return {"S": str(value_to_json(enc, v))}
    if b in ("f32", "f64"):
        try:
            return {"N": number_text(F32(v) if b == "f32" else float(v))}
        except ValueError_:
            return None
    if isinstance(v, bool):
        return {"BOOL": v}
    if isinstance(v, int):
        return {"N": str(v)} if len(str(abs(v))) <= 38 else None
    if isinstance(v, str):
        return {"S": v}
    return {"B": bytes(v)}


def low_level_json(item):
    """An item with ``B`` in base64, as DynamoDB's JSON carries it."""
    def one(a):
        [(tag, v)] = a.items()
        if tag == "B":
            return {"B": base64.b64encode(v).decode("ascii")}
        if tag == "L":
            return {"L": [one(x) for x in v]}
        if tag == "M":
            return {"M": {k: one(x) for k, x in v.items()}}
        return a
    return {k: one(a) for k, a in item.items()}
