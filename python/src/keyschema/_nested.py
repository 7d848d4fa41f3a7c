"""A value field's value read by its Rust type at every depth, as the Rust
reader reads it (ENCODING.md, "Value fields"): the type from the schema
document's type text (``Vec<i64>``, ``(u8, String)``,
``BTreeMap<String, u32>``, ``Option<[u16; 2]>``), each stored value held
to it (an integer within its type, a string no bytes, a list no map, a
tuple of its length), and a value that does not read said as the Rust
reader says it: what the type expects there, what is stored (with its
value), and where (``at `scores[1]`: ...``, ``place.zip``,
``tally["a b"]``); for a DynamoDB item in DynamoDB's terms, with a number
as the item holds it.

A type the document's ``types`` lists (a struct, an enum, a newtype, a
tuple or unit struct of the user's) is read by its shape there
(``_usertypes``); another the text cannot name (one ``types`` does not
list, ``serde_json::Value``) is read as stored: the document does not say
its shape."""

import math
import re
import struct
import sys

from ._limits import MAX_NESTING
from ._render import _shortest_digits

_INTS = {
    "i8": 8, "i16": 16, "i32": 32, "i64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "isize": 64, "usize": 64,
}
_SEQS = {"Vec", "VecDeque", "LinkedList", "BinaryHeap", "HashSet", "BTreeSet", "IndexSet"}
_MAPS = {"HashMap", "BTreeMap", "IndexMap"}
_PASS = {"Box", "Rc", "Arc"}
F32_MAX = "3.4028235e38"
_SHOWN = 60


class T:
    """A type: ``kind`` (``int``, ``wide``, ``f32``, ``f64``, ``bool``,
    ``char``, ``str``, ``bytes``, ``unit``, ``seq``, ``tuple``, ``map``,
    ``option``, ``user`` (a type of the document's ``types``: ``name``, and
    ``what`` the ``UserTypes``), ``any``) and what it holds."""

    __slots__ = ("kind", "name", "lo", "hi", "items", "what")

    def __init__(self, kind, name=None, lo=None, hi=None, items=(), what=None):
        self.kind, self.name, self.lo, self.hi, self.items, self.what = kind, name, lo, hi, tuple(items), what


ANY = T("any")


