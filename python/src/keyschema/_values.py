"""A row's value fields (``#[rowkey(value)]``, ENCODING.md "Value fields"):
the schema document's ``values``, the *kind* each field's value is read as,
and a row's value fields read from the ordered stores' MessagePack map or
from Bigtable's cells.

A kind is named after the Rust type the cells hold: ``i8`` ... ``i128``,
``u8`` ... ``u128``, ``f32``, ``f64``, ``bool``, ``char``, ``str``,
``bytes``, ``msgpack`` (a nested value: a sequence, a map, a struct, an
enum variant with content) and ``auto`` (a type the document cannot name:
MessagePack after a leading ``c1`` (how the library keeps a
self-describing field's non-string values), a whole MessagePack array or
map as MessagePack, valid UTF-8 as a string, anything else as bytes). ``value_kind`` gives it from the Rust type
text; a caller names the kind of a newtype (``Cents(i64)``) itself."""

import re
import struct

from ._errors import DecodeError, SchemaError, ValueError_, need_bytes, utf8_error as _utf8_error
from ._limits import MAX_NESTING
from ._msgpack import decode_msgpack
from . import _nested, _usertypes

_INT_BITS = {
    "i8": 8, "i16": 16, "i32": 32, "i64": 64, "i128": 128, "u8": 8, "u16": 16, "u32": 32, "u64": 64, "u128": 128,
}
_ALIASES = {"isize": "i64", "usize": "u64", "String": "str", "str": "str", "ByteBuf": "bytes", "Bytes": "bytes"}
_NESTED = {
    "Vec", "VecDeque", "LinkedList", "BinaryHeap", "HashMap", "BTreeMap", "HashSet", "BTreeSet",
    "IndexMap", "IndexSet", "SmallVec",
}
_WRAPPERS = ("Option", "Box", "Rc", "Arc")
KINDS = frozenset(list(_INT_BITS) + ["f32", "f64", "bool", "char", "str", "bytes", "msgpack", "auto"])

# The first byte of a Bigtable cell map (never a MessagePack marker).
CELL_MAP = 0xC1
DEFAULT_FAMILY = "f"


def _unwrap(t):
    """``(inner, optional)``: ``t`` without its ``Option``/``Box``/``Rc``/
    ``Arc`` wrappers (serde writes what they hold), spaces removed."""
    t = "".join(t.split())
    optional = False
    while True:
        m = re.fullmatch(r"(?:(?:std|core|alloc)::\w+::)?(\w+)<(.*)>", t)
        if not m or m.group(1) not in _WRAPPERS:
            return t, optional
        optional = optional or m.group(1) == "Option"
        t = m.group(2)


def value_kind(type_text):
    """The kind a value field of the Rust type ``type_text`` is read as
    (``Option<T>`` as ``T``); ``auto`` for a type the text does not name."""
    t, _ = _unwrap(type_text)
    if t.startswith("[") or (t.startswith("(") and t != "()"):
        return "msgpack"                      # arrays and tuples: sequences
    name = t.split("<", 1)[0].rsplit("::", 1)[-1]
    if "<" not in t:
        if name in _INT_BITS or name in ("f32", "f64", "bool", "char", "str"):
            return name
        if name in _ALIASES:
            return _ALIASES[name]
    if name in _NESTED:
        return "msgpack"
    return "auto"


class ValueField:
    """A value field of the schema document: ``name``, ``type_name`` (the
    Rust type as written), ``required`` (whether a row without it is
    refused: ``False`` for an ``Option``, a ``#[rowkey(value, default)]``
    field and a type that reads nil), ``nil`` (the document's ``nil``: its
    type reads nil, as ``()``, ``serde_json::Value``, an untagged enum with
    a unit variant or a newtype of an ``Option`` do; Bigtable and DynamoDB
    keep no cell or attribute for its nil, so a missing one reads as
    ``None``), ``optional`` (an ``Option`` or ``nil``: its ``None`` is a
    value), ``self_describing`` (the document's ``self_describing``: its
    type reads whatever the format holds, so a Bigtable cell keeps its
    non-string values as ``c1`` and MessagePack), ``kind`` (``auto`` for
    a self-describing field) and ``shape`` (the document's ``shape``: the
    type text the field reads by, in the names of ``types``, where it
    differs from ``type_name``: a ``#[serde(transparent)]`` struct's inner
    type, a renamed struct's serde name; else ``type_name``). ``kind``,
    ``optional`` and each value read or checked follow ``shape``."""

    __slots__ = ("name", "type_name", "required", "nil", "optional", "kind", "self_describing", "shape")

    def __init__(self, name, type_name, required, nil=False, self_describing=False, shape=None):
        self.name, self.type_name, self.required, self.nil = name, type_name, required, nil
        self.self_describing = self_describing
        self.shape = type_name if shape is None else shape
        self.optional = _unwrap(self.shape)[1] or nil
        self.kind = "auto" if self_describing else value_kind(self.shape)

    def __repr__(self):
        return "ValueField(%r, %r, required=%r, nil=%r, self_describing=%r, kind=%r, shape=%r)" % (
            self.name, self.type_name, self.required, self.nil, self.self_describing, self.kind, self.shape)


