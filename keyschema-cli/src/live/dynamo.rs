//! Opening a DynamoDB table: the client (`--endpoint`, `--region`,
//! `--profile`), the key attribute names (`--key-attributes`) and, when
//! the table's key attributes are named otherwise, a message naming them
//! and the flag that reads them.

use super::TableArgs;
use keyschema::store::dynamodb::{sdk, DynamoError, DynamoStore, ItemShape};
use keyschema::Schema;

/// The DynamoDB client the options name: a local server (`--endpoint`,
/// placeholder credentials, `--region` or `us-east-1`), or the service
/// with the environment's credentials, `--region` and `--profile` (a
/// profile with `--endpoint` sends its credentials there).
pub async fn client(args: &TableArgs) -> Result<sdk::Client, String> {
    if let Some(url) = args.endpoint.as_deref().filter(|u| !u.contains("://")) {
        return Err(format!(
            "--endpoint {url}: expected a URL with its scheme (http://{url})"
        ));
    }
    if let Some(region) = args.region.as_deref().filter(|r| !valid_region(r)) {
        return Err(format!(
            "--region {region:?}: expected a region name, letters, digits and dashes (us-east-1)"
        ));
    }
    Ok(match (&args.endpoint, &args.profile) {
        (Some(url), None) => {
            DynamoStore::local_client_in(url, args.region.as_deref().unwrap_or("us-east-1"))
        }
        (endpoint, profile) => {
            DynamoStore::configured_client(
                args.region.as_deref(),
                profile.as_deref(),
                endpoint.as_deref(),
            )
            .await
        }
    })
}

/// `--key-attributes PK,SK` (or `PK` for a table without a sort key).
fn shape(args: &TableArgs) -> Result<ItemShape, String> {
    let Some(given) = args.key_attributes.as_deref() else {
        return Ok(ItemShape::default());
    };
    let names: Vec<&str> = given.split(',').map(str::trim).collect();
    match names[..] {
        [pk] if !pk.is_empty() => Ok(ItemShape::default().key_attributes(pk, "sk")),
        [pk, sk] if !pk.is_empty() && !sk.is_empty() => {
            Ok(ItemShape::default().key_attributes(pk, sk))
        }
        _ => Err(format!(
            "--key-attributes {given}: expected the partition and sort key attributes' names, PARTITION,SORT (PK,SK), or PARTITION alone for a table without a sort key"
        )),
    }
}

/// A store on DynamoDB table `table` for the rows of `schema`, checked
/// against the table's key attributes.
pub async fn open(
    args: &TableArgs,
    table: &str,
    schema: &'static Schema,
) -> Result<DynamoStore, String> {
    let client = client(args).await?;
    let store = DynamoStore::for_schema_with(client, table, schema, shape(args)?)
        .map_err(|e| e.to_string())?;
    match store.check_table().await {
        Ok(true) => Ok(store),
        Ok(false) => Err(format!(
            "DynamoDB table {table} does not exist{}",
            args.endpoint
                .as_ref()
                .map_or(String::new(), |url| format!(" at {url}"))
        )),
        Err(e @ DynamoError::TableMismatch { .. }) => Err(other_names(&store, schema, args)
            .await
            .unwrap_or(e.to_string())),
        Err(e) => Err(e.to_string()),
    }
}

/// When the table's key attributes are of the types the store needs but
/// named otherwise: a message naming them and the flag that reads them.
async fn other_names(store: &DynamoStore, schema: &Schema, args: &TableArgs) -> Option<String> {
    let described = store
        .client()
        .describe_table()
        .table_name(store.table())
        .send()
        .await
        .ok()?;
    let table = described.table()?;
    let type_of = |name: &str| {
        table
            .attribute_definitions()
            .iter()
            .find(|d| d.attribute_name() == name)
            .map(|d| d.attribute_type().as_str().to_string())
    };
    let role = |kind: &str| {
        table
            .key_schema()
            .iter()
            .find(|k| k.key_type().as_str() == kind)
            .map(|k| k.attribute_name().to_string())
    };
    let (pk, sk) = (role("HASH")?, role("RANGE"));
    let shape = store.shape();
    let sorted = schema
        .partition_components()
        .is_some_and(|n| n < schema.components().len());
    if sorted != sk.is_some() {
        return None;
    }
    let wanted = match schema.format() {
        keyschema::Format::Text { .. } => "S",
        _ => "B",
    };
    if type_of(&pk).as_deref() != Some(wanted)
        || sk
            .as_ref()
            .is_some_and(|s| type_of(s).as_deref() != Some(wanted))
    {
        return None;
    }
    let (has, flag, needs) = match &sk {
        Some(sk) => (
            format!("`{pk}` (partition) and `{sk}` (sort)"),
            format!("{pk},{sk}"),
            format!("`{}` and `{}`", shape.partition_key, shape.sort_key),
        ),
        None => (
            format!("`{pk}` (partition)"),
            pk.clone(),
            format!("`{}`", shape.partition_key),
        ),
    };
    let how = match args.key_attributes.is_some() {
        true => "--key-attributes names",
        false => "keyschema names them by default",
    };
    Some(format!(
        "DynamoDB table {} names its key attributes {has}, not {needs} as {how}: give --key-attributes {flag}",
        store.table()
    ))
}

/// Whether `r` looks like a region name (`us-east-1`, `local`).
fn valid_region(r: &str) -> bool {
    !r.is_empty() && r.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}
