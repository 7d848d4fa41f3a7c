"""The package as a user meets it: the README's example, errors, options and
open range ends."""

import json
import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

import keyschema  # noqa: E402
from keyschema import OPEN, BytesExpected, ChecksumError, DecodeError, Schema, SchemaError, Some, ValueError_, redb_value  # noqa: E402


def event_schema_json():
    with open(os.path.join(HERE, "..", "..", "docs", "vectors.json"), encoding="utf-8") as f:
        vectors = json.load(f)
    return json.dumps(next(v["schema"] for v in vectors["keys"] if v["schema"]["name"] == "Event"))


class ReadmeExample(unittest.TestCase):
    def test_the_readme_examples_run(self):
        with open(os.path.join(HERE, "..", "README.md"), encoding="utf-8") as f:
            blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
        self.assertGreaterEqual(len(blocks), 3)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "events.json"), "w", encoding="utf-8") as f:
                f.write(event_schema_json())
            # The ledger line's document (tests/python_rows.rs holds it to Rust's).
            shutil.copy(os.path.join(HERE, "ledger.json"), os.path.join(d, "ledger.json"))
            cwd = os.getcwd()
            os.chdir(d)
            try:
                for code in blocks:
                    exec(compile(code, "README.md", "exec"), {})
            finally:
                os.chdir(cwd)


class Errors(unittest.TestCase):
    def setUp(self):
        self.schema = Schema.from_json(event_schema_json())

    def test_values_of_the_wrong_type_name_the_field(self):
        with self.assertRaises(ValueError_) as caught:
            self.schema.encode({"user_id": "u1", "site": 7, "timestamp": 1})
        self.assertIn("field `site`", str(caught.exception))
        with self.assertRaises(ValueError_):
            self.schema.encode({"user_id": "u1", "site": "s", "timestamp": -1})
        with self.assertRaises(ValueError_):
            self.schema.encode({"user_id": "u1", "site": "s"})

    def test_scan_fields_bind_by_name_or_in_key_order(self):
        # A dict binds by name, as encode takes it; it once read as the list
        # of its names (user_id = "user_id"): 8 ranges of another user.
        by_name = self.schema.ranges({"user_id": "u1"})
        self.assertEqual(by_name, self.schema.ranges(["u1"]))
        self.assertEqual(len(self.schema.ranges({"user_id": "u1", "site": "s"})), 1)
        with self.assertRaises(ValueError_) as caught:
            self.schema.ranges({"site": "s"})
        self.assertIn("first fields in key order (user_id, site, timestamp): site given", str(caught.exception))
        with self.assertRaises(ValueError_):
            self.schema.ranges("u1")

    def test_bad_keys_get_the_rust_errors(self):
        key = self.schema.encode({"user_id": "u1", "site": "s", "timestamp": 1700000000})
        with self.assertRaises(DecodeError) as caught:
            self.schema.decode(key[:-1])
        self.assertEqual(str(caught.exception), "key ends inside component `timestamp` at byte 6: expected 8 bytes of u64")
        self.assertTrue(self.schema.render(key + b"\x00").startswith("3|u1|s|~1700000000|!0x00 (1 unexpected bytes"))

    def test_documents_it_cannot_use_are_refused(self):
        doc = json.loads(event_schema_json())
        doc["keyschema"] = 1  # the unterminated binary prefix
        with self.assertRaises(SchemaError):
            Schema.from_json(json.dumps(doc))
        doc = json.loads(event_schema_json())
        doc["format"] = {"kind": "text", "sep": "#"}
        doc["prefix"] = b"ev#x".hex()
        with self.assertRaises(SchemaError) as caught:
            Schema.from_json(json.dumps(doc))
        self.assertIn("holds the separator", str(caught.exception))
        doc = json.loads(event_schema_json())
        doc["components"][0]["encoding"] = None
        with self.assertRaises(SchemaError) as caught:
            Schema.from_json(json.dumps(doc))
        self.assertIn("declares no encoding", str(caught.exception))

    def test_a_hex_string_where_bytes_belong_says_so(self):
        key = self.schema.encode({"user_id": "u1", "site": "s", "timestamp": 1700000000})
        ledger = Schema.load(os.path.join(HERE, "ledger.json"))
        for call in [
            lambda: self.schema.decode(key.hex()), lambda: self.schema.render(key.hex()),
            lambda: self.schema.bucket_of(key.hex()), lambda: self.schema.decode_stored(key.hex()),
            lambda: ledger.decode_row(b"INV-1\x00\x00\x02".hex(), b"\x80"),
            lambda: ledger.decode_values("80"), lambda: redb_value(b"k", "80"),
        ]:
            with self.assertRaises(TypeError) as caught:
                call()
            self.assertIsInstance(caught.exception, BytesExpected)
            self.assertIsInstance(caught.exception, ValueError_)
            self.assertIn("bytes expected, got the str", str(caught.exception))
            self.assertIn("bytes.fromhex", str(caught.exception))
        # Not bytes of a length either: bytes(5) would be five zero bytes.
        with self.assertRaises(BytesExpected) as caught:
            self.schema.decode(5)
        self.assertIn("bytes expected, got int", str(caught.exception))
        self.assertEqual(self.schema.decode(bytearray(key)), self.schema.decode(memoryview(key)))


