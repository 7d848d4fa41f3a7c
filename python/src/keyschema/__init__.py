"""keyschema row keys in Python: encode, decode, bucket, render and scan
ranges from the schema document a Rust key type writes with
``K::schema().to_json()``, byte for byte as the Rust code does.

Implemented from ``docs/ENCODING.md`` alone (standard library only, Python
3.9+)::

    import keyschema

    schema = keyschema.Schema.load("events.json")
    key = schema.encode({"user_id": "u1", "site": "s", "timestamp": 1700000000})
    assert schema.decode(key) == {"user_id": "u1", "site": "s", "timestamp": 1700000000}
    assert schema.render(key) == "3|u1|s|~1700000000"

Values: integers are ``int``, ``bool`` is ``bool``, ``char`` and ``String``
are ``str``, ``Vec<u8>`` and ``[u8; N]`` are ``bytes``, ``f32``/``f64`` are
``float``; ``uuid`` is ``uuid.UUID``, ``timestamp``, ``datetime`` and
``date`` are ``keyschema.Timestamp``, ``DateTime`` and ``Date`` (exact;
``datetime.datetime`` and ``datetime.date`` are accepted too), an enum is its
variant's name (see ``_types``). ``None`` is ``None``; ``Some(v)`` is ``v``, or ``Some(v)`` when
``v`` is itself ``None`` or a ``Some`` (nested options); ``Some(v)`` is
accepted anywhere an option's value is.
"""

import hashlib
from fractions import Fraction
import json
import math
import random
import re
import struct
import unicodedata

from . import _types
from ._types import Date, DateTime, Timestamp

__all__ = [
    "Schema",
    "Some",
    "DecodeError",
    "SchemaError",
    "ValueError_",
    "Range",
    "OPEN",
    "MAX_KEY_LEN",
    "salt_bucket",
    "value_from_json",
    "value_to_json",
    "Encoding",
    "Timestamp",
    "DateTime",
    "Date",
]

# The limits of docs/ENCODING.md, "Limits" (tests/limits.rs checks that
# this copy, the Rust one and the spec's table agree).
MAX_KEY_LEN = 65536
MAX_COMPONENTS = 64
MAX_BUCKETS = 65536
MAX_BUCKET_EXPANSION = 4096
VERSION = 2
HISTORY_VERSION = 3


class DecodeError(Exception):
    """A byte string that is not a key of the schema; the message is the
    Rust ``DecodeError``'s, word for word."""


class SchemaError(Exception):
    """A schema document that cannot be used."""


class ValueError_(ValueError):
    """Values that do not fit the schema."""


