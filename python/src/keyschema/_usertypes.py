"""The user's own types a value field holds (its structs, enums, newtypes,
tuple structs and unit structs), as the schema document's ``types`` lists
them (ENCODING.md, "User types"), and a stored value read by them as the
Rust typed read (serde's derived ``Deserialize`` over rmp-serde, or over a
DynamoDB item or a Bigtable cell) reads it: a struct as a map by field
name (or the sequence of its fields), members it does not name skipped, a
missing field that is not ``optional`` refused (``missing field `zip```),
one named twice refused; a tuple struct exactly its length; a newtype as
its one value; a unit struct as nil; an enum externally tagged, an unknown
variant refused (``unknown variant `Purple`, expected one of ...``).
The serde attributes the document states are honoured as the derive
honours them: a field's ``aliases`` (``#[serde(alias)]``: a member under
one reads as the field), a struct's ``closed``
(``#[serde(deny_unknown_fields)]``: a member it does not name refused,
``unknown field `b`, expected `a```) and an enum's ``other``
(``#[serde(other)]``: a tag none of its variants has reads, as a unit
variant, as the stored tag).

A type the document does not list is read as stored, as before ``types``."""

from ._document import invalid
from ._msgpack import entries
from . import _nested
from ._nested import Misfit, T, dynamo_found, dynamo_kind, found, number_shown, push_key

_ONE_OF = "expected exactly one of `fields`, `tuple`, `newtype`, `unit` (true) or `enum`"
# Members beside a type entry's one form: a struct's `closed`, an enum's `other`.
_BESIDE = ("closed", "other")
_NOT_CLOSED = "only a struct with `fields` may be closed"
_NOT_OTHER = "only an enum may have `other`"


def read_types(types):
    """``UserTypes`` of the document's ``types`` (none when absent),
    refusing a malformed member as the Rust reader
    (``dynamic::types::read_types``) does: in its order (names sorted), at
    its ``at`` paths, in its words."""
    if types is None:
        return UserTypes({})
    if not isinstance(types, dict):
        raise invalid("types", "expected an object of user types by name")
    out = {}
    for name, t in sorted(types.items()):
        at = "types.%s" % name
        if name == "":
            raise invalid("types", "a user type's name is empty")
        if not isinstance(t, dict):
            raise invalid(at, "expected an object with one of `fields`, `tuple`, `newtype`, `unit` or `enum`")
        forms = [(k, v) for k, v in t.items() if k not in _BESIDE]
        if len(forms) != 1:
            raise invalid(at, "expected exactly one of `fields`, `tuple`, `newtype`, `unit` or `enum`")
        [(k, v)] = forms
        if k == "fields":
            out[name] = ("struct", _fields(v, at + ".fields"))
        elif k == "tuple":
            out[name] = ("tuple", _list(v, at + ".tuple"))
        elif k == "newtype":
            out[name] = ("newtype", _text(v, at + ".newtype"))
        elif k == "unit" and v is True:
            out[name] = ("unit", None)
        elif k == "enum":
            out[name] = ("enum", _variants(v, at + ".enum"))
        else:
            raise invalid(at, _ONE_OF)
        closed = _flag(t, "closed", at, k == "fields", _NOT_CLOSED)
        other = _flag(t, "other", at, k == "enum", _NOT_OTHER)
        if k in ("fields", "enum"):              # (fields, closed), (variants, other)
            out[name] = (out[name][0], (out[name][1], closed or other))
    return UserTypes(out)


def _flag(obj, member, at, allowed, elsewhere):
    """``obj[member]`` (``closed``, ``other``): true or false, absent
    false; refused when not a boolean, or present where not ``allowed``
    (in the words ``elsewhere``)."""
    if member not in obj:
        return False
    v = obj[member]
    here = "%s.%s" % (at, member)
    if not isinstance(v, bool):
        raise invalid(here, "expected true or false")
    if not allowed:
        raise invalid(here, elsewhere)
    return v


def _text(v, at):
    if not isinstance(v, str) or not v:
        raise invalid(at, "expected a type text (a non-empty string)")
    return v


def _list(v, at):
    if not isinstance(v, list):
        raise invalid(at, "expected an array of type texts")
    return [_text(t, "%s[%d]" % (at, i)) for i, t in enumerate(v)]


def _name(obj, at, seen):
    name = obj.get("name") if isinstance(obj, dict) else None
    if not isinstance(name, str) or not name:
        raise invalid(at + ".name", "expected a non-empty string")
    if name in seen:
        raise invalid(at + ".name", "`%s` is named twice" % name)
    return name


