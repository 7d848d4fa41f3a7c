"""Scan ranges (ENCODING.md, "Scan ranges"): the key ranges a typed scan
reads, from equality on leading fields and a range on the next."""

import json

from ._encoding import _bits_range, _bucket_value, _check, encode_plain
from ._errors import ValueError_
from ._limits import MAX_BUCKET_EXPANSION


def _prefix_successor(prefix):
    p = bytearray(prefix)
    while p and p[-1] == 0xFF:
        p.pop()
    if not p:
        return None
    p[-1] += 1
    return bytes(p)


class _Open:
    """An open end of a scan range."""

    def __repr__(self):
        return "OPEN"


OPEN = _Open()


class Range:
    """A half-open key range ``[start, end)`` (``end`` None: to the end) in a salt bucket."""

    __slots__ = ("start", "end", "bucket")

    def __init__(self, start, end, bucket):
        self.start, self.end, self.bucket = start, end, bucket

    def __eq__(self, other):
        return isinstance(other, Range) and (self.start, self.end, self.bucket) == (other.start, other.end, other.bucket)

    def __repr__(self):
        return "Range(%r, %r, bucket=%d)" % (self.start, self.end, self.bucket)


def _describe(v):
    """A value as Rust's ``Value::describe`` words it in a refusal: a
    string quoted, bytes by their length, else its kind and JSON."""
    if isinstance(v, str):
        return "String %s" % json.dumps(v, ensure_ascii=False)
    if isinstance(v, (bytes, bytearray)):
        return "%d bytes" % len(v)
    if isinstance(v, bool):
        return "bool %s" % ("true" if v else "false")
    if isinstance(v, float):
        return "f64 %r" % v
    return "%s %r" % (type(v).__name__, v)


def _check_field(field, v):
    """Refuses ``v`` for ``field`` as the Rust range builder does, naming
    the field, its type and the value given."""
    try:
        _check(field.encoding, v)
    except ValueError_:
        raise ValueError_(
            "field `%s` is %s, but the value given is %s" % (field.name, field.encoding, _describe(v))
        ) from None


def _in_key_order(schema, equal):
    """The bound values in key order: ``equal`` as a list or tuple of the
    first fields' values, or a dict by name that binds exactly the first
    fields (as a typed scan binds them, in key order)."""
    if isinstance(equal, dict):
        names = [f.name for f in schema.fields]
        wanted = names[: len(equal)]
        if sorted(equal) != sorted(wanted):
            raise ValueError_(
                "a scan binds the key's first fields in key order (%s): %s given"
                % (", ".join(names), ", ".join(map(str, equal)) or "none")
            )
        return [equal[name] for name in wanted]
    if not isinstance(equal, (list, tuple)):
        raise ValueError_(
            "the bound fields are a list of values in key order or a dict by name, not %s"
            % type(equal).__name__
        )
    return list(equal)