ROW_FORMAT = 1


def read_document(schema, doc):
    """Sets ``schema.values``, ``schema.family`` and ``schema.row_format``
    from the document's ``values``, ``family`` and ``row_format`` (none
    present: no value fields). A document without ``row_format`` was
    written before it, in the same row form (version 1); in it a missing
    ``self_describing`` is decided by the type text (a type named ``Value``
    is), in a later one it is false."""
    row_format = doc.get("row_format")
    if row_format is not None:
        if type(row_format) is not int or row_format < 0:
            raise SchemaError("schema `row_format`: expected a non-negative integer")
        if row_format != ROW_FORMAT:
            raise SchemaError("schema `row_format`: version %d of the stored rows is not supported; this build reads version %d" % (row_format, ROW_FORMAT))
    schema.row_format = ROW_FORMAT
    schema.types = _usertypes.read_types(doc.get("types"))
    values = doc.get("values")
    if values is None:
        values = []
    if not isinstance(values, list):
        raise SchemaError("schema `values`: expected an array")
    schema.values = []
    keys = {f.name for f in schema.fields}
    for i, v in enumerate(values):
        # The Rust reader's checks, in its order and words.
        at = "schema `values[%d].%%s`: %%s" % i
        v = v if isinstance(v, dict) else {}
        name = v.get("name")
        if not isinstance(name, str) or not name:
            raise SchemaError(at % ("name", "expected a non-empty string"))
        if any(f.name == name for f in schema.values):
            raise SchemaError(at % ("name", "`%s` is named twice" % name))
        if name in keys:
            raise SchemaError(at % ("name", "`%s` is a key field" % name))
        if not isinstance(v.get("type"), str):
            raise SchemaError(at % ("type", "expected a string"))
        shape = v.get("shape")
        if "shape" in v and (not isinstance(shape, str) or not shape):
            raise SchemaError(at % ("shape", "expected a type text (a non-empty string)"))
        if not isinstance(v.get("required"), bool):
            raise SchemaError(at % ("required", "expected true or false"))
        nil = v.get("nil", False)
        if not isinstance(nil, bool):
            raise SchemaError(at % ("nil", "expected true or false"))
        if "self_describing" in v:
            self_describing = v["self_describing"]
            if not isinstance(self_describing, bool):
                raise SchemaError(at % ("self_describing", "expected true or false"))
        else:
            self_describing = row_format is None and v["type"].rsplit("::", 1)[-1] == "Value"
        # A field whose type reads nil is never refused when missing (its
        # nil has no cell or attribute), whatever `required` says.
        schema.values.append(ValueField(name, v["type"], v["required"] and not nil, nil, self_describing, shape))
    family = doc.get("family")
    if family is None:
        family = DEFAULT_FAMILY
    if not isinstance(family, str) or not family:
        raise SchemaError("schema `family`: expected a non-empty string")
    schema.family = family


class Kinds(dict):
    """``{field name: kind}``, with ``types``: ``{field name: the type
    its values are read as at every depth}`` (``_nested.T``)."""

    types = None


def _type_of(kind, types):
    """The type a caller's kind (a kind, or a Rust type text) names."""
    if kind in ("msgpack", "auto"):
        return _nested.ANY
    if kind == "bytes":
        return _nested.T("bytes")
    return _nested.parse(kind, types)


def field_type(schema, f):
    """The type the value field ``f`` is read as at every depth: its
    ``shape``'s (its type text's, when the document gives no ``shape``),
    by the document's user types (``ANY`` for a self-describing field)."""
    return _nested.ANY if f.self_describing else _nested.parse(f.shape, getattr(schema, "types", None))


