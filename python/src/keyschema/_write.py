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
    for f in schema.values:
        _check_depth(f, values.get(f.name))
        _check_shape(schema, f, values.get(f.name))
    return [(f, _field_value(f, values.get(f.name))) for f in schema.values]


def _check_depth(f, value):
    """Refuses a value nested deeper than ``MAX_NESTING`` levels of lists
    and maps, which no reader of rows follows (as the Rust writer does)."""
    from ._limits import MAX_NESTING
    from ._values import PREFIX
    level = [(value, 0)]
    while level:
        v, depth = level.pop()
        if isinstance(v, (list, tuple, dict)):
            if depth >= MAX_NESTING:
                raise ValueError_(PREFIX % f.name + "it nests deeper than %d levels of lists and maps, which no reader of rows follows (keyschema::MAX_NESTING): store it flatter, or as bytes of your own" % MAX_NESTING)
            items = list(v.keys()) + list(v.values()) if isinstance(v, dict) else v
            level.extend((x, depth + 1) for x in items)


def _check_shape(schema, f, value):
    """Refuses the value of a field whose type holds a user type of the
    document's ``types`` (a struct, an enum...) that the Rust typed read
    would refuse, in its words (ENCODING.md, "User types"): a struct's
    ``dict`` without a field that is not optional, of a field of the wrong
    kind, an unknown variant, a tuple struct's list of another length, a
    member a closed struct does not name; the field read by its ``shape``
    when the document gives one."""
    from ._values import PREFIX, field_type
    from . import _nested
    t = field_type(schema, f)
    # A field read by a `shape` other than its type (a transparent or
    # renamed type of the user's) is checked by it, whatever it holds.
    if value is None or not (_holds_user_type(t) or f.shape != f.type_name):
        return
    try:
        _nested.read_deep(_nested.Reader(False), t, _as_stored(value))
    except _nested.Misfit as m:
        what = m.why if not m.path else "at `%s%s`: %s" % (f.name, m.path, m.why)
        raise ValueError_(PREFIX % f.name + what) from None


def _holds_user_type(t):
    return t.kind == "user" or any(_holds_user_type(x) for x in t.items)


def _as_stored(v):
    """A value as it reads back from MessagePack: tuples as lists."""
    if isinstance(v, (list, tuple)):
        return [_as_stored(x) for x in v]
    if isinstance(v, dict):
        return {k: _as_stored(x) for k, x in v.items()}
    if isinstance(v, bytearray):
        return bytes(v)
    return v


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


_RANGE = ("positive 1E-130 to 9.9999999999999999999999999999999999999E+125, "
          "negative -9.9999999999999999999999999999999999999E+125 to -1E-130, and zero")


def _exponent_form(v):
    """A nonzero finite float as Rust's ``{:e}`` writes it at its width."""
    sign = "-" if v < 0 else ""
    digits, point = _shortest_digits(abs(v), 4 if isinstance(v, F32) else 8)
    return "%s%s%se%d" % (sign, digits[0], "." + digits[1:] if len(digits) > 1 else "", point - 1)


def number_text(v):
    """A float as DynamoDB's ``N``: the shortest decimal of its width, plain
    from 1e-7 up to 1e21, else in exponent form; zero as ``0``. A NaN, an
    infinity or a nonzero magnitude outside 1E-130 up to (not including)
    1e126 is refused with the Rust code's words."""
    if math.isnan(v) or math.isinf(v):
        shown = "NaN" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        raise ValueError_("%s is not a number DynamoDB holds (N is finite)" % shown)
    if v == 0:
        return "0"
    if not 1e-130 <= abs(v) < 1e126:
        raise ValueError_("%s is outside DynamoDB's number range (%s); keep it in a string field (or as text) to store it"
                          % (_exponent_form(v), _RANGE))
    sign = "-" if v < 0 else ""
    digits, point = _shortest_digits(abs(v), 4 if isinstance(v, F32) else 8)
    if 1e-7 <= abs(v) < 1e21:
        if point <= 0:
            return sign + "0." + "0" * (-point) + digits
        if point >= len(digits):
            return sign + digits + "0" * (point - len(digits))
        return sign + digits[:point] + "." + digits[point:]
    return _exponent_form(v)


def attribute(v, at, depth=1):
    """A value as a low-level DynamoDB attribute (``{"N": "5"}``); ``B`` as bytes."""
    if v is None:
        return {"NULL": True}
    if isinstance(v, bool):
        return {"BOOL": v}
    if isinstance(v, int):
        return {"N": str(v)}
    if isinstance(v, float):
        try:
            return {"N": number_text(v)}
        except ValueError_ as e:
            raise ValueError_("value field `%s` cannot be a DynamoDB attribute: %s" % (at, e)) from None
    if isinstance(v, str):
        return {"S": v}
    if isinstance(v, (bytes, bytearray)):
        return {"B": bytes(v)}
    if depth >= 32:  # a list or map at level 32 would hold elements at level 33
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


MAX_ITEM = 400 * 1024


