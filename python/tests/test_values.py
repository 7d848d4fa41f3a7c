"""A row's value fields: the MessagePack reader, the kinds of the schema
document's types, and the ledger line of docs/ENCODING.md ("Value fields")
read from each store's shape: the ordered stores' map, Bigtable's cells and
DynamoDB's items, with the errors of bad input."""

import decimal
import json
import os
import random
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

import keyschema._values  # noqa: E402
from keyschema import DecodeError, Ext, Schema, SchemaError, ValueError_, decode_msgpack, value_kind  # noqa: E402

# ledger("INV-1", 2) of tests/common/rows.rs, its value fields as the ordered
# stores write them (tests/python_rows.rs checks these bytes are Rust's).
LEDGER_MAP = bytes.fromhex(
    "8aa6616d6f756e74cd03e8a46d656d6fa672656e742032a5726174696fcb3fd0000000000000a470616964c3a47461677392a4686f6d65a76d6f6e74686c79a76164647265737382a463697479a44f736c6fa37a6970c0a673746174757381a45061696481a26f6ece6553f100a46e6f7465c0a6636f756e747381a5766965777303ab617070726f7665645f6279a3616e61"
)
LEDGER_KEY = b"INV-1\x00\x00\x02"

# The same row's cells, as `cbt read` prints them in ENCODING.md.
LEDGER_CELLS = {
    b"address": b"\x82\xa4city\xa4Oslo\xa3zip\xc0",
    b"amount": b"\x00\x00\x00\x00\x00\x00\x03\xe8",
    b"approved_by": b"ana",
    b"counts": b"\x81\xa5views\x03",
    b"memo": b"rent 2",
    b"paid": b"true",
    b"ratio": b"?\xd0\x00\x00\x00\x00\x00\x00",
    b"status": b"\x81\xa4Paid\x81\xa2on\xceeS\xf1\x00",
    b"tags": b"\x92\xa4home\xa7monthly",
}

# The same row as boto3's low-level client prints it in ENCODING.md.
LEDGER_ITEM = {
    "address": {"M": {"city": {"S": "Oslo"}, "zip": {"NULL": True}}}, "amount": {"N": "1000"},
    "counts": {"M": {"views": {"N": "3"}}}, "invoice_id": {"S": "INV-1"}, "line_no": {"N": "2"},
    "memo": {"S": "rent 2"}, "paid": {"BOOL": True}, "pk": {"B": b"INV-1\x00"},
    "ratio": {"N": "0.25"}, "sk": {"B": b"\x00\x02"}, "status": {"M": {"Paid": {"M": {"on": {"N": "1700000000"}}}}},
    "tags": {"L": [{"S": "home"}, {"S": "monthly"}]},
}

LEDGER = {
    "invoice_id": "INV-1", "line_no": 2,
    "amount": 1000, "memo": "rent 2", "ratio": 0.25, "paid": True, "tags": ["home", "monthly"],
    "address": {"city": "Oslo", "zip": None}, "status": {"Paid": {"on": 1700000000}}, "note": None,
    "counts": {"views": 3}, "approved_by": "ana",
}


def ledger_schema():
    return Schema.load(os.path.join(HERE, "ledger.json"))


def ledger_doc():
    with open(os.path.join(HERE, "ledger.json"), encoding="utf-8") as f:
        return json.load(f)


def values_of(row):
    return {k: v for k, v in row.items() if k not in ("invoice_id", "line_no")}


def cell_map(cells):
    """The cell map of ``cells`` (ENCODING.md): c1, a map of bin to bin."""
    out = bytearray(b"\xc1") + bytes([0x80 | len(cells)])
    for q, v in sorted(cells.items()):
        for b in (q, v):
            out += bytes([0xC4, len(b)]) + b
    return bytes(out)


class Binary:
    """boto3.dynamodb.types.Binary's shape."""

    def __init__(self, value):
        self.value = value