class Some:
    """``Some(v)`` where ``v`` alone would be ambiguous (``None`` or a ``Some``)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Some) and _same(self.value, other.value)

    def __repr__(self):
        return "Some(%r)" % (self.value,)


def _same(a, b):
    """Equality with floats compared by bits (NaN equals NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    return a == b


# ---------------------------------------------------------------------------
# Encodings

_INTS = {
    "u8": (8, False), "u16": (16, False), "u32": (32, False), "u64": (64, False), "u128": (128, False),
    "i8": (8, True), "i16": (16, True), "i32": (32, True), "i64": (64, True), "i128": (128, True),
}
_TEXT_DIGITS = {8: 3, 16: 5, 32: 10, 64: 20, 128: 39}


class Encoding:
    """A base type under ``options`` ``Option``s (``Option<Option<u8>>``)."""

    def __init__(self, base, options=0, array=None, kind=None):
        self.base = base          # "u8".. "i128", "bool", "char", "String", "Vec<u8>", "array", "f32", "f64", or a kind's
        self.options = options
        self.array = array        # N for "[u8; N]"
        self.kind = kind          # uuid, timestamp, datetime, date, enum: their code (_types)

    @classmethod
    def parse(cls, text):
        t = "".join(text.split())
        options = 0
        while t.startswith("Option<") and t.endswith(">"):
            t = t[len("Option<"):-1]
            options += 1
            if options > 8:
                raise SchemaError("`%s` nests too many Options" % text)
        m = re.fullmatch(r"\[u8;(\d+)\]", t)
        if m:
            return cls("array", options, int(m.group(1)))
        if t in _INTS or t in ("bool", "char", "String", "Vec<u8>", "f32", "f64"):
            return cls(t, options)
        try:
            kind = _types.parse_kind(t)
        except ValueError as e:
            raise SchemaError(str(e))
        if kind is not None:
            return cls("enum" if isinstance(kind, _types.EnumKind) else t, options, kind=kind)
        raise SchemaError("`%s` is not a key encoding" % text)

    def inner(self):
        return Encoding(self.base, self.options - 1, self.array, self.kind) if self.options else None

    def fixed_width(self):
        if self.options:
            return None
        if self.kind:
            return self.kind.width
        if self.base in _INTS:
            return _INTS[self.base][0] // 8
        return {"bool": 1, "char": 4, "f32": 4, "f64": 8, "array": self.array}.get(self.base)

    def text_width(self):
        if self.options:
            return None
        if self.kind:
            return self.kind.text_width
        if self.base in _INTS:
            return _TEXT_DIGITS[_INTS[self.base][0]]
        return {"bool": 1, "array": None if self.array is None else 2 * self.array, "f32": 8, "f64": 16}.get(self.base)

    def is_integer(self):
        return self.options == 0 and self.base in _INTS

    def is_text_ordered(self):
        return self.base not in ("char", "String", "Vec<u8>")

    def __str__(self):
        base = "[u8; %d]" % self.array if self.base == "array" else self.kind.name if self.kind else self.base
        return "Option<" * self.options + base + ">" * self.options


def _check(enc, v):
    """Raises ValueError_ when ``v`` is not a value of ``enc``."""
    if enc.options:
        if v is None:
            return
        _check(enc.inner(), v.value if isinstance(v, Some) else v)
        return
    if enc.kind:
        why = enc.kind.check(v)
        if why:
            raise ValueError_(why)
        return
    b = enc.base
    if b in _INTS:
        bits, signed = _INTS[b]
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError_("expected %s, got %r" % (b, v))
    elif b == "bool":
        if not isinstance(v, bool):
            raise ValueError_("expected bool, got %r" % (v,))
    elif b == "char":
        if not isinstance(v, str) or len(v) != 1:
            raise ValueError_("expected one character, got %r" % (v,))
    elif b == "String":
        if not isinstance(v, str):
            raise ValueError_("expected a str, got %r" % (v,))
    elif b == "Vec<u8>":
        if not isinstance(v, (bytes, bytearray)):
            raise ValueError_("expected bytes, got %r" % (v,))
    elif b == "array":
        if not isinstance(v, (bytes, bytearray)) or len(v) != enc.array:
            raise ValueError_("expected %d bytes, got %r" % (enc.array, v))
    elif b in ("f32", "f64"):
        if isinstance(v, bool) or not isinstance(v, (float, int)):
            raise ValueError_("expected a float, got %r" % (v,))


def _written_prefix(prefix, sep, at):
    """ENCODING.md, "The prefix": escaped and terminated like a string in
    binary keys, followed by the separator in text keys, so that no prefix
    begins another's keys."""
    if not prefix:
        return b""
    if sep is None:
        return _escape(prefix)
    if sep in prefix:
        raise SchemaError("schema `%s`: holds the separator %r: its keys would begin like another prefix's" % (at, chr(sep)))
    return prefix + bytes([sep])


def _read_salt(salt, n, at):
    """A document's salt: ``(buckets, hashed, random)``, checked."""
    if salt is None:
        return None, [], False
    buckets = int(salt["buckets"])
    if not 1 <= buckets <= MAX_BUCKETS:
        raise SchemaError("schema `%s.buckets`: N = %d is outside 1..=%d" % (at, buckets, MAX_BUCKETS))
    random = salt["kind"] == "random"
    hashed = [] if random else list(salt["hashed"])
    if any(not 0 <= h < n for h in hashed):
        raise SchemaError("schema `%s.hashed`: not a component index" % at)
    if not random and (not hashed or len(set(hashed)) != len(hashed)):
        raise SchemaError("schema `%s.hashed`: each component at most once, and at least one" % at)
    return buckets, hashed, random


def _escape(data):
    return data.replace(b"\x01", b"\x01\x01").replace(b"\x00", b"\x01\x00") + b"\x00"


def _float_bits(v, width):
    raw = struct.pack(">f" if width == 4 else ">d", v)
    bits = int.from_bytes(raw, "big")
    sign = 1 << (width * 8 - 1)
    ordered = (~bits & ((1 << (width * 8)) - 1)) if bits & sign else bits | sign
    return ordered.to_bytes(width, "big")


def _float_from(ordered, width):
    bits = int.from_bytes(ordered, "big")
    sign = 1 << (width * 8 - 1)
    bits = bits & ~sign if bits & sign else ~bits & ((1 << (width * 8)) - 1)
    return struct.unpack(">f" if width == 4 else ">d", bits.to_bytes(width, "big"))[0]


def encode_plain(enc, v):
    """The ascending binary encoding of ``v`` (ENCODING.md, "Component encodings")."""
    if enc.options:
        if v is None:
            return b"\x00"
        return b"\x01" + encode_plain(enc.inner(), v.value if isinstance(v, Some) else v)
    if enc.kind:
        return enc.kind.encode(v)
    b = enc.base
    if b in _INTS:
        bits, signed = _INTS[b]
        u = v + (1 << (bits - 1)) if signed else v
        return u.to_bytes(bits // 8, "big")
    if b == "bool":
        return b"\x01" if v else b"\x00"
    if b == "char":
        return ord(v).to_bytes(4, "big")
    if b == "String":
        return _escape(v.encode("utf-8", "surrogatepass"))
    if b == "Vec<u8>":
        return _escape(bytes(v))
    if b == "array":
        return bytes(v)
    return _float_bits(float(v), 4 if b == "f32" else 8)


class _Reader:
    """Reads one component's ascending encoding, undoing ``rev``'s inversion."""

    def __init__(self, buf, pos, descending, component):
        self.buf, self.pos, self.start = buf, pos, pos
        self.mask = 0xFF if descending else 0
        self.component = component

    def truncated(self, expected):
        return DecodeError("key ends inside component `%s` at byte %d: expected %s" % (self.component, self.start, expected))

    def invalid_byte(self, offset, found, expected):
        return DecodeError("component `%s` has byte 0x%02x at byte %d: expected %s" % (self.component, found, offset, expected))

    def invalid_value(self, reason):
        return self.invalid_value_at(self.start, reason)

    def invalid_value_at(self, offset, reason):
        return DecodeError("component `%s` at byte %d is not a valid value: %s" % (self.component, offset, reason))

    def byte(self, expected):
        if self.pos >= len(self.buf):
            raise self.truncated(expected)
        b = self.buf[self.pos] ^ self.mask
        self.pos += 1
        return b

    def take(self, n, expected):
        if self.pos + n > len(self.buf):
            raise self.truncated(expected)
        out = bytes(x ^ self.mask for x in self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def escaped(self, expected):
        out = bytearray()
        i = self.pos
        buf, mask = self.buf, self.mask
        while True:
            if i >= len(buf):
                raise self.truncated(expected)
            b = buf[i] ^ mask
            if b == 0:
                self.pos = i + 1
                return bytes(out)
            if b == 1:
                if i + 1 >= len(buf):
                    raise self.truncated(expected)
                e = buf[i + 1] ^ mask
                if e > 1:
                    raise self.invalid_byte(i + 1, e, "0x00 or 0x01 after the escape byte 0x01")
                out.append(e)
                i += 2
            else:
                out.append(b)
                i += 1


_EXPECTED = {
    "bool": "1 byte of bool", "char": "4 bytes of char", "f32": "4 bytes of f32", "f64": "8 bytes of f64",
}


def _decode_plain(enc, r):
    if enc.options:
        at = r.pos
        tag = r.byte("an Option tag")
        if tag == 0:
            return None
        if tag == 1:
            v = _decode_plain(enc.inner(), r)
            return Some(v) if v is None or isinstance(v, Some) else v
        raise r.invalid_byte(at, tag, "0x00 (None) or 0x01 (Some)")
    if enc.kind:
        return enc.kind.decode(r)
    b = enc.base
    if b in _INTS:
        bits, signed = _INTS[b]
        n = bits // 8
        u = int.from_bytes(r.take(n, "%d byte%s of %s" % (n, "" if n == 1 else "s", b)), "big")
        return u - (1 << (bits - 1)) if signed else u
    if b == "bool":
        at = r.pos
        x = r.byte(_EXPECTED["bool"])
        if x > 1:
            raise r.invalid_byte(at, x, "0x00 (false) or 0x01 (true)")
        return x == 1
    if b == "char":
        scalar = int.from_bytes(r.take(4, _EXPECTED["char"]), "big")
        if scalar > 0x10FFFF or 0xD800 <= scalar <= 0xDFFF:
            raise r.invalid_value("not a Unicode scalar value (surrogate or above 0x10FFFF)")
        return chr(scalar)
    if b == "String":
        data = r.escaped("a string ending in 0x00")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise DecodeError("component `%s` starting at byte %d is not valid UTF-8" % (r.component, r.start))
    if b == "Vec<u8>":
        return r.escaped("a byte string ending in 0x00")
    if b == "array":
        return r.take(enc.array, "a fixed-size byte array")
    width = 4 if b == "f32" else 8
    return _float_from(r.take(width, _EXPECTED[b]), width)


# ---------------------------------------------------------------------------
# Rendering (ENCODING.md, "Whole keys")

def _escape_char(c):
    if c == "|":
        return "\\|"
    if c == "\\":
        return "\\\\"
    if unicodedata.category(c) == "Cc":
        return {"\t": "\\t", "\r": "\\r", "\n": "\\n"}.get(c, "\\u{%x}" % ord(c))
    return c


def _neighbours(v, width):
    """The floats of ``width`` bytes next to the positive ``v``, and whether
    its mantissa is even."""
    fmt, ibits = (">f", ">I") if width == 4 else (">d", ">Q")
    bits = struct.unpack(ibits, struct.pack(fmt, v))[0]
    below = struct.unpack(fmt, struct.pack(ibits, bits - 1))[0] if bits > 0 else 0.0
    above = struct.unpack(fmt, struct.pack(ibits, bits + 1))[0]
    return below, above, bits % 2 == 0


def _shortest_digits(v, width):
    """(digits, point) of the shortest decimal that reads back as the
    positive finite ``v`` at its width, value = 0.d1d2... x 10^point: the
    digits Rust's shortest float formatting picks (the closest of the
    shortest, a tie rounding up), computed exactly."""
    x = Fraction(v)
    below, above, even = _neighbours(v, width)
    low = (Fraction(below) + x) / 2
    high = x + (Fraction(above) - x) / 2 if not math.isinf(above) else x + (x - Fraction(below)) / 2

    def within(c):
        return low < c < high or (even and (c == low or c == high))

    k = int(math.floor(math.log10(v)))
    while Fraction(10) ** k > x:
        k -= 1
    while Fraction(10) ** (k + 1) <= x:
        k += 1
    for n in range(1, 40):
        scale = Fraction(10) ** (k - n + 1)
        q = x / scale
        down = q.numerator // q.denominator
        up = down + 1
        ok_down, ok_up = within(down * scale), within(up * scale)
        if not (ok_down or ok_up):
            continue
        if ok_down and ok_up:
            chosen = up if q - down >= Fraction(1, 2) else down
        else:
            chosen = up if ok_up else down
        digits = str(chosen)
        point = k + 1 + (len(digits) - n)
        return digits.rstrip("0") or "0", point
    raise AssertionError("no shortest form")


def _f32(v):
    return struct.unpack(">f", struct.pack(">f", v))[0]


def _rust_float(v, width):
    """Rust's ``{:?}`` of an f32 or f64."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    sign = "-" if math.copysign(1.0, v) < 0 else ""
    a = abs(v)
    if a == 0:
        return sign + "0.0"
    digits, point = _shortest_digits(a, width)
    # Rust compares against the literals 1e-4 and 1e16 of the float's own width.
    small, large = (_f32(1e-4), _f32(1e16)) if width == 4 else (1e-4, 1e16)
    if small <= a < large:
        if point <= 0:
            return sign + "0." + "0" * (-point) + digits
        if point >= len(digits):
            return sign + digits + "0" * (point - len(digits)) + ".0"
        return sign + digits[:point] + "." + digits[point:]
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return "%s%se%d" % (sign, mant, point - 1)


def _render_plain(enc, r):
    if enc.options:
        at = r.pos
        tag = r.byte("an Option tag")
        if tag == 0:
            return "<none>"
        if tag == 1:
            inner = _render_plain(enc.inner(), r)
            if inner.startswith("<none>") or inner.startswith("<some "):
                return "<some " + inner + ">"
            return inner
        raise r.invalid_byte(at, tag, "0x00 (None) or 0x01 (Some)")
    v = _decode_plain(enc, r)
    if enc.kind:
        return enc.kind.render(v)
    b = enc.base
    if b == "bool":
        return "true" if v else "false"
    if b in ("char", "String"):
        return "".join(_escape_char(c) for c in v)
    if b in ("Vec<u8>", "array"):
        return "0x" + v.hex()
    if b in ("f32", "f64"):
        return _rust_float(v, 4 if b == "f32" else 8)
    return str(v)


def _escape_ascii(data):
    """Rust's ``<[u8]>::escape_ascii``."""
    out = []
    for b in data:
        c = chr(b)
        if c in "\t\r\n":
            out.append({"\t": "\\t", "\r": "\\r", "\n": "\\n"}[c])
        elif c in "\\'\"":
            out.append("\\" + c)
        elif 0x20 <= b < 0x7F:
            out.append(c)
        else:
            out.append("\\x%02x" % b)
    return "".join(out)


# ---------------------------------------------------------------------------
# Text keys (ENCODING.md, "Text keys")

def _text_escape(data, sep):
    out = bytearray()
    for b in data:
        if b == 0x25 or b == sep:
            out += b"%%%02X" % b
        else:
            out.append(b)
    return bytes(out)


def _text_unescape(text, sep):
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == 0x25:
            pair = text[i + 1:i + 3]
            if len(pair) < 2:
                raise _TextError("truncated %XX escape")
            if not all(c in b"0123456789ABCDEF" for c in pair):
                raise _TextError("bad %XX escape: expected two uppercase hex digits")
            b = int(pair, 16)
            if b != 0x25 and b != sep:
                raise _TextError("needless %XX escape: only % and the separator are escaped")
            out.append(b)
            i += 3
        else:
            out.append(text[i])
            i += 1
    return bytes(out)


_TextError = _types.TextError


def _unhex(text):
    if len(text) % 2:
        raise _TextError("odd number of hex digits")
    if not all(c in b"0123456789abcdef" for c in text):
        raise _TextError("expected lowercase hex digits")
    return bytes.fromhex(text.decode("ascii"))


def encode_text(enc, v, sep):
    """A component's text form (without separators or transforms)."""
    if enc.options:
        if v is None:
            return b"-"
        return b"=" + encode_text(enc.inner(), v.value if isinstance(v, Some) else v, sep)
    if enc.kind:
        return enc.kind.encode_text(v)
    b = enc.base
    if b in _INTS:
        bits, signed = _INTS[b]
        u = v + (1 << (bits - 1)) if signed else v
        return b"%0*d" % (_TEXT_DIGITS[bits], u)
    if b == "bool":
        return b"1" if v else b"0"
    if b in ("char", "String"):
        return _text_escape(v.encode("utf-8"), sep)
    if b in ("Vec<u8>", "array"):
        return bytes(v).hex().encode("ascii")
    return encode_plain(enc, v).hex().encode("ascii")


def decode_text(enc, text, sep):
    if enc.options:
        if text == b"-":
            return None
        if text[:1] == b"=":
            v = decode_text(enc.inner(), text[1:], sep)
            return Some(v) if v is None or isinstance(v, Some) else v
        raise _TextError("expected - (None) or = (Some)")
    if enc.kind:
        return enc.kind.decode_text(text)
    b = enc.base
    if b in _INTS:
        bits, signed = _INTS[b]
        if len(text) != _TEXT_DIGITS[bits]:
            raise _TextError("wrong number of digits")
        u = 0
        for c in text:  # left to right, as the Rust decoder reads
            if not 0x30 <= c <= 0x39:
                raise _TextError("expected decimal digits")
            u = u * 10 + (c - 0x30)
            if u >= 1 << 128:
                raise _TextError("number too large")
        if u >= 1 << bits:
            raise _TextError("number out of range")
        return u - (1 << (bits - 1)) if signed else u
    if b == "bool":
        if text not in (b"0", b"1"):
            raise _TextError("expected 0 or 1")
        return text == b"1"
    if b in ("char", "String"):
        raw = _text_unescape(text, sep)
        try:
            s = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _TextError("not UTF-8")
        if b == "char" and len(s) != 1:
            raise _TextError("expected one character")
        return s
    if b == "Vec<u8>":
        return _unhex(text)
    if b == "array":
        data = _unhex(text)
        if len(data) != enc.array:
            raise _TextError("wrong length")
        return data
    width = 4 if b == "f32" else 8
    data = _unhex(text)
    if len(data) != width:
        raise _TextError("bad float bits")
    return _float_from(data, width)


def _complement(text):
    return bytes(0x39 - (c - 0x30) if 0x30 <= c <= 0x39 else c for c in text)


# ---------------------------------------------------------------------------
# The salt (ENCODING.md, "The salt")

def salt_bucket(hash_input, buckets):
    """``u64(SHA-256(input)[0..8]) mod N``."""
    return int.from_bytes(hashlib.sha256(hash_input).digest()[:8], "big") % buckets


def _prefix_successor(prefix):
    p = bytearray(prefix)
    while p and p[-1] == 0xFF:
        p.pop()
    if not p:
        return None
    p[-1] += 1
    return bytes(p)


class _Open:
    """An open end of a scan range."""

    def __repr__(self):
        return "OPEN"


OPEN = _Open()


class Range:
    """A half-open key range ``[start, end)`` (``end`` None: to the end) in a salt bucket."""

    __slots__ = ("start", "end", "bucket")

    def __init__(self, start, end, bucket):
        self.start, self.end, self.bucket = start, end, bucket

    def __eq__(self, other):
        return isinstance(other, Range) and (self.start, self.end, self.bucket) == (other.start, other.end, other.bucket)

    def __repr__(self):
        return "Range(%r, %r, bucket=%d)" % (self.start, self.end, self.bucket)


# ---------------------------------------------------------------------------
# The schema

class Component:
    def __init__(self, name, type_name, encoding, descending, transform, width):
        self.name = name
        self.type_name = type_name
        self.encoding = encoding
        self.descending = descending
        self.transform = transform      # "plain", "reverse" or "bucket"
        self.width = width              # W of bucket(f, W)

    def transform_binary(self, data):
        if self.transform == "reverse":
            return data[::-1]
        if self.descending:
            return bytes(b ^ 0xFF for b in data)
        return data

    def transform_text(self, text):
        if self.transform == "reverse":
            return text[::-1]
        if self.descending:
            return _complement(text)
        return text


class Field:
    def __init__(self, name, encoding, component, bucket):
        self.name = name
        self.encoding = encoding
        self.component = component      # index of the field's own component
        self.bucket = bucket            # (index, W) of its bucket component, or None


def _bits_range(enc):
    bits, signed = _INTS[enc.base]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def _bucket_value(enc, v, width):
    lo, hi = _bits_range(enc)
    return min(max(v // width, lo), hi)


class Schema:
    """A key layout read from its schema document."""

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls.from_json(f.read())

    @classmethod
    def from_json(cls, text):
        try:
            doc = json.loads(text)
        except ValueError as e:
            raise SchemaError("the schema is not valid JSON: %s" % e)
        if not isinstance(doc, dict):
            raise SchemaError("schema: expected a JSON object")
        version = doc.get("keyschema")
        if version not in (VERSION, HISTORY_VERSION):
            raise SchemaError("schema `keyschema`: version %r is not supported; this package reads versions %d and %d (a layout history)" % (version, VERSION, HISTORY_VERSION))
        if (version == HISTORY_VERSION) != ("history" in doc):
            raise SchemaError("schema `history`: version %d documents, and only they, have a `history`" % HISTORY_VERSION)
        self = cls()
        self.name = doc["name"]
        fmt = doc["format"]
        if fmt["kind"] == "binary":
            self.sep = None
        elif fmt["kind"] == "text":
            sep = fmt["sep"]
            if len(sep) != 1 or sep in "%-=" or not (0x21 <= ord(sep) <= 0x7E) or sep.isalnum():
                raise SchemaError("schema `format.sep`: %r is not one ASCII punctuation character other than %%, - and =" % sep)
            self.sep = ord(sep)
        else:
            raise SchemaError("schema `format.kind`: %r" % fmt["kind"])
        self.prefix = bytes.fromhex(doc["prefix"])
        self._written_prefix = _written_prefix(self.prefix, self.sep, "prefix")
        self.components = []
        for i, c in enumerate(doc["components"]):
            if c.get("encoding") is None:
                raise SchemaError("schema `components[%d].encoding`: the type `%s` of `%s` declares no encoding" % (i, c["type"], c["name"]))
            enc = Encoding.parse(c["encoding"])
            t = c["transform"]
            if isinstance(t, dict):
                transform, width = "bucket", int(t["bucket"])
                if width < 1 or not enc.is_integer():
                    raise SchemaError("schema `components[%d].transform`: a bucket needs an integer and W >= 1" % i)
            elif t in ("plain", "reverse"):
                transform, width = t, None
                if t == "reverse" and not enc.is_integer():
                    raise SchemaError("schema `components[%d].transform`: `reverse` needs a fixed-width integer" % i)
            else:
                raise SchemaError("schema `components[%d].transform`: %r" % (i, t))
            if c["order"] not in ("asc", "desc"):
                raise SchemaError("schema `components[%d].order`: %r" % (i, c["order"]))
            self.components.append(Component(c["name"], c["type"], enc, c["order"] == "desc", transform, width))
        if not 1 <= len(self.components) <= MAX_COMPONENTS:
            raise SchemaError("schema `components`: a key has 1..=%d components" % MAX_COMPONENTS)
        self.buckets, self.hashed, self.random = _read_salt(doc["salt"], len(self.components), "salt")
        for i, c in enumerate(self.components):
            if c.transform == "bucket":
                nxt = self.components[i + 1] if i + 1 < len(self.components) else None
                if nxt is None or nxt.transform != "plain" or nxt.name != c.name or str(nxt.encoding) != str(c.encoding) or nxt.descending != c.descending:
                    raise SchemaError("schema `components[%d]`: a bucket of `%s` must be followed by `%s` itself" % (i, c.name, c.name))
                if c.encoding.base in ("u128", "i128"):
                    raise SchemaError("schema `components[%d].transform`: a bucket needs an integer of at most 64 bits" % i)
            if c.transform == "reverse" and c.descending:
                raise SchemaError("schema `components[%d].transform`: `reverse` is stored ascending" % i)
            if self.sep is not None and c.descending and not c.encoding.is_integer():
                raise SchemaError("schema `components[%d].order`: `rev` in a text key needs a number" % i)

        self.partition = doc.get("partition")
        if self.partition is not None and not 1 <= self.partition <= len(self.components):
            raise SchemaError("schema `partition`: expected null or 1..=%d components" % len(self.components))
        names = [c.name for c in self.components if c.transform != "bucket"]
        if len(set(names)) != len(names):
            raise SchemaError("schema `components`: a field is in the key twice")
        self.fields = []
        for i, c in enumerate(self.components):
            if c.transform == "bucket":
                continue
            bucket = None
            if i > 0 and self.components[i - 1].transform == "bucket":
                bucket = (i - 1, self.components[i - 1].width)
            self.fields.append(Field(c.name, c.encoding, i, bucket))
        self.history = None
        if version == HISTORY_VERSION:
            from ._history import read_history
            self.history = read_history(self, doc["history"])
        return self

    def decode_stored(self, key):
        """A stored key of either layout of a schema with a history (version
        3): ``(fields, "declared" | "older")``, by the rules of the Rust
        ``decode_stored`` (ENCODING.md, "Layout histories"). Without a
        history, ``(decode(key), "declared")``."""
        from ._history import decode_stored
        return decode_stored(self, key)

    # -- the header -------------------------------------------------------

    def _salt_at(self):
        return len(self._written_prefix)

    def _salt_len(self):
        if self.buckets is None:
            return 0
        if self.sep is None:
            return 1 if self.buckets <= 256 else 2
        return len(str(max(self.buckets - 1, 1)))

    def _header_len(self):
        return self._salt_at() + self._salt_len() + (1 if self.sep is not None and self.buckets is not None else 0)

    def _salt_bytes(self, bucket):
        if self.sep is None:
            return bucket.to_bytes(self._salt_len(), "big")
        return b"%0*d" % (self._salt_len(), bucket)

    def _header(self, bucket):
        out = bytearray(self._written_prefix)
        if self.buckets is not None:
            out += self._salt_bytes(bucket)
            if self.sep is not None:
                out.append(self.sep)
        return bytes(out)

    def bucket_of(self, key):
        """The salt bucket read from a key's bytes (not checked against the fields)."""
        key = bytes(key)
        written = self._written_prefix
        if written:
            if not key.startswith(written):
                offset = 0
                while offset < min(len(key), len(written)) and key[offset] == written[offset]:
                    offset += 1
                expected = _escape_ascii(self.prefix)
                shown = '"' + expected.replace("\\", "\\\\").replace('"', '\\"') + '"'
                raise DecodeError("key does not start with the prefix %s of schema `%s` (first difference at byte %d)" % (shown, self.name, offset))
        if self.buckets is None:
            return 0
        start = self._salt_at()
        end = start + self._salt_len()
        if len(key) < end:
            raise DecodeError("key ends inside component `salt` at byte %d: expected the salt" % start)
        raw = key[start:end]
        if self.sep is None:
            found = int.from_bytes(raw, "big")
        else:
            if not all(0x30 <= c <= 0x39 for c in raw):
                raise DecodeError("component `salt` at byte %d is not a valid value: the salt of a text key is decimal digits" % start)
            if end >= len(key):
                raise DecodeError("key ends inside component `salt` at byte %d: expected the separator after the salt" % start)
            if key[end] != self.sep:
                raise DecodeError("component `salt` has byte 0x%02x at byte %d: expected the separator after the salt" % (key[end], end))
            found = int(raw)
        if found >= self.buckets:
            raise DecodeError("salt at byte %d is %d, but schema `%s` has only %d buckets" % (start, found, self.name, self.buckets))
        return found

    def candidates(self, key):
        """Every key of the row: the N keys of a ``random % N`` salt, or ``[key]``."""
        at, n = self._salt_at(), self._salt_len()
        if not self.random or len(key) < at + n:
            return [bytes(key)]
        return [bytes(key[:at]) + self._salt_bytes(b) + bytes(key[at + n:]) for b in range(self.buckets)]

    # -- encode -----------------------------------------------------------

    def _component_values(self, values):
        if isinstance(values, dict):
            unknown = set(values) - {f.name for f in self.fields}
            if unknown:
                raise ValueError_("the key has no field %s" % ", ".join(sorted(unknown)))
            missing = [f.name for f in self.fields if f.name not in values]
            if missing:
                raise ValueError_("missing field(s) %s" % ", ".join(missing))
            values = [values[f.name] for f in self.fields]
        if len(values) != len(self.fields):
            raise ValueError_("%d values given for %d fields" % (len(values), len(self.fields)))
        out = []
        for f, v in zip(self.fields, values):
            try:
                _check(f.encoding, v)
            except ValueError_ as e:
                raise ValueError_("field `%s`: %s" % (f.name, e))
            if f.bucket is not None:
                out.append(_bucket_value(f.encoding, v, f.bucket[1]))
            out.append(v)
        return out

    def _salt_of(self, plains):
        return salt_bucket(b"".join(plains[h] for h in self.hashed), self.buckets)

    def encode(self, values, bucket=None):
        """The key of a row: ``values`` by field name (a dict) or in key order.
        A ``random % N`` salt takes ``bucket``, or a random one."""
        comps = self._component_values(values)
        plains = [encode_plain(c.encoding, v) for c, v in zip(self.components, comps)]
        body = bytearray()
        last = len(comps) - 1
        for i, (c, v) in enumerate(zip(self.components, comps)):
            if self.sep is None:
                body += c.transform_binary(plains[i])
            else:
                if i > 0:
                    body.append(self.sep)
                body += c.transform_text(encode_text(c.encoding, v, self.sep))
                if i == last and c.encoding.text_width() is None:
                    body.append(self.sep)
        if self.buckets is None:
            b = 0
        elif self.random:
            b = random.randrange(self.buckets) if bucket is None else bucket
            if not 0 <= b < self.buckets:
                raise ValueError_("bucket %d is not below N = %d" % (b, self.buckets))
        else:
            if bucket is not None:
                raise ValueError_("only a random salt lets the writer choose the bucket")
            b = self._salt_of(plains)
        return self._header(b) + bytes(body)

    def bucket(self, values):
        """The salt bucket of a row, from its hashed fields (a dict by name)."""
        if self.buckets is None:
            return 0
        if self.random:
            raise ValueError_("a random salt has no bucket of its own")
        parts = []
        for h in self.hashed:
            c = self.components[h]
            f = next(f for f in self.fields if f.name == c.name)
            v = values[c.name]
            _check(f.encoding, v)
            if c.transform == "bucket":
                v = _bucket_value(f.encoding, v, c.width)
            parts.append(encode_plain(c.encoding, v))
        return salt_bucket(b"".join(parts), self.buckets)

    # -- decode -----------------------------------------------------------

    def _expect_sep(self, key, pos, name):
        if pos >= len(key):
            raise DecodeError("key ends inside component `%s` at byte %d: expected the separator" % (name, pos))
        if key[pos] != self.sep:
            raise DecodeError("component `%s` has byte 0x%02x at byte %d: expected the separator" % (name, key[pos], pos))
        return pos + 1

    def decode(self, key):
        """The fields of a key (a dict in key order), with every check of the
        Rust ``decode`` and the same error messages."""
        key = bytes(key)
        if len(key) > MAX_KEY_LEN:
            raise DecodeError("key is %d bytes, above the limit of %d" % (len(key), MAX_KEY_LEN))
        found = self.bucket_of(key)
        body = self._header_len()
        pos = body
        values, plains, ends = [], [], []
        last = len(self.components) - 1
        for i, c in enumerate(self.components):
            if self.sep is not None:
                if i > 0:
                    pos = self._expect_sep(key, pos, c.name)
                start = pos
                width = c.encoding.text_width()
                if width is not None:
                    end = start + width if start + width <= len(key) else None
                else:
                    at = key.find(bytes([self.sep]), start)
                    end = at if at >= 0 else None
                if end is None:
                    raise DecodeError("key ends inside component `%s` at byte %d: expected the component's text" % (c.name, start))
                try:
                    v = decode_text(c.encoding, c.transform_text(key[start:end]), self.sep)
                except _TextError as e:
                    raise DecodeError("component `%s` at byte %d is not a valid value: %s" % (c.name, start, e))
                pos = end
                if i == last and width is None:
                    pos = self._expect_sep(key, pos, c.name)
            elif c.transform == "reverse":
                width = c.encoding.fixed_width()
                if pos + width > len(key):
                    raise DecodeError("key ends inside component `%s` at byte %d: expected a reversed fixed-width integer" % (c.name, pos))
                v = _decode_plain(c.encoding, _Reader(key[pos:pos + width][::-1], 0, False, c.name))
                pos += width
            else:
                r = _Reader(key, pos, c.descending, c.name)
                v = _decode_plain(c.encoding, r)
                pos = r.pos
            plains.append(encode_plain(c.encoding, v))
            ends.append(pos - body)
            values.append(v)
        for f in self.fields:
            if f.bucket is not None:
                b, width = f.bucket
                if values[b] != _bucket_value(f.encoding, values[f.component], width):
                    start = 0 if b == 0 or self.sep is not None else ends[b - 1]
                    raise DecodeError("component `%s` at byte %d is not a valid value: the bucket does not match the field it is derived from" % (self.components[b].name, body + start))
        if pos < len(key):
            raise DecodeError("%d unexpected bytes after the last component, starting at byte %d" % (len(key) - pos, pos))
        if self.buckets is not None and not self.random:
            expected = self._salt_of(plains)
            if expected != found:
                raise DecodeError("salt at byte %d is %d, but the key's hashed fields give bucket %d" % (self._salt_at(), found, expected))
        return {f.name: values[f.component] for f in self.fields}

    # -- render -----------------------------------------------------------

    def render(self, key):
        """The key for a person, as the Rust ``render`` prints it."""
        key = bytes(key)
        ok, text, offset, err = self._try_render(key)
        if ok:
            try:
                self.decode(key)
            except DecodeError as e:
                text += " !(%s)" % e
            return text
        if text:
            text += "|"
        return text + "!0x" + key[offset:].hex() + " (%s)" % err

    def _try_render(self, key):
        if self.sep is not None:
            try:
                return True, key.decode("utf-8"), 0, None
            except UnicodeDecodeError as e:
                return False, key[:e.start].decode("utf-8"), e.start, "component `key` starting at byte %d is not valid UTF-8" % e.start
        out = ""
        if self.prefix:
            out = _escape_ascii(self.prefix).replace("|", "\\|")
        try:
            bucket = self.bucket_of(key)
        except DecodeError as e:
            return False, out, 0, str(e)
        if self.buckets is not None:
            if out:
                out += "|"
            out += "%0*d" % (len(str(max(self.buckets - 1, 1))), bucket)
        pos = self._header_len()
        for i, c in enumerate(self.components):
            sep = "|" if (i > 0 or out) else ""
            mark = "~" if c.descending else ""
            try:
                if c.transform == "reverse":
                    width = c.encoding.fixed_width()
                    if pos + width > len(key):
                        raise DecodeError("key ends inside component `%s` at byte %d: expected a reversed fixed-width integer" % (c.name, pos))
                    piece = "^" + _render_plain(c.encoding, _Reader(key[pos:pos + width][::-1], 0, False, c.name))
                    nxt = pos + width
                else:
                    r = _Reader(key, pos, c.descending, c.name)
                    piece = _render_plain(c.encoding, r)
                    nxt = r.pos
            except DecodeError as e:
                return False, out, pos, str(e)
            out += sep + mark + piece
            pos = nxt
        if pos < len(key):
            return False, out, pos, "%d unexpected bytes after the last component, starting at byte %d" % (len(key) - pos, pos)
        return True, out, 0, None

    # -- scans ------------------------------------------------------------

    def _key_form(self, c, v):
        if self.sep is None:
            return c.transform_binary(encode_plain(c.encoding, v))
        text = c.transform_text(encode_text(c.encoding, v, self.sep))
        return text + bytes([self.sep]) if c.encoding.text_width() is None else text

    def ranges(self, equal, lo=OPEN, hi=OPEN, lo_inclusive=True, hi_inclusive=False, ranged=None):
        """The key ranges a typed scan reads: the first ``len(equal)`` fields
        bound by equality, then a range ``lo..hi`` on the next field when
        either end is given (``OPEN``, the default, for an open end; ``None``
        is a value of an ``Option`` field) or ``ranged`` is true. Returns a
        list of ``Range``, as the Rust ``K::scan()...ranges()``."""
        if ranged is None:
            ranged = lo is not OPEN or hi is not OPEN
        n = len(equal) + (1 if ranged else 0)
        if n > len(self.fields):
            raise ValueError_("%d fields bound, the key has %d" % (n, len(self.fields)))
        state = (b"", [])

        def push(state, index, v):
            body, plains = state
            c = self.components[index]
            body += self._key_form(c, v)
            if self.sep is not None and c.encoding.text_width() is not None and index + 1 < len(self.components):
                body += bytes([self.sep])
            return body, plains + [encode_plain(c.encoding, v)]

        for f, v in zip(self.fields, equal):
            _check(f.encoding, v)
            if f.bucket is not None:
                state = push(state, f.bucket[0], _bucket_value(f.encoding, v, f.bucket[1]))
            state = push(state, f.component, v)
        if not ranged:
            return self._collect([(state, None)])
        f = self.fields[len(equal)]
        for v in (lo, hi):
            if v is not OPEN:
                _check(f.encoding, v)
        own = self.components[f.component]
        if own.transform == "reverse":
            raise ValueError_("a range on `%s` is not possible: it is stored `reverse`d" % f.name)
        if self.sep is not None and not f.encoding.is_text_ordered():
            raise ValueError_("a range on `%s` is not possible: in a text key its text order is not its value order" % f.name)
        if f.bucket is None:
            enc = lambda v: self._key_form(own, v)  # noqa: E731
            bounds = (None if lo is OPEN else (enc(lo), lo_inclusive), None if hi is OPEN else (enc(hi), hi_inclusive), own.descending)
            return self._collect([(state, bounds)])
        b, width = f.bucket
        bc = self.components[b]
        if b not in self.hashed:
            def enc(v):
                out = self._key_form(bc, _bucket_value(f.encoding, v, width))
                if self.sep is not None:
                    out += bytes([self.sep])
                return out + self._key_form(own, v)
            bounds = (None if lo is OPEN else (enc(lo), lo_inclusive), None if hi is OPEN else (enc(hi), hi_inclusive), bc.descending)
            return self._collect([(state, bounds)])
        if lo is OPEN or hi is OPEN:
            raise ValueError_("the range on `%s` is open-ended, but its bucket is hashed into the salt" % bc.name)
        # The buckets holding a value of the range (ENCODING.md, "Limits"):
        # an exclusive end on a bucket's first value leaves that bucket out.
        b_lo = (lo if lo_inclusive else lo + 1) // width
        b_hi = (hi if hi_inclusive else hi - 1) // width
        if b_hi < b_lo:
            return []
        if b_hi - b_lo + 1 > MAX_BUCKET_EXPANSION:
            raise ValueError_("the range on `%s` spans %d buckets of width %d, more than the %d a scan expands into; narrow the range" % (bc.name, b_hi - b_lo + 1, width, MAX_BUCKET_EXPANSION))
        lo_v, hi_v = _bits_range(f.encoding)
        clamp = lambda x: min(max(x, lo_v), hi_v)  # noqa: E731
        alts = []
        for k in range(b_lo, b_hi + 1):
            alt = push(state, b, clamp(k))
            start = (lo, lo_inclusive) if k == b_lo else (clamp(k * width), True)
            end = (hi, hi_inclusive) if k == b_hi else (clamp((k + 1) * width - 1), True)
            bounds = ((self._key_form(own, start[0]), start[1]), (self._key_form(own, end[0]), end[1]), own.descending)
            alts.append((alt, bounds))
        return self._collect(alts)

    def _collect(self, alts):
        out = []
        for (body, plains), bounds in alts:
            if self.buckets is None:
                buckets = [None]
            elif not self.random and all(h < len(plains) for h in self.hashed):
                buckets = [self._salt_of(plains)]
            else:
                buckets = list(range(self.buckets))
            for b in buckets:
                prefix = self._header(b or 0) + body
                span = _bounds_under(prefix, bounds)
                if span is not None:
                    out.append(Range(span[0], span[1], b or 0))
        out.sort(key=lambda r: r.start)
        return out


def _bounds_under(prefix, bounds):
    """ENCODING.md, "Scan ranges": the keys under ``prefix`` whose next
    component lies within the bounds."""
    if bounds is None:
        return prefix, _prefix_successor(prefix)
    lo, hi, descending = bounds
    if descending:
        lo, hi = hi, lo
    if lo is None:
        start = prefix
    elif lo[1]:
        start = prefix + lo[0]
    else:
        start = _prefix_successor(prefix + lo[0])
        if start is None:
            return None
    if hi is None:
        end = _prefix_successor(prefix)
    elif hi[1]:
        end = _prefix_successor(prefix + hi[0])
    else:
        end = prefix + hi[0]
    if end is not None and end <= start:
        return None
    return start, end


# ---------------------------------------------------------------------------
# Values as JSON (ENCODING.md, "Values as JSON")

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
