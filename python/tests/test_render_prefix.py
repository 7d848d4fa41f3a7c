"""The split-point vectors of docs/vectors.json (ENCODING.md, "Each type's
rendering", table ``render_prefix``): a prefix of a key rendered as its
complete components and ``…``, by ``Schema.render_prefix``."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

from keyschema import Schema  # noqa: E402
from test_value_vectors import load  # noqa: E402


class RenderPrefix(unittest.TestCase):
    def test_each_split_point(self):
        for v in load()["render_prefix"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            with self.subTest(v["what"]):
                self.assertEqual(schema.render_prefix(bytes.fromhex(v["key"])), v["rendered"])


if __name__ == "__main__":
    unittest.main()
