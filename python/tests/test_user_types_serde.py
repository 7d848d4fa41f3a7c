"""The serde attributes the schema document's ``types`` states beyond a
type's shape (ENCODING.md, "User types"): a value field's ``shape`` (the
type it reads by: a ``#[serde(transparent)]`` struct's inner type, a
renamed struct's serde name), a field's ``aliases``
(``#[serde(alias = "...")]``), a struct's ``closed``
(``#[serde(deny_unknown_fields)]``) and an enum's ``other``
(``#[serde(other)]``): each read, written and refused as serde's derived
``Deserialize`` reads it (its words: ``unknown field `b`, expected `a` or
`c```, ``duplicate field `zip```), and each refused by the document
reader where it does not belong or is of the wrong kind."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from keyschema import DecodeError, Schema, SchemaError, ValueError_  # noqa: E402
from keyschema._write import pack  # noqa: E402

PREFIX = "value field `%s` does not read as its declared type: "

ADDR = {"fields": [{"name": "street", "type": "String"},
                   {"name": "zip", "type": "u32", "aliases": ["postcode", "plz"]}]}
TYPES = {
    "Addr": ADDR,
    "Strict": {"fields": [{"name": "b", "type": "u8", "aliases": ["a"]}, {"name": "c", "type": "u8"}],
               "closed": True},
    "One": {"fields": [{"name": "a", "type": "u8"}], "closed": True},
    "Empty": {"fields": [], "closed": True},
    "Mood": {"enum": [{"name": "Happy"}, {"name": "Said", "newtype": "String"}, {"name": "Unknown"}],
             "other": True},
    "Event": {"enum": [{"name": "Moved", "fields": [{"name": "to", "type": "u8", "aliases": ["dest"]}],
                        "closed": True}]},
}
VALUES = [
    {"name": "w", "type": "W", "shape": "u16"},
    {"name": "homes", "type": "Vec<Address>", "shape": "Vec<Addr>"},
    {"name": "strict", "type": "Strict"},
    {"name": "one", "type": "One"},
    {"name": "empty", "type": "Empty"},
    {"name": "mood", "type": "Mood"},
    {"name": "event", "type": "Event"},
]


def document(types=TYPES, values=None):
    return {
        "keyschema": 2, "name": "Serdes", "format": {"kind": "binary"}, "prefix": "", "salt": None,
        "partition": 1, "row_format": 1, "family": "f",
        "components": [{"name": "id", "type": "u64", "order": "asc", "transform": "plain", "encoding": "u64",
                        "fixed_width": 8}],
        "values": [dict(v, required=False) for v in (VALUES if values is None else values)],
        "types": types,
    }


def schema(**kw):
    return Schema.from_json(json.dumps(document(**kw)))


def read_all_ways(test, s, values):
    """``values`` written as the map, as cells and as an item, each read
    back; the reads, which must agree."""
    out = s.decode_values(bytes(pack(values)))
    test.assertEqual(s.decode_values(dict(s.encode_cells(values))), out)
    test.assertEqual(s.decode_item_values(s.encode_item({"id": 1}, values)), out)
    return out


class Refused(unittest.TestCase):
    """A stored value the typed read refuses, refused by the map reader
    and by the three writers (of a type that holds a user type), with the
    same words."""

    def refused(self, field, value, words, writers=True):
        s = schema()
        with self.assertRaises(DecodeError) as caught:
            s.decode_values(bytes(pack({field: value})))
        self.assertEqual(str(caught.exception), PREFIX % field + words)
        # The writers check a field that holds a user type (not a plain
        # `u16`'s range: a field typed `u16` is not checked either).
        writes = (lambda: s.encode_values({field: value}), lambda: s.encode_cells({field: value}),
                  lambda: s.encode_item({"id": 1}, {field: value}))
        for write in writes if writers else ():
            with self.assertRaises(ValueError_) as caught:
                write()
            self.assertEqual(str(caught.exception), PREFIX % field + words)


class Shape(Refused):
    def test_a_field_reads_by_its_shape(self):
        s = schema()
        w = next(f for f in s.values if f.name == "w")
        self.assertEqual(w.kind, "u16")                 # by `type` (`W`): auto
        self.assertEqual(s.decode_values({b"w": (0x0102).to_bytes(8, "big")})["w"], 0x0102)
        self.assertEqual(read_all_ways(self, s, {"w": 7, "homes": [{"street": "Main", "zip": 1}]}),
                         {"w": 7, "homes": [{"street": "Main", "zip": 1}], "strict": None, "one": None,
                          "empty": None, "mood": None, "event": None})

    def test_a_value_its_shape_refuses_is_refused(self):
        self.refused("w", 70000, "the integer 70000 is beyond u16's range (0 to 65535)", writers=False)
        self.refused("homes", [{"street": "Main"}], "at `homes[0]`: found a map of 1 entry: missing field `zip`")

    def test_a_field_without_shape_reads_by_its_type(self):
        s = schema(values=[{"name": "w", "type": "W"}])
        self.assertEqual(s.values[0].kind, "auto")
        self.assertEqual(s.decode_values(bytes(pack({"w": 70000})))["w"], 70000)


class Aliases(Refused):
    def test_a_member_named_by_an_alias_reads_as_the_field(self):
        s = schema()
        read = read_all_ways(self, s, {"homes": [{"street": "Main", "postcode": 5}, {"plz": 6, "street": "Ring"}],
                                       "event": {"Moved": {"dest": 3}}})
        self.assertEqual(read["homes"], [{"street": "Main", "zip": 5}, {"street": "Ring", "zip": 6}])
        self.assertEqual(read["event"], {"Moved": {"to": 3}})

    def test_a_field_under_two_of_its_names_is_a_duplicate(self):
        self.refused("homes", [{"street": "Main", "zip": 1, "postcode": 2}],
                     "at `homes[0]`: found a map of 3 entries: duplicate field `zip`")
        self.refused("event", {"Moved": {"dest": 1, "to": 2}},
                     "at `event.Moved`: found a map of 2 entries: duplicate field `to`")

    def test_an_alias_is_kept_to_its_field(self):
        # `postcode` of another type names nothing here: skipped, and `zip` missing.
        self.refused("one", {"a": 1, "zip": 2}, "found a map of 2 entries: unknown field `zip`, expected `a`")


class Closed(Refused):
    def test_a_closed_struct_refuses_a_member_it_does_not_name(self):
        # serde's FIELDS: each field's names sorted together, in field order.
        self.refused("strict", {"a": 1, "c": 2, "d": 3},
                     "found a map of 3 entries: unknown field `d`, expected one of `a`, `b`, `c`")
        self.refused("one", {"b": 1}, "found a map of 1 entry: unknown field `b`, expected `a`")
        self.refused("empty", {"b": 1}, "found a map of 1 entry: unknown field `b`, there are no fields")
        self.refused("event", {"Moved": {"to": 1, "from": 2}},
                     "at `event.Moved`: found a map of 2 entries: unknown field `from`, expected `dest` or `to`")
        self.refused("one", {"a": 1, 5: 2},
                     "found a map of 2 entries: invalid value: integer `5`, expected field index 0 <= i < 1")

    def test_a_member_named_in_bytes_is_named(self):
        # rmp-serde hands a bin key to the derive's `visit_bytes`, which
        # matches it to a field's name as a str key is (lossily, if refused).
        self.assertEqual(schema().decode_values(bytes(pack({"one": {b"a": 1}})))["one"], {"a": 1})
        self.refused("one", {b"z\xff": 1}, "found a map of 1 entry: unknown field `z\ufffd`, expected `a`")

    def test_a_closed_struct_reads_its_own_members(self):
        s = schema()
        read = read_all_ways(self, s, {"strict": {"a": 1, "c": 2}, "one": {"a": 3}, "empty": {}})
        self.assertEqual((read["strict"], read["one"], read["empty"]), ({"b": 1, "c": 2}, {"a": 3}, {}))

    def test_an_open_struct_skips_a_member_it_does_not_name(self):
        s = schema()
        self.assertEqual(s.decode_values(bytes(pack({"homes": [{"street": "M", "zip": 1, "d": 2}]})))["homes"],
                         [{"street": "M", "zip": 1}])


class Other(Refused):
    def test_an_unknown_tag_reads_as_the_other_variant(self):
        s = schema()
        self.assertEqual(read_all_ways(self, s, {"mood": "Grumpy"})["mood"], "Grumpy")
        self.assertEqual(s.decode_values(bytes(pack({"mood": {"Grumpy": None}})))["mood"], "Grumpy")
        self.assertEqual(s.decode_values({b"mood": b"Grumpy"})["mood"], "Grumpy")
        self.assertEqual(read_all_ways(self, s, {"mood": {"Said": "hi"}})["mood"], {"Said": "hi"})

    def test_the_other_variant_holds_no_content(self):
        self.refused("mood", {"Grumpy": 5}, "found a map of 1 entry: a value inside it is not of the type declared for it")

    def test_without_other_an_unknown_tag_is_refused(self):
        self.refused("event", "Grumpy", 'found the string "Grumpy": unknown variant `Grumpy`, expected `Moved`')


class Document(unittest.TestCase):
    """The members refused where they do not belong, or of the wrong kind."""

    def refused(self, at, words, **kw):
        with self.assertRaises(SchemaError) as caught:
            schema(**kw)
        self.assertEqual(str(caught.exception), "schema `%s`: %s" % (at, words))

    def test_shape(self):
        for bad in ("", 5, None):
            self.refused("values[0].shape", "expected a type text (a non-empty string)",
                         values=[{"name": "w", "type": "W", "shape": bad}])

    def test_aliases(self):
        for bad in ("zip", [5], [""], {"a": 1}):
            fields = [{"name": "zip", "type": "u32", "aliases": bad}]
            self.refused("types.A.fields[0].aliases", "expected an array of names", types={"A": {"fields": fields}})
            self.refused("types.E.enum[0].fields[0].aliases", "expected an array of names",
                         types={"E": {"enum": [{"name": "V", "fields": fields}]}})

    def test_closed(self):
        self.refused("types.A.closed", "expected true or false", types={"A": {"fields": [], "closed": 1}})
        self.refused("types.E.enum[0].closed", "expected true or false",
                     types={"E": {"enum": [{"name": "V", "fields": [], "closed": "yes"}]}})
        for t in ({"tuple": ["u8"], "closed": True}, {"enum": [], "closed": False}, {"newtype": "u8", "closed": True}):
            self.refused("types.A.closed", "only a struct with `fields` may be closed", types={"A": t})
        self.refused("types.E.enum[0].closed", "only a struct with `fields` may be closed",
                     types={"E": {"enum": [{"name": "V", "closed": True}]}})

    def test_other(self):
        self.refused("types.E.other", "expected true or false", types={"E": {"enum": [], "other": "yes"}})
        for t in ({"fields": [], "other": True}, {"unit": True, "other": False}):
            self.refused("types.A.other", "only an enum may have `other`", types={"A": t})
        self.refused("types.E.enum[0].other", "only an enum may have `other`",
                     types={"E": {"enum": [{"name": "V", "other": True}]}})

    def test_the_one_of_rule_ignores_closed_and_other(self):
        schema(types={"A": {"fields": [], "closed": False}, "E": {"enum": [], "other": False}}, values=[])
        for t in ({"closed": True}, {"fields": [], "tuple": [], "closed": True}, {"other": True}):
            self.refused("types.A", "expected exactly one of `fields`, `tuple`, `newtype`, `unit` or `enum`",
                         types={"A": t})


if __name__ == "__main__":
    unittest.main()