def _fields(v, at):
    """``[(name, type text, optional, aliases)]``."""
    if not isinstance(v, list):
        raise invalid(at, "expected an array of fields")
    out = []
    for i, f in enumerate(v):
        here = "%s[%d]" % (at, i)
        name = _name(f, here, [o[0] for o in out])
        text = _text(f.get("type"), here + ".type")
        optional = f.get("optional", False)
        if not isinstance(optional, bool):
            raise invalid(here + ".optional", "expected true or false")
        aliases = f.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) and a for a in aliases):
            raise invalid(here + ".aliases", "expected an array of names")
        out.append((name, text, optional, aliases))
    return out


def _variants(v, at):
    """``[(name, form, what)]``: form ``unit`` (what None), ``newtype`` (a
    type text), ``tuple`` (type texts) or ``struct`` (``(fields,
    closed)``)."""
    if not isinstance(v, list):
        raise invalid(at, "expected an array of variants")
    out = []
    for i, variant in enumerate(v):
        here = "%s[%d]" % (at, i)
        name = _name(variant, here, [o[0] for o in out])
        forms = [k for k in ("newtype", "tuple", "fields") if k in variant]
        if not forms:
            out.append((name, "unit", None))
        elif forms == ["newtype"]:
            out.append((name, "newtype", _text(variant["newtype"], here + ".newtype")))
        elif forms == ["tuple"]:
            out.append((name, "tuple", _list(variant["tuple"], here + ".tuple")))
        elif forms == ["fields"]:
            out.append((name, "struct", _fields(variant["fields"], here + ".fields")))
        else:
            raise invalid(here, "expected at most one of `newtype`, `tuple` or `fields`")
        closed = _flag(variant, "closed", here, forms == ["fields"], _NOT_CLOSED)
        _flag(variant, "other", here, False, _NOT_OTHER)  # the enum's, beside `enum`
        if forms == ["fields"]:
            out[-1] = (name, "struct", (out[-1][2], closed))
    return out


def _elements(n):
    return "1 element" if n == 1 else "%d elements" % n


def one_of(names):
    """serde's list of what was expected (``OneOf``)."""
    if len(names) == 1:
        return "`%s`" % names[0]
    if len(names) == 2:
        return "`%s` or `%s`" % tuple(names)
    return "one of " + ", ".join("`%s`" % n for n in names)


def unknown_variant(tag, names):
    if not names:
        return "unknown variant `%s`, there are no variants" % tag
    return "unknown variant `%s`, expected %s" % (tag, one_of(names))


class _Field:
    __slots__ = ("name", "t", "optional", "option", "names")

    def __init__(self, name, t, optional, aliases):
        self.name, self.t, self.optional = name, t, optional
        self.option = t.kind == "option"      # missing, it reads as None
        self.names = sorted({name, *aliases})  # serde's: its name and aliases, sorted


class _Fields(list):
    """A struct's (or struct variant's) ``_Field``s: ``closed`` (it
    refuses a member it does not name), ``by_name`` (each field by each of
    its names, the first field to claim a name keeping it, as the derive's
    match) and ``expected`` (serde's ``FIELDS``: each field's names in
    field order)."""

    def __init__(self, fields, closed):
        list.__init__(self, fields)
        self.closed = closed
        self.by_name = {}
        for f in fields:
            for n in f.names:
                self.by_name.setdefault(n, f)
        self.expected = [n for f in fields for n in f.names]


