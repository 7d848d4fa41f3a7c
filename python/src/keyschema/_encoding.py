"""The component encodings (ENCODING.md, "Component encodings"): each
type's ascending binary form, its reader, and the checks of a value against
its type."""

import re
import struct

from . import _types
from ._errors import DecodeError, SchemaError, ValueError_

# The most `Option`s a key encoding nests (the Rust `Encoding`'s MAX_OPTIONS):
# decoding never recurses deeper.
MAX_OPTIONS = 8


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
        if options > MAX_OPTIONS:
            raise SchemaError("`%s` nests %d Options; a key encoding nests at most %d" % (text, options, MAX_OPTIONS))
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


def _bits_range(enc):
    bits, signed = _INTS[enc.base]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def _bucket_value(enc, v, width):
    lo, hi = _bits_range(enc)
    return min(max(v // width, lo), hi)
