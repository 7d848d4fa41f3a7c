//! Live tables: the command reading a Bigtable table (a real instance or
//! the emulator) or a DynamoDB table (the service, DynamoDB Local or
//! dynalite) through the library's own stores, with the layout read from
//! the schema document ([`Schema::from_document`]).

mod check;
mod dynamo;
mod fit;
mod hotspot;
mod merge;
mod picture;
mod progress;
mod sample;
pub mod scan;
pub mod shared;
mod token;
mod whatif;

pub use check::{check, check_shared};
pub use hotspot::{hotspot, HotspotArgs};

use keyschema::store::bigtable::BigtableStore;
use keyschema::store::dynamodb::DynamoStore;
use keyschema::store::{AsyncStore, Direction, Row};
use keyschema::Schema;

/// Where the live table is: one of `--bigtable` and `--dynamodb`.
#[derive(clap::Args, Debug, Clone)]
pub struct TableArgs {
    /// A Bigtable table, `PROJECT/INSTANCE/TABLE` or
    /// `projects/PROJECT/instances/INSTANCE/tables/TABLE` (as Google's
    /// tools and this one print it): `scan`, `get`, `check`, `splits` and
    /// `hotspot` read it.
    /// Example: `--bigtable projects/acme/instances/prod/tables/events`.
    #[arg(
        long,
        env = "KEYSCHEMA_BIGTABLE",
        global = true,
        value_name = "PROJECT/INSTANCE/TABLE"
    )]
    bigtable: Option<String>,
    /// The Bigtable emulator, `HOST:PORT` (the variable `cbt` and Google's
    /// clients read); without it, Cloud Bigtable with the token of
    /// `gcloud auth print-access-token`.
    #[arg(
        long,
        env = "BIGTABLE_EMULATOR_HOST",
        global = true,
        value_name = "HOST:PORT"
    )]
    emulator: Option<String>,
    /// A DynamoDB table: `scan`, `get`, `splits` and `hotspot` read it.
    #[arg(long, env = "KEYSCHEMA_DYNAMODB", global = true, value_name = "TABLE")]
    dynamodb: Option<String>,
    /// A local DynamoDB-API server (DynamoDB Local, dynalite), with
    /// placeholder credentials; without it, the service, with the
    /// credentials and region of the environment.
    #[arg(
        long,
        env = "AWS_ENDPOINT_URL_DYNAMODB",
        global = true,
        value_name = "URL"
    )]
    endpoint: Option<String>,
    /// The DynamoDB table's key attributes, `PARTITION,SORT`, when they are
    /// not keyschema's `pk` and `sk` (an existing single-table design).
    /// Example: `--dynamodb app --key-attributes PK,SK`.
    #[arg(long, global = true, value_name = "PARTITION,SORT")]
    key_attributes: Option<String>,
    /// The AWS region of the DynamoDB table (else the environment's:
    /// `AWS_REGION`, the profile's). Example: `--region eu-west-1`.
    #[arg(long, global = true, value_name = "REGION")]
    region: Option<String>,
    /// The AWS profile (of `~/.aws/config` and `~/.aws/credentials`) whose
    /// credentials and region read the DynamoDB table (else the
    /// environment's: `AWS_PROFILE`, the default). Example: `--profile prod`.
    #[arg(long, global = true, value_name = "NAME")]
    profile: Option<String>,
}

/// `PROJECT/INSTANCE/TABLE`, or the resource name
/// `projects/PROJECT/instances/INSTANCE/tables/TABLE`: its three names.
pub fn bigtable_path(path: &str) -> Result<(&str, &str, &str), String> {
    let parts: Vec<&str> = path.split('/').collect();
    match parts[..] {
        [project, instance, table]
        | ["projects", project, "instances", instance, "tables", table]
            if !project.is_empty() && !instance.is_empty() && !table.is_empty() =>
        {
            Ok((project, instance, table))
        }
        _ => Err(format!(
            "--bigtable {path}: expected PROJECT/INSTANCE/TABLE or projects/PROJECT/instances/INSTANCE/tables/TABLE"
        )),
    }
}

impl TableArgs {
    /// How a `cbt` command for the `--bigtable` table begins, and the
    /// table's name (`cbt` and `TABLE` when none is named).
    pub fn cbt_prefix(&self) -> (String, String) {
        match bigtable_path(self.bigtable.as_deref().unwrap_or("")) {
            Ok((project, instance, table)) => {
                // The emulator named by the flag alone: the command names it too.
                let host = match (&self.emulator, std::env::var("BIGTABLE_EMULATOR_HOST")) {
                    (Some(host), Err(_)) => {
                        format!("BIGTABLE_EMULATOR_HOST={} ", emulator_host(host))
                    }
                    _ => String::new(),
                };
                (
                    format!("{host}cbt -project {project} -instance {instance}"),
                    table.to_string(),
                )
            }
            Err(_) => ("cbt".into(), "TABLE".into()),
        }
    }

    /// Keeps the table named on the command line when the other store's
    /// comes from its environment variable.
    pub fn prefer(&mut self, bigtable_given: bool, dynamodb_given: bool) {
        match (bigtable_given, dynamodb_given) {
            (true, false) => self.dynamodb = None,
            (false, true) => self.bigtable = None,
            _ => {}
        }
    }

    /// The key attributes `--key-attributes` names (the sort key's `sk`
    /// when only the partition key's is given).
    pub fn key_attribute_names(&self) -> Option<(String, String)> {
        let given = self.key_attributes.as_deref()?;
        let mut names = given.split(',').map(|n| n.trim().to_string());
        let pk = names.next()?;
        Some((pk, names.next().unwrap_or_else(|| "sk".into())))
    }