class UserTypes:
    """The document's user types by serde name; each parsed on first use
    (a type may name itself)."""

    def __init__(self, raw):
        self.raw = raw
        self.parsed = {}

    def __contains__(self, name):
        return name in self.raw

    def __bool__(self):
        return bool(self.raw)

    def _parse(self, text):
        return _nested.parse(text, self)

    def _struct_fields(self, fields, closed):
        return _Fields([_Field(n, self._parse(t), o, a) for n, t, o, a in fields], closed)

    def shape(self, name):
        """``(kind, what)`` of the type ``name``: ``struct``
        (``_Fields``), ``tuple`` (a tuple ``T``), ``newtype`` (its ``T``),
        ``unit`` (``T("unit")``) or ``enum`` (``([(name, form, what)],
        other)``)."""
        if name not in self.parsed:
            kind, what = self.raw[name]
            if kind == "struct":
                what = self._struct_fields(*what)
            elif kind == "tuple":
                what = T("tuple", items=[self._parse(t) for t in what],
                         what="tuple struct %s with %s" % (name, _elements(len(what))))
            elif kind == "newtype":
                what = self._parse(what)
                if self._loops(name, what):
                    what = _nested.ANY             # `struct A(Box<A>)`: no value ends
            elif kind == "unit":
                what = T("unit")
            else:
                variants = []
                what, other = what
                for vname, form, inner in what:
                    if form == "newtype":
                        inner = self._parse(inner)
                    elif form == "tuple":
                        inner = T("tuple", items=[self._parse(t) for t in inner],
                                  what="tuple variant %s::%s with %s" % (name, vname, _elements(len(inner))))
                    elif form == "struct":
                        inner = ("struct variant %s::%s" % (name, vname), self._struct_fields(*inner))
                    variants.append((vname, form, inner))
                what = (variants, other)
            self.parsed[name] = (kind, what)
        return self.parsed[name]

    def _loops(self, name, t, seen=()):
        """Whether the newtype ``name`` of ``t`` holds itself through
        newtypes and ``Option`` alone (a read of it would never end)."""
        while t.kind == "option":
            t = t.items[0]
        if t.kind != "user":
            return False
        if t.name == name or t.name in seen:
            return True
        kind, inner = self.raw[t.name]
        return kind == "newtype" and self._loops(name, self._parse(inner), seen + (t.name,))

    def read(self, reader, name, v, path):
        """``v`` read as the user type ``name`` by ``reader``
        (``_nested.Reader``), or ``Misfit``."""
        kind, what = self.shape(name)
        if kind == "struct":
            return _struct(reader, "struct %s" % name, what, v, path)
        if kind == "enum":
            return _enum(reader, what[0], what[1], v, path)
        if kind == "unit" and isinstance(v, list) and not reader.dynamodb:
            raise reader._fallback(path, v, "invalid type: sequence, expected unit struct %s" % name)
        if kind == "unit" and reader.dynamodb and isinstance(v, list) and not v:
            return None                        # the DynamoDB reader's unit: an empty list too
        return reader.read(what, v, path)      # tuple, newtype, unit

    def resolve(self, t):
        """``t`` through ``Option`` and newtypes: what a Bigtable cell of
        it holds."""
        while True:
            if t.kind == "option":
                t = t.items[0]
            elif t.kind == "user" and self.shape(t.name)[0] in ("newtype", "unit", "tuple"):
                t = self.shape(t.name)[1]
            else:
                return t


def _struct(r, expecting, fields, v, path):
    """A struct's (or struct variant's) map, or the sequence of its fields."""
    if r.dynamodb:
        if dynamo_kind(v)[0] not in ("M", "L"):
            raise Misfit(path, "expected a map (M), found %s" % dynamo_found(v))
    elif not isinstance(v, (dict, list)):
        raise Misfit(path, "expected a map, found %s" % found(v))

    def refused(why):
        if r.dynamodb and isinstance(v, list):
            return Misfit(path, "expected a map (M), found a list (L)")
        return r._fallback(path, v, why)

    read = {}
    if isinstance(v, list):
        for i, f in enumerate(fields):
            if i >= len(v):
                if f.optional and not f.option:
                    continue                      # its `#[serde(default)]`
                raise refused("invalid length %d, expected %s with %s" % (i, expecting, _elements(len(fields))))
            read[f.name] = r.read(f.t, v[i], "%s[%d]" % (path, i))
        if len(v) > len(fields):
            raise refused("array had incorrect length, expected %d" % len(fields))
    else:
        for key, x in entries(v):
            f = fields.by_name.get(key.decode("utf-8", "replace") if isinstance(key, bytes) else key)
            index = isinstance(key, int) and not isinstance(key, bool) and key >= 0
            if f is None and index and key < len(fields):
                f = fields[key]                   # serde's field index
            if f is None and fields.closed:
                raise refused(_unknown_field(r, key, fields))
            if f is None:
                continue                          # a member it does not name
            if f.name in read:
                raise refused("duplicate field `%s`" % f.name)
            read[f.name] = r.read(f.t, x, push_key(path, key))
        for f in fields:
            if f.name not in read:
                if not f.optional:
                    raise refused("missing field `%s`" % f.name)
                if f.option:
                    read[f.name] = None
    return {f.name: read[f.name] for f in fields if f.name in read}


