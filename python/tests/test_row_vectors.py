"""More whole-row vectors of docs/vectors.json (ENCODING.md, "Nested f32s and
times"): ``values_f32`` and ``values_times``, in the ``values`` table's shape,
read and written by the Python package from the schema document alone as
test_value_vectors.py does the ``values`` table (the map, redb's bytes, the
cells, the item in both shapes); and ``value_f32_refusals``: a nested
``f32`` beyond its range, refused with the Rust message where the document
gives the field's kind (an ``Option<f32>`` cell), read as the float it is
where only the Rust type knows (inside a ``Vec`` or a struct)."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

import keyschema  # noqa: E402
from keyschema import DecodeError, Schema, decode_msgpack  # noqa: E402
from test_value_vectors import canon, from_model, load, typed, unbase64  # noqa: E402
from test_item_vectors import dynamo_normal as item_normal  # noqa: E402
from keyschema import F32  # noqa: E402
from keyschema._write import number_text  # noqa: E402


def dynamo_normal(field, v):
    """What DynamoDB keeps of a value (test_item_vectors), and an ``f32``
    nested in a value read without its type: the double its ``N`` text
    reads as (``0.1``, not the f32 0.10000000149...)."""
    if isinstance(v, F32) and field.kind != "f32":
        return item_normal(field, float(number_text(v)))
    if isinstance(v, list):
        return [dynamo_normal(field, x) for x in v]
    if isinstance(v, dict):
        return {k: dynamo_normal(field, x) for k, x in v.items()}
    return item_normal(field, v)

TABLES = ("values_f32", "values_times")


class RowVectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vectors = load()

    def rows(self):
        for table in TABLES:
            for v in self.vectors[table]:
                schema = Schema.from_json(json.dumps(v["schema"]))
                values = {name: from_model(j) for name, j in v["values"].items()}
                yield "%s: %s" % (table, v["what"]), v, schema, values

    def test_the_map_reads_as_its_data_model_and_is_written_back(self):
        for what, v, schema, values in self.rows():
            with self.subTest(what):
                memory = bytes.fromhex(v["memory"])
                stored = decode_msgpack(memory)
                self.assertEqual(list(stored), [f.name for f in schema.values], "in declaration order")
                self.assertEqual(canon(dict(sorted(stored.items()))), canon(dict(sorted(values.items()))))
                read = schema.decode_values(memory)
                expected = {f.name: typed(f, values[f.name]) for f in schema.values}
                self.assertEqual(canon(read), canon(expected))
                self.assertEqual(schema.encode_values(values).hex(), v["memory"])

    def test_keys_and_redb_bytes(self):
        for what, v, schema, values in self.rows():
            with self.subTest(what):
                fields = schema.decode(bytes.fromhex(v["key"]))
                self.assertEqual(schema.encode(fields).hex(), v["key"])
                key, stored = schema.encode_redb_row(fields, values)
                self.assertEqual(key.hex(), v["key"])
                self.assertEqual(stored.hex(), v["redb"])

    def test_cells_read_and_are_written(self):
        for what, v, schema, values in self.rows():
            with self.subTest(what):
                cells = [(q.encode("utf-8"), bytes.fromhex(c)) for q, c in v["bigtable"]]
                self.assertEqual(schema.encode_cells(values), cells)
                read = schema.decode_values(dict(cells))
                expected = {f.name: typed(f, values[f.name]) for f in schema.values}
                self.assertEqual(canon(read), canon(expected))

    def test_items_read_and_are_written(self):
        for what, v, schema, values in self.rows():
            with self.subTest(what):
                fields = schema.decode(bytes.fromhex(v["key"]))
                item = unbase64(v["dynamodb"]["item"])
                self.assertEqual(schema.encode_item(fields, values), item)
                for shape in (item, keyschema._dynamodb.to_resource(item)):
                    row = schema.decode_item(shape)
                    expected = {f.name: dynamo_normal(f, typed(f, values[f.name])) for f in schema.values}
                    self.assertEqual(canon({f.name: row[f.name] for f in schema.values}), canon(expected))

    def test_a_nested_f32_beyond_its_range(self):
        for v in self.vectors["value_f32_refusals"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            given = v["input"]
            with self.subTest(v["what"]):
                if v["store"] == "bigtable":
                    cells = {q.encode("utf-8"): bytes.fromhex(c) for q, c in given["cells"]}
                    with self.assertRaises(DecodeError) as caught:
                        schema.decode_values(cells)
                    # The field and the reason as Rust words them; Python's
                    # reader adds the kind after "declared type" ("(f32)").
                    field, reason = v["error"].split(" does not read as its declared type: ")
                    self.assertTrue(str(caught.exception).startswith(field + " does not read as its declared type"))
                    self.assertTrue(str(caught.exception).endswith(": " + reason), str(caught.exception))
                elif v["store"] == "memory":
                    read = schema.decode_values(bytes.fromhex(given["memory"]))
                    self.assertEqual(read["list"], [1e39])
                else:
                    row = schema.decode_item(unbase64(given["item"]))
                    self.assertEqual(row["inner"], {"x": -1e39})


if __name__ == "__main__":
    unittest.main()