class MessagePack(unittest.TestCase):
    def test_every_marker(self):
        cases = [
            ("c0", None), ("c2", False), ("c3", True), ("00", 0), ("7f", 127), ("e0", -32), ("ff", -1),
            ("cc80", 128), ("cdffff", 65535), ("ceffffffff", 2**32 - 1), ("cfffffffffffffffff", 2**64 - 1),
            ("d080", -128), ("d18000", -32768), ("d280000000", -2**31), ("d38000000000000000", -2**63),
            ("ca3e800000", 0.25), ("cb3fd0000000000000", 0.25), ("cb7ff8000000000000", None),
            ("a0", ""), ("a3616263", "abc"), ("d903616263", "abc"), ("da0003616263", "abc"), ("db00000003616263", "abc"),
            ("c40100", b"\x00"), ("c5000100", b"\x00"), ("c600000001ff", b"\xff"),
            ("90", []), ("920102", [1, 2]), ("dc00020102", [1, 2]), ("dd000000020102", [1, 2]),
            ("80", {}), ("81a16101", {"a": 1}), ("de0001a16101", {"a": 1}), ("df00000001a16101", {"a": 1}),
            ("8192010203", {(1, 2): 3}), ("81c0c3", {None: True}),
            ("d4ff01", Ext(-1, b"\x01")), ("d8" + "05" + "00" * 16, Ext(5, b"\x00" * 16)), ("c7020a0102", Ext(10, b"\x01\x02")),
            ("c8000100ff", Ext(0, b"\xff")), ("c900000000ff", Ext(-1, b"")),
        ]
        for data, want in cases:
            got = decode_msgpack(bytes.fromhex(data))
            if data == "cb7ff8000000000000":
                self.assertNotEqual(got, got)          # NaN
                continue
            self.assertEqual(got, want, data)
            self.assertEqual(type(got), type(want), data)
        self.assertEqual(decode_msgpack(bytearray(b"\x91\xa1x")), ["x"])
        self.assertEqual(decode_msgpack(memoryview(b"\x01")), 1)

    def test_the_spec_vector(self):
        self.assertEqual(decode_msgpack(bytes.fromhex("82a6616374696f6ea5636c69636ba16e07")), {"action": "click", "n": 7})

    def test_bad_bytes_are_a_decode_error(self):
        for data, why in [
            (b"", "past the end"), (b"\xc1", "0xc1"), (b"\x01\x02", "1 bytes after the value"),
            (b"\xa2a", "past the end"), (b"\xcd\x01", "past the end"), (b"\xa2\xff\xfe", "not UTF-8"),
            (b"\xdd\xff\xff\xff\xff", "more than the 0 bytes left"), (b"\xdf\xff\xff\xff\xff\x00", "claims 4294967295"),
            (b"\x91" * 600 + b"\x00", "deeper than 128"), (b"\x81\x80\x00", "is a map"),
            (b"\xc6\xff\xff\xff\xff", "past the end"), (b"\xd8\x01", "past the end"),
        ]:
            with self.assertRaises(DecodeError) as caught:
                decode_msgpack(data)
            self.assertIn(why, str(caught.exception), data[:8])
        with self.assertRaises(DecodeError):
            decode_msgpack("not bytes")

    def test_no_other_exception_on_any_bytes(self):
        """Truncations and random corruptions of a nested value, and random
        bytes: a value or DecodeError, never another exception."""
        rng = random.Random(7)
        whole = LEDGER_MAP + b""
        samples = [whole[:i] for i in range(len(whole))]
        for _ in range(3000):
            damaged = bytearray(whole)
            for _ in range(rng.randint(1, 4)):
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
            samples.append(bytes(damaged))
            samples.append(bytes(rng.randrange(256) for _ in range(rng.randint(0, 24))))
        for data in samples:
            try:
                decode_msgpack(data)
            except DecodeError:
                pass


class Kinds(unittest.TestCase):
    def test_the_kind_of_each_type_text(self):
        for text, kind in [
            ("i64", "i64"), ("Option<u32>", "u32"), ("u128", "u128"), ("Option<i128>", "i128"), ("Option < u8 >", "u8"), ("isize", "i64"), ("usize", "u64"),
            ("f32", "f32"), ("Option<f64>", "f64"), ("bool", "bool"), ("char", "char"),
            ("String", "str"), ("std::string::String", "str"), ("Option<String>", "str"), ("Box<str>", "str"),
            ("serde_bytes::ByteBuf", "bytes"), ("bytes::Bytes", "bytes"), ("std::sync::Arc<i32>", "i32"),
            ("Vec<u8>", "msgpack"), ("Vec<String>", "msgpack"), ("std::collections::BTreeMap<String, u32>", "msgpack"),
            ("HashMap<String, Vec<u8>>", "msgpack"), ("[u8; 16]", "msgpack"), ("(u8, String)", "msgpack"),
            ("Option<Vec<u8>>", "msgpack"), ("Address", "auto"), ("Cents", "auto"), ("Option<Status>", "auto"),
            ("()", "auto"), ("serde_json::Value", "auto"), ("Wrapper<i64>", "auto"),
        ]:
            self.assertEqual(value_kind(text), kind, text)

    def test_the_document_gives_each_field_its_kind(self):
        schema = ledger_schema()
        self.assertEqual(schema.family, "f")
        self.assertEqual([(f.name, f.kind, f.required, f.optional) for f in schema.values[:3]], [
            ("amount", "i64", True, False), ("memo", "str", True, False), ("ratio", "f64", True, False)])
        note = next(f for f in schema.values if f.name == "note")
        self.assertEqual((note.kind, note.required, note.optional), ("str", False, True))
        # A document without value fields has none, and the default family.
        doc = ledger_doc()
        del doc["values"], doc["family"]
        schema = Schema.from_json(json.dumps(doc))
        self.assertEqual((schema.values, schema.family), ([], "f"))
        self.assertEqual(schema.decode_values(b"\x80"), {})

    def test_bad_value_members_are_refused(self):
        doc = ledger_doc()
        for values, family in [
            ("amount", "f"), ([{"name": "amount", "type": "i64"}], "f"), ([{"name": "", "type": "i64", "required": True}], "f"),
            ([{"name": "line_no", "type": "i64", "required": True}], "f"),
            ([{"name": "a", "type": "i64", "required": True}, {"name": "a", "type": "u8", "required": True}], "f"),
            ([], ""), ([], 7),
        ]:
            doc["values"], doc["family"] = values, family
            with self.assertRaises(SchemaError, msg=repr((values, family))):
                Schema.from_json(json.dumps(doc))


