"""``MAX_NESTING``: a value field's value nests at most 128 levels of lists
and maps, written and read, as the Rust side holds it
(tests/value_nesting.rs)."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

import keyschema  # noqa: E402
from keyschema import DecodeError, Schema, ValueError_  # noqa: E402

DOCS = os.path.join(HERE, "..", "..", "docs")


def load_vectors():
    with open(os.path.join(DOCS, "vectors.json"), encoding="utf-8") as f:
        return json.load(f)


def nested(levels):
    v = 1
    for _ in range(levels):
        v = [v]
    return v


class Nesting(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        row = load_vectors()["value_refusals"][0]
        cls.schema = Schema.from_json(json.dumps(row["schema"]))
        cls.field = next(f.name for f in cls.schema.values if f.type_name.endswith("Value"))

    def test_the_limit_is_128(self):
        self.assertEqual(keyschema.MAX_NESTING, 128)

    def test_a_deeper_value_is_refused_when_written(self):
        with self.assertRaises(ValueError_) as caught:
            self.schema.encode_values({self.field: nested(129)})
        self.assertIn("value field `%s`" % self.field, str(caught.exception))
        self.assertIn("nests deeper than 128 levels of lists and maps", str(caught.exception))

    def test_a_row_500_levels_deep_is_refused_when_read(self):
        value = bytes([0x81, 0xa0 | len(self.field)]) + self.field.encode() + bytes([0x91] * 500) + b"\x01"
        with self.assertRaises(DecodeError):
            self.schema.decode_values(value)


if __name__ == "__main__":
    unittest.main()


class ShapeWrites(unittest.TestCase):
    def test_a_transparent_field_is_checked_by_its_shape_when_written(self):
        base = load_vectors()["value_refusals"][0]["schema"]
        doc = dict(base)
        doc["values"] = [{"name": "wrapped", "type": "Wrapped", "shape": "Vec<i64>", "required": True}]
        doc.pop("types", None)
        schema = Schema.from_json(json.dumps(doc))
        schema.encode_values({"wrapped": [1, -2]})
        for bad in ([2 ** 63], ["x"], [1.5], "str"):
            with self.assertRaises(ValueError_):
                schema.encode_values({"wrapped": bad})
