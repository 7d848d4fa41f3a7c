"""The history rendering vectors of docs/vectors.json (ENCODING.md, "Layout
histories", table ``history_render``): each key rendered in the declared
layout and in the older one, the rendering ``keyschema render`` shows (an
older key in its layout, marked ``(older layout)``), and the message an
ambiguous key is refused with, by the Python package from the document."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

from keyschema import DecodeError, Schema  # noqa: E402
from test_value_vectors import load  # noqa: E402


class HistoryRender(unittest.TestCase):
    def test_each_key_renders_in_each_layout(self):
        for v in load()["history_render"]:
            schema = Schema.from_json(json.dumps(v["schema"]))
            key = bytes.fromhex(v["key"])
            with self.subTest(v["declaration"], key=v["key"]):
                self.assertEqual(schema.render(key), v["declared"])
                self.assertEqual(schema.history.older.render(key), v["older"])
                if v["layout"] == "ambiguous":
                    with self.assertRaises(DecodeError) as caught:
                        schema.decode_stored(key)
                    self.assertEqual(str(caught.exception), v["error"])
                    self.assertEqual(schema.render(key), v["rendered"])
                    continue
                _, layout = schema.decode_stored(key)
                self.assertEqual(layout, v["layout"])
                shown = schema.history.older.render(key) + " (older layout)" if layout == "older" else schema.render(key)
                self.assertEqual(shown, v["rendered"])


if __name__ == "__main__":
    unittest.main()
