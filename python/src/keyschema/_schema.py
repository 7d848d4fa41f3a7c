"""The schema document (ENCODING.md, "The schema as JSON") and the keys it
describes: encode, decode, the salt bucket and rendering; reading a whole
row's value fields is delegated to ``_values`` and ``_dynamodb``."""

import hashlib
import json
import re
import random

from . import _document, _dynamodb, _projection, _redb, _scan, _values, _write
from ._encoding import Encoding, _Reader, _bucket_value, _check, _decode_plain, encode_plain
from ._errors import DecodeError, SchemaError, ValueError_, need_bytes
from ._header import _read_salt, _written_prefix
from ._json import fields_from_json
from ._write import _partition_len
from ._limits import MAX_KEY_LEN
from ._render import _escape_ascii, _render_plain
from ._scan import OPEN
from ._text import _TextError, _complement, decode_text, encode_text

VERSION = 2
HISTORY_VERSION = 3


def salt_bucket(hash_input, buckets):
    """``u64(SHA-256(input)[0..8]) mod N``."""
    return int.from_bytes(hashlib.sha256(hash_input).digest()[:8], "big") % buckets


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


def _read_indexes(cls, indexes):
    """The ``indexes`` member: each index's entry layout, a document of its
    own read as any is; an error names the index (``indexes[0].prefix``).
    Each index's ``dynamodb`` is its form on DynamoDB, ``"native"`` or
    ``"encoded"`` (a document without it: ``"encoded"``)."""
    if indexes is None:
        return []
    if not isinstance(indexes, list):
        raise SchemaError("schema `indexes`: expected an array of schema documents")
    out = []
    for i, doc in enumerate(indexes):
        if not isinstance(doc, dict):
            raise SchemaError("schema `indexes[%d]`: expected a JSON object" % i)
        form = doc.get("dynamodb", "encoded")   # documents before it: encoded, all they wrote
        if form not in ("native", "encoded"):
            raise SchemaError('schema `indexes[%d].dynamodb`: expected "native" or "encoded"' % i)
        try:
            out.append(cls._from_doc(doc))
            out[-1].dynamodb = form
        except SchemaError as e:
            raise SchemaError(re.sub(r"^schema `", "schema `indexes[%d]." % i, str(e), count=1)) from None
        except (KeyError, TypeError, AttributeError) as e:
            raise SchemaError("schema `indexes[%d]`: a member is missing or of the wrong JSON type (%s: %s)" % (i, type(e).__name__, e)) from None
    return out


