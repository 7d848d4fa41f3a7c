"""Text keys (ENCODING.md, "Text keys"): each component's text form, and
its reading back."""

from . import _types
from ._encoding import _INTS, _TEXT_DIGITS, Some, _float_from, encode_plain


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