class OrderedStores(unittest.TestCase):
    def setUp(self):
        self.schema = ledger_schema()

    def test_the_ledger_line(self):
        self.assertEqual(self.schema.decode_values(LEDGER_MAP), values_of(LEDGER))
        row = self.schema.decode_row(LEDGER_KEY, LEDGER_MAP)
        self.assertEqual(row, LEDGER)
        self.assertEqual(list(row), list(LEDGER))    # key fields, then value fields in declaration order

    def test_unknown_fields_are_ignored_and_missing_ones_named(self):
        # {"amount": 1, "gone": [1]}: every other required field is missing.
        value = b"\x82\xa6amount\x01\xa4gone\x91\x01"
        with self.assertRaises(DecodeError) as caught:
            self.schema.decode_values(value)
        self.assertIn("value field `memo` is missing", str(caught.exception))
        # Only the optional fields missing: None.
        fields = decode_msgpack(LEDGER_MAP)
        self.assertEqual(fields.pop("approved_by"), "ana")
        self.assertEqual(fields.pop("note"), None)
        self.assertEqual(self.schema.decode_values(_pack_map(fields))["approved_by"], None)

    def test_values_of_the_wrong_type_are_refused(self):
        fields = decode_msgpack(LEDGER_MAP)
        for name, bad in [("amount", "x"), ("amount", 2**63), ("amount", 1.5), ("memo", 7), ("paid", 1), ("ratio", "0.25"), ("memo", None)]:
            wrong = dict(fields, **{name: bad})
            with self.assertRaises(DecodeError, msg=(name, bad)) as caught:
                self.schema.decode_values(_pack_map(wrong))
            self.assertIn("value field `%s`" % name, str(caught.exception))
        # A 128-bit integer is a bin of its 16 bytes (rmp-serde's form), or any integer.
        doc = ledger_doc()
        doc["values"][0]["type"] = "i128"
        wide = Schema.from_json(json.dumps(doc))
        for amount, want in [(b"\xff" * 16, -1), (b"\x00" * 15 + b"\x07", 7), (-5, -5)]:
            self.assertEqual(wide.decode_values(_pack_map(dict(fields, amount=amount)))["amount"], want)
        with self.assertRaises(DecodeError):
            wide.decode_values(_pack_map(dict(fields, amount=b"\x00" * 15)))
        # An integer where a float is declared reads as the float, as serde reads it.
        self.assertEqual(self.schema.decode_values(_pack_map(dict(fields, ratio=3)))["ratio"], 3.0)

    def test_an_f32_field_refuses_a_number_beyond_its_range(self):
        """As the Rust reader (tests/value_misfits.rs): a finite number an
        f32 cannot hold (it would round to an infinity) is refused, naming
        the field and the number, in the map, a cell and a DynamoDB item;
        one it holds is rounded to it."""
        doc = ledger_doc()
        for v in doc["values"]:
            if v["name"] == "ratio":
                v["type"] = "f32"
        schema = Schema.from_json(json.dumps(doc))
        fields = decode_msgpack(LEDGER_MAP)
        rounded = struct.unpack(">f", struct.pack(">f", 0.1))[0]
        max32 = struct.unpack(">f", b"\x7f\x7f\xff\xff")[0]
        for v, text in [(1e39, "1e39"), (-3.5e38, "-3.5e38"), (0.1, None), (max32, None)]:
            reads = [
                (lambda: schema.decode_values(_pack_map(dict(fields, ratio=v))), text),
                (lambda: schema.decode_values({**LEDGER_CELLS, b"ratio": struct.pack(">d", v)}), text),
                # DynamoDB's number as the item holds it.
                (lambda: schema.decode_item(dict(LEDGER_ITEM, ratio={"N": repr(v)})), "(N) " + repr(v)),
            ]
            for read, said in reads:
                if text is None:
                    self.assertEqual(read()["ratio"], rounded if v == 0.1 else max32)
                    continue
                with self.assertRaises(DecodeError, msg=v) as caught:
                    read()
                self.assertEqual("value field `ratio` does not read as its declared type: the number %s does not fit an f32 "
                                 "(whose largest magnitude is 3.4028235e38): declare the field f64" % said, str(caught.exception))

    def test_bytes_that_are_not_a_map_of_fields(self):
        for value in [b"", b"\x91\x01", b"\x81\x01\x02", b"raw bytes", LEDGER_MAP[:-1], LEDGER_MAP + b"\x00"]:
            with self.assertRaises(DecodeError):
                self.schema.decode_values(value)
        with self.assertRaises(ValueError_):
            self.schema.decode_values(12)
        with self.assertRaises(ValueError_):
            self.schema.decode_values(LEDGER_MAP, kinds={"nope": "i64"})

    def test_a_map_that_names_no_field_is_not_a_row(self):
        # Only optional fields: the empty map, another program's struct
        # (rmp_serde::to_vec_named of {title, pages}) and an empty cell map
        # named none of them, and used to read as a row of Nones.
        doc = ledger_doc()
        doc["values"] = [{"name": "a", "type": "Option<u32>", "required": False}, {"name": "b", "type": "Option<String>", "required": False}]
        schema = Schema.from_json(json.dumps(doc))
        for value in [b"\x80", b"\x82\xa5title\xa4Dune\xa5pages\xcd\x01\x9c", b"\xc1\x80", b"\xc1\x81\xc4\x05title\xc4\x04Dune", {b"title": b"Dune"}, {}]:
            with self.assertRaises(DecodeError, msg=value) as caught:
                schema.decode_values(value)
            self.assertIn("names none of the key type's value fields (`a`, `b`)", str(caught.exception))
        # What keyschema writes names a field, or holds the presence mark.
        for value in [b"\x81\xa1a\xc0", b"\x82\xa1b\xc0\xa5title\xa4Dune", b"\x81\xa0\xc0", {b"": b""}]:
            self.assertEqual(schema.decode_values(value), {"a": None, "b": None}, value)
        # A required field missing is still named first.
        with self.assertRaises(DecodeError) as caught:
            self.schema.decode_values(b"\x80")
        self.assertIn("value field `amount` is missing", str(caught.exception))


