"""The ``uuid``, ``timestamp``, ``datetime``, ``date`` and ``enum`` encodings
of docs/ENCODING.md ("Identifiers, times and enums"), standard library only.

Values: ``uuid`` is ``uuid.UUID``; ``timestamp``, ``datetime`` and ``date``
are :class:`Timestamp`, :class:`DateTime` and :class:`Date`, which hold every
value of the encoding exactly (nanoseconds, leap seconds, years far outside
1..9999) and convert to and from the ``datetime`` module's types where those
can hold them (``datetime.datetime`` and ``datetime.date`` are accepted on
encode); an ``enum`` is its variant's name, a ``str``.
"""

import datetime as _dt
import re
import uuid as _uuid

_NANOS = 1_000_000_000
_DAY = 86_400
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


class TextError(Exception):
    """A text form that does not decode (the Rust ``TextError``'s words)."""


# ---------------------------------------------------------------------------
# The calendar (proleptic Gregorian, any year)

def civil_from_days(days):
    """``(year, month, day)`` of a day count from 1970-01-01."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1_460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def _days_in_month(year, month):
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def days_from_civil(year, month, day):
    if not 1 <= month <= 12 or not 1 <= day <= _days_in_month(year, month):
        raise ValueError("no such date")
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    return era * 146_097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719_468


def _date_text(days):
    year, month, day = civil_from_days(days)
    if 0 <= year <= 9999:
        y = "%04d" % year
    else:
        y = "%s%04d" % ("-" if year < 0 else "+", abs(year))
    return "%s-%02d-%02d" % (y, month, day)


def _seconds_text(seconds, nanos, zone):
    of_day = seconds % _DAY
    leap = 1 if nanos >= _NANOS else 0
    nanos -= leap * _NANOS
    out = "%sT%02d:%02d:%02d" % (_date_text(seconds // _DAY), of_day // 3600, of_day // 60 % 60, of_day % 60 + leap)
    if nanos:
        out += "." + ("%09d" % nanos).rstrip("0")
    return out + zone


_DATE = re.compile(r"([+-]?)(\d{4,})-(\d\d)-(\d\d)\Z")
_CLOCK = re.compile(r"(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?\Z")


def _parse_date(text):
    m = _DATE.match(text)
    if not m:
        raise ValueError("expected YYYY-MM-DD (a year outside 0000..=9999 with its sign: -0001, +10000)")
    sign, digits = m.group(1), m.group(2)
    year = int(digits)
    canonical = {
        "": len(digits) == 4,
        "+": year > 9999 and not digits.startswith("0"),
        "-": year > 0 and (len(digits) == 4 or not digits.startswith("0")),
    }[sign]
    if not canonical:
        raise ValueError("a year inside 0000..=9999 is four digits without a sign; outside, a sign and no leading zeros beyond four digits")
    return days_from_civil(-year if sign == "-" else year, int(m.group(3)), int(m.group(4)))


def check_seconds(seconds, nanos):
    """Why seconds and nanoseconds are not one value of the encoding, or None."""
    if not -(1 << 63) <= seconds < 1 << 63:
        return "seconds outside i64"
    if not 0 <= nanos < 2 * _NANOS:
        return "nanoseconds above 1999999999"
    if nanos >= _NANOS and seconds % 60 != 59:
        return "a leap second (nanoseconds of 1000000000 or more) after a second other than :59"
    return None


def _parse_seconds(text, zone):
    if zone:
        if not text.endswith(zone):
            raise ValueError("expected YYYY-MM-DDTHH:MM:SS[.fraction]Z (UTC)")
        text = text[:-len(zone)]
    elif text.endswith("Z"):
        raise ValueError("a datetime has no zone: expected YYYY-MM-DDTHH:MM:SS[.fraction]")
    date, sep, clock = text.partition("T")
    if not sep:
        raise ValueError("expected a T between the date and the time")
    days = _parse_date(date)
    m = _CLOCK.match(clock)
    if not m:
        raise ValueError("expected HH:MM:SS")
    h, mi, s = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if h > 23 or mi > 59 or s > 60:
        raise ValueError("hour, minute or second out of range")
    fraction = m.group(4) or ""
    if fraction.endswith("0"):
        raise ValueError("a fraction is 1 to 9 digits without trailing zeros")
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    if s == 60:
        s, nanos = 59, nanos + _NANOS
    seconds = days * _DAY + h * 3600 + mi * 60 + s
    why = check_seconds(seconds, nanos)
    if why:
        raise ValueError(why)
    return seconds, nanos


# ---------------------------------------------------------------------------
# Values

class _Seconds:
    __slots__ = ("seconds", "nanos")
    _ZONE = ""

    def __init__(self, seconds, nanos=0):
        why = check_seconds(seconds, nanos)
        if why:
            raise ValueError(why)
        self.seconds, self.nanos = seconds, nanos

    @classmethod
    def parse(cls, text):
        """Reads the rendering (the JSON form)."""
        return cls(*_parse_seconds(text, cls._ZONE))

    def __str__(self):
        return _seconds_text(self.seconds, self.nanos, self._ZONE)

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, str(self))

    def __eq__(self, other):
        return type(other) is type(self) and (self.seconds, self.nanos) == (other.seconds, other.nanos)

    def __lt__(self, other):
        return (self.seconds, self.nanos) < (other.seconds, other.nanos)

    def __hash__(self):
        return hash((type(self).__name__, self.seconds, self.nanos))

    def _to_naive(self):
        if self.nanos >= _NANOS:
            raise ValueError("%s is a leap second, which the datetime module does not hold" % self)
        if self.nanos % 1000:
            raise ValueError("%s has nanoseconds, which the datetime module does not hold" % self)
        try:
            return _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=self.seconds, microseconds=self.nanos // 1000)
        except OverflowError:
            raise ValueError("%s is outside the datetime module's years 1..9999" % self)

    @staticmethod
    def _of_naive(d):
        delta = d - _dt.datetime(1970, 1, 1)
        return delta.days * _DAY + delta.seconds, delta.microseconds * 1000


class Timestamp(_Seconds):
    """An instant (encoding ``timestamp``): seconds since 1970-01-01T00:00:00Z
    and nanoseconds. ``str()`` is RFC 3339 at UTC."""

    __slots__ = ()
    _ZONE = "Z"

    @classmethod
    def from_datetime(cls, d):
        """From an aware ``datetime.datetime`` (any offset: the instant)."""
        if d.tzinfo is None or d.utcoffset() is None:
            raise ValueError("a timestamp needs an aware datetime (a naive one is a `datetime`)")
        return cls(*cls._of_naive(d.astimezone(_dt.timezone.utc).replace(tzinfo=None)))

    def to_datetime(self):
        """As an aware ``datetime.datetime`` at UTC; ValueError when it
        cannot hold the value exactly."""
        return self._to_naive().replace(tzinfo=_dt.timezone.utc)


class DateTime(_Seconds):
    """A civil date and time without a zone (encoding ``datetime``)."""

    __slots__ = ()

    @classmethod
    def from_datetime(cls, d):
        """From a naive ``datetime.datetime``."""
        if d.tzinfo is not None:
            raise ValueError("a `datetime` has no zone: give a naive datetime (an aware one is a timestamp)")
        return cls(*cls._of_naive(d))

    def to_datetime(self):
        """As a naive ``datetime.datetime``; ValueError when it cannot hold
        the value exactly."""
        return self._to_naive()


class Date:
    """A date (encoding ``date``): days since 1970-01-01."""

    __slots__ = ("days",)

    def __init__(self, days):
        if not -(1 << 31) <= days < 1 << 31:
            raise ValueError("date outside the range of the date encoding")
        self.days = days

    @classmethod
    def parse(cls, text):
        return cls(_parse_date(text))

    @classmethod
    def from_date(cls, d):
        return cls(d.toordinal() - 719_163)

    def to_date(self):
        try:
            return _dt.date.fromordinal(self.days + 719_163)
        except (ValueError, OverflowError):
            raise ValueError("%s is outside the datetime module's years 1..9999" % self)

    def __str__(self):
        return _date_text(self.days)

    def __repr__(self):
        return "Date(%r)" % str(self)

    def __eq__(self, other):
        return isinstance(other, Date) and self.days == other.days

    def __lt__(self, other):
        return self.days < other.days

    def __hash__(self):
        return hash(("Date", self.days))


# ---------------------------------------------------------------------------
# The encodings

def _hex_text(data):
    return data.hex().encode("ascii")


def _unhex_text(text, n):
    if len(text) != 2 * n:
        raise TextError("wrong number of hex digits")
    if not all(c in b"0123456789abcdef" for c in text):
        raise TextError("expected lowercase hex digits")
    return bytes.fromhex(text.decode("ascii"))


def _flip(v, bits):
    return (v + (1 << (bits - 1))).to_bytes(bits // 8, "big")


def _unflip(data, bits):
    return int.from_bytes(data, "big") - (1 << (bits - 1))


class UuidKind:
    name = "uuid"
    width, text_width = 16, 36

    def check(self, v):
        return None if isinstance(v, _uuid.UUID) else "expected a uuid.UUID, got %r" % (v,)

    def encode(self, v):
        return v.bytes

    def decode(self, r):
        return _uuid.UUID(bytes=r.take(16, "16 bytes of uuid"))

    def render(self, v):
        return str(v)

    def encode_text(self, v):
        return str(v).encode("ascii")

    def decode_text(self, text):
        # The checks in the Rust reader's order, with its words.
        if len(text) != 36:
            raise TextError("expected a UUID: 36 characters, 8-4-4-4-12 lowercase hex digits")
        if any(text[i] != 0x2D for i in (8, 13, 18, 23)):
            raise TextError("expected a UUID's hyphens at 8, 13, 18 and 23")
        digits = bytes(c for i, c in enumerate(text) if i not in (8, 13, 18, 23))
        if not all(c in b"0123456789abcdef" for c in digits):
            raise TextError("expected lowercase hex digits in a UUID")
        return _uuid.UUID(bytes=bytes.fromhex(digits.decode("ascii")))

    def from_json(self, j):
        return self.decode_text(j.encode("utf-8"))

    def to_json(self, v):
        return str(v)


class SecondsKind:
    width, text_width = 12, 24

    def __init__(self, name, cls):
        self.name, self.cls = name, cls
        self.expected = "12 bytes of %s" % name

    def value(self, v):
        if isinstance(v, _dt.datetime):
            return self.cls.from_datetime(v)
        return v

    def check(self, v):
        if isinstance(v, self.cls):
            return None
        if isinstance(v, _dt.datetime):
            try:
                self.cls.from_datetime(v)
                return None
            except ValueError as e:
                return str(e)
        return "expected a keyschema.%s or a datetime.datetime, got %r" % (self.cls.__name__, v)

    def encode(self, v):
        v = self.value(v)
        return _flip(v.seconds, 64) + v.nanos.to_bytes(4, "big")

    def _from(self, data, invalid):
        seconds, nanos = _unflip(data[:8], 64), int.from_bytes(data[8:], "big")
        why = check_seconds(seconds, nanos)
        if why:
            raise invalid(why)
        return self.cls(seconds, nanos)

    def decode(self, r):
        start = r.pos
        data = r.take(12, self.expected)
        return self._from(data, lambda why: r.invalid_value_at(start + 8, why))

    def render(self, v):
        return str(self.value(v))

    def encode_text(self, v):
        return _hex_text(self.encode(v))

    def decode_text(self, text):
        def invalid(why):
            return TextError("not a valid time (nanoseconds)")
        return self._from(_unhex_text(text, 12), invalid)

    def from_json(self, j):
        return self.cls.parse(j)

    def to_json(self, v):
        return str(self.value(v))


class DateKind:
    name = "date"
    width, text_width = 4, 8

    def value(self, v):
        if isinstance(v, _dt.date) and not isinstance(v, _dt.datetime):
            return Date.from_date(v)
        return v

    def check(self, v):
        if isinstance(v, Date) or (isinstance(v, _dt.date) and not isinstance(v, _dt.datetime)):
            return None
        return "expected a keyschema.Date or a datetime.date, got %r" % (v,)

    def encode(self, v):
        return _flip(self.value(v).days, 32)

    def decode(self, r):
        return Date(_unflip(r.take(4, "4 bytes of date"), 32))

    def render(self, v):
        return str(self.value(v))

    def encode_text(self, v):
        return _hex_text(self.encode(v))

    def decode_text(self, text):
        return Date(_unflip(_unhex_text(text, 4), 32))

    def from_json(self, j):
        return Date.parse(j)

    def to_json(self, v):
        return str(self.value(v))


_REPRS = {"u8": (8, False), "u16": (16, False), "u32": (32, False), "u64": (64, False),
          "i8": (8, True), "i16": (16, True), "i32": (32, True), "i64": (64, True)}
_TEXT_DIGITS = {8: 3, 16: 5, 32: 10, 64: 20}
_IDENT = re.compile(r"[^\W\d]\w*\Z")


class EnumKind:
    """``enum R {Name = d, ...}``: the discriminant as the integer ``R``."""

    def __init__(self, repr_, variants):
        self.repr = repr_
        self.bits, self.signed = _REPRS[repr_]
        self.variants = variants              # [(name, discriminant)], declaration order
        self.by_name = dict(variants)
        self.by_value = {d: n for n, d in variants}
        self.width = self.bits // 8
        self.text_width = _TEXT_DIGITS[self.bits]
        self.name = "enum %s {%s}" % (repr_, ", ".join("%s = %d" % v for v in variants))

    @classmethod
    def parse(cls, compact):
        """Reads ``u8{Pending=0,Paid=1}`` (after ``enum``, spaces removed);
        None when it is not a valid enum encoding."""
        m = re.fullmatch(r"(u8|u16|u32|u64|i8|i16|i32|i64)\{(.*)\}", compact)
        if not m:
            return None
        bits, signed = _REPRS[m.group(1)]
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        variants = []
        for item in m.group(2).split(","):
            name, eq, value = item.partition("=")
            if not eq or not _IDENT.match(name) or not re.fullmatch(r"-?\d+", value):
                return None
            d = int(value)
            if not lo <= d <= hi or any(n == name or v == d for n, v in variants):
                return None
            variants.append((name, d))
        return cls(m.group(1), variants)

    def _int(self, d):
        return (d + (1 << (self.bits - 1)) if self.signed else d)

    def check(self, v):
        return None if v in self.by_name else "expected a variant of %s, got %r" % (self.name, v)

    def encode(self, v):
        return self._int(self.by_name[v]).to_bytes(self.width, "big")

    def decode(self, r):
        u = int.from_bytes(r.take(self.width, "%d byte%s of %s" % (self.width, "" if self.width == 1 else "s", self.repr)), "big")
        d = u - (1 << (self.bits - 1)) if self.signed else u
        if d not in self.by_value:
            raise r.invalid_value("not the discriminant of any variant of the enum")
        return self.by_value[d]

    def render(self, v):
        return v

    def encode_text(self, v):
        return b"%0*d" % (self.text_width, self._int(self.by_name[v]))

    def decode_text(self, text):
        if len(text) != self.text_width:
            raise TextError("wrong number of digits")
        if not all(0x30 <= c <= 0x39 for c in text):
            raise TextError("expected decimal digits")
        u = int(text)
        if u >= 1 << self.bits:
            raise TextError("number out of range")
        d = u - (1 << (self.bits - 1)) if self.signed else u
        if d not in self.by_value:
            raise TextError("not the discriminant of any variant of the enum")
        return self.by_value[d]

    def from_json(self, j):
        return j

    def to_json(self, v):
        return v


UUID = UuidKind()
KINDS = {
    "uuid": UUID,
    "timestamp": SecondsKind("timestamp", Timestamp),
    "datetime": SecondsKind("datetime", DateTime),
    "date": DateKind(),
}


def parse_kind(compact):
    """The kind of a compact base name (``timestamp``, ``enumu8{A=0}``), or None."""
    if compact in KINDS:
        return KINDS[compact]
    if compact.startswith("enum"):
        kind = EnumKind.parse(compact[len("enum"):])
        if kind is None:
            raise ValueError("`%s` is not an enum encoding" % compact)
        return kind
    return None
