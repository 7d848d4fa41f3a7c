"""A row as the redb store keeps it (ENCODING.md, "Value fields", the
ordered stores): the table ``keyschema_rows`` of the file
``keyschema.redb``, from the key's bytes to the value's bytes followed by 4
more, the CRC-32 (IEEE, as ``zlib.crc32``) of the key then the value,
big-endian. The memory store keeps the value alone."""

import zlib

from ._errors import ChecksumError, need_bytes
from ._render import _escape_ascii

CHECKSUM_LEN = 4


def redb_value(key, stored):
    """The value of a row from the bytes redb stores for ``key``, after
    checking their CRC-32 against the key and the value: ``ChecksumError``
    when it does not match (the bytes are damaged, or another key's) or the
    bytes are too short to hold it."""
    key = need_bytes(key, "key")
    stored = need_bytes(stored, "stored value")
    at = "redb row %s" % _escape_ascii(key)
    if len(stored) < CHECKSUM_LEN:
        raise ChecksumError("%s: %d stored bytes, shorter than the checksum (redb stores the value, then a 4-byte CRC-32 of key and value)" % (at, len(stored)))
    value = stored[:-CHECKSUM_LEN]
    expected = int.from_bytes(stored[-CHECKSUM_LEN:], "big")
    actual = zlib.crc32(value, zlib.crc32(key))
    if actual != expected:
        raise ChecksumError("%s: checksum %08x does not match the stored %08x: the bytes are damaged, or not this key's row" % (at, actual, expected))
    return value