class Bigtable(unittest.TestCase):
    def setUp(self):
        self.schema = ledger_schema()

    def test_the_ledger_line_as_cbt_shows_it(self):
        self.assertEqual(self.schema.decode_row(LEDGER_KEY, LEDGER_CELLS), LEDGER)
        self.assertEqual(self.schema.decode_row(LEDGER_KEY, cell_map(LEDGER_CELLS)), LEDGER)
        by_text = {q.decode(): v for q, v in LEDGER_CELLS.items()}
        self.assertEqual(self.schema.decode_values(by_text), values_of(LEDGER))

    def test_the_shapes_google_cloud_bigtable_gives(self):
        class Cell:
            def __init__(self, value, family="f", qualifier=b""):
                self.value, self.family, self.qualifier = value, family, qualifier

        class Row:
            def __init__(self, cells):
                self.cells = cells

        # row.cells: {family: {qualifier: [Cell, newest first]}}.
        families = {"f": {q: [Cell(v), Cell(b"older")] for q, v in LEDGER_CELLS.items()}, "v": {b"v": [Cell(b"raw")]}}
        self.assertEqual(self.schema.decode_values(families), values_of(LEDGER))
        self.assertEqual(self.schema.decode_values(Row(families)), values_of(LEDGER))
        # The data client's row.cells: a list of cells with family and qualifier.
        listed = [Cell(v, "f", q) for q, v in LEDGER_CELLS.items()] + [Cell(b"x", "g", b"memo")]
        self.assertEqual(self.schema.decode_values(listed), values_of(LEDGER))
        self.assertEqual(self.schema.decode_values(Row(listed)), values_of(LEDGER))

    def test_missing_unknown_and_presence_cells(self):
        cells = {**LEDGER_CELLS, b"": b"", b"someone_elses": b"\xff\xfe"}
        del cells[b"approved_by"]
        self.assertEqual(self.schema.decode_values(cells)["approved_by"], None)
        del cells[b"memo"]
        with self.assertRaises(DecodeError) as caught:
            self.schema.decode_values(cells)
        self.assertIn("value field `memo` is missing", str(caught.exception))
        with self.assertRaises(DecodeError):
            self.schema.decode_values(cell_map(cells))

    def test_cells_by_kind(self):
        schema = self.schema
        for kind, cell, want in [
            ("i64", b"\xff" * 8, -1), ("i32", b"\x00" * 6 + b"\x7f\xff", 32767), ("i64", b"\xff" * 7 + b"\xfe", -2),
            ("u64", b"\xff" * 8, 2**64 - 1), ("u8", b"\x00" * 7 + b"\xff", 255),
            ("u128", b"\xff" * 16, 2**128 - 1), ("i128", b"\xff" * 16, -1), ("i128", b"\xff" * 8, -1), ("u128", b"\x00" * 7 + b"\x01", 1),
            ("f64", struct.pack(">d", -1.5), -1.5),
            ("f32", struct.pack(">d", 0.1), struct.unpack(">f", struct.pack(">f", 0.1))[0]), ("f32", struct.pack(">d", float("inf")), float("inf")),
            ("bool", b"true", True), ("bool", b"false", False), ("bool", b"\x01", True), ("bool", b"\xff", True), ("bool", b"\x00", False),
            ("str", "é€".encode(), "é€"), ("str", b"", ""), ("char", "😀".encode(), "😀"), ("bytes", b"\xff\x00", b"\xff\x00"),
            ("msgpack", b"\x92\x01\xa1a", [1, "a"]), ("auto", b"\x81\xa4Paid\x80", {"Paid": {}}), ("auto", b"Open", "Open"),
            ("auto", b"\x91\x01\x02", b"\x91\x01\x02"), ("auto", b"\xff", b"\xff"), ("auto", b"\x90", []),
            ("auto", b"\xc1\x05", 5), ("auto", b"\xc1\xc3", True), ("auto", b"5", "5"), ("auto", b"\xc1\xa15", "5"),
        ]:
            got = schema.decode_values({**LEDGER_CELLS, b"memo": cell}, kinds={"memo": kind})["memo"]
            self.assertEqual((got, type(got)), (want, type(want)), (kind, cell))
        for kind, cell, why in [
            ("i64", b"\x00" * 3, "a cell of 3 bytes (000000)"), ("u64", b"\xff", "a cell of 1 bytes"),
            ("i64", b"5", 'the text "5"'), ("i32", b"\xff\xff\xff\xfe", "a cell of 4 bytes"), ("f64", struct.pack(">f", 0.5), "a float"),
            ("auto", b"\xc1\x05\x06", "after the byte c1"),
            ("u8", b"\x00" * 6 + b"\x01\x00", "256 does not fit in u8"), ("i8", b"\x00" * 7 + b"\x80", "128 does not fit in i8"),
            ("i64", b"\x00" * 16, "a cell of 16 bytes"), ("u128", b"\x00" * 15, "an integer: 8 or 16 big-endian bytes, found a cell of 15 bytes"),
            ("f64", b"\x00" * 5, "a float"), ("f32", struct.pack(">d", 1e300), "the number 1e300 does not fit an f32"), ("bool", b"yes", "a bool"), ("str", b"\xff", "UTF-8 text"),
            ("char", b"ab", 'invalid value: string "ab", expected a character'), ("msgpack", b"\x92\x01", "MessagePack does not read"), ("msgpack", b"\xc1", "0xc1"),
        ]:
            with self.assertRaises(DecodeError, msg=(kind, cell)) as caught:
                schema.decode_values({**LEDGER_CELLS, b"memo": cell}, kinds={"memo": kind})
            self.assertTrue(str(caught.exception).startswith("value field `memo` does not read as its declared type: "), str(caught.exception))
            self.assertIn(why, str(caught.exception))

    def test_no_other_exception_on_any_cell(self):
        """Random cells of every kind, and random cell maps: a value or
        DecodeError, never another exception."""
        rng = random.Random(19)
        kinds = sorted(keyschema._values.KINDS)
        for _ in range(3000):
            cell = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 2, 4, 8, 16, rng.randint(0, 40)])))
            if rng.random() < 0.3:
                cell = rng.choice(list(LEDGER_CELLS.values()))[:rng.randint(0, 12)] + cell[:2]
            for value in ({**LEDGER_CELLS, b"memo": cell}, b"\xc1" + cell, cell):
                try:
                    self.schema.decode_values(value, kinds={"memo": rng.choice(kinds)})
                except DecodeError:
                    pass

    def test_a_newtype_takes_the_kind_its_caller_names(self):
        doc = ledger_doc()
        doc["values"][0]["type"] = "Cents"
        schema = Schema.from_json(json.dumps(doc))
        cells = {**LEDGER_CELLS, b"amount": b"\x00" * 6 + b"\x41\x42"}   # 16706, or the text "\0...AB"
        self.assertEqual(schema.decode_values(cells)["amount"], "\x00" * 6 + "AB")
        self.assertEqual(schema.decode_values(cells, kinds={"amount": "i64"})["amount"], 16706)
        self.assertEqual(schema.decode_values(cells, kinds={"amount": "Option<i64>"})["amount"], 16706)
        with self.assertRaises(ValueError_):
            schema.decode_values(cells, kinds={"amount": 8})

    def test_a_row_of_nones_keeps_its_presence_cell(self):
        doc = ledger_doc()
        doc["values"] = [{"name": "a", "type": "Option<u32>", "required": False}, {"name": "b", "type": "Option<String>", "required": False}]
        schema = Schema.from_json(json.dumps(doc))
        self.assertEqual(schema.decode_values({b"": b""}), {"a": None, "b": None})
        self.assertEqual(schema.decode_values(b"\xc1\x81\xc4\x00\xc4\x00"), {"a": None, "b": None})
        self.assertEqual(schema.decode_values(b"\x82\xa1a\xc0\xa1b\xc0"), {"a": None, "b": None})

    def test_bad_cell_maps_and_cells(self):
        for value in [b"\xc1", b"\xc1\x81\xa1a\xc4\x00", b"\xc1\x81\xc4\x00\xa1a", b"\xc1\x91\x00", b"\xc1\x81\xc4\x01"]:
            with self.assertRaises(DecodeError, msg=value):
                self.schema.decode_values(value)
        for cells in [{b"memo": 7}, {7: b"x"}, {b"memo": [7]}]:
            with self.assertRaises(ValueError_, msg=cells):
                self.schema.decode_values(cells)
        with self.assertRaises(ValueError_):
            self.schema.decode_values(object())