    /// Whether a table is named.
    pub fn named(&self) -> bool {
        self.bigtable.is_some() || self.dynamodb.is_some()
    }
}

// One per program: the size of the larger variant does not matter.
#[allow(clippy::large_enum_variant)]
enum Store {
    Bigtable(BigtableStore),
    Dynamo(DynamoStore),
}

/// `$body` with `$s` bound to the store, whichever it is.
macro_rules! on_store {
    ($store:expr, $s:ident => $body:expr) => {
        match $store {
            Store::Bigtable($s) => $body,
            Store::Dynamo($s) => $body,
        }
    };
}

/// An open live table and the layout of its rows.
pub struct Live {
    store: Store,
    /// The layout as the stores take it (value fields, family).
    pub schema: &'static Schema,
    runtime: tokio::runtime::Runtime,
    /// What the table is, for reports.
    pub name: String,
}

/// What keys of another layout may be, said where a command met keys its
/// one document does not read: a table shared by several layouts.
pub const SHARED_HINT: &str = "if the table is shared by several layouts, these may be another layout's keys: give each layout's document with its own --schema (repeat --schema; hotspot, splits and check read them together)";

/// The message for a command that needs a table and has none.
pub const NO_TABLE: &str = "name the table to read: --bigtable PROJECT/INSTANCE/TABLE (with --emulator HOST:PORT for the emulator) or --dynamodb TABLE (with --endpoint URL for a local server)";

impl Live {
    /// Connects to the table `args` names, for the rows of `document`.
    pub fn open(args: &TableArgs, document: &str) -> Result<Live, String> {
        let schema = Schema::from_document(document).map_err(|e| e.to_string())?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("starting the async runtime: {e}"))?;
        let (store, name) = match (&args.bigtable, &args.dynamodb) {
            (Some(path), Some(table)) => {
                return Err(format!(
                    "two tables are named, Bigtable {path} and DynamoDB {table} (by the options, or KEYSCHEMA_BIGTABLE and KEYSCHEMA_DYNAMODB): name one"
                ))
            }
            (Some(path), None) => {
                let (project, instance, table) = bigtable_path(path)?;
                if let Some(host) = args.emulator.as_deref().filter(|h| !emulator_host(h).contains(':')) {
                    return Err(format!("--emulator {host}: expected HOST:PORT (127.0.0.1:8086)"));
                }
                let store = runtime
                    .block_on(async {
                        match &args.emulator {
                            Some(host) => {
                                BigtableStore::connect_emulator(
                                    emulator_host(host),
                                    project,
                                    instance,
                                    table,
                                )
                                .await
                            }
                            None => {
                                BigtableStore::connect(
                                    project,
                                    instance,
                                    table,
                                    token::Gcloud::default(),
                                )
                                .await
                            }
                        }
                    })
                    .map_err(|e| e.to_string())?;
                let name = format!("Bigtable table {}", store.table_name());
                (Store::Bigtable(store), name)
            }
            (None, Some(table)) => {
                if schema.partition_components().is_none() {
                    return Err(format!(
                        "`{}` declares no partition (`then = (a, b), c`), so its rows have no DynamoDB key: this schema document is not of a DynamoDB table",
                        schema.name()
                    ));
                }
                let store = runtime.block_on(dynamo::open(args, table, schema))?;
                (Store::Dynamo(store), format!("DynamoDB table {table}"))
            }
            (None, None) => return Err(NO_TABLE.into()),
        };
        Ok(Live {
            store,
            schema,
            runtime,
            name,
        })
    }

    /// The rows of `ranges` merged in key order (by the key after the
    /// salt, as a typed ordered scan merges buckets) into `sink` as they
    /// arrive, each range asked for at most `per_range` rows (`None`: as
    /// many as the sink takes); whether rows
    /// were left when the sink ended the read.
    pub fn merged(
        &self,
        ranges: &[keyschema::KeyRange],
        direction: Direction,
        per_range: Option<usize>,
        concurrency: usize,
        sink: &mut dyn merge::Sink,
    ) -> Result<bool, String> {
        on_store!(&self.store, s => self.runtime.block_on(merge::merged(
            s,
            self.schema,
            ranges,
            direction,
            per_range,
            concurrency,
            sink,
        )))
    }

    /// The rows stored under any of `keys`.
    pub fn get(&self, keys: Vec<Vec<u8>>) -> Result<Vec<Row>, String> {
        on_store!(&self.store, s => self
            .runtime
            .block_on(s.get_many_for(self.schema, keys))
            .map_err(|e| e.to_string()))
    }

    /// The table's own split points: the keys SampleRowKeys returns, which
    /// cut a Bigtable table into sections of about equal stored size.
    pub fn split_points(&self) -> Result<Option<Vec<Vec<u8>>>, String> {
        match &self.store {
            Store::Bigtable(s) => self
                .runtime
                .block_on(s.sample_row_keys())
                .map(Some)
                .map_err(|e| e.to_string()),
            // DynamoDB does not publish its partitions' boundaries.
            Store::Dynamo(_) => Ok(None),
        }
    }
}

/// The emulator's `HOST:PORT`, given with or without `http://`.
fn emulator_host(given: &str) -> &str {
    given
        .strip_prefix("http://")
        .or_else(|| given.strip_prefix("https://"))
        .unwrap_or(given)
        .trim_end_matches('/')
}
