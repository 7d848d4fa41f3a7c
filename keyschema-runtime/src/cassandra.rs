//! Cassandra tables from a key declaration: the `CREATE TABLE` statement
//! and the data-modeling chapter's partition-size estimate.
//!
//! The partition group of `then = (a, b), c` gives the partition key columns
//! (with the salt, when there is one, as a column of its own), the rest the
//! clustering columns, `rev(f)` a `DESC` clustering order, and
//! `bucket(f, W)` a column `f_bucket` of its own. Regular (value) columns
//! are added with [`CqlTable::value`].
//!
//! ```
//! use keyschema::cassandra::CqlTable;
//! use keyschema::RowKey;
//!
//! #[derive(RowKey)]
//! #[rowkey(then = (hotel_id), rev(day), room_number)]
//! struct Availability { hotel_id: String, day: u32, room_number: u16 }
//!
//! let table = CqlTable::new(Availability::schema(), "available_rooms_by_hotel_date")
//!     .column("hotel_id", "text", 5)
//!     .column("day", "date", 4)
//!     .column("room_number", "smallint", 2)
//!     .value("is_available", "boolean", 1);
//! assert_eq!(
//!     table.create_table()?,
//!     "CREATE TABLE available_rooms_by_hotel_date (\n  \
//!        hotel_id text,\n  day date,\n  room_number smallint,\n  is_available boolean,\n  \
//!        PRIMARY KEY ((hotel_id), day, room_number)\n\
//!      ) WITH CLUSTERING ORDER BY (day DESC, room_number ASC);"
//! );
//! let hotel = table.partition(100 * 730)?;
//! assert_eq!((hotel.values(), hotel.total_bytes()), (73_000, 1_095_005)); // the chapter's 1.1 MB
//! assert!(hotel.over_guidance().is_none());
//! # Ok::<(), keyschema::cassandra::CqlError>(())
//! ```

use crate::schema::{Order, Schema};
use crate::sizing::Partition;

/// Why a declaration does not make a Cassandra table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CqlError {
    /// The declaration names no partition.
    #[error("`{schema}` declares no partition key: write the partition columns first in `then`, in parentheses (`then = (hotel_id), day, room`)")]
    NoPartition {
        /// The key type.
        schema: &'static str,
    },
    /// A key component's type has no CQL type keyschema knows.
    #[error("component `{component}` of type `{type_name}` has no CQL type keyschema knows: give it one with `.column(\"{component}\", \"<cql type>\", <bytes>)`")]
    UnknownType {
        /// The component.
        component: &'static str,
        /// Its Rust type.
        type_name: &'static str,
    },
    /// An `Option` in the key: Cassandra refuses null in primary key columns.
    #[error("component `{component}` is an `Option`, but Cassandra refuses null in primary key columns: use a non-optional type or a sentinel value")]
    NullableKey {
        /// The component.
        component: &'static str,
    },
    /// `.column` or `.text_bytes` names no component of the key.
    #[error("`{name}` is not a key column of `{schema}`")]
    UnknownColumn {
        /// The name given.
        name: String,
        /// The key type.
        schema: &'static str,
    },
}

/// A column of the table: its name, CQL type and the bytes one value takes
/// (the `sizeOf` of the chapter; for text, the average length).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The column name.
    pub name: String,
    /// Its CQL type.
    pub cql_type: String,
    /// Bytes per value.
    pub bytes: u64,
}

/// A Cassandra table laid out by a key declaration, plus its value columns.
#[derive(Debug, Clone)]
pub struct CqlTable {
    schema: &'static Schema,
    name: String,
    overrides: Vec<Column>,
    values: Vec<Column>,
    statics: Vec<Column>,
}

/// How one key column is laid out.
struct KeyColumn {
    column: Column,
    order: Order,
}

impl CqlTable {
    /// The table `name` for the key type with `schema`: its key columns,
    /// and a regular column per value field (`#[rowkey(value)]`) with the
    /// CQL type of its Rust type (`Option<T>` as `T`, `Vec<T>` as
    /// `list<T>`, sets as `set<T>`, maps as `map<K, V>`; a struct or enum
    /// as `blob`, holding its MessagePack; [`value`](Self::value) sets
    /// another type, a user-defined type's `frozen<...>` for one).
    pub fn new(schema: &'static Schema, name: &str) -> Self {
        let values = schema
            .values()
            .iter()
            .map(|field| {
                let (cql_type, bytes) = value_cql_type(field.type_name);
                Column {
                    name: field.name.to_string(),
                    cql_type,
                    bytes,
                }
            })
            .collect();
        CqlTable {
            schema,
            name: name.to_string(),
            overrides: Vec::new(),
            values,
            statics: Vec::new(),
        }
    }