class Schema:
    """A key layout read from its schema document, the row's value fields
    when it lists them (``values``, a list of ``ValueField``, and
    ``family``, their Bigtable column family), and its indexes' entry
    layouts (``indexes``, a list of ``Schema``)."""

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
        try:
            return cls._from_doc(doc)
        except (KeyError, TypeError, AttributeError) as e:
            # A member missing or of another JSON type than the document's.
            raise SchemaError("schema: a member is missing or of the wrong JSON type (%s: %s)" % (type(e).__name__, e))

    @classmethod
    def _from_doc(cls, doc):
        version = _document.version(doc, (VERSION, HISTORY_VERSION), HISTORY_VERSION)
        self = cls()
        self.name = _document.string(doc, "", "name")
        self.sep = _document.separator(_document.member(doc, "", "format"))
        prefix = _document.string(doc, "", "prefix")
        if not re.fullmatch(r"(?:[0-9a-f]{2})*", prefix):
            raise SchemaError("schema `prefix`: expected lowercase hex digits, two per byte")
        self.prefix = bytes.fromhex(prefix)
        self._written_prefix = _written_prefix(self.prefix, self.sep, "prefix")
        self.components = _document.components(_document.member(doc, "", "components"), self.sep is not None, Encoding.parse, Component)
        self.buckets, self.hashed, self.random = _read_salt(_document.member(doc, "", "salt"), len(self.components), "salt")
        self.partition = _document.member(doc, "", "partition")
        n = len(self.components)
        if self.partition is not None and (type(self.partition) is not int or not 1 <= self.partition <= n):
            raise SchemaError("schema `partition`: expected null or 1..=%d components" % n)
        _document.twice(self.components)
        self.fields = []
        for i, c in enumerate(self.components):
            if c.transform == "bucket":
                continue
            bucket = None
            if i > 0 and self.components[i - 1].transform == "bucket":
                bucket = (i - 1, self.components[i - 1].width)
            self.fields.append(Field(c.name, c.encoding, i, bucket))
        _values.read_document(self, doc)
        self.indexes = _read_indexes(cls, doc.get("indexes"))
        self.dynamodb = None    # an index's form on DynamoDB: _read_indexes sets it
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
        key = need_bytes(key, "key")
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
        key = need_bytes(key, "key")
        at, n = self._salt_at(), self._salt_len()
        if not self.random or len(key) < at + n:
            return [key]
        return [bytes(key[:at]) + self._salt_bytes(b) + bytes(key[at + n:]) for b in range(self.buckets)]

    # -- encode -----------------------------------------------------------

    def _component_values(self, values):
        if isinstance(values, dict):
            names = [f.name for f in self.fields]
            for name in values:
                if name not in names:
                    raise ValueError_("the key has no field `%s`; its fields are %s" % (name, ", ".join(names)))
            for name in names:
                if name not in values:
                    raise ValueError_("field `%s` is missing" % name)
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

    def split_key(self, key):
        """``(partition, sort)``: the key's partition part (prefix, salt and
        the partition components of ``then = (a, b), c``, in a text key with
        the separator after them) and the rest, as the Rust
        ``Schema::split_key`` splits it (DynamoDB's ``pk`` and ``sk``).
        Without a declared partition, or with every component in it, the
        sort part is empty. The key is decoded whole first."""
        key = need_bytes(key, "key")
        fields = self.decode(key)
        if self.partition is None or self.partition >= len(self.components):
            return key, b""
        n = _partition_len(self, fields)
        return key[:n], key[n:]

    def fields_from_json(self, text):
        """The key's fields (a dict by name, in key order) from the JSON text
        of an object of them by name, each value in its one JSON form
        (ENCODING.md, "Values as JSON"; ``encode`` takes the dict): the
        Rust ``DynSchema::fields_from_json``, refusal for refusal and word
        for word (``ValueError_``)."""
        return fields_from_json(self, text)

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
        Rust ``decode`` and the same error messages. ``key`` is bytes
        (``bytes.fromhex`` of a hex string): anything else is
        ``BytesExpected``."""
        key = need_bytes(key, "key")
        if len(key) > MAX_KEY_LEN:
            raise DecodeError("key is %d bytes, above the limit of %d" % (len(key), MAX_KEY_LEN))
        found = self.bucket_of(key)
        body = self._header_len()
        pos = body
        # Where each component begins, from the body (a text key's after
        # its separator): a bucket mismatch's offset.
        values, plains, starts = [], [], []
        last = len(self.components) - 1
        for i, c in enumerate(self.components):
            if self.sep is not None and i > 0:
                pos = self._expect_sep(key, pos, c.name)
            starts.append(pos - body)
            if self.sep is not None:
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
            values.append(v)
        for f in self.fields:
            if f.bucket is not None:
                b, width = f.bucket
                if values[b] != _bucket_value(f.encoding, values[f.component], width):
                    raise DecodeError("component `%s` at byte %d is not a valid value: the bucket does not match the field it is derived from" % (self.components[b].name, body + starts[b]))
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
        key = need_bytes(key, "key")
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

    def render_prefix(self, key):
        """A prefix of a key (a split point, a scan bound) as the Rust
        ``render_prefix`` prints it: its complete components, then ``…``
        where it ends inside one; a whole key rendered without the decode
        check; other damage as ``render`` shows it."""
        key = need_bytes(key, "key")
        ok, text, offset, err = self._try_render(key)
        if ok:
            return text
        if err.startswith("key ends inside component "):
            return (text + "|" if text else "") + "\u2026"
        return self.render(key)

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
        return _scan.ranges(self, equal, lo, hi, lo_inclusive, hi_inclusive, ranged)

    # -- value fields -----------------------------------------------------

    def decode_values(self, value, kinds=None):
        """A row's value fields (``#[rowkey(value)]``), a dict in declaration
        order, from the value the store holds beside its key:

        - the ordered stores' (redb, memory) value, one MessagePack map from
          field name to value;
        - a Bigtable row: its cell map (the bytes beginning ``c1`` that a
          typed read hands across), ``{qualifier: bytes}``, or what
          google-cloud-bigtable gives (``row.cells``, or the row itself):
          the schema's ``family``, each cell read by its field's kind.

        ``kinds`` names the kind of a field whose type the document cannot
        name (``{"amount": "i64"}`` for a ``Cents(i64)``; see
        ``value_kind``). Unknown fields are skipped; a missing field is
        ``None``, or ``DecodeError`` naming it when the row must hold it. A
        value that names none of the value fields (nor holds the presence
        mark, the empty name) is ``DecodeError``: not a row of this schema."""
        return _values.decode_values(self, value, kinds)

    def decode_row(self, key, value, kinds=None):
        """The whole row, one dict: the key's fields (``decode_stored``),
        then the value fields (``decode_values(value)``)."""
        fields = self.decode_stored(key)[0]
        fields.update(_values.decode_values(self, value, kinds))
        return fields

    def decode_redb_row(self, key, stored, kinds=None):
        """The whole row from the bytes the redb store keeps under ``key``
        (its table ``keyschema_rows``): the value followed by the CRC-32 of
        key and value, checked first (``ChecksumError`` when it does not
        match: damaged bytes, or another key's), then ``decode_row``."""
        return self.decode_row(key, _redb.redb_value(key, stored), kinds)

    def decode_item(self, item, kinds=None, low_level=None, partition_key="pk", sort_key="sk"):
        """The whole row of a DynamoDB item, one dict: the key's fields from
        the key attributes (``partition_key`` and, for a key with a sort
        part, ``sort_key``), then the value fields by attribute name. The
        item as boto3's low-level client gives it (``{"N": "125"}``), or as
        its resource API and ``TypeDeserializer`` give it (``Decimal``,
        ``Binary``, ``set``); ``low_level`` says which, else it is seen from
        the item."""
        return _dynamodb.decode_item(self, item, kinds, low_level, partition_key, sort_key)

    def encode_values(self, values):
        """The ordered stores' value of a row whose value fields are
        ``values`` (by name; a missing one nil): the MessagePack map, one
        entry per field in the document's order, as the Rust code writes
        it (``_write``)."""
        return _write.encode_values(self, values)

    def encode_redb_row(self, fields, values):
        """``(key, stored)``: what the redb store keeps for the row, the
        key and the map followed by the CRC-32 of key and map."""
        key = self.encode(fields)
        return key, _write.redb_stored(key, self.encode_values(values))

    def encode_cells(self, values):
        """The Bigtable cells of the row's value fields (family
        ``self.family``): ``[(qualifier, cell)]`` in qualifier order, as
        google-cloud-bigtable's ``row.set_cell(family, qualifier, cell)``
        takes them; a row whose fields are all nil has the presence cell."""
        return _write.encode_cells(self, values)

    def cbt_format_file(self):
        """The format file for ``cbt read ... format-file=PATH``, as the
        Rust ``keyschema::record::cells::cbt_format_file`` writes it."""
        return _write.cbt_format_file(self)

    def encode_item(self, fields, values, low_level=True, partition_key="pk", sort_key="sk", native=None):
        """The DynamoDB item a put of the row writes: the key attributes,
        each key field's own attribute and the value fields; as boto3's
        low-level client takes it (``{"N": "5"}``, ``B`` as bytes), or,
        with ``low_level=False``, as its resource API does (``Decimal``,
        ``bytes``). ``ValueError_`` for a row DynamoDB cannot hold (a NaN,
        nesting past 32 levels, an empty map key, more than 400 KB). An
        index's entry is in the item: ``Name_pk`` and ``Name_sk``, or, for
        a native index, its own attributes; an index is native as the
        document says (its ``dynamodb``), or, given ``native`` (a list of
        index names), when named in it."""
        if native is None:
            native = [index.name for index in self.indexes if index.dynamodb == "native"]
        item = _write.encode_item(self, fields, values, partition_key, sort_key)
        item = _write.finish_item(self, fields, values, item, native)
        return item if low_level else _dynamodb.to_resource(item)

    def projected(self, fields):
        """This schema reading only the value fields ``fields`` (a
        projection's, ``#[derive(Projection)]``): ``decode_values`` and
        ``decode_item_values`` of it read what a projected read returns."""
        return _projection.projected(self, fields)

    def dynamodb_projection(self, fields, partition_key="pk", sort_key="sk"):
        """``(ProjectionExpression, ExpressionAttributeNames)`` of a
        projected read of ``fields`` (``DynamoStore::projection_request``)."""
        return _projection.dynamodb_projection(self, fields, partition_key, sort_key)

    def bigtable_read_filter(self, fields=None):
        """The ``RowFilter`` of a typed read, of a projection's ``fields``
        when given, as JSON (``BigtableStore::read_filter_of``)."""
        return _projection.bigtable_read_filter(self, fields)

    def decode_item_values(self, item, kinds=None, low_level=None):
        """The value fields of a DynamoDB item (or of a projection of one),
        as ``decode_item`` reads them."""
        return _dynamodb.item_values(self, item, kinds, low_level)
