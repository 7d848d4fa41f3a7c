"""The Python writer and reader of values of user types (the schema
document's ``types``, ENCODING.md "User types"), beyond what
tests/python_misfits.rs checks against Rust: a good value of each shape is
written and read back, a bad one refused by the writer in the typed read's
words (those python_misfits sees Rust say), and a type ``types`` does not
list read as stored."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from keyschema import DecodeError, Schema, ValueError_  # noqa: E402
from keyschema._write import pack  # noqa: E402

TYPES = {
    "Address": {"fields": [{"name": "street", "type": "String"}, {"name": "zip", "type": "u32"},
                           {"name": "note", "type": "Option<String>", "optional": True}]},
    "Status": {"enum": [{"name": "Draft"}, {"name": "Paid", "newtype": "u64"},
                        {"name": "Note", "fields": [{"name": "text", "type": "String"}]},
                        {"name": "Moved", "tuple": ["u8", "u8"]}]},
    "Point": {"tuple": ["i32", "i32"]},
    "Cents": {"newtype": "i64"},
    "Tree": {"fields": [{"name": "name", "type": "String"}, {"name": "kids", "type": "Vec<Tree>"}]},
}
VALUES = [("home", "Address"), ("status", "Status"), ("points", "Vec<Point>"), ("cents", "Cents"),
          ("tree", "Tree"), ("maybe", "Option<Status>")]


def schema(types=TYPES):
    doc = {
        "keyschema": 2, "name": "Shaped", "format": {"kind": "binary"}, "prefix": "", "salt": None,
        "partition": 1, "row_format": 1, "family": "f",
        "components": [{"name": "id", "type": "u64", "order": "asc", "transform": "plain", "encoding": "u64",
                        "fixed_width": 8}],
        "values": [{"name": n, "type": t, "required": False} for n, t in VALUES],
    }
    if types is not None:
        doc["types"] = types
    return Schema.from_json(json.dumps(doc))


GOOD = {
    "home": {"street": "Main", "zip": 1234, "note": None},
    "status": {"Moved": [1, 2]},
    "points": [(1, 2), [3, 4]],
    "cents": -5,
    "tree": {"name": "a", "kids": [{"name": "b", "kids": []}]},
    "maybe": "Draft",
}


class UserTypes(unittest.TestCase):
    def test_good_values_are_written_and_read_back_in_every_form(self):
        s = schema()
        expected = dict(GOOD, points=[[1, 2], [3, 4]])
        self.assertEqual(s.decode_values(s.encode_values(GOOD)), expected)
        self.assertEqual(s.decode_values(dict(s.encode_cells(GOOD))), expected)
        item = s.encode_item({"id": 1}, GOOD)
        self.assertEqual(s.decode_item_values(item), expected)
        self.assertEqual(item["maybe"], {"S": "Draft"})
        self.assertEqual(dict(s.encode_cells(GOOD))[b"cents"], (-5 & (1 << 64) - 1).to_bytes(8, "big"))

    def test_the_writer_refuses_what_the_typed_read_refuses(self):
        s = schema()
        prefix = "value field `%s` does not read as its declared type: "
        bad = [
            ("points", [(1, 2), (1,)],
             "at `points[1]`: found an array of 1 element: invalid length 1, expected tuple struct Point with 2 elements"),
            ("home", {"street": "Main"}, "found a map of 1 entry: missing field `zip`"),
            ("status", {"Moved": [1, 300]}, "at `status.Moved[1]`: the integer 300 is beyond u8's range (0 to 255)"),
            ("maybe", "Purple", 'found the string "Purple": unknown variant `Purple`, expected one of `Draft`, `Paid`, `Note`, `Moved`'),
            ("tree", {"name": "a", "kids": [{"name": "b"}]}, "at `tree.kids[0]`: found a map of 1 entry: missing field `kids`"),
            ("cents", "x", 'expected an integer, found the string "x"'),
        ]
        for field, value, words in bad:
            with self.subTest(field):
                for write in (lambda: s.encode_values({field: value}), lambda: s.encode_cells({field: value}),
                              lambda: s.encode_item({"id": 1}, {field: value})):
                    with self.assertRaises(ValueError_) as caught:
                        write()
                    self.assertEqual(str(caught.exception), prefix % field + words)

    def test_a_type_types_does_not_list_reads_as_stored(self):
        # A document written before `types`: its struct reads as stored.
        s = schema(types=None)
        stored = {"home": {"street": "Main"}, "status": "Purple"}
        raw = bytes(pack(stored))
        read = s.decode_values(raw)
        self.assertEqual((read["home"], read["status"]), (stored["home"], stored["status"]))
        with self.assertRaises(DecodeError):
            schema().decode_values(raw)


if __name__ == "__main__":
    unittest.main()
