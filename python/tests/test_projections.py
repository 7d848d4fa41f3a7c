"""The projection vectors of docs/vectors.json (ENCODING.md, "Value fields
on Bigtable", Projections; table ``projections``): what a projected read
asks each store for, built from the schema document (DynamoDB's
``ProjectionExpression`` and attribute names, Bigtable's ``RowFilter``),
and the projected fields read from what each store returns, as the Rust
code builds and reads them."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

from keyschema import Schema  # noqa: E402
from test_value_vectors import load, unbase64  # noqa: E402


class Projections(unittest.TestCase):
    def test_each_projection(self):
        vectors = load()["projections"]
        self.assertGreater(len(vectors), 3)
        for v in vectors:
            schema = Schema.from_json(json.dumps(v["schema"]))
            with self.subTest(v["projection"]):
                expression, names = schema.dynamodb_projection(v["values"])
                self.assertEqual({"expression": expression, "names": names}, v["dynamodb"])
                self.assertEqual(schema.bigtable_read_filter(v["values"]), v["bigtable"]["filter"])
                self.assertEqual(schema.bigtable_read_filter(), v["bigtable"]["whole_rows_filter"])
                # What DynamoDB returns: the attributes the expression names.
                item = unbase64(v["item"])
                returned = {k: a for k, a in item.items() if k in names.values()}
                self.assertEqual(returned, unbase64(v["returned_item"]))
                projection = schema.projected(v["values"])
                self.assertEqual(projection.decode_item_values(returned), v["read"])
                cells = {q.encode("utf-8"): bytes.fromhex(c) for q, c in v["returned_cells"]}
                self.assertEqual(projection.decode_values(cells), v["read"])

if __name__ == "__main__":
    unittest.main()
