"""The cross-language check of whole rows: value fields the Rust side wrote
(tests/python_rows.rs sets KEYSCHEMA_ROWS_DIR) as the ordered stores'
MessagePack map and as Bigtable's cell map, with the row as serde's JSON;
Python must read the same values from each, from the cells as a Bigtable
client gives them, and from the DynamoDB items of the row. Not discovered by
``unittest discover`` (its name does not begin with ``test``): run as
``python3 -m unittest tests.cross_rows`` from ``python/``."""

import decimal
import json
import math
import os
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from keyschema import Schema  # noqa: E402

ROWS = os.environ.get("KEYSCHEMA_ROWS_DIR")
BOTO3 = os.environ.get("KEYSCHEMA_ROWS_BOTO3")


def load():
    with open(os.path.join(ROWS, "rows.jsonl"), encoding="utf-8") as f:
        header = json.loads(f.readline())
        rows = [json.loads(line) for line in f]
    schemas = {name: Schema.from_json(json.dumps(doc)) for name, doc in header["schemas"].items()}
    return schemas, header["kinds"], rows


def plain(v):
    """A decoded value as serde's JSON writes it: bytes as a list of
    integers, tuples as lists."""
    if isinstance(v, (bytes, bytearray)):
        return list(v)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def expected(schema, row):
    """The value fields of a row's JSON, an ``f32`` rounded to its width
    (serde's JSON writes its shortest decimal)."""
    out = {}
    for f in schema.values:
        v = row["fields"][f.name]
        if f.kind == "f32" and v is not None:
            v = struct.unpack(">f", struct.pack(">f", v))[0]
        out[f.name] = v
    return out


def same(a, b):
    """Equal, a float equal to the integer a DynamoDB ``N`` makes of it (and
    ``-0.0`` to ``0``: ``N`` has no negative zero), NaN to NaN."""
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def attribute(v):
    """A decoded value as boto3's low-level client gives its attribute, by
    ENCODING.md's table ("Value fields on DynamoDB")."""
    if v is None:
        return {"NULL": True}
    if isinstance(v, bool):
        return {"BOOL": v}
    if isinstance(v, int):
        return {"N": str(v)}
    if isinstance(v, float):
        return {"N": repr(v)}
    if isinstance(v, str):
        return {"S": v}
    if isinstance(v, bytes):
        return {"B": v}
    if isinstance(v, (list, tuple)):
        return {"L": [attribute(x) for x in v]}
    return {"M": {k: attribute(x) for k, x in v.items()}}


