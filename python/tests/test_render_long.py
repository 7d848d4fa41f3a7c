"""The over-long key vectors of docs/vectors.json (ENCODING.md, "Limits",
table ``render_long``): keys at and beyond MAX_KEY_LEN rendered by
``Schema.render`` as the Rust ``render`` renders them, every byte shown
(no abbreviation). A vector writes the key as its first bytes, a fill byte
up to ``fill.length`` and ``key_tail``, and the rendering as its head, a
piece repeated and its tail."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

from keyschema import Schema  # noqa: E402
from test_value_vectors import load  # noqa: E402


class RenderLong(unittest.TestCase):
    def test_each_rendering(self):
        vectors = load()["render_long"]
        self.assertGreater(len(vectors), 2)
        for v in vectors:
            schema = Schema.from_json(json.dumps(v["schema"]))
            head = bytes.fromhex(v["key"])
            key = head + bytes.fromhex(v["fill"]["byte"]) * (v["fill"]["length"] - len(head))
            key += bytes.fromhex(v.get("key_tail", ""))
            fill = v["rendered_fill"]
            expected = v["rendered_head"] + fill["text"] * fill["count"] + v["rendered_tail"]
            with self.subTest(v["what"]):
                self.assertEqual(schema.render(key), expected)


if __name__ == "__main__":
    unittest.main()
