"""One item of a keyschema table, through Amazon's own Python SDK (boto3).

    boto3_item.py read ENDPOINT TABLE PK_HEX SK_HEX
        prints the item as the low-level client returns it, then as the
        Table resource returns it (numbers as Decimal), one per line
    boto3_item.py write ENDPOINT TABLE PK_HEX SK_HEX
        writes a ledger line with the Table resource, as a boto3 user would
    boto3_item.py filter ENDPOINT TABLE
        prints the memo of every item whose amount is above 600, by a Scan
        with a FilterExpression on the value attribute
    boto3_item.py scan ENDPOINT TABLE ATTRIBUTE...
        scans the whole table with the Table resource (numbers as Decimal,
        in boto3's 38-digit context) and prints each item's ATTRIBUTEs,
        numbers as Python floats, one item a line, sorted; or the name of
        the decimal signal that failed the scan
"""

import decimal
import sys
from decimal import Decimal

import boto3
from boto3.dynamodb.conditions import Attr


SETTINGS = {
    "region_name": "us-east-1",
    "aws_access_key_id": "local",
    "aws_secret_access_key": "local",
}


def resource(endpoint):
    return boto3.resource("dynamodb", endpoint_url=endpoint, **SETTINGS)


def client(endpoint):
    # The low-level client: attribute values as DynamoDB's JSON ({'N': '5'}).
    return boto3.client("dynamodb", endpoint_url=endpoint, **SETTINGS)


def ordered(value):
    """The value with every map's keys sorted: servers return them in any order."""
    if isinstance(value, dict):
        return {k: ordered(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [ordered(v) for v in value]
    return value


def shown(value):
    """A scanned value: a number as the Python float it is, else its repr."""
    if isinstance(value, Decimal):
        return repr(float(value))
    return repr(value)


def main(argv):
    command, endpoint, table = argv[1], argv[2], argv[3]
    dynamodb = resource(endpoint)
    if command == "scan":
        try:
            items = dynamodb.Table(table).scan(ConsistentRead=True)["Items"]
        except (decimal.Rounded, decimal.Inexact) as error:
            print(f"decimal.{type(error).__name__}")
            return 0
        lines = [" ".join(shown(item.get(a)) for a in argv[4:]) for item in items]
        for line in sorted(lines):
            print(line)
        return 0
    if command == "filter":
        items = dynamodb.Table(table).scan(FilterExpression=Attr("amount").gt(600))["Items"]
        for memo in sorted(item["memo"] for item in items):
            print(memo)
        return 0
    key = {"pk": bytes.fromhex(argv[4]), "sk": bytes.fromhex(argv[5])}
    if command == "read":
        low = client(endpoint).get_item(
            TableName=table,
            Key={"pk": {"B": key["pk"]}, "sk": {"B": key["sk"]}},
        )["Item"]
        print(ordered(low))
        high = dynamodb.Table(table).get_item(Key=key)["Item"]
        print(ordered(high))
        return 0
    if command == "write":
        dynamodb.Table(table).put_item(
            Item={
                **key,
                "invoice_id": "INV-PY",
                "line_no": 9,
                "amount": Decimal(750),
                "memo": "written by boto3",
                "ratio": Decimal("0.5"),
                "paid": True,
                "tags": ["python"],
                "address": {"city": "Lima", "zip": "15001"},
                "status": {"Void": "typo"},
                "counts": {"edits": 2},
                "source": "an attribute the Rust struct does not have",
            }
        )
        return 0
    print(f"unknown command {command}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
