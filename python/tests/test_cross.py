"""The cross-language check: rows the Rust side wrote (tests/python.rs sets
KEYSCHEMA_CROSS_DIR) with their keys, renderings, damaged keys with the Rust
errors, and scan ranges; Python must reproduce every one."""

import glob
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

import keyschema  # noqa: E402
from keyschema import Schema, value_from_json, encode_plain  # noqa: E402

CROSS = os.environ.get("KEYSCHEMA_CROSS_DIR")


def same_values(schema, a, b):
    """Equal as the key sees them: the same plain encoding of every field."""
    return all(encode_plain(f.encoding, a[f.name]) == encode_plain(f.encoding, b[f.name]) for f in schema.fields)


@unittest.skipIf(CROSS is None, "KEYSCHEMA_CROSS_DIR is not set (tests/python.rs sets it)")
class CrossLanguage(unittest.TestCase):
    def test_every_row_of_every_schema(self):
        files = sorted(glob.glob(os.path.join(CROSS, "*.jsonl")))
        self.assertTrue(files, "no rows in " + CROSS)
        for path in files:
            with self.subTest(file=os.path.basename(path)):
                self.check_file(path)

    def check_file(self, path):
        with open(path, encoding="utf-8") as f:
            header = json.loads(f.readline())
            schema = Schema.from_json(json.dumps(header["schema"]))
            counts = dict(rows=0, encoded=0, decoded=0, rendered=0, damaged=0, scans=0)
            for line in f:
                row = json.loads(line)
                counts["rows"] += 1
                fields = {fd.name: value_from_json(fd.encoding, row["fields"][fd.name]) for fd in schema.fields}
                key = bytes.fromhex(row["key"])
                ours = schema.encode(fields, bucket=row["bucket"])
                self.assertEqual(ours.hex(), row["key"], (header["name"], row["fields"]))
                counts["encoded"] += 1
                decoded = schema.decode(key)
                self.assertTrue(same_values(schema, decoded, fields), (header["name"], row["fields"], decoded))
                counts["decoded"] += 1
                self.assertEqual(schema.render(key), row["rendered"], (header["name"], row["key"]))
                counts["rendered"] += 1
                for bad in row.get("damaged", []):
                    data = bytes.fromhex(bad["key"])
                    try:
                        schema.decode(data)
                        error = None
                    except keyschema.DecodeError as e:
                        error = str(e)
                    self.assertEqual(error, bad["error"], (header["name"], bad["key"]))
                    self.assertEqual(schema.render(data), bad["rendered"], (header["name"], bad["key"]))
                    counts["damaged"] += 1
                for scan in row.get("scans", []):
                    equal = [value_from_json(fd.encoding, row["fields"][fd.name]) for fd in schema.fields[:scan["bound"]]]
                    kwargs = {}
                    if "lo" in scan:
                        fd = schema.fields[scan["bound"]]
                        lo, hi = scan["lo"], scan["hi"]
                        kwargs = dict(
                            ranged=True,
                            lo=keyschema.OPEN if lo is None else value_from_json(fd.encoding, lo["value"]),
                            hi=keyschema.OPEN if hi is None else value_from_json(fd.encoding, hi["value"]),
                            lo_inclusive=lo is None or lo["inclusive"],
                            hi_inclusive=hi is not None and hi["inclusive"],
                        )
                    try:
                        got = [[r.start.hex(), None if r.end is None else r.end.hex(), r.bucket] for r in schema.ranges(equal, **kwargs)]
                    except keyschema.ValueError_:
                        got = None
                    self.assertEqual(got, scan["ranges"], (header["name"], scan))
                    counts["scans"] += 1
            print("cross %s: %s" % (header["name"], ", ".join("%d %s" % (v, k) for k, v in counts.items())), file=sys.stderr)
            self.assertEqual(counts["rows"], header["rows"], header["name"])

    def test_limit_edges(self):
        """Ranges over a hashed bucket at the edges of MAX_BUCKET_EXPANSION
        and of bucket boundaries: the same number of ranges as Rust, or the
        same refusal."""
        path = os.path.join(CROSS, "limits.edges")
        cases = agree = 0
        with open(path, encoding="utf-8") as f:
            for line in f:
                case = json.loads(line)
                cases += 1
                schema = Schema.from_json(json.dumps(case["schema"]))
                lo, hi = case["lo"], case["hi"]
                try:
                    got = len(schema.ranges(case["equal"], lo=lo["value"], hi=hi["value"], lo_inclusive=lo["inclusive"], hi_inclusive=hi["inclusive"]))
                except keyschema.ValueError_ as e:
                    self.assertIn("more than the %d a scan expands into" % keyschema.MAX_BUCKET_EXPANSION, str(e))
                    got = None
                self.assertEqual(got, case["ranges"], case)
                agree += 1
        print("cross limits: %d edges, %d agree" % (cases, agree), file=sys.stderr)

    def test_history_keys(self):
        """Keys of both layouts of two key types with a history: the layout
        and the fields the Rust decode_stored reads, or the same refusal."""
        keys = agree = 0
        with open(os.path.join(CROSS, "history.keys"), encoding="utf-8") as f:
            schemas = {}
            for line in f:
                case = json.loads(line)
                keys += 1
                text = json.dumps(case["schema"])
                schema = schemas.get(text) or schemas.setdefault(text, Schema.from_json(text))
                try:
                    fields, layout = schema.decode_stored(bytes.fromhex(case["key"]))
                except keyschema.DecodeError as e:
                    layout = "ambiguous" if "the cut-over does not decide" in str(e) else "error"
                    fields = None
                self.assertEqual(layout, case["layout"], case)
                if fields is not None:
                    self.assertEqual({k: keyschema.value_to_json(f.encoding, fields[k]) for f in schema.fields for k in [f.name]}, case["fields"], case)
                agree += 1
        print("cross history: %d keys, %d agree" % (keys, agree), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
