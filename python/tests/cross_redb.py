"""Rows from the bytes the redb store keeps (tests/python_redb.rs writes
them with ``RedbStore``, reads its table raw and sets KEYSCHEMA_REDB_ROWS):
each row's key, its stored bytes (the value fields' MessagePack map, then
the CRC-32 of key and value) and its fields as serde's JSON. Python must
read every row whole from those bytes, and refuse them, naming the
checksum, when a byte is flipped or the bytes are another key's. Not
discovered by ``unittest discover`` (its name does not begin with
``test``): run as ``python3 -m unittest tests.cross_redb`` from
``python/``."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from keyschema import ChecksumError, DecodeError, Schema, redb_value  # noqa: E402

ROWS = os.environ.get("KEYSCHEMA_REDB_ROWS")


@unittest.skipIf(ROWS is None, "KEYSCHEMA_REDB_ROWS is not set (tests/python_redb.rs sets it)")
class CrossRedb(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(ROWS, encoding="utf-8") as f:
            cls.schema = Schema.from_json(json.dumps(json.loads(f.readline())["schema"]))
            cls.rows = [json.loads(line) for line in f]
        for row in cls.rows:
            row["key"], row["stored"] = bytes.fromhex(row["key"]), bytes.fromhex(row["stored"])

    def test_every_row_from_its_stored_bytes(self):
        agree = 0
        for row in self.rows:
            key, stored = row["key"], row["stored"]
            self.assertEqual(self.schema.decode_redb_row(key, stored), row["fields"], row["key"].hex())
            self.assertEqual(redb_value(key, bytearray(stored)), stored[:-4])
            # The stored bytes are not one MessagePack value: read as the
            # map alone, the error says what they are and what reads them.
            with self.assertRaises(DecodeError) as caught:
                self.schema.decode_row(key, stored)
            self.assertIn("decode_redb_row", str(caught.exception))
            agree += 1
        sys.stderr.write("redb rows: %d rows, %d agree\n" % (len(self.rows), agree))

    def test_damaged_or_misplaced_bytes_are_a_checksum_error(self):
        flipped = others = 0
        for i, row in enumerate(self.rows):
            key, stored = row["key"], row["stored"]
            bad = bytearray(stored)
            bad[i % len(bad)] ^= 1 << (i % 8)
            with self.assertRaises(ChecksumError) as caught:
                self.schema.decode_redb_row(key, bytes(bad))
            self.assertIn("checksum", str(caught.exception))
            self.assertIn("does not match", str(caught.exception))
            flipped += 1
            other = self.rows[(i + 1) % len(self.rows)]["key"]
            with self.assertRaises(ChecksumError):
                redb_value(other, stored)
            others += 1
        with self.assertRaises(ChecksumError) as caught:
            redb_value(self.rows[0]["key"], self.rows[0]["stored"][:3])
        self.assertIn("shorter than the checksum", str(caught.exception))
        n = len(self.rows)
        self.assertEqual((flipped, others), (n, n))
        sys.stderr.write("redb damage: %d flipped, %d other keys, %d refused each\n" % (flipped, others, n))


if __name__ == "__main__":
    unittest.main()
