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

The modules, one concept each: ``_errors`` (the exceptions), ``_limits``,
``_encoding`` (the binary component encodings), ``_text`` (text keys),
``_render`` (keys for a person), ``_scan`` (scan ranges), ``_schema`` (the
schema document and whole keys), ``_history`` (layout histories), ``_json``
(values as JSON), ``_types`` (uuid, times, enums), and a row's value
fields: ``_values`` (the ordered stores' map and Bigtable's cells),
``_redb`` (the redb store's stored bytes: the map and a CRC-32),
``_dynamodb`` (items), ``_msgpack`` (a MessagePack reader) and ``_write``
(a row's map, redb bytes, cells and items, written).
"""

from . import _types
from ._encoding import (
    _EXPECTED,
    _INTS,
    _TEXT_DIGITS,
    Encoding,
    Some,
    _bits_range,
    _bucket_value,
    _check,
    _decode_plain,
    _escape,
    _float_bits,
    _float_from,
    _Reader,
    _same,
    encode_plain,
)
from ._errors import BytesExpected, ChecksumError, DecodeError, SchemaError, ValueError_
from ._json import value_from_json, value_to_json
from ._limits import MAX_BUCKET_EXPANSION, MAX_BUCKETS, MAX_COMPONENTS, MAX_KEY_LEN, MAX_NESTING
from ._msgpack import Ext, decode_msgpack
from ._redb import redb_value
from ._render import (
    _escape_ascii,
    _escape_char,
    _f32,
    _neighbours,
    _render_plain,
    _rust_float,
    _shortest_digits,
)
from ._scan import OPEN, Range, _bounds_under, _Open, _prefix_successor
from ._schema import (
    HISTORY_VERSION,
    VERSION,
    Component,
    Field,
    Schema,
    salt_bucket,
)
from ._header import _read_salt, _written_prefix
from ._text import (
    _complement,
    _text_escape,
    _text_unescape,
    _TextError,
    _unhex,
    decode_text,
    encode_text,
)
from ._types import Date, DateTime, Timestamp
from ._values import ValueField, value_kind
from ._write import F32, item_size

__all__ = [
    "item_size",
    "Schema",
    "Some",
    "DecodeError",
    "SchemaError",
    "ValueError_",
    "BytesExpected",
    "ChecksumError",
    "redb_value",
    "Range",
    "OPEN",
    "MAX_KEY_LEN",
    "MAX_NESTING",
    "salt_bucket",
    "value_from_json",
    "value_to_json",
    "Encoding",
    "Timestamp",
    "DateTime",
    "Date",
    "decode_msgpack",
    "Ext",
    "ValueField",
    "value_kind",
    "F32",
]
