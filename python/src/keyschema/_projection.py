"""Projections (ENCODING.md, "Value fields on Bigtable", Projections): a
read of some of a row's value fields, as the Rust ``#[derive(Projection)]``
reads them. What a projected read asks each store for (DynamoDB's
``ProjectionExpression`` and its attribute names, Bigtable's ``RowFilter``)
and a schema that reads the projected fields alone from what the store
returns."""

import copy

from ._errors import ValueError_

# The family and qualifier of a raw value, and of rows written before
# value fields had columns (Bigtable's ``v:v``).
RAW_FAMILY = "v"
RAW_QUALIFIER = "v"


def projected(schema, fields):
    """``schema`` reading only the value fields ``fields`` (names, in the
    projection's order): its ``values`` are those, and it remembers the row
    type's (``projection_of``), so that a cell map is refused only when it
    holds no cell and a map only when it names none of the row type's
    fields, as the Rust ``decode_projection``."""
    by_name = {f.name: f for f in schema.values}
    for name in fields:
        if name not in by_name:
            raise ValueError_("`%s` is not a value field of `%s`; its value fields are %s"
                              % (name, schema.name, ", ".join(f.name for f in schema.values)))
    out = copy.copy(schema)
    out.values = [by_name[name] for name in fields]
    out.projection_of = schema
    return out


def dynamodb_projection(schema, fields, partition_key="pk", sort_key="sk"):
    """``(ProjectionExpression, ExpressionAttributeNames)`` of a read of
    ``fields``: the partition key attribute, the sort key attribute when
    the key has a sort part, then the fields in the order given, each
    through ``#n0``, ``#n1``, ... (the Rust
    ``DynamoStore::projection_request``)."""
    names = [partition_key]
    if schema.partition is not None and schema.partition < len(schema.components):
        names.append(sort_key)
    names.extend(fields)
    placeholders = ["#n%d" % i for i in range(len(names))]
    return ", ".join(placeholders), dict(zip(placeholders, names))


def _filter(kind, v):
    return {kind: v}


def _chain(filters):
    return _filter("chain", filters)


def _interleave(filters):
    """One filter for several; Bigtable refuses an interleave of one."""
    return filters[0] if len(filters) == 1 else _filter("interleave", filters)


def _family_pattern(family):
    return "^%s$" % family.replace(".", "\\.")


def _range(family, start, end):
    return _filter("column_range", {"family": family, "start": start, "end": end})


def bigtable_read_filter(schema, fields=None):
    """The ``RowFilter`` a typed read sends (the Rust
    ``BigtableStore::read_filter_of``), as JSON: ``{"chain": [...]}``,
    ``{"interleave": [...]}``, ``{"cells_per_column_limit": n}``,
    ``{"cells_per_row_limit": n}``, ``{"strip_value": true}``,
    ``{"family_name_regex": r}``, ``{"column_qualifier_regex": r}`` and
    ``{"column_range": {"family": f, "start": b, "end": b}}`` with ``b``
    ``{"closed": q}``, ``{"open": q}`` or ``None`` (google-cloud-bigtable's
    ``RowFilterChain``, ``RowFilterUnion``, ``CellsColumnLimitFilter``,
    ``CellsRowLimitFilter``, ``StripValueTransformerFilter``,
    ``FamilyNameRegexFilter``, ``ColumnQualifierRegexFilter`` and
    ``ColumnRangeFilter``). ``fields``: a projection's value fields; ``None``
    for whole rows."""
    if not schema.values:
        return _filter("cells_per_column_limit", 1)
    raw = _chain([_filter("family_name_regex", _family_pattern(RAW_FAMILY)),
                  _filter("column_qualifier_regex", "^%s$" % RAW_QUALIFIER)])
    if fields is None:
        mine = _filter("family_name_regex", _family_pattern(schema.family))
    else:
        mine = _projected_filter(schema.family, fields)
    return _chain([_filter("cells_per_column_limit", 1), _filter("interleave", [mine, raw])])


def _projected_filter(family, fields):
    """The projection's columns, and one other cell of the row with its
    value stripped, so that a row whose projected fields are all absent is
    still a row."""
    names = sorted(set(fields), key=lambda n: n.encode("utf-8"))
    wanted = [_range(family, {"closed": q}, {"closed": q}) for q in names]
    besides, after = [], None
    for q in names:
        besides.append(_range(family, None if after is None else {"open": after}, {"open": q}))
        after = q
    besides.append(_range(family, None if after is None else {"open": after}, None))
    wanted.append(_chain([_interleave(besides), _filter("cells_per_row_limit", 1),
                          _filter("strip_value", True)]))
    return _interleave(wanted)
