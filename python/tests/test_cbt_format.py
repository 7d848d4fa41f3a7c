"""The cbt format file vectors of docs/vectors.json (ENCODING.md, "Value
fields on Bigtable", table ``cbt_format``): the file ``cbt read ...
format-file=PATH`` takes, written by ``Schema.cbt_format_file`` from the
schema document as the Rust code writes it."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

from keyschema import Schema  # noqa: E402
from test_value_vectors import load  # noqa: E402


class CbtFormat(unittest.TestCase):
    def test_each_format_file(self):
        for v in load()["cbt_format"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            with self.subTest(schema.name):
                self.assertEqual(schema.cbt_format_file(), v["file"])


if __name__ == "__main__":
    unittest.main()
