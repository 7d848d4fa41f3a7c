"""More whole-row vectors of docs/vectors.json (ENCODING.md, "Nested f32s and
times"): ``values_f32`` and ``values_times``, in the ``values`` table's shape,
read and written by the Python package from the schema document alone as
test_value_vectors.py does the ``values`` table (the map, redb's bytes, the
cells, the item in both shapes); and ``value_f32_refusals``: a nested
``f32`` beyond its range, refused with the Rust message where the document
gives the field's kind (an ``Option<f32>`` cell), read as the float it is
where only the Rust type knows (inside a struct of the user's)."""

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
from test_item_vectors import dynamo_normal  # noqa: E402
from keyschema import F32  # noqa: E402


def dynamo_same(field, expected, read):
    """Whether ``read`` is what DynamoDB gives back of ``expected``: an
    ``f32`` anywhere is the same f32 (its ``N`` is the f32's own decimal, which
    a reader may read as a double or as the f32: ``0.1``), anything else
    as ``dynamo_normal`` says (no -0.0), a whole float as that number, of
    either kind."""
    if isinstance(expected, F32):
        return isinstance(read, (int, float)) and not isinstance(read, bool) and F32(read) == expected
    if isinstance(expected, float):
        # DynamoDB's N has no kind: a whole float may read as an integer
        # (a field read by shape) or as the float (one read by its type).
        return isinstance(read, (int, float)) and not isinstance(read, bool) and read == expected
    if isinstance(expected, (list, tuple)):
        return isinstance(read, (list, tuple)) and len(read) == len(expected) and all(
            dynamo_same(field, e, r) for e, r in zip(expected, read))
    if isinstance(expected, dict):
        return isinstance(read, dict) and sorted(read) == sorted(expected) and all(
            dynamo_same(field, expected[k], read[k]) for k in expected)
    return canon(dynamo_normal(field, expected)) == canon(read)


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
                    for f in schema.values:
                        self.assertTrue(dynamo_same(f, typed(f, values[f.name]), row[f.name]), (f.name, row[f.name]))

    def test_a_nested_f32_beyond_its_range(self):
        for v in self.vectors["value_f32_refusals"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            given = v["input"]
            with self.subTest(v["what"]):
                if v["store"] == "bigtable":
                    cells = {q.encode("utf-8"): bytes.fromhex(c) for q, c in given["cells"]}
                    with self.assertRaises(DecodeError) as caught:
                        schema.decode_values(cells)
                    # The whole message, as Rust words it.
                    self.assertEqual(str(caught.exception), v["error"])
                elif v["store"] == "memory":
                    # A reader that reads a nested value by its declared type
                    # (Vec<f32>) refuses it with the Rust message; one that
                    # reads it as stored gives the float.
                    try:
                        read = schema.decode_values(bytes.fromhex(given["memory"]))
                    except DecodeError as e:
                        self.assertEqual(str(e), v["error"])
                    else:
                        self.assertEqual(read["list"], [1e39])
                else:
                    # `inner` is a struct of the user's the document's
                    # `types` lists: read by its shape, refused as Rust does.
                    with self.assertRaises(DecodeError) as caught:
                        schema.decode_item(unbase64(given["item"]))
                    self.assertEqual(str(caught.exception), v["error"])


if __name__ == "__main__":
    unittest.main()
