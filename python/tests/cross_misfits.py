"""The cross-language check of bad nested values: values another program
stored in a row's value fields that the Rust reader refuses
(tests/python_misfits.rs sets KEYSCHEMA_MISFITS_DIR), in every form Python
reads (the ordered stores' MessagePack map, Bigtable's cells, the DynamoDB
item as boto3's low-level client and its resource API give it), each with
what Rust says. Python must refuse each, saying the same, path included.
The values of user types (the document's ``types``) also come with those
Rust reads, and the value it read (as serde writes it to JSON): Python
must read each form, to the same value.
Not discovered by ``unittest discover``: run as ``python3 -m unittest
tests.cross_misfits`` from ``python/``."""

import decimal
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from keyschema import DecodeError, Schema, SchemaError  # noqa: E402
from keyschema._dynamodb import to_resource  # noqa: E402

DIR = os.environ.get("KEYSCHEMA_MISFITS_DIR")
BOTO3 = os.environ.get("KEYSCHEMA_MISFITS_BOTO3")


def low_level(a):
    """An attribute of the case file as boto3's low-level client gives it
    (``B`` as bytes)."""
    [(tag, v)] = a.items()
    if tag == "B":
        return {"B": bytes.fromhex(v)}
    if tag == "L":
        return {"L": [low_level(x) for x in v]}
    if tag == "M":
        return {"M": {k: low_level(x) for k, x in v.items()}}
    return a


class Read:
    """A value Rust read (its JSON), where a refusal's message would be."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return "read %s" % json.dumps(self.value)


def as_json(v):
    """A value Python read, as JSON holds it (tuples as lists, a boto3
    ``Decimal`` as its number)."""
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, (list, tuple)):
        return [as_json(x) for x in v]
    if isinstance(v, dict):
        return {k: as_json(x) for k, x in v.items()}
    return v


@unittest.skipIf(DIR is None, "KEYSCHEMA_MISFITS_DIR is not set (tests/python_misfits.rs sets it)")
class CrossMisfits(unittest.TestCase):
    def test_each_form_is_refused_as_rust_refuses_it(self):
        with open(os.path.join(DIR, "misfits.jsonl"), encoding="utf-8") as f:
            lines = [json.loads(line) for line in f]
        forms, alike, wrong, boto3_items = 0, 0, [], 0
        schema = None
        for case in lines:
            if "schema" in case:            # the cases after it are its rows
                schema = Schema.from_json(json.dumps(case["schema"]))
                continue
            item = None
            if case["item"] is not None:
                item = {k: low_level(a) for k, a in case["item"].items()}
            rust = dict(case["said"], **{form: Read(v) for form, v in case["read"].items()})
            reads = [
                ("memory", lambda: schema.decode_values(bytes.fromhex(case["memory"])), rust["memory"]),
                ("cells", lambda: schema.decode_values({q.encode("utf-8"): bytes.fromhex(c) for q, c in case["cells"]}), rust["cells"]),
            ]
            if item is not None:
                reads.append(("low-level item", lambda: schema.decode_item_values(item), rust["dynamodb"]))
                reads.append(("resource item", lambda: schema.decode_item_values(to_resource(item)), rust["dynamodb"]))
                if BOTO3:                   # what boto3's own TypeDeserializer makes of it
                    from boto3.dynamodb.types import TypeDeserializer
                    try:
                        boto3_item = {k: TypeDeserializer().deserialize(a) for k, a in item.items()}
                    except decimal.DecimalException:
                        boto3_item = None   # more than 38 digits: boto3 cannot read it
                    if boto3_item is not None:
                        boto3_items += 1
                        reads.append(("boto3 item", lambda: schema.decode_item_values(boto3_item), rust["dynamodb"]))
            for form, read, said in reads:
                forms += form != "boto3 item"
                try:
                    got = read()
                except DecodeError as e:
                    if str(e) == said:
                        alike += form != "boto3 item"
                        continue
                    got = "said %r" % str(e)
                else:
                    if isinstance(said, Read) and as_json(got[case["field"]]) == said.value:
                        alike += form != "boto3 item"
                        continue
                    got = "read %r" % (got,)
                wrong.append("%s from its %s: %s\n    Rust: %r" % (case["field"], form, got, said))
        sys.stderr.write("misfits: %d forms, %d alike\n" % (forms, alike))
        if BOTO3:
            # Every boto3 item was refused alike when nothing is wrong.
            sys.stderr.write("misfits boto3: %d items, %d refused alike\n" % (boto3_items, boto3_items if not wrong else 0))
        self.assertEqual(wrong, [], "\n".join(wrong))

    def test_malformed_types_are_refused_as_rust_refuses_them(self):
        """The document's `types` member, malformed in each way
        `Schema::from_document` refuses (and a few it reads): Python
        refuses each with the same message, and reads the others."""
        with open(os.path.join(DIR, "types.json"), encoding="utf-8") as f:
            documents = json.load(f)
        wrong = []
        for d in documents:
            try:
                Schema.from_json(d["document"])
                got = None
            except SchemaError as e:
                got = str(e)
            if got != d["said"]:
                wrong.append("%s\n    Python: %r\n    Rust:   %r" % (json.loads(d["document"])["types"], got, d["said"]))
        sys.stderr.write("types documents: %d, %d alike\n" % (len(documents), len(documents) - len(wrong)))
        self.assertEqual(wrong, [], "\n".join(wrong))


if __name__ == "__main__":
    unittest.main()