class DynamoDB(unittest.TestCase):
    def setUp(self):
        self.schema = ledger_schema()

    def test_the_ledger_item_as_boto3s_client_prints_it(self):
        row = self.schema.decode_item(LEDGER_ITEM)
        self.assertEqual(row, dict(LEDGER, approved_by=None))    # a default field the item lacks
        self.assertEqual(list(row), list(LEDGER))
        self.assertEqual(self.schema.decode_item_values(LEDGER_ITEM)["amount"], 1000)

    def test_the_ledger_item_as_boto3s_resource_gives_it(self):
        D = decimal.Decimal
        item = {
            "address": {"city": "Oslo", "zip": None}, "amount": D("1000"), "counts": {"views": D("3")},
            "invoice_id": "INV-1", "line_no": D("2"), "memo": "rent 2", "note": None, "paid": True,
            "pk": Binary(b"INV-1\x00"), "ratio": D("0.25"), "sk": Binary(b"\x00\x02"),
            "status": {"Paid": {"on": D("1700000000")}}, "tags": ["home", "monthly"], "approved_by": "ana",
        }
        self.assertEqual(self.schema.decode_item(item), LEDGER)
        self.assertEqual(self.schema.decode_item(dict(item, pk=b"INV-1\x00", sk=bytearray(b"\x00\x02"))), LEDGER)
        # Sets (another program's) read as lists; a float field's integer is a float.
        got = self.schema.decode_item(dict(item, tags={"b", "a"}, ratio=D("3")))
        self.assertEqual((got["tags"], got["ratio"], type(got["ratio"])), (["a", "b"], 3.0, float))

    def test_numbers_read_as_rust_reads_them(self):
        item = dict(LEDGER_ITEM, counts={"M": {
            "a": {"N": "18446744073709551615"}, "b": {"N": "-9223372036854775808"}, "c": {"N": "18446744073709551616"},
            "d": {"N": "1.5"}, "e": {"N": "1E+3"}, "f": {"N": "-0"},
        }})
        # Read as stored (a type without a shape): the numbers as such.
        counts = self.schema.decode_item(item, kinds={"counts": "msgpack"})["counts"]
        self.assertEqual(counts, {"a": 2**64 - 1, "b": -2**63, "c": 1.8446744073709552e19, "d": 1.5, "e": 1000.0, "f": 0})
        self.assertEqual([type(counts[k]) for k in "abcdef"], [int, int, float, float, float, int])
        for amount in ["1.5", "9223372036854775808", "1E+3", "x"]:
            with self.assertRaises(DecodeError, msg=amount) as caught:
                self.schema.decode_item(dict(LEDGER_ITEM, amount={"N": amount}))
            self.assertIn("value field `amount`", str(caught.exception))
        self.assertEqual(self.schema.decode_item(dict(LEDGER_ITEM, ratio={"N": "2"}))["ratio"], 2.0)

    def test_sets_and_types_a_later_dynamodb_adds(self):
        item = dict(LEDGER_ITEM, tags={"SS": ["x", "y"]}, counts={"M": {"n": {"NS": ["1", "2.5"]}, "b": {"BS": [b"\x00"]}, "z": {"ZZ": 1}}})
        row = self.schema.decode_item(item, kinds={"counts": "msgpack"})
        self.assertEqual((row["tags"], row["counts"]), (["x", "y"], {"n": [1, 2.5], "b": [b"\x00"], "z": None}))

    def test_an_item_holding_a_raw_value_says_what_rust_says(self):
        # What put_row wrote before the key type had value fields: the key
        # attributes and a binary `v`. Rust's DynamoError::RawValue words.
        for item in [
            {"pk": {"B": b"INV-1\x00"}, "sk": {"B": b"\x00\x02"}, "v": {"B": b"old payload"}},
            {"pk": Binary(b"INV-1\x00"), "sk": Binary(b"\x00\x02"), "v": Binary(b"old payload")},
        ]:
            for read in [self.schema.decode_item, self.schema.decode_item_values]:
                with self.assertRaises(DecodeError, msg=read) as caught:
                    read(item)
                message = str(caught.exception)
                self.assertIn("holds a raw value (a binary `v` attribute, written by put_row before the key type had value fields), not its value fields: rewrite it with put_record", message)
                self.assertNotIn("is missing", message)
            with self.assertRaises(DecodeError) as caught:
                self.schema.decode_item(item)
            self.assertIn("the item under key INV-1\\x00\\x00\\x02 holds a raw value", str(caught.exception))

    def test_key_attributes(self):
        renamed = {("PK" if k == "pk" else "SK" if k == "sk" else k): v for k, v in LEDGER_ITEM.items()}
        self.assertEqual(self.schema.decode_item(renamed, partition_key="PK", sort_key="SK")["line_no"], 2)
        with self.assertRaises(DecodeError) as caught:
            self.schema.decode_item(renamed)
        self.assertIn("no key attribute `pk`", str(caught.exception))
        for pk in [{"S": "INV-1"}, {"B": "!!"}, {"N": "1"}]:
            with self.assertRaises(DecodeError, msg=pk):
                self.schema.decode_item(dict(LEDGER_ITEM, pk=pk))
        # The key bytes decode as a key: a bad one is the key's DecodeError.
        with self.assertRaises(DecodeError) as caught:
            self.schema.decode_item(dict(LEDGER_ITEM, sk={"B": b"\x00"}))
        self.assertIn("line_no", str(caught.exception))
        # DynamoDB JSON (the AWS CLI) writes B as base64.
        self.assertEqual(self.schema.decode_item(dict(LEDGER_ITEM, pk={"B": "SU5WLTEA"}, sk={"B": "AAI="}))["invoice_id"], "INV-1")

    def test_a_text_key_is_a_string(self):
        doc = ledger_doc()
        doc["format"] = {"kind": "text", "sep": "#"}
        schema = Schema.from_json(json.dumps(doc))
        key = schema.encode({"invoice_id": "INV-1", "line_no": 2})
        split = key.index(b"#") + 1
        item = dict(LEDGER_ITEM, pk={"S": key[:split].decode()}, sk={"S": key[split:].decode()})
        self.assertEqual(schema.decode_item(item)["line_no"], 2)
        with self.assertRaises(DecodeError):
            schema.decode_item(LEDGER_ITEM)

    def test_no_other_exception_on_any_attribute(self):
        """Random attributes of either form: a value or DecodeError."""
        rng = random.Random(23)
        payloads = [None, True, 1, 1.5, "1", "x", "SU5W", b"\x00", [], {}, decimal.Decimal("2"), Binary(b"a"), {"1"}, object()]

        def attribute(depth):
            if depth > 3 or rng.random() < 0.3:
                return rng.choice(payloads)
            tag = rng.choice(["S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS", "ZZ"])
            inner = [attribute(depth + 1) for _ in range(rng.randint(0, 2))]
            if rng.random() < 0.5:
                return {tag: inner if tag in ("L", "SS", "NS", "BS") else rng.choice(inner or payloads)}
            return {tag: {"k%d" % i: x for i, x in enumerate(inner)}} if rng.random() < 0.5 else inner
        for _ in range(3000):
            item = {f.name: attribute(0) for f in self.schema.values if rng.random() < 0.8}
            for low in (True, False, None):
                try:
                    self.schema.decode_item_values(item, low_level=low)
                except DecodeError:
                    pass

    def test_malformed_items(self):
        for bad in [{"S": 1}, {"N": 1}, {"BOOL": "yes"}, {"L": 3}, {"M": []}, {"SS": [1]}, {"B": 5}, {"S": "a", "N": "1"}, "plain"]:
            with self.assertRaises(DecodeError, msg=bad):
                self.schema.decode_item(dict(LEDGER_ITEM, memo=bad), low_level=True)
        with self.assertRaises(DecodeError):
            self.schema.decode_item(dict(LEDGER_ITEM, memo={"M": {1: {"S": "x"}}}))
        for bad in [object(), {1: "x"}, {"a", 1}]:
            with self.assertRaises(DecodeError, msg=bad):
                self.schema.decode_item({"pk": b"INV-1\x00", "sk": b"\x00\x02", "memo": bad}, low_level=False)
        with self.assertRaises(ValueError_):
            self.schema.decode_item([("pk", b"")])
        deep = {"NULL": True}
        for _ in range(600):
            deep = {"L": [deep]}
        with self.assertRaises(DecodeError):
            self.schema.decode_item(dict(LEDGER_ITEM, tags=deep))


