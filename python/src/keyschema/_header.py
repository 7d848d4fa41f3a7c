"""The header of a layout in a schema document: its prefix as written in
keys and its salt, read and checked for the declared layout and an older
one of its history alike (ENCODING.md, "The prefix" and "The salt")."""

from ._encoding import _escape
from ._errors import SchemaError


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
    from ._document import salt as read
    return read(salt, n, at)