class Redb(unittest.TestCase):
    """The bytes the redb store keeps: the value, then the CRC-32 of key and
    value, big-endian (ENCODING.md, "As redb stores it"; tests/python_redb.rs
    reads them from a real RedbStore)."""

    # ENCODING.md's example: under the key "k1", {action: "click", n: 7}.
    VALUE = bytes.fromhex("82a6616374696f6ea5636c69636ba16e07")
    STORED = VALUE + bytes.fromhex("25459d01")

    def test_the_spec_example(self):
        self.assertEqual(redb_value(b"k1", self.STORED), self.VALUE)
        # CRC-32 IEEE's check value: "123456789" is cbf43926.
        self.assertEqual(redb_value(b"1234", b"56789" + bytes.fromhex("cbf43926")), b"56789")

    def test_a_mismatch_is_a_checksum_error_naming_the_row(self):
        for key, stored in [(b"k2", self.STORED), (b"k1", self.STORED[:-1] + b"\x00"), (b"k1", b"\x80" + self.STORED[1:])]:
            with self.assertRaises(ChecksumError) as caught:
                redb_value(key, stored)
            self.assertIsInstance(caught.exception, DecodeError)
            self.assertRegex(str(caught.exception), r"^redb row k\d: checksum [0-9a-f]{8} does not match the stored [0-9a-f]{8}")
        for short in [b"", b"\x25\x45\x9d"]:
            with self.assertRaises(ChecksumError) as caught:
                redb_value(b"k1", short)
            self.assertIn("shorter than the checksum", str(caught.exception))

    def test_stored_bytes_read_as_a_map_point_to_the_redb_reader(self):
        doc = json.loads(event_schema_json())
        doc["values"] = [{"name": "action", "type": "String", "required": True}, {"name": "n", "type": "u8", "required": True}]
        schema = Schema.from_json(json.dumps(doc))
        self.assertEqual(schema.decode_values(self.VALUE), {"action": "click", "n": 7})
        with self.assertRaises(DecodeError) as caught:
            schema.decode_values(self.STORED)
        self.assertIn("4 bytes after the value", str(caught.exception))
        self.assertIn("Schema.decode_redb_row(key, stored)", str(caught.exception))


class Options(unittest.TestCase):
    def test_nested_options_and_open_ends(self):
        doc = {
            "keyschema": 2, "name": "Nested", "format": {"kind": "binary"}, "prefix": "", "salt": None, "partition": None,
            "components": [
                {"name": "maybe", "type": "Option<Option<u8>>", "order": "asc", "transform": "plain", "encoding": "Option<Option<u8>>", "fixed_width": None},
            ],
        }
        schema = Schema.from_json(json.dumps(doc))
        self.assertEqual(schema.encode([None]), b"\x00")
        self.assertEqual(schema.encode([Some(None)]), b"\x01\x00")
        self.assertEqual(schema.encode([5]), b"\x01\x01\x05")
        self.assertEqual(schema.decode(b"\x01\x00"), {"maybe": Some(None)})
        self.assertEqual(schema.render(b"\x01\x00"), "<some <none>>")
        # None is a value of the field; OPEN is an open end.
        [r] = schema.ranges([], lo=None, hi=OPEN)
        self.assertEqual((r.start, r.end), (b"\x00", None))
        [r] = schema.ranges([], lo=OPEN, hi=None, hi_inclusive=True)
        self.assertEqual((r.start, r.end), (b"", b"\x01"))


if __name__ == "__main__":
    unittest.main()