class NilFields(unittest.TestCase):
    """A field whose type reads nil (``serde_json::Value``, ``()``, a
    newtype of an ``Option``): Bigtable and DynamoDB keep no cell or
    attribute for its nil and Rust reads the missing field as nil, so the
    document marks it ``"required": false, "nil": true`` (tests/schema_json.rs
    holds the Rust document to this form)."""

    def setUp(self):
        doc = ledger_doc()
        doc["values"] = [
            {"name": "doc", "type": "serde_json::Value", "required": False, "nil": True},
            {"name": "maybe", "type": "Maybe", "required": False, "nil": True},
            {"name": "n", "type": "u32", "required": True},
        ]
        self.doc = doc
        self.schema = Schema.from_json(json.dumps(doc))

    def test_a_missing_field_reads_as_nil_in_every_store_shape(self):
        want = {"doc": None, "maybe": None, "n": 7}
        n = b"\x00" * 7 + b"\x07"
        self.assertEqual(self.schema.decode_values({b"n": n}), want)                 # cells
        self.assertEqual(self.schema.decode_values(cell_map({b"n": n})), want)
        self.assertEqual(self.schema.decode_values(b"\x81\xa1n\x07"), want)          # a map without them
        item = {"pk": {"B": b"INV-1\x00"}, "sk": {"B": b"\x00\x02"}, "n": {"N": "7"}}
        self.assertEqual(values_of(self.schema.decode_item(item)), want)
        # A required field that does not read nil is still named.
        with self.assertRaises(DecodeError) as caught:
            self.schema.decode_values({b"doc": b"x"})
        self.assertIn("value field `n` is missing", str(caught.exception))

    def test_a_stored_nil_reads_whatever_kind_the_caller_names(self):
        # The ordered stores keep nil in the map; Maybe(Some(5))'s cell is 8 bytes.
        value = _pack_map({"doc": None, "maybe": None, "n": 7})
        self.assertEqual(self.schema.decode_values(value, kinds={"maybe": "i32"}), {"doc": None, "maybe": None, "n": 7})
        cells = {b"maybe": b"\x00" * 7 + b"\x05", b"n": b"\x00" * 8}
        self.assertEqual(self.schema.decode_values(cells, kinds={"maybe": "i32"})["maybe"], 5)
        with self.assertRaises(DecodeError):
            self.schema.decode_values(_pack_map({"n": None}))

    def test_nil_overrides_required_and_must_be_a_bool(self):
        self.doc["values"][0]["required"] = True
        field = Schema.from_json(json.dumps(self.doc)).values[0]
        self.assertEqual((field.required, field.nil, field.optional), (False, True, True))
        self.doc["values"][0]["nil"] = 1
        with self.assertRaises(SchemaError) as caught:
            Schema.from_json(json.dumps(self.doc))
        self.assertIn("values[0].nil", str(caught.exception))


def _pack_map(fields):
    """A MessagePack map of the few value types these tests use."""
    def pack(v):
        if v is None:
            return b"\xc0"
        if v is True or v is False:
            return b"\xc3" if v else b"\xc2"
        if isinstance(v, int):
            return b"\xcf" + v.to_bytes(8, "big") if v >= 0 else b"\xd3" + v.to_bytes(8, "big", signed=True)
        if isinstance(v, float):
            return b"\xcb" + struct.pack(">d", v)
        if isinstance(v, str):
            b = v.encode()
            return bytes([0xD9, len(b)]) + b
        if isinstance(v, bytes):
            return bytes([0xC4, len(v)]) + v
        if isinstance(v, list):
            return bytes([0x90 | len(v)]) + b"".join(map(pack, v))
        return bytes([0x80 | len(v)]) + b"".join(pack(k) + pack(x) for k, x in v.items())
    return pack(fields)


if __name__ == "__main__":
    unittest.main()