def _int(name):
    bits = _INTS.get(name) or int(name[1:])
    canonical = {"isize": "i64", "usize": "u64"}.get(name, name)
    if canonical[0] == "u":
        return T("wide" if bits == 128 else "int", canonical, 0, (1 << bits) - 1)
    return T("wide" if bits == 128 else "int", canonical, -(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def _split(text):
    """The comma-separated parts of ``text`` at nesting depth 0."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p]


def parse(text, types=None):
    """The type of the Rust type ``text`` (spaces ignored), a name
    ``types`` (``UserTypes``) holds one of its user types; ``ANY`` for a
    type it cannot name."""
    try:
        return _parse("".join(text.split()), types or ())
    except (ValueError, IndexError):
        return ANY


def _parse(t, types):
    if t == "()":
        return T("unit")
    if t.startswith("(") and t.endswith(")"):
        return T("tuple", items=[_parse(p, types) for p in _split(t[1:-1])], what="tuple")
    if t.startswith("[") and t.endswith("]"):
        inner = t[1:-1]
        parts = inner.rsplit(";", 1)
        if len(parts) == 2 and parts[1].isdigit():
            return T("tuple", items=[_parse(parts[0], types)] * int(parts[1]), what="array")
        return ANY
    if t.startswith("&"):
        return ANY
    m = re.fullmatch(r"((?:\w+::)*)(\w+)(?:<(.*)>)?", t)
    if not m:
        return ANY
    name, args = m.group(2), _split(m.group(3) or "")
    if not args:
        if name in _INTS or name in ("i128", "u128"):
            return _int(name)
        if name in ("f32", "f64", "bool", "char"):
            return T(name)
        if name in ("String", "str"):
            return T("str")
        if name in ("ByteBuf", "Bytes"):
            return T("bytes")
        if name in types:
            return T("user", name=name, what=types)
        return ANY
    if name == "Option" and len(args) == 1:
        return T("option", items=[_parse(args[0], types)])
    if name in _PASS and len(args) == 1:
        return _parse(args[0], types)
    if name in _SEQS and len(args) == 1:
        return T("seq", items=[_parse(args[0], types)])
    if name in _MAPS and len(args) in (2, 3):
        return T("map", items=[_parse(args[0], types), _parse(args[1], types)])
    return ANY


# ---------------------------------------------------------------------------
# DynamoDB's values, as read from an item

class N:
    """A DynamoDB number (``N``) and its text as the item holds it."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return "N(%r)" % self.text


class Set:
    """A DynamoDB set (``SS``, ``NS``, ``BS``): its tag and elements."""

    __slots__ = ("tag", "items")

    def __init__(self, tag, items):
        self.tag, self.items = tag, items


_INTEGER = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(inf|infinity|nan)", re.I)


def number(text):
    """An ``N`` as the Rust reader reads it: an integer when it is one and
    fits 64 bits, else a float (text that is neither stays text)."""
    if _INTEGER.fullmatch(text):
        n = int(text)
        if -(1 << 63) <= n < (1 << 64):
            return n
    if _FLOAT.fullmatch(text):
        return float(text)
    return text


def plain(v):
    """A value read from an item with its numbers and sets as Python's."""
    if isinstance(v, N):
        return number(v.text)
    if isinstance(v, Set):
        return [plain(x) for x in v.items]
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


# ---------------------------------------------------------------------------
# Words

def display(v):
    """Rust's ``to_string`` of an ``f64``: its shortest digits, never in
    exponent form (``1e39`` is 1 and 39 zeros)."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    sign = "-" if math.copysign(1.0, v) < 0 else ""
    if v == 0:
        return sign + "0"
    digits, point = _shortest_digits(abs(v), 8)
    if point <= 0:
        return sign + "0." + "0" * (-point) + digits
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return sign + digits[:point] + "." + digits[point:]


def number_shown(v):
    """A float as the Rust reader shows it: plain from 1e-7 up to 1e21
    (``to_string``), else in exponent form (``{:e}``); shortest either way."""
    if v == 0 or math.isinf(v) or math.isnan(v) or 1e-7 <= abs(v) < 1e21:
        return display(v)
    digits, point = _shortest_digits(abs(v), 8)
    sign = "-" if v < 0 else ""
    return "%s%s%se%d" % (sign, digits[0], "." + digits[1:] if len(digits) > 1 else "", point - 1)


def _escape(c):
    o = ord(c)
    if c in "\"\\":
        return "\\" + c
    if c in "\t\r\n\0":
        return {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\0": "\\0"}[c]
    if o < 0x20 or 0x7F <= o < 0xA0 or c in "\u00ad\u2028\u2029\ufeff":
        return "\\u{%x}" % o
    return c


def quoted(text):
    """Rust's ``{:?}`` of a string."""
    return '"%s"' % "".join(_escape(c) for c in text)


def shown(text):
    """A stored string, quoted, cut at 60 characters (as the Rust reader
    shows it)."""
    if len(text) > _SHOWN:
        return "%s... (%d characters)" % (quoted(text[:_SHOWN]), len(text))
    return quoted(text)


def not_an_f32(number):
    return "the number %s does not fit an f32 (whose largest magnitude is %s): declare the field f64" % (number, F32_MAX)


def beyond_f32(v):
    """Whether the finite ``v`` rounds to an infinity as an ``f32``."""
    if math.isinf(v) or math.isnan(v):
        return False
    try:
        struct.pack(">f", v)
    except OverflowError:
        return True
    return False


def f32(v):
    """``v`` rounded to the nearest ``f32`` (``v`` within its range)."""
    return struct.unpack(">f", struct.pack(">f", v))[0]


def _plural(n, one, many):
    return "%d %s" % (n, one if n == 1 else many)


def found(v):
    """A stored MessagePack value in plain words, with its value when it
    is a scalar."""
    if v is None:
        return "nil (None)"
    if isinstance(v, bool):
        return "the boolean %s" % ("true" if v else "false")
    if isinstance(v, int):
        return "the integer %d" % v
    if isinstance(v, float):
        return "the number %s" % number_shown(v)
    if isinstance(v, str):
        return "the string %s" % shown(v)
    if isinstance(v, bytes):
        return "%d bytes (%s%s)" % (len(v), v[:32].hex(), "..." if len(v) > 32 else "")
    if isinstance(v, (list, tuple)):
        return "an array of %s" % _plural(len(v), "element", "elements")
    if isinstance(v, dict):
        return "a map of %s" % _plural(len(getattr(v, "entries", v)), "entry", "entries")
    return "a MessagePack extension value"


_KIND_WORDS = {
    "S": "a string (S)", "N": "a number (N)", "B": "a binary (B)", "BOOL": "a boolean (BOOL)",
    "NULL": "a null (NULL)", "L": "a list (L)", "SS": "a string set (SS)", "NS": "a number set (NS)",
    "BS": "a binary set (BS)", "M": "a map (M)", None: "a value DynamoDB has no type for",
}


def dynamo_kind(v):
    """The DynamoDB type of a value read from an item, and its value's text
    (a scalar's) or None."""
    if isinstance(v, N):
        n = number(v.text)
        return "N", str(n) if isinstance(n, int) else v.text
    if v is None:
        return "NULL", None
    if isinstance(v, bool):
        return "BOOL", "true" if v else "false"
    if isinstance(v, int):
        return "N", str(v)
    if isinstance(v, float):
        return "N", display(v)
    if isinstance(v, str):
        return "S", shown(v)
    if isinstance(v, bytes):
        return "B", "of %d bytes" % len(v)
    if isinstance(v, Set):
        return v.tag, None
    if isinstance(v, (list, tuple)):
        return "L", None
    if isinstance(v, dict):
        return "M", None
    return None, None


def dynamo_found(v):
    kind, text = dynamo_kind(v)
    return _KIND_WORDS[kind] + ("" if text is None else " " + text)


# What a type expects, in plain words and in DynamoDB's (with the types
# that are it).
_WANTED = {
    "bool": "a boolean", "int": "an integer", "wide": "an integer", "f64": "a number", "f32": "a number",
    "char": "a string of one character", "str": "a string", "bytes": "bytes", "unit": "nil",
    "seq": "an array", "tuple": "an array", "map": "a map",
}
_NEEDS = {
    "bool": ("a boolean (BOOL)", ("BOOL",)), "int": ("a number (N)", ("N",)), "f64": ("a number (N)", ("N",)),
    "f32": ("a number (N)", ("N",)), "wide": ("a number (N) or a 16-byte binary (B)", ("N", "B")),
    "char": ("a string (S) of one character", ("S",)), "str": ("a string (S)", ("S",)),
    "bytes": ("a binary (B)", ("B",)), "unit": ("no attribute, or a null (NULL)", ("NULL",)),
    "seq": ("a list (L)", ("L", "SS", "NS", "BS")), "tuple": ("a list (L)", ("L", "SS", "NS", "BS")),
    "map": ("a map (M)", ("M",)),
}


def _fits(t, v):
    """Whether the MessagePack value ``v`` is of the kind ``t`` reads."""
    k = t.kind
    if k == "bool":
        return isinstance(v, bool)
    if k == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if k == "wide":
        return (isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, bytes)
    if k in ("f32", "f64"):
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if k in ("char", "str"):
        return isinstance(v, str)
    if k == "bytes":
        return isinstance(v, bytes)
    if k == "unit":
        return v is None or isinstance(v, list)
    if k in ("seq", "tuple"):
        return isinstance(v, list)
    if k == "map":
        return isinstance(v, (dict, list))
    return True


class Misfit(Exception):
    """A value that does not read as its type: where (the path inside the
    field) and why."""

    def __init__(self, path, why):
        Exception.__init__(self, why)
        self.path, self.why = path, why


def push_key(path, key):
    """A path one map entry in: ``.name`` for a name of letters, digits
    and underscores, else ``["the key"]``; a key that is no string as
    ``[the integer 1]``."""
    if isinstance(key, str):
        if key and all(c.isalnum() or c == "_" for c in key):
            return "%s.%s" % (path, key)
        return "%s[%s]" % (path, quoted(key))
    return "%s[%s]" % (path, found(key))


def read_deep(reader, t, v):
    """``reader.read(t, v)`` with room for a value of a recursive type
    (``Vec<Tree>`` inside ``Tree``) nested as deep as MessagePack may be
    (``MAX_NESTING`` levels), a few frames each; deeper still, ``Misfit``."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        return reader.read(t, v)
    except RecursionError:
        raise Misfit("", "it nests deeper than this reader follows (%d levels of MessagePack at most)" % MAX_NESTING) from None
    finally:
        sys.setrecursionlimit(limit)


class Reader:
    """Reads values by their types: MessagePack's (``dynamodb`` false) or
    those read from a DynamoDB item (``N``, ``Set``), said in its terms."""

    def __init__(self, dynamodb=False):
        self.dynamodb = dynamodb

    def read(self, t, v, path=""):
        """``v`` as a value of ``t`` (a float field's integer a float, an
        ``f32`` rounded, a 128-bit integer's 16 bytes its integer), or
        ``Misfit``."""
        k = t.kind
        if k == "any":
            return plain(v)
        if k == "user":
            return t.what.read(self, t.name, v, path)
        if k == "option":
            return None if v is None else self.read(t.items[0], v, path)
        if self.dynamodb:
            return self._dynamodb(t, v, path)
        if not _fits(t, v):
            raise Misfit(path, "expected %s, found %s" % (_WANTED[k], found(v)))
        if k == "int" and not t.lo <= v <= t.hi:
            raise Misfit(path, "the integer %d is beyond %s's range (%d to %d)" % (v, t.name, t.lo, t.hi))
        if k == "f32" and isinstance(v, float) and beyond_f32(v):
            raise Misfit(path, not_an_f32(number_shown(v)))
        return self._value(t, v, path)

    def _inner(self, v):
        """What the MessagePack reader says of a value inside ``v`` that is
        not of the type declared for it."""
        if self.dynamodb:
            return "a value inside it is %s, which is not the type declared for it" % _KIND_WORDS[dynamo_kind(v)[0]]
        return "a value inside it is not of the type declared for it"

    def _found(self, v):
        return dynamo_found(v) if self.dynamodb else found(v)

    def _fallback(self, path, v, inner):
        return Misfit(path, "found %s: %s" % (self._found(v), inner))

    def _value(self, t, v, path):
        """``v``, of the kind ``t`` reads, as a value of ``t``."""
        k = t.kind
        if k == "wide":
            if isinstance(v, bytes):
                if len(v) != 16:
                    raise self._fallback(path, v, "array had incorrect length, expected 16")
                return int.from_bytes(v, "big", signed=t.name[0] == "i")
            if not t.lo <= v <= t.hi:
                raise Misfit(path, self._beyond(t, str(v)))
            return v
        if k in ("f32", "f64"):
            v = float(v)
            return f32(v) if k == "f32" and not beyond_f32(v) else v
        if k == "char" and len(v) != 1:
            raise self._fallback(path, v, "invalid value: string %s, expected a character" % quoted(v))
        if k == "unit":
            return None
        if k == "seq":
            items = v.items if isinstance(v, Set) else v
            return [self.read(t.items[0], x, "%s[%d]" % (path, i)) for i, x in enumerate(items)]
        if k == "tuple":
            items = v.items if isinstance(v, Set) else v
            n = len(t.items)
            out = [self.read(e, x, "%s[%d]" % (path, i)) for i, (e, x) in enumerate(zip(t.items, items))]
            if len(items) < n:
                expected = {"tuple": "a tuple of size %d" % n, "array": "an array of length %d" % n}.get(t.what, t.what)
                raise self._fallback(path, v, "invalid length %d, expected %s" % (len(items), expected))
            if len(items) > n:
                raise self._fallback(path, v, "array had incorrect length, expected %d" % n)
            return out
        if k == "map":
            if isinstance(v, list):                 # rmp-serde reads a map from no array
                raise self._fallback(path, v, "invalid type: sequence, expected a map")
            out = {}
            for key, x in v.items():
                why = self._key(t.items[0], key)
                if why is not None:
                    raise self._fallback(path, v, why)
                out[key] = self.read(t.items[1], x, push_key(path, key))
            return out
        return v

    def _beyond(self, t, text):
        if self.dynamodb:
            return "the number (N) %s is beyond %s's range (%d to %d)" % (text, t.name, t.lo, t.hi)
        return "the integer %s is beyond %s's range (%d to %d)" % (text, t.name, t.lo, t.hi)

    def _key(self, t, key):
        """Why ``key`` is no map key of the type ``t``, or None."""
        k = t.kind
        if k == "option":
            return None if key is None else self._key(t.items[0], key)
        if k in ("int", "wide"):
            if isinstance(key, bool) or not isinstance(key, int):
                return self._inner(key)
            if not t.lo <= key <= t.hi:
                return "invalid value: integer `%d`, expected %s" % (key, t.name)
            return None
        if k == "str":
            if isinstance(key, str):
                return None
            if isinstance(key, bool):
                return "invalid type: boolean `%s`, expected a string" % ("true" if key else "false")
            if isinstance(key, int):
                return "invalid type: integer `%d`, expected a string" % key
            if isinstance(key, float):
                return "invalid type: floating point `%s`, expected a string" % number_shown(key)
            return self._inner(key)
        return None

    def _dynamodb(self, t, v, path):
        k = t.kind
        kind, text = dynamo_kind(v)
        needed, kinds = _NEEDS[k]
        if kind not in kinds:
            raise Misfit(path, "expected %s, found %s" % (needed, dynamo_found(v)))
        if kind == "N":
            why = self._number(t, text)
            if why is not None:
                raise Misfit(path, why)
            n = number(v.text) if isinstance(v, N) else v
            if k in ("int", "wide") and not isinstance(n, int):
                raise self._fallback(path, v, self._inner(v))
            return self._value(t, n, path)
        return self._value(t, v, path)

    def _number(self, t, text):
        """Why the number ``text`` does not fit the type ``t``, when that
        is why."""
        k = t.kind
        if k == "f32":
            try:
                v = float(text)
            except ValueError:
                return None
            return not_an_f32("(N) %s" % text) if beyond_f32(v) else None
        if k not in ("int", "wide"):
            return None
        whole = _whole(text)
        if whole is _FRACTION:
            return "the number (N) %s has a fraction, and %s holds whole numbers only" % (text, t.name)
        if k == "int":
            if whole is None or not t.lo <= whole <= t.hi:
                return self._beyond(t, text)
            return None
        if whole is not None and -(1 << 63) <= whole < (1 << 64):
            if not t.lo <= whole <= t.hi:
                return self._beyond(t, text)
            return None
        return "the number (N) %s is beyond 64 bits, the integers an N is read into (keyschema writes a 128-bit integer as 16 bytes, B)" % text


_FRACTION = object()


def _whole(text):
    """The whole number ``text`` is (None beyond i128), or ``_FRACTION``."""
    int_part, _, fraction = text.partition(".")
    digits = int_part[1:] if int_part.startswith("-") else int_part
    if digits and digits.isdigit() and digits.isascii() and all(c == "0" for c in fraction):
        n = int(int_part)
        return n if -(1 << 127) <= n < (1 << 127) else None
    try:
        v = float(text)
    except ValueError:
        return _FRACTION
    if math.isinf(v) or math.isnan(v) or v != int(v):
        return _FRACTION
    return int(v) if abs(v) < 1e38 else None