def number_size(text):
    """The bytes DynamoDB stores an ``N`` in (ENCODING.md, "Value fields on
    DynamoDB"): 1 for zero; else 1, the significant digits two to a byte,
    1 more when their count is even and the first one's decimal exponent
    is even, and 1 more for a negative number."""
    from decimal import Decimal
    d = Decimal(text)
    if d == 0:
        return 1
    sign, digits, exponent = d.normalize().as_tuple()
    first = len(digits) - 1 + exponent
    n = len(digits)
    return 1 + (n + 1) // 2 + (1 if n % 2 == 0 and first % 2 == 0 else 0) + sign


def _attribute_size(a):
    [(tag, v)] = a.items()
    if tag in ("S",):
        return len(v.encode("utf-8"))
    if tag == "B":
        return len(v)
    if tag == "N":
        return number_size(v)
    if tag == "L":
        return 3 + sum(1 + _attribute_size(x) for x in v)
    if tag == "M":
        return 3 + sum(1 + len(k.encode("utf-8")) + _attribute_size(x) for k, x in v.items())
    if tag == "SS":
        return sum(len(x.encode("utf-8")) for x in v)
    if tag == "NS":
        return sum(number_size(x) for x in v)
    if tag == "BS":
        return sum(len(x) for x in v)
    return 1


def item_size(item):
    """The size DynamoDB counts for a low-level item (``B`` as bytes): each
    attribute's name in UTF-8 bytes plus its value's size."""
    return sum(len(name.encode("utf-8")) + _attribute_size(a) for name, a in item.items())


def index_attributes(schema, fields, values, native=()):
    """The attributes a put writes for the row's index entries (ENCODING.md,
    "Indexes on DynamoDB"): for an encoded index its entry key split into
    ``Name_pk`` and ``Name_sk``; for one named in ``native`` (by default
    those the document says are: ``Schema.encode_item``) ``Name_shard``, the salt bucket, and for each
    component that is not the field as it is, ``Name_<f>_rev`` (``-f``)
    or ``Name_<f>_bucket`` (``f`` floor-divided by W; ``_bucket_rev``,
    negated, under ``rev``). A row whose indexed value field is ``None``
    has no entry, and no attributes for it."""
    row = dict(fields)
    row.update(values)
    text = schema.sep is not None
    out = {}
    for index in schema.indexes:
        names = [f.name for f in index.fields]
        if any(row.get(n) is None for n in names if n in values):
            continue
        entry = {n: row[n] for n in names}
        if index.name not in native:
            key = index.encode(entry)
            split = _partition_len(index, entry)
            out[index.name + "_pk"] = {"S": key[:split].decode("utf-8")} if text else {"B": key[:split]}
            if index.partition < len(index.components):
                out[index.name + "_sk"] = {"S": key[split:].decode("utf-8")} if text else {"B": key[split:]}
            continue
        if index.buckets is not None:
            out[index.name + "_shard"] = {"N": str(index.bucket(entry))}
        for c in index.components:
            v = entry[c.name]
            if c.transform == "bucket":
                b = v // c.width
                out["%s_%s_bucket%s" % (index.name, c.name, "_rev" if c.descending else "")] = {"N": str(-b if c.descending else b)}
            elif c.descending:
                out["%s_%s_rev" % (index.name, c.name)] = {"N": str(-v)}
    return out


def finish_item(schema, fields, values, item, native=()):
    """``item`` (what ``encode_item`` made) with the attributes of the row's
    index entries (``native``: the indexes DynamoDB keeps in the native
    form), refused when DynamoDB would count it above 400 KB. Refusals are
    worded as the Rust store's without its batch framing (``item 0 (key
    ...): `` before, ``; nothing was sent`` after), as every refusal of
    ``encode_item``."""
    item = dict(item)
    item.update(index_attributes(schema, fields, values, native))
    size = item_size(item)
    if size > MAX_ITEM:
        raise ValueError_("its item is %d bytes, above DynamoDB's limit of %d bytes" % (size, MAX_ITEM))
    return item


def cbt_format_file(schema):
    """``Schema.cbt_format_file``: the format file for ``cbt read ...
    format-file=PATH`` that prints the integer and float cells as numbers,
    as the Rust ``cells::cbt_format_file`` writes it: a field whose type
    text (spaces removed, one ``Option<...>`` taken off) is a signed
    integer of at most 64 bits ``INT64``, an unsigned one ``UINT64``,
    ``f32`` or ``f64`` ``float64``; other fields are not listed."""
    ints = ("i8", "i16", "i32", "i64", "isize")
    uints = ("u8", "u16", "u32", "u64", "usize")
    out = "families:\n  %s:\n    columns:\n" % schema.family
    for f in schema.values:
        ty = f.type_name.replace(" ", "")
        if ty.startswith("Option<") and ty.endswith(">"):
            ty = ty[len("Option<"):-1]
        kind = "INT64" if ty in ints else "UINT64" if ty in uints else "float64" if ty in ("f32", "f64") else None
        if kind is not None:
            out += "      %s:\n        encoding: BigEndian\n        type: %s\n" % (f.name, kind)
    return out
