"""The package's exceptions."""


class DecodeError(Exception):
    """A byte string that is not a key of the schema; the message is the
    Rust ``DecodeError``'s, word for word."""


class SchemaError(Exception):
    """A schema document that cannot be used."""


class ValueError_(ValueError):
    """Values that do not fit the schema."""