def floats(v):
    if isinstance(v, float):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from floats(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from floats(x)


def dynamodb_number(v):
    """Whether DynamoDB's ``N`` holds the float (ENCODING.md: 1E-130 to
    9.9999999999999999999999999999999999999E+125 in magnitude, or zero; no
    float lies between that and 1e126)."""
    return v == 0 or 1e-130 <= abs(v) < 1e126


class Binary:
    """boto3.dynamodb.types.Binary's shape: the bytes in ``.value``."""

    def __init__(self, value):
        self.value = value


def resource_form(a):
    """A low-level attribute as boto3's resource API gives it."""
    [(tag, v)] = a.items()
    if tag == "N":
        return decimal.Decimal(v)
    if tag == "B":
        return Binary(v)
    if tag == "NULL":
        return None
    if tag == "L":
        return [resource_form(x) for x in v]
    if tag == "M":
        return {k: resource_form(x) for k, x in v.items()}
    return v


class Cell:
    """google-cloud-bigtable's Cell: ``.value``; its data client's also has
    ``.family`` and ``.qualifier``."""

    def __init__(self, family, qualifier, value):
        self.family, self.qualifier, self.value = family, qualifier, value


def low_level_item(schema, row, values):
    item = {"pk": {"B": bytes.fromhex(row["pk"])}}
    if row["sk"]:
        item["sk"] = {"B": bytes.fromhex(row["sk"])}
    for f in schema.fields:                   # each key field's own attribute, as Rust writes it
        v = row["fields"][f.name]
        item[f.name] = {"S": v} if isinstance(v, str) else {"N": str(v)}
    kinds = {f.name: f.kind for f in schema.values}
    for name, v in values.items():
        if v is None:                         # a nil field has no attribute (ENCODING.md)
            continue
        if kinds[name] in ("i128", "u128"):   # the map's bin of 16 bytes, so a B
            item[name] = {"B": v.to_bytes(16, "big", signed=kinds[name] == "i128")}
        else:
            item[name] = attribute(v)
    return item


@unittest.skipIf(ROWS is None, "KEYSCHEMA_ROWS_DIR is not set (tests/python_rows.rs sets it)")
class CrossRows(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.schemas, cls.kinds, cls.rows = load()

    def check(self, form, read, only=None):
        agree, rows = 0, 0
        for i, row in enumerate(self.rows):
            schema = self.schemas[row["schema"]]
            want = expected(schema, row)
            if only is not None and not only(want):
                continue
            rows += 1
            got = read(schema, self.kinds.get(row["schema"]), row)
            key = {f.name: row["fields"][f.name] for f in schema.fields}
            if set(got) != set(want):                 # a whole row: the key's fields too
                want = dict(key, **want)
            if not same(plain(got), want):
                self.fail("row %d from its %s: %r, expected %r" % (i, form, plain(got), want))
            agree += 1
        sys.stderr.write("rows %s: %d rows, %d agree\n" % (form, rows, agree))

    def test_the_ordered_stores_map(self):
        self.check("map", lambda s, k, row: s.decode_row(bytes.fromhex(row["key"]), bytes.fromhex(row["map"]), kinds=k))

    def test_the_cell_map(self):
        self.check("cell map", lambda s, k, row: s.decode_values(bytes.fromhex(row["cells"]), kinds=k))

    def test_the_cells_as_a_client_gives_them(self):
        from keyschema import decode_msgpack

        def read(schema, kinds, row):
            cells = decode_msgpack(bytes.fromhex(row["cells"])[1:])
            # {qualifier: bytes}; google-cloud-bigtable's row.cells,
            # {family: {qualifier: [Cell]}}; its data client's, [Cell].
            values = schema.decode_values(cells, kinds=kinds)
            families = {schema.family: {q: [Cell(schema.family, q, v)] for q, v in cells.items()}, "other": {b"x": [Cell("other", b"x", b"")]}}
            listed = [Cell(schema.family, q, v) for q, v in cells.items()] + [Cell("other", b"note", b"\xff")]
            for other in (families, listed):
                self.assertTrue(same(plain(schema.decode_values(other, kinds=kinds)), plain(values)))
            by_text = {q.decode("utf-8"): v for q, v in cells.items()}
            return schema.decode_row(bytes.fromhex(row["key"]), by_text, kinds=kinds)
        self.check("cells", read)

    def test_dynamodb_items(self):
        def low(schema, kinds, row):
            values = schema.decode_values(bytes.fromhex(row["map"]), kinds=kinds)
            return schema.decode_item(low_level_item(schema, row, values), kinds=kinds)

        def resource(schema, kinds, row):
            values = schema.decode_values(bytes.fromhex(row["map"]), kinds=kinds)
            item = {k: resource_form(a) for k, a in low_level_item(schema, row, values).items()}
            return schema.decode_item(item, kinds=kinds)
        self.check("low-level item", low)
        self.check("resource item", resource)

    def test_values_rust_refuses_are_refused(self):
        """refused.jsonl: stored values the Rust reader refuses, with what it
        says; Python refuses each, saying the same."""
        from keyschema import DecodeError
        with open(os.path.join(ROWS, "refused.jsonl"), encoding="utf-8") as f:
            schema = Schema.from_json(json.dumps(json.loads(f.readline())["schema"]))
            cases = [json.loads(line) for line in f]
        for case in cases:
            with self.assertRaises(DecodeError, msg=case) as caught:
                schema.decode_values(bytes.fromhex(case["value"]))
            self.assertTrue(str(caught.exception).endswith(": " + case["said"]), (str(caught.exception), case["said"]))
        sys.stderr.write("refused: %d values, %d refused alike\n" % (len(cases), len(cases)))

    @unittest.skipIf(not BOTO3, "KEYSCHEMA_ROWS_BOTO3 is not set (tests/python_rows.rs sets it under the interop venv)")
    def test_boto3s_type_deserializer(self):
        from boto3.dynamodb.types import TypeDeserializer
        deserializer = TypeDeserializer()

        def read(schema, kinds, row):
            values = schema.decode_values(bytes.fromhex(row["map"]), kinds=kinds)
            item = {k: deserializer.deserialize(a) for k, a in low_level_item(schema, row, values).items()}
            return schema.decode_item(item, kinds=kinds)
        # Only the rows DynamoDB holds: Rust refuses a float outside its
        # numbers' range before writing, and boto3 refuses to read one.
        self.check("boto3 item", read, only=lambda values: all(map(dynamodb_number, floats(values))))


if __name__ == "__main__":
    unittest.main()
