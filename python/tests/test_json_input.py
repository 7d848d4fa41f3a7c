"""Values as JSON read strictly (ENCODING.md, "Values as JSON"): every value
has one JSON form, and a reader refuses any other rather than guess."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

from keyschema import Encoding, Schema, Some, ValueError_, value_from_json  # noqa: E402
from test_value_vectors import load  # noqa: E402


def read(encoding, j):
    return value_from_json(Encoding.parse(encoding), j)


class StrictJsonInput(unittest.TestCase):
    def test_the_one_form_of_each_value_reads(self):
        self.assertEqual(read("u8", 7), 7)
        self.assertEqual(read("i128", -(1 << 127)), -(1 << 127))
        self.assertEqual(read("f64", 7), 7.0)
        self.assertEqual(read("f32", 1.5), 1.5)
        self.assertEqual(read("Vec<u8>", "00ff"), b"\x00\xff")
        self.assertEqual(read("[u8; 2]", "00ff"), b"\x00\xff")
        self.assertEqual(read("bool", True), True)
        self.assertEqual(read("char", "é"), "é")
        self.assertEqual(read("Option<Option<u8>>", {"some": None}), Some(None))
        self.assertEqual(str(read("uuid", "0192d4e8-7c3a-7b1e-9f00-123456789abc")), "0192d4e8-7c3a-7b1e-9f00-123456789abc")

    def test_every_other_form_is_refused(self):
        for encoding, j in [
            ("u8", 7.0),                 # an integer written as a float
            ("u8", 7e0),
            ("u8", True),                # a bool is no integer
            ("u8", "7"),
            ("u8", 256),                 # out of the type's range
            ("i8", -129),
            ("f64", True),
            ("f64", "1.5"),              # only the four special strings
            ("f64", "nan"),
            ("bool", 1),
            ("String", 5),
            ("char", "ab"),
            ("char", ""),
            ("Vec<u8>", "00FF"),         # uppercase hex
            ("Vec<u8>", "0"),
            ("Vec<u8>", "0x00"),
            ("[u8; 2]", "00"),           # the wrong length
            ("uuid", "0192D4E8-7C3A-7B1E-9F00-123456789ABC"),
            ("Option<u8>", {"some": 1, "x": 2}),   # a member besides `some`
            ("Option<u8>", {"Some": 1}),
            ("Option<u8>", 7.0),
            ("Option<u8>", {"some": 1}),       # {"some": v} only around null or an object
        ]:
            with self.subTest(encoding=encoding, json=j):
                with self.assertRaises(ValueError_):
                    read(encoding, j)


class JsonValueVectors(unittest.TestCase):
    """docs/vectors.json's ``json_value_refusals``: each object of a key's
    fields is read into the same fields and key as the Rust reader's, or
    refused with its message, word for word."""

    def test_each_vector(self):
        vectors = load()["json_value_refusals"]
        self.assertGreater(len(vectors), 30)
        for v in vectors:
            schema = Schema.from_json(json.dumps(v["schema"]))
            with self.subTest(v["what"]):
                if "error" in v:
                    with self.assertRaises(ValueError_) as caught:
                        schema.fields_from_json(v["json"])
                    self.assertEqual(str(caught.exception), v["error"])
                    continue
                fields = schema.fields_from_json(v["json"])
                self.assertEqual(schema.encode(fields).hex(), v["key"])
                expected = {f.name: value_from_json(f.encoding, v["fields"][f.name]) for f in schema.fields}
                self.assertEqual(list(fields), list(expected))
                for name in fields:
                    # Floats by their bits: -0.0 and NaN as the key holds them.
                    self.assertEqual(repr(fields[name]), repr(expected[name]), name)


if __name__ == "__main__":
    unittest.main()
