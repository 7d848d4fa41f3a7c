"""The partition split vectors of docs/vectors.json (ENCODING.md,
"Partition keys", table ``partition_split``): each key split into its
partition part and its sort part by ``Schema.split_key``, as the Rust
``Schema::split_key`` splits it."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

from keyschema import Schema  # noqa: E402
from test_value_vectors import load  # noqa: E402


class PartitionSplit(unittest.TestCase):
    def test_each_split(self):
        vectors = load()["partition_split"]
        self.assertGreater(len(vectors), 5)
        for v in vectors:
            schema = Schema.from_json(json.dumps(v["schema"]))
            with self.subTest(v["declaration"]):
                partition, sort = schema.split_key(bytes.fromhex(v["key"]))
                self.assertEqual((partition.hex(), sort.hex()), (v["partition"], v["sort"]))


if __name__ == "__main__":
    unittest.main()