    /// Sets a key column's CQL type and size: a `date` for a day number, the
    /// average length of a text id (`.column("hotel_id", "text", 5)`).
    /// Names are the field names; a bucket column is `field_bucket`, the
    /// salt `salt`.
    pub fn column(mut self, name: &str, cql_type: &str, bytes: u64) -> Self {
        self.overrides.push(Column {
            name: name.to_string(),
            cql_type: cql_type.to_string(),
            bytes,
        });
        self
    }

    /// Adds a regular column, stored in every row, or sets the CQL type
    /// and size of a value field's column of that name.
    pub fn value(mut self, name: &str, cql_type: &str, bytes: u64) -> Self {
        let column = Column {
            name: name.to_string(),
            cql_type: cql_type.to_string(),
            bytes,
        };
        match self.values.iter_mut().find(|c| c.name == name) {
            Some(existing) => *existing = column,
            None => self.values.push(column),
        }
        self
    }

    /// Adds a static column, stored once per partition.
    pub fn static_value(mut self, name: &str, cql_type: &str, bytes: u64) -> Self {
        self.statics.push(Column {
            name: name.to_string(),
            cql_type: cql_type.to_string(),
            bytes,
        });
        self
    }

    /// The key columns: the partition key's, then the clustering ones.
    fn key_columns(&self) -> Result<(Vec<KeyColumn>, Vec<KeyColumn>), CqlError> {
        let schema = self.schema;
        let Some(partition) = schema.partition_components() else {
            return Err(CqlError::NoPartition {
                schema: schema.name(),
            });
        };
        for o in &self.overrides {
            let known = o.name == "salt" && schema.salt().is_some()
                || schema.components().iter().any(|c| {
                    o.name == c.name()
                        || (c.bucket_width().is_some() && o.name == format!("{}_bucket", c.name()))
                });
            if !known {
                return Err(CqlError::UnknownColumn {
                    name: o.name.clone(),
                    schema: schema.name(),
                });
            }
        }
        let mut partition_columns = Vec::new();
        if let Some(salt) = schema.salt() {
            let (cql_type, bytes) = if salt.buckets() <= 128 {
                ("tinyint", 1)
            } else if salt.buckets() <= 32_768 {
                ("smallint", 2)
            } else {
                ("int", 4)
            };
            partition_columns.push(self.key_column("salt", cql_type, bytes, Order::Ascending));
        }
        let mut clustering = Vec::new();
        for (i, c) in schema.components().iter().enumerate() {
            if c.type_name().starts_with("Option<") {
                return Err(CqlError::NullableKey {
                    component: c.name(),
                });
            }
            let name = match c.bucket_width() {
                Some(_) => format!("{}_bucket", c.name()),
                None => c.name().to_string(),
            };
            let overridden = self.overrides.iter().any(|o| o.name == name);
            let (cql_type, bytes) = match cql_type(c.type_name(), c.fixed_width()) {
                Some(t) => t,
                None if overridden => ("blob", 0),
                None => {
                    return Err(CqlError::UnknownType {
                        component: c.name(),
                        type_name: c.type_name(),
                    })
                }
            };
            let column = self.key_column(&name, cql_type, bytes, c.order());
            if i < partition {
                partition_columns.push(column);
            } else {
                clustering.push(column);
            }
        }
        Ok((partition_columns, clustering))
    }

    fn key_column(&self, name: &str, cql_type: &str, bytes: u64, order: Order) -> KeyColumn {
        let column = self
            .overrides
            .iter()
            .find(|o| o.name == name)
            .cloned()
            .unwrap_or_else(|| Column {
                name: name.to_string(),
                cql_type: cql_type.to_string(),
                bytes,
            });
        KeyColumn { column, order }
    }

