"""The header of a layout in a schema document: its prefix as written in
keys and its salt, read and checked for the declared layout and an older
one of its history alike (ENCODING.md, "The prefix" and "The salt")."""

from ._encoding import _escape
from ._errors import SchemaError
from ._limits import MAX_BUCKETS


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
