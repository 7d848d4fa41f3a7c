"""Every vector of docs/ENCODING.md (as docs/vectors.json), reproduced by the
Python implementation."""

import json
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

import keyschema  # noqa: E402
from keyschema import Encoding, Schema, value_from_json, value_to_json  # noqa: E402

DOCS = os.path.join(HERE, "..", "..", "docs")


def load():
    with open(os.path.join(DOCS, "vectors.json"), encoding="utf-8") as f:
        return json.load(f)


def _loose(enc, j):
    """A JSON value as its field's type when it is one, else as the Python
    value it reads as (a refused binding's value of another type)."""
    if enc is not None:
        try:
            return value_from_json(enc, j)
        except Exception:  # noqa: BLE001 - not of the field's type
            pass
    return j


class Vectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vectors = load()

    def test_the_json_holds_every_table_of_the_document(self):
        with open(os.path.join(DOCS, "ENCODING.md"), encoding="utf-8") as f:
            doc = f.read()
        for table, entries in self.vectors.items():
            if table == "about":
                continue
            m = re.search(r"<!-- vectors:%s -->(.*?)<!-- end -->" % table, doc, re.S)
            self.assertIsNotNone(m, table)
            rows = [l for l in m.group(1).splitlines() if l.startswith("| ") and not l.startswith("|---")][1:]
            self.assertEqual(len(rows), len(entries), table)

    def test_components(self):
        for v in self.vectors["components"]:
            enc = Encoding.parse(v["type"])
            value = value_from_json(enc, v["value"])
            asc = keyschema.encode_plain(enc, value)
            self.assertEqual(asc.hex(), v["asc"], v)
            self.assertEqual(bytes(b ^ 0xFF for b in asc).hex(), v["desc"], v)
            r = keyschema._Reader(bytes.fromhex(v["desc"]), 0, True, "x")
            back = keyschema._decode_plain(enc, r)
            self.assertEqual(keyschema.encode_plain(enc, back).hex(), v["asc"], v)
            self.assertEqual(value_to_json(enc, back), v["value"], v)

    def test_text_components(self):
        for v in self.vectors["text_components"]:
            enc = Encoding.parse(v["type"])
            value = value_from_json(enc, v["value"])
            text = keyschema.encode_text(enc, value, ord("#"))
            self.assertEqual(text.decode("utf-8"), v["text"], v)
            back = keyschema.decode_text(enc, text, ord("#"))
            self.assertEqual(keyschema.encode_text(enc, back, ord("#")), text, v)

    def test_salt(self):
        for v in self.vectors["salt"]:
            data = bytes.fromhex(v["input"])
            import hashlib
            self.assertEqual(hashlib.sha256(data).digest()[:8].hex(), v["sha256_prefix"])
            for n, bucket in v["buckets"].items():
                self.assertEqual(keyschema.salt_bucket(data, int(n)), bucket, (v, n))

    def check_key(self, v):
        schema = Schema.from_json(json.dumps(v["schema"]))
        fields = {f.name: value_from_json(f.encoding, v["fields"][f.name]) for f in schema.fields}
        key = schema.encode(fields, bucket=v["bucket"])
        self.assertEqual(key.hex(), v["key"], v["declaration"])
        decoded = schema.decode(key)
        self.assertEqual({k: value_to_json(f.encoding, decoded[k]) for f in schema.fields for k in [f.name]}, v["fields"])
        self.assertEqual(schema.render(key), v["rendered"], v["declaration"])

    def test_whole_keys(self):
        for table in ("keys", "text", "constructs", "text_constructs"):
            for v in self.vectors[table]:
                with self.subTest(table=table, declaration=v["declaration"]):
                    self.check_key(v)

    def test_renderings(self):
        for v in self.vectors["render"] + self.vectors["render_base"]:
            enc = Encoding.parse(v["type"])
            self.assertEqual(keyschema._render_plain(enc, keyschema._Reader(bytes.fromhex(v["asc"]), 0, False, "x")), v["rendered"], v)

    def test_ranges(self):
        from keyschema._scan import OPEN
        for v in self.vectors["ranges"] + self.vectors["ranges_more"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            fields = schema.fields
            # A value as JSON, by the encoding it is: a refused binding's
            # value may be of another type than its field's.
            equal = [_loose(f.encoding, j) for f, j in zip(fields, v["equal"])]
            equal += [_loose(None, j) for j in v["equal"][len(fields):]]
            r = v["range"]

            def build():
                if r is None:
                    return schema.ranges(equal)
                enc = fields[len(equal)].encoding if len(equal) < len(fields) else None
                lo = OPEN if r["lo"] is None else _loose(enc, r["lo"])
                hi = OPEN if r["hi"] is None else _loose(enc, r["hi"])
                return schema.ranges(equal, lo, hi, r["lo_inclusive"], r["hi_inclusive"], ranged=True)

            if v["ranges"] is None:
                with self.assertRaises(keyschema.ValueError_, msg=v["declaration"]) as caught:
                    build()
                self.assertEqual(str(caught.exception), v["error"], v["declaration"])
                continue
            got = build()
            shown = [{"bucket": x.bucket, "start": x.start.hex(), "end": None if x.end is None else x.end.hex()} for x in got]
            self.assertEqual(shown, v["ranges"], v["declaration"])

    def test_damaged_renderings(self):
        for v in self.vectors["render_damaged"] + self.vectors["render_damaged_types"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            self.assertEqual(schema.render(bytes.fromhex(v["key"])), v["rendered"], v["what"])

    def test_documents(self):
        for v in self.vectors["documents"]:
            if v["accepted"]:
                schema = Schema.from_json(v["document"])
                doc = json.loads(v["document"])
                # What a reader of rows needs: each field's self-description
                # (the older rule for a document without `row_format`), and
                # each index's layout.
                for field, listed in zip(schema.values, doc.get("values", [])):
                    older = "row_format" not in doc and listed["type"].rsplit("::", 1)[-1] == "Value"
                    self.assertEqual(field.self_describing, listed.get("self_describing", older), v["what"])
                self.assertEqual([i.name for i in schema.indexes], [i["name"] for i in doc.get("indexes", [])], v["what"])
            else:
                # Refused as the Rust reader refuses it, word for word.
                with self.assertRaises(keyschema.SchemaError, msg=v["what"]) as caught:
                    Schema.from_json(v["document"])
                self.assertEqual(str(caught.exception), v["error"], v["what"])

    def test_rejected_inputs(self):
        for v in self.vectors["reject"] + self.vectors["reject_types"] + self.vectors["reject_classes"] + self.vectors["reject_text"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            key = bytes.fromhex(v["key"])
            if "fill" in v:
                # A key too long to print: its head, then one byte repeated.
                fill = v["fill"]
                key += bytes.fromhex(fill["byte"]) * (fill["length"] - len(key))
            with self.assertRaises(keyschema.DecodeError) as caught:
                schema.decode(key)
            self.assertEqual(str(caught.exception), v["error"], v["what"])

    def test_layout_histories(self):
        """ENCODING.md, "Layout histories": each key read in the layout the
        Rust decode_stored reads it in, or refused as ambiguous."""
        for v in self.vectors["history"]:
            with self.subTest(declaration=v["declaration"], key=v["key"]):
                schema = Schema.from_json(json.dumps(v["schema"]))
                self.assertIsNotNone(schema.history)
                key = bytes.fromhex(v["key"])
                if v["layout"] == "ambiguous":
                    with self.assertRaises(keyschema.DecodeError) as caught:
                        schema.decode_stored(key)
                    self.assertIn("the cut-over does not decide", str(caught.exception))
                    continue
                fields, layout = schema.decode_stored(key)
                self.assertEqual(layout, v["layout"])
                for f in schema.fields:
                    self.assertEqual(value_to_json(f.encoding, fields[f.name]), v["fields"][f.name])


if __name__ == "__main__":
    unittest.main()
