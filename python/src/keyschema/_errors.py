"""The package's exceptions."""


class DecodeError(Exception):
    """A byte string that is not a key of the schema; the message is the
    Rust ``DecodeError``'s, word for word."""


class SchemaError(Exception):
    """A schema document that cannot be used."""


class ValueError_(ValueError):
    """Values that do not fit the schema."""


class BytesExpected(ValueError_, TypeError):
    """Something other than bytes where a key or a stored value is expected:
    most often a hex string (``bytes.fromhex`` gives its bytes). A
    ``TypeError``, and a ``ValueError_`` as the package's other refusals of
    its caller's input."""


class ChecksumError(DecodeError):
    """Bytes as the redb store keeps a row whose CRC-32 does not match its
    key and value: damaged, or another key's."""


def need_bytes(data, what):
    """``data`` as ``bytes`` (``bytes``, ``bytearray`` or ``memoryview``),
    or ``BytesExpected`` naming ``what``."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        shown = data if len(data) <= 40 else data[:40] + "..."
        raise BytesExpected("%s: bytes expected, got the str %r (a hex string? bytes.fromhex(...) gives its bytes)" % (what, shown))
    raise BytesExpected("%s: bytes expected, got %s" % (what, type(data).__name__))


def utf8_error(cell, e):
    """A UTF-8 error in Rust's words (``Utf8Error``'s ``Display``)."""
    if e.reason == "unexpected end of data":
        return "incomplete utf-8 byte sequence from index %d" % e.start
    return "invalid utf-8 sequence of %d bytes from index %d" % (e.end - e.start, e.start)
