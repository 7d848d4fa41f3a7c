"""The DynamoDB item vectors of docs/vectors.json (ENCODING.md, "Value fields
on DynamoDB", "Refusals, and their messages"): each float's ``N`` at the
edges of DynamoDB's number range and every refusal beyond it
(``dynamodb_items``), the item size DynamoDB counts at its 400 KB limit
and one byte over (``dynamodb_sizes``); written and refused by the Python
package from the schema document alone, with the Rust code's messages."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

import keyschema  # noqa: E402
from keyschema import Schema, ValueError_, item_size  # noqa: E402
from test_value_vectors import canon, from_model, load, typed, unbase64  # noqa: E402


def framed(key, error):
    """A Python refusal in the Rust store's batch framing: the item's index
    and key before, that nothing was sent after."""
    return "item 0 (key %s): %s; nothing was sent" % (keyschema._dynamodb._escaped(bytes.fromhex(key)), error)


def values_of(v):
    """A vector's values, a ``{"fill": ...}`` field expanded."""
    out = {}
    for name, j in v["values"].items():
        if isinstance(j, dict) and "fill" in j:
            out[name] = j["fill"]["char"] * j["fill"]["length"]
        else:
            out[name] = from_model(j)
    return out


def dynamo_normal(field, v):
    """What DynamoDB keeps of a value: no -0.0, and no float kind in a field
    read by shape (an ``N`` reads as an integer when it is a whole number
    that fits 64 bits, i64 or u64)."""
    if isinstance(v, float):
        if field.kind not in ("f32", "f64") and v == int(v) and -(1 << 63) <= int(v) < (1 << 64):
            return int(v)
        return 0.0 if v == 0 else v
    if isinstance(v, list):
        return [dynamo_normal(field, x) for x in v]
    if isinstance(v, dict):
        return {k: dynamo_normal(field, x) for k, x in v.items()}
    return v


class ItemVectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vectors = load()

    def test_numbers_are_written_read_or_refused_with_the_message(self):
        for v in self.vectors["dynamodb_items"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            values = values_of(v)
            with self.subTest(v["what"]):
                if "error" in v["dynamodb"]:
                    with self.assertRaises(ValueError_) as caught:
                        schema.encode_item(v["fields"], values)
                    self.assertEqual(framed(v["key"], caught.exception), v["dynamodb"]["error"])
                    continue
                item = unbase64(v["dynamodb"]["item"])
                self.assertEqual(schema.encode_item(v["fields"], values), item)
                for shape in (item, keyschema._dynamodb.to_resource(item)):
                    row = schema.decode_item(shape)
                    expected = {f.name: dynamo_normal(f, typed(f, values[f.name])) for f in schema.values}
                    self.assertEqual(canon({f.name: row[f.name] for f in schema.values}), canon(expected))

    def test_sizes_are_counted_as_dynamodb_counts_them(self):
        for v in self.vectors["dynamodb_sizes"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            values = values_of(v)
            with self.subTest(v["what"]):
                if "error" in v["dynamodb"]:
                    with self.assertRaises(ValueError_) as caught:
                        schema.encode_item(v["fields"], values)
                    self.assertEqual(framed(v["key"], caught.exception), v["dynamodb"]["error"])
                    continue
                item = schema.encode_item(v["fields"], values)
                self.assertEqual(item_size(item), v["dynamodb"]["size"])
                row = schema.decode_item(item)
                self.assertEqual(row["text"], values["text"])

    def test_the_documented_number_sizes(self):
        # ENCODING.md: "-1 is 3 bytes, 1.5 3, 0.25 2, 100 2, 1234 3".
        for text, size in (("-1", 3), ("1.5", 3), ("0.25", 2), ("100", 2), ("1234", 3), ("0", 1)):
            self.assertEqual(item_size({"": {"N": text}}), size, text)


if __name__ == "__main__":
    unittest.main()
