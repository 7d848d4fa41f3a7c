"""Rendering a key for a person (ENCODING.md, "Whole keys"), as the Rust
``render`` prints it: Rust's ``{:?}`` of floats, escapes of text and bytes."""

from fractions import Fraction
import math
import struct
import unicodedata

from ._encoding import _decode_plain


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
    """Rust's ``{:?}`` of an f32 or f64, and ``-NaN`` for a NaN whose sign
    bit is set."""
    if math.isnan(v):
        return "-NaN" if math.copysign(1.0, v) < 0 else "NaN"
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