def kinds_for(schema, kinds):
    """``Kinds``: each field's own kind and type, or the caller's ``kinds``
    (a kind, or a Rust type text, by field name)."""
    out = Kinds((f.name, f.kind) for f in schema.values)
    out.types = {f.name: field_type(schema, f) for f in schema.values}
    for name, kind in (kinds or {}).items():
        if name not in out:
            raise ValueError_("kinds: `%s` is not a value field of `%s`" % (name, schema.name))
        if not isinstance(kind, str):
            raise ValueError_("kinds: the kind of `%s` must be a string, got %r" % (name, kind))
        out[name] = kind if kind in KINDS else value_kind(kind)
        out.types[name] = _type_of(kind, getattr(schema, "types", None))
    return out


PREFIX = "value field `%s` does not read as its declared type: "


def wrong(field, what):
    return DecodeError(PREFIX % field + what)


def finish(schema, found, kinds, dynamodb=False):
    """The row's value fields in declaration order from ``found`` (name to
    value, as read; from a DynamoDB item, with its numbers and sets as
    ``_nested.N`` and ``_nested.Set``): each read by its type at every
    depth, a missing one ``None`` (nil, for a field whose type reads nil)
    unless required."""
    read = {}
    reader = _nested.Reader(dynamodb)
    types = {f.name: f for f in schema.values}
    # As the Rust reader: the stored fields in stored order, then the
    # missing ones in declaration order.
    for name, v in found.items():
        f = types.get(name)
        if f is None:
            continue
        if v is None and f.optional:
            read[name] = None
            continue
        try:
            read[name] = _nested.read_deep(reader, kinds.types[name], v)
        except _nested.Misfit as m:
            what = m.why if not m.path else "at `%s%s`: %s" % (name, m.path, m.why)
            raise wrong(name, what) from None
    out = {}
    for f in schema.values:
        if f.name not in read:
            if f.required:
                raise DecodeError("value field `%s` is missing: the row was written without it (by an older version of the struct, or by another program); make the field an `Option` or mark it `#[rowkey(value, default)]` to read such rows" % f.name)
            read[f.name] = None
        out[f.name] = read[f.name]
    return out


def f32(name, v):
    """``v`` rounded to the nearest f32, as the Rust reader reads an ``f32``
    field: a finite number beyond its range (which would round to an
    infinity) is a ``DecodeError`` naming the field ``name`` and the number."""
    if _nested.beyond_f32(v):
        raise wrong(name, _nested.not_an_f32(_nested.number_shown(v)))
    return _nested.f32(v)


# ---------------------------------------------------------------------------
# The ordered stores' value: one MessagePack map from field name to value

def decode_values(schema, value, kinds=None):
    """``Schema.decode_values``."""
    kinds = kinds_for(schema, kinds)
    if isinstance(value, str):
        need_bytes(value, "value")
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value)
        if value[:1] == bytes([CELL_MAP]):
            cells = cell_map(value)
            return named(schema, cells, finish(schema, read_cells(cells, kinds), kinds))
        fields = _map(value)
        if not isinstance(fields, dict):
            raise DecodeError("the stored value is not a row's value fields: expected a MessagePack map, found %s" % type(fields).__name__)
        for name in fields:
            if not isinstance(name, str):
                raise DecodeError("the stored value is not a row's value fields: a field name is not a MessagePack str: %r" % (name,))
        return named(schema, fields, finish(schema, fields, kinds))
    if not isinstance(value, (dict, list, tuple)) and hasattr(value, "cells"):
        value = value.cells                    # a google-cloud-bigtable row
    cells = cells_of(schema, value)
    return named(schema, cells, finish(schema, read_cells(cells, kinds), kinds))


def named(schema, names, out):
    """``out``, when ``names`` (a stored map's field names, or a row's
    qualifiers) name one of the schema's value fields or hold the presence
    mark, the empty name: every row keyschema writes does. Else the value is
    not a row of the schema (the empty map, another program's map of other
    names): ``DecodeError``, never a row of ``None``s (ENCODING.md, "Value
    fields")."""
    whole = getattr(schema, "projection_of", None)
    if whole is not None:
        # A projection (``Schema.projected``): a projected Bigtable read
        # keeps one other cell, so cells are refused only when there are
        # none; a map must name one of the row type's fields.
        if names and isinstance(names, dict) and all(isinstance(q, bytes) for q in names):
            return out
        schema = whole
    wanted = {f.name.encode("utf-8") for f in schema.values}
    if not wanted:
        return out
    for name in names:
        name = name.encode("utf-8") if isinstance(name, str) else name
        if name == b"" or name in wanted:
            return out
    raise DecodeError("the stored value is not a row's value fields: it names none of the key type's value fields (%s), and every row keyschema writes names them: it is a raw value (put_row) or another program's" % ", ".join("`%s`" % f.name for f in schema.values))