    /// The `CREATE TABLE` statement.
    pub fn create_table(&self) -> Result<String, CqlError> {
        let (partition, clustering) = self.key_columns()?;
        let mut out = format!("CREATE TABLE {} (\n", self.name);
        for c in partition.iter().chain(&clustering) {
            out.push_str(&format!("  {} {},\n", c.column.name, c.column.cql_type));
        }
        for c in &self.statics {
            out.push_str(&format!("  {} {} STATIC,\n", c.name, c.cql_type));
        }
        for c in &self.values {
            out.push_str(&format!("  {} {},\n", c.name, c.cql_type));
        }
        let names = |cols: &[KeyColumn]| {
            cols.iter()
                .map(|c| c.column.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.push_str(&format!("  PRIMARY KEY (({})", names(&partition)));
        if !clustering.is_empty() {
            out.push_str(&format!(", {}", names(&clustering)));
        }
        out.push_str(")\n)");
        if !clustering.is_empty() {
            let order: Vec<String> = clustering
                .iter()
                .map(|c| {
                    let dir = match c.order {
                        Order::Ascending => "ASC",
                        Order::Descending => "DESC",
                    };
                    format!("{} {dir}", c.column.name)
                })
                .collect();
            out.push_str(&format!(" WITH CLUSTERING ORDER BY ({})", order.join(", ")));
        }
        out.push(';');
        Ok(out)
    }

    /// The chapter's estimate for a partition of `rows` rows.
    pub fn partition(&self, rows: u64) -> Result<Partition, CqlError> {
        let (partition, clustering) = self.key_columns()?;
        let sum = |cols: &mut dyn Iterator<Item = &Column>| cols.map(|c| c.bytes).sum::<u64>();
        let key_columns = (partition.len() + clustering.len()) as u64;
        Ok(Partition {
            rows,
            columns: key_columns + (self.values.len() + self.statics.len()) as u64,
            primary_key_columns: key_columns,
            static_columns: self.statics.len() as u64,
            partition_key_bytes: sum(&mut partition.iter().map(|c| &c.column)),
            static_bytes: sum(&mut self.statics.iter()),
            clustering_bytes: sum(&mut clustering.iter().map(|c| &c.column)),
            regular_bytes: sum(&mut self.values.iter()),
            cell_metadata_bytes: 8,
        })
    }
}

/// The CQL type of a key component's Rust type, and its size: unsigned
/// integers take the smallest signed CQL type that holds them.
fn cql_type(type_name: &str, fixed: Option<usize>) -> Option<(&'static str, u64)> {
    let t = match type_name {
        "i8" => ("tinyint", 1),
        "u8" | "i16" => ("smallint", 2),
        "u16" | "i32" => ("int", 4),
        "u32" | "i64" => ("bigint", 8),
        "u64" | "u128" | "i128" => ("varint", fixed.map_or(16, |w| w as u64 + 1)),
        "bool" => ("boolean", 1),
        "f32" => ("float", 4),
        "f64" => ("double", 8),
        "String" | "char" => ("text", 16),
        "Vec<u8>" => ("blob", 16),
        t if t.starts_with("[u8;") => ("blob", fixed.unwrap_or(16) as u64),
        _ => return None,
    };
    Some(t)
}

/// The CQL type of a value field's Rust type (as written), and its size:
/// the key types' mapping for scalars, collections of them, `blob` for the
/// rest (a struct or an enum, stored as its MessagePack).
fn value_cql_type(type_name: &str) -> (String, u64) {
    let ty: String = type_name.chars().filter(|c| !c.is_whitespace()).collect();
    // `std::collections::BTreeMap<..>` is a `BTreeMap<..>`.
    let head_end = ty.find('<').unwrap_or(ty.len());
    let ty = match ty[..head_end].rfind("::") {
        Some(i) => ty[i + 2..].to_string(),
        None => ty,
    };
    let generic = |outer: &str| {
        ty.strip_prefix(outer)
            .and_then(|t| t.strip_prefix('<'))
            .and_then(|t| t.strip_suffix('>'))
            .map(str::to_string)
    };
    // A collection inside a collection is frozen, as CQL requires.
    let element = |t: &str| match value_cql_type(t) {
        (cql, bytes) if cql.contains('<') => (format!("frozen<{cql}>"), bytes),
        other => other,
    };
    if let Some(inner) = generic("Option") {
        return value_cql_type(&inner);
    }
    if ty == "Vec<u8>" {
        return ("blob".to_string(), 16);
    }
    if let Some(inner) = generic("Vec") {
        let (cql, bytes) = element(&inner);
        return (format!("list<{cql}>"), 4 * bytes);
    }
    for set in ["HashSet", "BTreeSet"] {
        if let Some(inner) = generic(set) {
            let (cql, bytes) = element(&inner);
            return (format!("set<{cql}>"), 4 * bytes);
        }
    }
    for map in ["HashMap", "BTreeMap"] {
        if let Some((k, v)) = generic(map).as_deref().and_then(split_pair) {
            let ((kc, kb), (vc, vb)) = (element(k), element(v));
            return (format!("map<{kc}, {vc}>"), 4 * (kb + vb));
        }
    }
    match cql_type(&ty, None) {
        Some((cql, bytes)) => (cql.to_string(), bytes),
        None => ("blob".to_string(), 16),
    }
}

/// `K,V` split at its top-level comma.
fn split_pair(args: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    for (i, c) in args.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => return Some((&args[..i], &args[i + 1..])),
            _ => {}
        }
    }
    None
}
