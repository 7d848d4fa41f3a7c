"""The value vectors of docs/vectors.json ("Vectors for whole rows"), read
and written by the Python package from the schema document alone: each
row's MessagePack map (memory), redb's stored bytes, Bigtable's cells and
the DynamoDB item, both ways; and the refusals."""

import base64
import json
import math
import os
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

import keyschema  # noqa: E402
from keyschema import F32, DecodeError, Schema, ValueError_, decode_msgpack  # noqa: E402


def load():
    with open(os.path.join(HERE, "..", "..", "docs", "vectors.json"), encoding="utf-8") as f:
        return json.load(f)


def from_model(j):
    """The Python value of a data-model JSON value."""
    if isinstance(j, list):
        return [from_model(x) for x in j]
    if isinstance(j, dict):
        [(tag, v)] = j.items()
        if tag == "f32":
            return F32(float(v))
        if tag == "f64":
            return float(v)
        if tag == "bytes":
            return bytes.fromhex(v)
        if tag == "map":
            return {_key(from_model(k)): from_model(x) for k, x in v}
        raise AssertionError(tag)
    return j


def _key(k):
    return tuple(k) if isinstance(k, list) else k


def canon(v):
    """A comparable form: floats by their bits (-0.0 and NaN exact)."""
    if isinstance(v, float):
        return ("float", struct.pack(">d", v))
    if isinstance(v, (list, tuple)):
        return ("list", [canon(x) for x in v])
    if isinstance(v, dict):
        return ("map", [(canon(k), canon(x)) for k, x in v.items()])
    return (type(v).__name__, v)


def typed(field, v):
    """A field's data-model value as ``decode_values`` gives it by kind."""
    if v is None:
        return None
    if field.kind in ("i128", "u128") and isinstance(v, bytes):
        return int.from_bytes(v, "big", signed=field.kind == "i128")
    if field.kind in ("f32", "f64"):
        return float(v)
    return v


def unbase64(item):
    def one(a):
        [(tag, v)] = a.items()
        if tag == "B":
            return {"B": base64.b64decode(v)}
        if tag == "L":
            return {"L": [one(x) for x in v]}
        if tag == "M":
            return {"M": {k: one(x) for k, x in v.items()}}
        return a
    return {k: one(a) for k, a in item.items()}


def dynamo_normal(field, v):
    """What DynamoDB keeps of a value: no -0.0, and no float kind in a
    field read by shape (a whole float reads back as an integer)."""
    if isinstance(v, float):
        if field.kind not in ("f32", "f64") and v == int(v):
            return int(v)
        return 0.0 if v == 0 else v
    if isinstance(v, list):
        return [dynamo_normal(field, x) for x in v]
    if isinstance(v, dict):
        return {k: dynamo_normal(field, x) for k, x in v.items()}
    return v


class ValueVectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vectors = load()

    def rows(self):
        for v in self.vectors["values"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            values = {name: from_model(j) for name, j in v["values"].items()}
            yield v, schema, values

    def test_the_map_reads_as_its_data_model_and_is_written_back(self):
        for v, schema, values in self.rows():
            with self.subTest(v["what"]):
                memory = bytes.fromhex(v["memory"])
                stored = decode_msgpack(memory)
                self.assertEqual(list(stored), [f.name for f in schema.values], "in declaration order")
                self.assertEqual(canon(dict(sorted(stored.items()))), canon(dict(sorted(values.items()))))
                read = schema.decode_values(memory)
                expected = {f.name: typed(f, values[f.name]) for f in schema.values}
                self.assertEqual(canon(read), canon(expected))
                self.assertEqual(schema.encode_values(values).hex(), v["memory"])

    def test_redb_bytes_read_and_are_written(self):
        for v, schema, values in self.rows():
            with self.subTest(v["what"]):
                key, stored = schema.encode_redb_row(v["fields"], values)
                self.assertEqual(key.hex(), v["key"])
                self.assertEqual(stored.hex(), v["redb"])
                row = schema.decode_redb_row(key, stored)
                self.assertEqual(row["id"], v["fields"]["id"])

    def test_cells_read_and_are_written(self):
        for v, schema, values in self.rows():
            with self.subTest(v["what"]):
                cells = [(q.encode("utf-8"), bytes.fromhex(c)) for q, c in v["bigtable"]]
                self.assertEqual(schema.encode_cells(values), cells)
                read = schema.decode_values(dict(cells))
                expected = {f.name: typed(f, values[f.name]) for f in schema.values}
                self.assertEqual(canon(read), canon(expected))

    def test_items_read_and_are_written(self):
        for v, schema, values in self.rows():
            with self.subTest(v["what"]):
                if "error" in v["dynamodb"]:
                    with self.assertRaises(ValueError_):
                        schema.encode_item(v["fields"], values)
                    continue
                item = unbase64(v["dynamodb"]["item"])
                self.assertEqual(schema.encode_item(v["fields"], values), item)
                for shape in (item, keyschema._dynamodb.to_resource(item)):
                    row = schema.decode_item(shape)
                    self.assertEqual(row["id"], v["fields"]["id"])
                    expected = {f.name: dynamo_normal(f, typed(f, values[f.name])) for f in schema.values}
                    self.assertEqual(canon({f.name: row[f.name] for f in schema.values}), canon(expected))

    def test_refusals(self):
        """Each refusal, with the Rust reader's (or writer's) message: a
        write DynamoDB cannot hold (the store adds the item's index and key,
        and that nothing was sent), a stored form that does not read."""
        for v in self.vectors["value_refusals"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            with self.subTest(v["what"]):
                given = v["input"]
                if v["store"] == "dynamodb" and "item" in given:
                    item = unbase64(given["item"])
                    for shape in (item, keyschema._dynamodb.to_resource(item)):
                        with self.assertRaises(DecodeError) as caught:
                            schema.decode_item_values(shape)
                        self.assertEqual(str(caught.exception), v["error"])
                    continue
                if v["store"] == "dynamodb":
                    values = {name: from_model(j) for name, j in given["values"].items()}
                    fields = schema.decode(bytes.fromhex(given["key"]))
                    with self.assertRaises(ValueError_) as caught:
                        schema.encode_item(fields, values)
                    key = keyschema._dynamodb._escaped(bytes.fromhex(given["key"]))
                    self.assertEqual("item 0 (key %s): %s; nothing was sent" % (key, caught.exception), v["error"])
                    continue
                if v["store"] == "bigtable":
                    cells = {q.encode("utf-8"): bytes.fromhex(c) for q, c in given["cells"]}
                    with self.assertRaises(DecodeError) as caught:
                        schema.decode_values(cells)
                else:
                    with self.assertRaises(DecodeError) as caught:
                        schema.decode_values(bytes.fromhex(given["memory"]))
                self.assertEqual(str(caught.exception), v["error"])

    def test_user_types_read_by_their_shape(self):
        """The `address` (a struct) and `status` (an enum) fields are read
        by the document's `types`, not as stored: a stored struct without
        its field `city` or an unknown variant is refused in every form, as
        the Rust typed read refuses it (serde's words, the reader's
        framing), and refused to the writer alike."""
        prefix = "value field `%s` does not read as its declared type: "
        unknown = "unknown variant `Purple`, expected one of `Draft`, `Paid`, `Note`"
        checked = 0
        for v, schema, values in self.rows():
            if "Address" not in v["schema"].get("types", {}):
                continue
            checked += 1
            with self.subTest(v["what"]):
                address = {k: x for k, x in values["address"].items() if k != "city"}
                refusals = [
                    ("address", address, "found a map of 1 entry: missing field `city`",
                     "found a map (M): missing field `city`", "found a map of 1 entry: missing field `city`"),
                    ("status", "Purple", 'found the string "Purple": ' + unknown,
                     'found a string (S) "Purple": ' + unknown, unknown),
                ]
                for field, bad, memory, dynamodb, cell in refusals:
                    stored = dict(values, **{field: bad})
                    raw = bytes(keyschema._write.pack(stored))
                    with self.assertRaises(DecodeError) as caught:
                        schema.decode_values(raw)
                    self.assertEqual(str(caught.exception), prefix % field + memory)
                    item = unbase64(v["dynamodb"].get("item", {}))
                    item[field] = keyschema._write.attribute(bad, field)
                    for shape in (item, keyschema._dynamodb.to_resource(item)):
                        with self.assertRaises(DecodeError) as caught:
                            schema.decode_item_values(shape)
                        self.assertEqual(str(caught.exception), prefix % field + dynamodb)
                    cells = {q.encode("utf-8"): bytes.fromhex(c) for q, c in v["bigtable"]}
                    cells[field.encode("utf-8")] = bad.encode("utf-8") if isinstance(bad, str) else raw_of(bad)
                    with self.assertRaises(DecodeError) as caught:
                        schema.decode_values(cells)
                    self.assertEqual(str(caught.exception), prefix % field + cell)
                    for write in (lambda: schema.encode_values(stored), lambda: schema.encode_cells(stored),
                                  lambda: schema.encode_item(v["fields"], stored)):
                        with self.assertRaises(ValueError_) as caught:
                            write()
                        self.assertEqual(str(caught.exception), prefix % field + memory)
        self.assertGreater(checked, 0, "the vectors hold user types")


def raw_of(v):
    return bytes(keyschema._write.pack(v))


if __name__ == "__main__":
    unittest.main()
