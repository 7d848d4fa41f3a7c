"""The index entry vectors of docs/vectors.json (ENCODING.md, "Indexes",
table ``index_entries``): each index's entry key for a row, its rendering,
and the DynamoDB item a put writes with the encoded indexes' ``Name_pk``
and ``Name_sk`` and the native index's own attributes, made by the Python
package from the row type's schema document and the row; each entry
decodes back to the row's key fields."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

from keyschema import Schema  # noqa: E402
from test_value_vectors import from_model, load, unbase64  # noqa: E402


class IndexVectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vectors = load()

    def rows(self):
        for v in self.vectors["index_entries"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            fields = schema.decode(bytes.fromhex(v["key"]))
            values = {name: from_model(j) for name, j in v["values"].items()}
            yield v, schema, fields, values

    def test_each_index_entry_of_the_row(self):
        for v, schema, fields, values in self.rows():
            indexes = {i.name: i for i in schema.indexes}
            row = dict(fields)
            row.update(values)
            for e in v["entries"]:
                with self.subTest(v["what"], index=e["index"]):
                    index = indexes[e["index"]]
                    names = [f.name for f in index.fields]
                    if e["entry"] is None:
                        self.assertTrue(any(row[n] is None for n in names))
                        continue
                    entry = index.encode({n: row[n] for n in names})
                    self.assertEqual(entry.hex(), e["entry"])
                    self.assertEqual(index.render(entry), e["rendered"])
                    back = index.decode(entry)
                    self.assertEqual(schema.encode({n: back[n] for n in fields}).hex(), v["key"])

    def test_the_item_carries_each_entry(self):
        """The item Rust's DynamoStore writes, made from the document alone:
        each index in the form the document says (VisitBySiteUser declares
        none and is native, as it can be), or as ``native=`` names them."""
        for v, schema, fields, values in self.rows():
            with self.subTest(v["what"]):
                native = [e["index"] for e in v["entries"] if e["dynamodb"] == "native"]
                self.assertEqual([i.name for i in schema.indexes if i.dynamodb == "native"], native)
                item = unbase64(v["dynamodb"]["item"])
                self.assertEqual(schema.encode_item(fields, values), item)
                self.assertEqual(schema.encode_item(fields, values, native=native), item)
                encoded = schema.encode_item(fields, values, native=[])
                self.assertIn("VisitBySiteUser_pk", encoded)

    def test_a_document_without_forms_reads_every_index_encoded(self):
        """A document written before indexes said their form: encoded, what
        those versions wrote."""
        doc = dict(self.vectors["index_entries"][0]["schema"])
        doc["indexes"] = [{k: x for k, x in i.items() if k != "dynamodb"} for i in doc["indexes"]]
        schema = Schema.from_json(json.dumps(doc))
        self.assertEqual({i.dynamodb for i in schema.indexes}, {"encoded"})


if __name__ == "__main__":
    unittest.main()