def _unknown_field(r, key, fields):
    """serde's refusal of a member a closed struct does not name (a key
    that is no name nor index, as the derive's field visitor refuses it)."""
    if isinstance(key, bool):
        return "invalid type: boolean `%s`, expected field identifier" % ("true" if key else "false")
    if isinstance(key, int):
        if key < 0:
            return "invalid type: integer `%d`, expected field identifier" % key
        return "invalid value: integer `%d`, expected field index 0 <= i < %d" % (key, len(fields))
    if isinstance(key, float):
        return "invalid type: floating point `%s`, expected field identifier" % number_shown(key)
    if key is None:
        return "invalid type: unit value, expected field identifier"
    if not isinstance(key, (str, bytes)):
        return r._inner(key)
    name = key.decode("utf-8", "replace") if isinstance(key, bytes) else key
    if not fields.expected:
        return "unknown field `%s`, there are no fields" % name
    return "unknown field `%s`, expected %s" % (name, one_of(fields.expected))


_FORM_WORDS = {"newtype": "newtype variant", "tuple": "tuple variant", "struct": "struct variant"}


def _enum(r, variants, other, v, path):
    """An enum externally tagged: a unit variant's name, or a map of one
    entry from a variant's name to its content; with ``other``, a tag none
    of its variants has is a unit variant, read as the stored tag."""
    names = [n for n, _, _ in variants]
    if r.dynamodb:
        if dynamo_kind(v)[0] not in ("S", "M"):
            raise Misfit(path, "expected a string (S) or a map (M), found %s" % dynamo_found(v))
    elif not isinstance(v, (str, dict)):
        raise Misfit(path, "expected an enum variant (its name, or a map of one entry), found %s" % found(v))
    if isinstance(v, str):
        variant = next((x for x in variants if x[0] == v), (v, "unit", None) if other else None)
        if variant is None:
            raise r._fallback(path, v, unknown_variant(v, names))
        if variant[1] != "unit":
            raise r._fallback(path, v, "invalid type: unit variant, expected %s" % _FORM_WORDS[variant[1]])
        return v
    if len(v) != 1:
        raise r._fallback(path, v, "array had incorrect length, expected %d" % len(v))
    [(tag, content)] = v.items()
    if isinstance(tag, int) and not isinstance(tag, bool) and 0 <= tag < len(variants):
        variant = variants[tag]
    elif isinstance(tag, int) and not isinstance(tag, bool) and tag >= 0 and other:
        variant = (tag, "unit", None)            # serde's `other` takes an index beyond too
    elif isinstance(tag, int) and not isinstance(tag, bool):
        raise r._fallback(path, v, "invalid value: integer `%d`, expected variant index 0 <= i < %d" % (tag, len(variants)))
    else:
        name = tag.decode("utf-8", "replace") if isinstance(tag, bytes) else tag
        variant = next((x for x in variants if x[0] == name), (name, "unit", None) if other and isinstance(name, str) else None)
        if variant is None:
            raise r._fallback(path, v, unknown_variant(name, names) if isinstance(name, str) else r._inner(tag))
    vname, form, inner = variant
    at = push_key(path, tag)
    if form == "unit":
        if content is not None:
            raise r._fallback(path, v, r._inner(content))
        return vname
    if form == "struct":
        return {vname: _struct(r, inner[0], inner[1], content, at)}
    return {vname: r.read(inner, content, at)}


def cell_enum(cell, enum, wrong, found_of):
    """A Bigtable cell of an enum that is not a MessagePack map of one
    entry: a unit variant's name as UTF-8 text (with ``other``, any text),
    refused in the cell reader's words; ``enum``: its ``(variants,
    other)``. ``wrong(what)``: the refusal of the cell (``expected
    WHAT, found a cell of ...``); ``found_of``: what the cell is as
    MessagePack when it is a whole array or map (the Rust reader then says
    it as the map's), else None. Returns the message, or None."""
    try:
        text = cell.decode("utf-8")
    except UnicodeDecodeError as e:
        from ._errors import utf8_error
        why = wrong("UTF-8 text (%s)" % utf8_error(cell, e))
        if found_of is None:
            return why
        if isinstance(found_of, list):
            return "expected an enum variant (its name, or a map of one entry), found %s" % found(found_of)
        return "found %s: %s" % (found(found_of), why)
    variants, other = enum
    variant = next((x for x in variants if x[0] == text), (text, "unit", None) if other else None)
    if variant is None:
        return unknown_variant(text, [n for n, _, _ in variants])
    if variant[1] != "unit":
        return "invalid type: unit variant, expected %s" % _FORM_WORDS[variant[1]]
    return None