def ranges(schema, equal, lo=OPEN, hi=OPEN, lo_inclusive=True, hi_inclusive=False, ranged=None):
    """``Schema.ranges``: the key ranges of ``schema`` a typed scan reads."""
    if ranged is None:
        ranged = lo is not OPEN or hi is not OPEN
    equal = _in_key_order(schema, equal)
    n = len(equal) + (1 if ranged else 0)
    if n > len(schema.fields):
        raise ValueError_(
            "%d values given for %d of the key's fields (%s)"
            % (n, len(schema.fields), ", ".join(f.name for f in schema.fields))
        )
    state = (b"", [])

    def push(state, index, v):
        body, plains = state
        c = schema.components[index]
        body += schema._key_form(c, v)
        if schema.sep is not None and c.encoding.text_width() is not None and index + 1 < len(schema.components):
            body += bytes([schema.sep])
        return body, plains + [encode_plain(c.encoding, v)]

    for f, v in zip(schema.fields, equal):
        _check_field(f, v)
        if f.bucket is not None:
            state = push(state, f.bucket[0], _bucket_value(f.encoding, v, f.bucket[1]))
        state = push(state, f.component, v)
    if not ranged:
        return _collect(schema, [(state, None)])
    f = schema.fields[len(equal)]
    for v in (lo, hi):
        if v is not OPEN:
            _check_field(f, v)
    own = schema.components[f.component]
    if own.transform == "reverse":
        raise ValueError_("a range on `%s` is not possible: it is stored `reverse`d: bind it by equality" % f.name)
    if schema.sep is not None and not f.encoding.is_text_ordered():
        raise ValueError_(
            "a range on `%s` is not possible: in a text key its text order is not its value order: "
            "bind it by equality, or use the binary format" % f.name
        )
    if f.bucket is None:
        enc = lambda v: schema._key_form(own, v)  # noqa: E731
        bounds = (None if lo is OPEN else (enc(lo), lo_inclusive), None if hi is OPEN else (enc(hi), hi_inclusive), own.descending)
        return _collect(schema, [(state, bounds)])
    b, width = f.bucket
    bc = schema.components[b]
    if b not in schema.hashed:
        def enc(v):
            out = schema._key_form(bc, _bucket_value(f.encoding, v, width))
            if schema.sep is not None:
                out += bytes([schema.sep])
            return out + schema._key_form(own, v)
        bounds = (None if lo is OPEN else (enc(lo), lo_inclusive), None if hi is OPEN else (enc(hi), hi_inclusive), bc.descending)
        return _collect(schema, [(state, bounds)])
    if lo is OPEN or hi is OPEN:
        raise ValueError_(
            "the range on `%s` is open-ended, but its bucket is hashed into the salt: "
            "each bucket is a separate partition, so give both ends" % bc.name
        )
    # The buckets holding a value of the range (ENCODING.md, "Limits"):
    # an exclusive end on a bucket's first value leaves that bucket out.
    b_lo = (lo if lo_inclusive else lo + 1) // width
    b_hi = (hi if hi_inclusive else hi - 1) // width
    if b_hi < b_lo:
        return []
    if b_hi - b_lo + 1 > MAX_BUCKET_EXPANSION:
        raise ValueError_("the range on `%s` spans %d buckets of width %d, more than the %d a scan expands into; narrow the range" % (bc.name, b_hi - b_lo + 1, width, MAX_BUCKET_EXPANSION))
    lo_v, hi_v = _bits_range(f.encoding)
    clamp = lambda x: min(max(x, lo_v), hi_v)  # noqa: E731
    alts = []
    for k in range(b_lo, b_hi + 1):
        alt = push(state, b, clamp(k))
        start = (lo, lo_inclusive) if k == b_lo else (clamp(k * width), True)
        end = (hi, hi_inclusive) if k == b_hi else (clamp((k + 1) * width - 1), True)
        bounds = ((schema._key_form(own, start[0]), start[1]), (schema._key_form(own, end[0]), end[1]), own.descending)
        alts.append((alt, bounds))
    return _collect(schema, alts)

def _collect(schema, alts):
    out = []
    for (body, plains), bounds in alts:
        if schema.buckets is None:
            buckets = [None]
        elif not schema.random and all(h < len(plains) for h in schema.hashed):
            buckets = [schema._salt_of(plains)]
        else:
            buckets = list(range(schema.buckets))
        for b in buckets:
            prefix = schema._header(b or 0) + body
            span = _bounds_under(prefix, bounds)
            if span is not None:
                out.append(Range(span[0], span[1], b or 0))
    out.sort(key=lambda r: r.start)
    return out


def _bounds_under(prefix, bounds):
    """ENCODING.md, "Scan ranges": the keys under ``prefix`` whose next
    component lies within the bounds."""
    if bounds is None:
        return prefix, _prefix_successor(prefix)
    lo, hi, descending = bounds
    if descending:
        lo, hi = hi, lo
    if lo is None:
        start = prefix
    elif lo[1]:
        start = prefix + lo[0]
    else:
        start = _prefix_successor(prefix + lo[0])
        if start is None:
            return None
    if hi is None:
        end = _prefix_successor(prefix)
    elif hi[1]:
        end = _prefix_successor(prefix + hi[0])
    else:
        end = prefix + hi[0]
    if end is not None and end <= start:
        return None
    return start, end