def _map(value):
    """The ordered stores' map; bytes that are one followed by 4 more (a
    CRC-32, as redb keeps a row) say so."""
    try:
        return decode_msgpack(value, MAX_NESTING + 1)
    except DecodeError as e:
        try:
            decode_msgpack(value[:-4], MAX_NESTING + 1)
        except DecodeError:
            raise e from None
        raise DecodeError("%s: these are a value followed by 4 bytes, as the redb store keeps a row (the value, then a CRC-32 of key and value): read them with Schema.decode_redb_row(key, stored), or keyschema.redb_value(key, stored) for the value" % e) from None


# ---------------------------------------------------------------------------
# Bigtable: one cell per field, qualifier its name, read by its kind

def cell_map(value):
    """The cells of a cell map (``c1``, then a MessagePack map of bin to
    bin): ``{qualifier: cell}``."""
    cells = decode_msgpack(value[1:])
    if not isinstance(cells, dict) or not all(isinstance(q, bytes) and isinstance(c, bytes) for q, c in cells.items()):
        raise DecodeError("the stored value is not a row's value fields: a cell map holds a MessagePack map of bin to bin")
    return cells


def _newest(cell):
    """A cell's bytes: bytes, a google-cloud-bigtable ``Cell`` (``.value``)
    or a list of them, newest first."""
    if isinstance(cell, (list, tuple)):
        if not cell:
            return None
        cell = cell[0]
    cell = getattr(cell, "value", cell)
    if not isinstance(cell, (bytes, bytearray, memoryview)):
        raise ValueError_("expected a cell's bytes, got %s" % type(cell).__name__)
    return bytes(cell)


def _qualifier(q):
    if isinstance(q, str):
        return q.encode("utf-8")
    if isinstance(q, (bytes, bytearray, memoryview)):
        return bytes(q)
    raise ValueError_("expected a column qualifier (bytes or str), got %s" % type(q).__name__)


def cells_of(schema, row):
    """``{qualifier: cell}`` of the schema's family from what a Bigtable
    client gives: ``{qualifier: cell}``, ``{family: {qualifier: cells}}``
    (google-cloud-bigtable's ``row.cells``), or a list of cells with
    ``.family``, ``.qualifier`` and ``.value`` (its data client's
    ``row.cells``), newest first."""
    if isinstance(row, dict):
        if row and all(isinstance(v, dict) for v in row.values()):
            row = row.get(schema.family, row.get(schema.family.encode("utf-8"), {}))
        out = {}
        for q, cell in row.items():
            cell = _newest(cell)
            if cell is not None:
                out[_qualifier(q)] = cell
        return out
    if isinstance(row, (list, tuple)):
        out = {}
        for cell in row:
            family = getattr(cell, "family", None)
            if isinstance(family, bytes):
                family = family.decode("utf-8", "replace")
            if family == schema.family:
                out.setdefault(_qualifier(getattr(cell, "qualifier", None)), _newest(cell))
        return out
    raise ValueError_("expected a row's value bytes, or its cells: a dict or a list of cells, got %s" % type(row).__name__)


def read_cells(cells, kinds):
    """``{field: value}`` of the cells that are value fields (others, and
    the empty presence qualifier, skipped), each read by its kind."""
    out = {}
    names = {name.encode("utf-8"): name for name in kinds}
    for qualifier in sorted(q for q in cells if q in names):      # as Bigtable orders them
        name = names[qualifier]
        out[name] = read_cell(name, kinds[name], cells[qualifier], kinds.types[name])
    return out


def _nested_type(t):
    """Whether ``t`` (through ``Option``) is a sequence, a tuple or a map:
    a cell of one whole MessagePack array or map."""
    while t.kind == "option":
        t = t.items[0]
    return t.kind in ("seq", "tuple", "map")


