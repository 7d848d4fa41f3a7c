"""Reading a schema document's members (ENCODING.md, "The schema as JSON")
in the Rust reader's order, refusing what it refuses with its words
(``DynSchema::from_json``): the version, the format, the components, the
salt and the key's fields."""

from ._errors import SchemaError
from ._limits import MAX_BUCKETS, MAX_COMPONENTS
from ._nested import quoted

ENCODINGS = (
    "u8..u128, i8..i128, bool, char, String, Vec<u8>, [u8; N], f32, f64, uuid, timestamp, datetime, date, "
    "`enum R {Name = n, ...}` with R one of u8..u64, i8..i64 and distinct names and discriminants that fit R, "
    "or Option of one"
)


def invalid(at, reason):
    return SchemaError("schema `%s`: %s" % (at, reason))


def member(obj, at, key):
    """``obj[key]``, or the refusal of its absence."""
    if key not in obj:
        raise invalid(at + key, "missing")
    return obj[key]


def string(obj, at, key):
    v = member(obj, at, key)
    if not isinstance(v, str):
        raise invalid(at + key, "expected a string")
    return v


def number(obj, at, key):
    """A non-negative JSON integer (``2.0`` is not one)."""
    v = member(obj, at, key)
    if type(v) is not int or v < 0 or v >= 1 << 64:
        raise invalid(at + key, "expected a non-negative integer")
    return v


def version(doc, supported, history):
    """The document's version, one of ``supported``; ``history``: the
    version that has (and alone has) a ``history``."""
    v = number(doc, "", "keyschema")
    if v not in supported:
        raise invalid("keyschema", "version %d is not supported; this build reads versions %d and %d (a layout history)" % ((v,) + tuple(supported)))
    if (v == history) != ("history" in doc):
        raise invalid("history", "version %d documents, and only they, have a `history`" % history)
    return v


def separator(fmt):
    """The text key's separator byte, or None for a binary key."""
    if not isinstance(fmt, dict):
        raise invalid("format", "expected an object")
    kind = string(fmt, "format.", "kind")
    if kind == "binary":
        return None
    if kind != "text":
        raise invalid("format.kind", "%s is neither \"binary\" nor \"text\"" % quoted(kind))
    sep = string(fmt, "format.", "sep")
    if len(sep) != 1 or sep in "%-=" or not (0x21 <= ord(sep) <= 0x7E) or sep.isalnum():
        raise invalid("format.sep", "%s is not one ASCII punctuation character other than %%, - and =" % quoted(sep))
    return ord(sep)


def components(listed, text, encoding_of, component):
    """The components, each checked as the Rust reader checks it, in its
    order: ``encoding_of(text)`` parses an encoding (raising
    ``SchemaError``), ``component(name, type, encoding, descending,
    transform, width)`` makes one."""
    if not isinstance(listed, list):
        raise invalid("components", "expected an array")
    if not 1 <= len(listed) <= MAX_COMPONENTS:
        raise invalid("components", "a key has 1..=%d components, not %d" % (MAX_COMPONENTS, len(listed)))
    out = []
    for i, c in enumerate(listed):
        at = "components[%d]." % i
        if not isinstance(c, dict):
            raise invalid(at[:-1], "expected an object")
        name = string(c, at, "name")
        type_name = string(c, at, "type")
        encoding = member(c, at, "encoding")
        if encoding is None:
            raise invalid(at + "encoding", "the type `%s` of `%s` declares no encoding (`KeyComponent::ENCODING` in its impl), so its bytes cannot be read without the Rust type" % (type_name, name))
        if not isinstance(encoding, str):
            raise invalid(at + "encoding", "expected a string")
        try:
            enc = encoding_of(encoding)
        except SchemaError as e:
            if " nests " in str(e):              # too many Options: said as such
                raise invalid(at + "encoding", str(e)) from None
            raise invalid(at + "encoding", "`%s` is not a key encoding (%s)" % (encoding, ENCODINGS)) from None
        order = string(c, at, "order")
        if order not in ("asc", "desc"):
            raise invalid(at + "order", "%s is neither \"asc\" nor \"desc\"" % quoted(order))
        descending = order == "desc"
        t = member(c, at, "transform")
        width = None
        if t in ("plain", "reverse"):
            transform = t
        elif isinstance(t, dict):
            width = t.get("bucket")
            if type(width) is not int or not 1 <= width < 1 << 64 or len(t) != 1:
                raise invalid(at + "transform", "expected {\"bucket\": W} with W >= 1")
            transform = "bucket"
        else:
            raise invalid(at + "transform", "expected \"plain\", \"reverse\" or {\"bucket\": W}")
        fixed = c.get("fixed_width")
        if isinstance(fixed, (int, float)) and not isinstance(fixed, bool) and fixed != enc.fixed_width():
            raise invalid(at + "fixed_width", "%r disagrees with the encoding `%s`" % (fixed, enc))
        integer = enc.is_integer()
        if transform == "reverse" and not integer:
            raise invalid(at + "transform", "`reverse` needs a fixed-width integer")
        if transform == "reverse" and descending:
            raise invalid(at + "transform", "`reverse` is stored ascending")
        if transform == "bucket" and (not integer or enc.base in ("u128", "i128")):
            raise invalid(at + "transform", "`bucket` needs an integer field (u8..u64, i8..i64)")
        if text and descending and not integer:
            raise invalid(at + "order", "`rev` in a text key needs a number (its digits are complemented)")
        if out and out[-1].transform == "bucket":
            prev = out[-1]
            if transform != "plain" or prev.name != name or str(prev.encoding) != str(enc) or prev.descending != descending:
                raise invalid(at[:-1], "a bucket of `%s` must be followed by `%s` itself: the same name, encoding and order, stored plain" % (prev.name, prev.name))
        out.append(component(name, type_name, enc, descending, transform, width))
    if out[-1].transform == "bucket":
        raise invalid("components[%d]" % (len(out) - 1), "a bucket of `%s` must be followed by `%s` itself" % (out[-1].name, out[-1].name))
    return out


def salt(value, n, at="salt"):
    """A document's salt: ``(buckets, hashed, random)``, checked."""
    if value is None:
        return None, [], False
    if not isinstance(value, dict):
        raise invalid(at, "expected null or an object")
    buckets = number(value, at + ".", "buckets")
    if not 1 <= buckets <= MAX_BUCKETS:
        raise invalid(at + ".buckets", "N = %d is outside 1..=%d" % (buckets, MAX_BUCKETS))
    kind = string(value, at + ".", "kind")
    if kind == "random":
        return buckets, [], True
    if kind != "hash":
        raise invalid(at + ".kind", "%s is neither \"hash\" nor \"random\"" % quoted(kind))
    listed = member(value, at + ".", "hashed")
    if not isinstance(listed, list):
        raise invalid(at + ".hashed", "expected an array")
    hashed = []
    for i, h in enumerate(listed):
        if type(h) is not int or not 0 <= h < n or h in hashed:
            raise invalid("%s.hashed[%d]" % (at, i), "expected the index of a component (0..%d), each once" % n)
        hashed.append(h)
    if not hashed:
        raise invalid(at + ".hashed", "a hash salt hashes at least one component")
    return buckets, hashed, False


def twice(components):
    """Refuses a key field named twice (a bucket and its field are one)."""
    seen = set()
    for i, c in enumerate(components):
        if c.transform == "bucket":
            continue
        if c.name in seen:
            raise invalid("components[%d].name" % i, "`%s` is in the key twice" % c.name)
        seen.add(c.name)
