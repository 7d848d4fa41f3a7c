"""A MessagePack reader (standard library only): the ordered stores' value
map of a row's value fields, a nested value's Bigtable cell, and the cell
map (ENCODING.md, "Value fields"). Bytes that are not one whole MessagePack
value raise ``DecodeError``, naming what is wrong and where."""

import collections
import struct

from ._errors import DecodeError

from ._limits import MAX_NESTING

# Nesting deeper than this is refused, as the Rust reader refuses it: a
# value field's value (a row's map holds its fields one level down).
MAX_DEPTH = MAX_NESTING


class Ext(collections.namedtuple("Ext", "code data")):
    """A MessagePack extension value: its type code (-128..127) and its bytes."""

    __slots__ = ()


class Repeated(dict):
    """A map that holds a key more than once: as a ``dict``, each key's
    last value; ``entries``, every entry in stored order (a struct that
    names a field twice is refused, as serde refuses it)."""

    def __init__(self, first):
        dict.__init__(self, first)
        self.entries = list(first.items())


def entries(v):
    """A map's entries in stored order, a key held twice included."""
    return v.entries if v.__class__ is Repeated else list(v.items())


def decode_msgpack(data, max_depth=MAX_DEPTH):
    """The Python value of one whole MessagePack value: ``None``, ``bool``,
    ``int``, ``float``, ``str``, ``bytes`` (bin), ``list`` (array), ``dict``
    (map; an array used as a key becomes a tuple; ``Repeated`` when it
    holds a key twice) or ``Ext``. Raises
    ``DecodeError`` for bytes that are not exactly one value (truncated,
    the unused marker ``c1``, a str that is not UTF-8, bytes after the
    value, nesting deeper than ``max_depth`` levels: ``MAX_NESTING``, as a
    value field's value may)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DecodeError("not MessagePack: expected bytes, got %s" % type(data).__name__)
    reader = _Reader(bytes(data), max_depth)
    try:
        value = reader.read()
    except RecursionError:                      # a map key of arrays nested very deep
        raise DecodeError("not MessagePack: a map key nests too deep") from None
    if reader.pos != len(reader.buf):
        raise DecodeError("not MessagePack: %d bytes after the value, at byte %d" % (len(reader.buf) - reader.pos, reader.pos))
    return value


def _bad(what):
    return DecodeError("not MessagePack: " + what)


_NO_KEY = object()
_SIMPLE = {0xC0: None, 0xC2: False, 0xC3: True}
_FLOAT = {0xCA: (4, ">f"), 0xCB: (8, ">d")}
_UINT = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}
_INT = {0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}
_BIN = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_STR = {0xD9: 1, 0xDA: 2, 0xDB: 4}
_EXT = {0xC7: 1, 0xC8: 2, 0xC9: 4}
_FIXEXT = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}
_ARRAY = {0xDC: 2, 0xDD: 4}
_MAP = {0xDE: 2, 0xDF: 4}


class _Reader:
    def __init__(self, buf, max_depth=MAX_DEPTH):
        self.buf = buf
        self.pos = 0
        self.max_depth = max_depth

    def take(self, n):
        end = self.pos + n
        if end > len(self.buf):
            raise _bad("%d bytes wanted at byte %d, past the end (%d bytes)" % (n, self.pos, len(self.buf)))
        out = self.buf[self.pos:end]
        self.pos = end
        return out

    def uint(self, n):
        return int.from_bytes(self.take(n), "big")

    def count(self, n, at, each):
        """A length of ``n`` items of at least ``each`` bytes, checked
        against the bytes left (so a forged length allocates nothing)."""
        if n * each > len(self.buf) - self.pos:
            raise _bad("the %s at byte %d claims %d entries, more than the %d bytes left hold" % ("map" if each == 2 else "array", at, n, len(self.buf) - self.pos))
        return n

    def read(self):
        """One value, its arrays and maps filled from a stack of open ones
        (no recursion, so no depth reaches the interpreter's limit)."""
        stack = []                              # [out, entries left, key (maps), start]
        while True:
            at = self.pos
            v, container = self.item(at)
            if container is not None:
                kind, n = container
                if len(stack) >= self.max_depth:
                    raise _bad("the value at byte %d nests deeper than %d levels" % (at, self.max_depth))
                self.count(n, at, 2 if kind is dict else 1)
                if n:
                    stack.append([kind(), n, _NO_KEY, at])
                    continue
                v = kind()
            while stack:                        # hand v to the innermost open container
                top = stack[-1]
                out = top[0]
                if isinstance(out, dict):
                    if top[2] is _NO_KEY:
                        top[2] = _hashable(v, at)
                        break
                    if top[2] in out and out.__class__ is dict:
                        out = top[0] = Repeated(out)      # a key twice: keep every entry
                    if out.__class__ is Repeated:
                        out.entries.append((top[2], v))
                    out[top[2]] = v
                    top[2] = _NO_KEY
                else:
                    out.append(v)
                top[1] -= 1
                if top[1]:
                    break
                stack.pop()
                v, at = out, top[3]
            else:
                return v

    def item(self, at):
        """``(value, None)`` for a scalar, ``(None, (list or dict, n))`` for
        an array's or a map's header."""
        b = self.take(1)[0]
        if b <= 0x7F:
            return b, None
        if b >= 0xE0:
            return b - 0x100, None
        if 0xA0 <= b <= 0xBF:
            return self.text(b & 0x1F, at), None
        if 0x90 <= b <= 0x9F:
            return None, (list, b & 0x0F)
        if 0x80 <= b <= 0x8F:
            return None, (dict, b & 0x0F)
        if b in _SIMPLE:
            return _SIMPLE[b], None
        if b in _UINT:
            return self.uint(_UINT[b]), None
        if b in _INT:
            return int.from_bytes(self.take(_INT[b]), "big", signed=True), None
        if b in _FLOAT:
            n, fmt = _FLOAT[b]
            return struct.unpack(fmt, self.take(n))[0], None
        if b in _STR:
            return self.text(self.uint(_STR[b]), at), None
        if b in _BIN:
            return self.take(self.uint(_BIN[b])), None
        if b in _ARRAY:
            return None, (list, self.uint(_ARRAY[b]))
        if b in _MAP:
            return None, (dict, self.uint(_MAP[b]))
        if b in _FIXEXT:
            code = int.from_bytes(self.take(1), "big", signed=True)
            return Ext(code, self.take(_FIXEXT[b])), None
        if b in _EXT:
            n = self.uint(_EXT[b])
            code = int.from_bytes(self.take(1), "big", signed=True)
            return Ext(code, self.take(n)), None
        raise _bad("byte %d is 0xc1, a marker MessagePack never uses" % at)

    def text(self, n, at):
        raw = self.take(n)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _bad("the str at byte %d is not UTF-8" % at) from None


def _hashable(v, at):
    """A map key as a dict key: an array becomes a tuple; a map cannot be one."""
    if isinstance(v, list):
        return tuple([_hashable(x, at) for x in v])
    if isinstance(v, dict):
        raise _bad("the map key at byte %d is a map, which this reader cannot use as a key" % at)
    return v
