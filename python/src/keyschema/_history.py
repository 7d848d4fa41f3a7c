"""Layout histories (schema document version 3, ENCODING.md "Layout
histories"): the layout a table's older rows use, the same components under
another prefix and salt, and the cut-over; a key of either layout is read and
said which, by the rules of the Rust ``decode_stored``."""

import copy

from ._encoding import _decode_plain, _Reader, encode_plain
from ._errors import DecodeError, SchemaError
from ._header import _read_salt, _written_prefix


class History:
    """The older layout (a ``Schema`` of its own) and the cut-over: ``cut`` is
    ``None`` for a migration, or ``(component index, ascending encoding of the
    cut-over value)``."""

    def __init__(self, older, cut):
        self.older = older
        self.cut = cut


def read_history(schema, doc):
    """The ``history`` member, checked as the derive checks ``#[rowkey_was]``."""
    if not isinstance(doc, dict):
        raise SchemaError("schema `history`: expected an object")
    prefix = bytes.fromhex(doc["prefix"])
    buckets, hashed, random = _read_salt(doc["salt"], len(schema.components), "history.salt")
    if random:
        raise SchemaError("schema `history.salt`: an older layout cannot have a random salt: its rows could not be found by key")
    if prefix == schema.prefix and (buckets, hashed) == (schema.buckets, schema.hashed) and not schema.random:
        raise SchemaError("schema `history`: the older layout is the declared one (same prefix and salt)")
    cut = doc["cut"]
    if cut.get("kind") == "migration":
        cut = None
    elif cut.get("kind") == "field":
        i = cut.get("component")
        plain = [f for f in schema.fields if f.component == i and f.bucket is None]
        if not isinstance(i, int) or not plain or schema.components[i].transform != "plain":
            raise SchemaError("schema `history.cut.component`: expected the index of a key field stored plain or `rev` (not `reverse`d, not a bucket)")
        at = bytes.fromhex(cut["at"])
        enc = schema.components[i].encoding
        reader = _Reader(at, 0, False, "value")
        try:
            _decode_plain(enc, reader)
        except DecodeError:
            reader.pos = -1
        if reader.pos != len(at):
            raise SchemaError("schema `history.cut.at`: is not one value of the encoding %s" % enc)
        cut = (i, at)
    else:
        raise SchemaError("schema `history.cut.kind`: %r: expected \"migration\" or \"field\"" % cut.get("kind"))
    older = copy.copy(schema)
    older.name = "%s (older layout)" % schema.name
    older.prefix = prefix
    older._written_prefix = _written_prefix(prefix, schema.sep, "history.prefix")
    older.buckets, older.hashed, older.random = buckets, hashed, False
    older.history = None
    return History(older, cut)


def _past_cut_over(schema, fields):
    cut = schema.history.cut
    if cut is None:
        return True
    i, at = cut
    field = next(f for f in schema.fields if f.component == i)
    return encode_plain(field.encoding, fields[field.name]) >= at


def decode_stored(schema, key):
    """``(fields, "declared" | "older")``; see ``Schema.decode_stored``."""
    if schema.history is None:
        return schema.decode(key), "declared"
    older = schema.history.older
    try:
        new = schema.decode(key)
    except DecodeError as e:
        new, error = None, e
    try:
        old = older.decode(key)
    except DecodeError:
        old = None
    if new is None:
        if old is None:
            raise error
        return old, "older"
    if old is None or schema._header_len() == older._header_len():
        return new, "declared"
    if _past_cut_over(schema, new) or _past_cut_over(schema, old):
        return new, "declared"
    raise DecodeError("the key reads as a row of `%s` in both its declared and its older layout (`#[rowkey_was]`), and the cut-over does not decide which" % schema.name)