def read_cell(name, kind, cell, t=None):
    """One cell by its field's kind (ENCODING.md, "Value fields on Bigtable"):
    integers and floats of 8 big-endian bytes (a 128-bit integer also of
    16), nothing else; a bool as ``true``/``false`` (or one byte), text as
    UTF-8, nested values as MessagePack (a sequence's, a tuple's or a map's
    one whole array or map); ``auto``: MessagePack after a leading ``c1``,
    a whole MessagePack array or map, else text or bytes. Said as the Rust
    reader says it."""
    def bad(expected, text=False):
        message = _cell_words(cell, expected)
        if text and cell and all(0x21 <= b <= 0x7E for b in cell):
            message += ": the cell holds the text %s; numbers are stored as 8 big-endian bytes (write them with the library, or `cbt set` with the bytes escaped)" % _nested.quoted(cell.decode("ascii"))
        return wrong(name, message)

    user = _user_cell(t)
    if user is not None:
        kind, t = user
        if kind == "unit":
            return None                        # a unit struct reads any cell
        if kind == "enum":
            return _enum_cell(name, cell, t)
        if kind == "struct":
            kind, t = "msgpack", _nested.T("map")
    if kind in _INT_BITS:
        bits = _INT_BITS[kind]
        if bits == 128 and len(cell) == 16:
            return int.from_bytes(cell, "big", signed=kind[0] == "i")
        if len(cell) != 8:
            raise bad("an integer: %s big-endian bytes" % ("8 or 16" if bits == 128 else "8"), text=True)
        n = int.from_bytes(cell, "big", signed=kind[0] == "i")
        lo, hi = (0, (1 << bits) - 1) if kind[0] == "u" else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        if not lo <= n <= hi:
            raise wrong(name, "%d does not fit in %s" % (n, kind))
        return n
    if kind in ("f32", "f64"):
        if len(cell) != 8:
            raise bad("a float: 8 big-endian bytes (IEEE 754)", text=True)
        v = struct.unpack(">d", cell)[0]
        return f32(name, v) if kind == "f32" else v
    if kind == "bool":
        if cell in (b"true", b"\x01", b"\xff"):
            return True
        if cell in (b"false", b"\x00"):
            return False
        raise bad("a bool: `true` or `false`")
    if kind in ("str", "char"):
        try:
            text = cell.decode("utf-8")
        except UnicodeDecodeError as e:
            raise bad("UTF-8 text (%s)" % _utf8_error(cell, e)) from None
        if kind == "char" and len(text) != 1:
            raise wrong(name, "invalid value: string %s, expected a character" % _nested.quoted(text))
        return text
    if kind == "bytes":
        return cell
    if kind == "auto" and cell[:1] == b"\xc1":
        try:
            return decode_msgpack(cell[1:])
        except DecodeError:
            raise bad("one MessagePack value after the byte c1") from None
    nested = _is_nested(cell)
    if kind == "msgpack" and t is not None and _nested_type(t) and not nested:
        raise bad("a nested value: one whole MessagePack array or map")
    if nested or kind == "msgpack":
        try:
            return decode_msgpack(cell)
        except DecodeError as e:
            raise wrong(name, "the cell's MessagePack does not read: %s" % e) from None
    try:
        return cell.decode("utf-8")
    except UnicodeDecodeError:
        return cell


def _cell_words(cell, expected):
    """A cell refused as not ``expected``, in the Rust cell reader's words."""
    shown = cell[:32].hex() + ("..." if len(cell) > 32 else "")
    return "expected %s, found a cell of %d bytes (%s)" % (expected, len(cell), shown)


def _user_cell(t):
    """``(kind, type)`` a cell of a field of the type ``t`` is read by,
    when ``t`` (through ``Option``) is a user type of the document's
    ``types``: a newtype's inner type's kind, a struct's or a tuple
    struct's whole MessagePack array or map (``struct``, ``msgpack``), a
    unit struct's anything (``unit``), an enum's name or MessagePack map
    (``enum``); None for another type."""
    while t is not None and t.kind == "option":
        t = t.items[0]
    if t is None or t.kind != "user":
        return None
    r = t.what.resolve(t)
    k = r.kind
    if k == "user":
        return t.what.shape(r.name)[0], r
    if k == "int" or k == "wide":
        return r.name, r
    if k in ("f32", "f64", "bool", "char", "str", "bytes", "unit"):
        return k, r
    if k in ("seq", "tuple", "map"):
        return "msgpack", r
    return "auto", r


def _enum_cell(name, cell, t):
    """An enum's cell (ENCODING.md, "User types"): a MessagePack map of one
    entry (its first byte ``81``), else a unit variant's name as text."""
    if cell[:1] == b"\x81":
        try:
            return decode_msgpack(cell)
        except DecodeError as e:
            raise wrong(name, "the cell's MessagePack does not read: %s" % e) from None
    enum = t.what.shape(t.name)[1]
    whole = decode_msgpack(cell) if _is_nested(cell) else None
    why = _usertypes.cell_enum(cell, enum, lambda what: _cell_words(cell, what), whole)
    if why is not None:
        raise wrong(name, why)
    return cell.decode("utf-8")


def _is_nested(cell):
    """Whether the cell is one whole MessagePack array or map."""
    if not cell or not (0x80 <= cell[0] <= 0x9F or 0xDC <= cell[0] <= 0xDF):
        return False
    try:
        decode_msgpack(cell)
    except DecodeError:
        return False
    return True
