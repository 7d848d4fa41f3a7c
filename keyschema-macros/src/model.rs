//! Model: the checked description of a key, one type per idea, in which
//! impossible layouts cannot be written (a salt is hashed or random; a key
//! field is plain, reversed or bucketed, never two of them).

use proc_macro2::Span;
use syn::{DeriveInput, Ident, Path, Type, Visibility};

/// A key layout that passed every check.
pub struct KeySpec {
    pub ident: Ident,
    pub vis: Visibility,
    /// How generated code reaches the runtime (`::keyschema` unless overridden).
    pub krate: Path,
    pub prefix: Vec<u8>,
    /// `None`: binary; `Some(sep)`: text keys with that separator.
    pub text_sep: Option<u8>,
    pub salt: Option<SaltSpec>,
    /// The key fields in key order: one scan stage and one `get_key`
    /// argument each.
    pub parts: Vec<Part>,
    /// `then = (a, b), c`: how many leading encoded components form the
    /// partition key (DynamoDB's partition key, Cassandra's partition
    /// columns); `None` when the declaration names no partition.
    pub partition: Option<usize>,
    /// Fields outside the key, filled with `Default` on decode.
    pub skipped: Vec<Field>,
    /// `#[rowkey(value)]` fields: stored beside the key, `Default` when a
    /// key alone is decoded.
    pub values: Vec<ValueSpec>,
    /// `family = "..."`: the Bigtable column family of the value fields.
    pub family: Option<String>,
    /// `#[rowkey_was(...)]`: the older layout and the cut-over.
    pub was: Option<WasSpec>,
    /// `index(Name, ...)`: further key layouts of the rows.
    pub indexes: Vec<IndexSpec>,
    /// An index's entry layout declared `building` (its own schema says
    /// so, for the stores).
    pub building: bool,
    /// An index's declared form on DynamoDB (`dynamodb = ...`).
    pub dynamodb: Option<DynamoDecl>,
}

/// `dynamodb = encoded` or `dynamodb = native` on an index.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DynamoDecl {
    Encoded,
    Native,
}

/// An index that passed every check (`index(Name, ...)`).
pub struct IndexSpec {
    /// The entry type's layout, checked as a key type's.
    pub spec: KeySpec,
    /// The struct the entry type is declared as.
    pub input: DeriveInput,
    /// Each entry field: the row's field, and whether it is an `Option`
    /// value field held as the type inside (a `None` has no entry).
    pub fields: Vec<(syn::Ident, bool)>,
    /// `building`: scans are refused until its entries are built.
    pub building: bool,
}

/// A value field.
pub struct ValueSpec {
    pub field: Field,
    /// Whether a stored row may lack it (then it takes its `Default`): an
    /// `Option`, or `#[rowkey(value, default)]`.
    pub optional: bool,
}

/// Where a field of the struct goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// In the key (it must be listed in `then`).
    Key,
    /// `#[rowkey(skip)]`: not stored.
    Skip,
    /// `#[rowkey(value)]`, with `default` when given.
    Value { default: bool },
}

/// The layout of the table's older rows: the declared components under
/// another prefix and salt.
pub struct WasSpec {
    pub prefix: Vec<u8>,
    pub salt: Option<SaltSpec>,
    pub cut: Cut,
}

/// What decides a row's layout.
pub enum Cut {
    /// Rows whose field (encoded component `component`) is at or past `value`
    /// are in the declared layout.
    Field {
        component: usize,
        field: Box<Field>,
        value: Box<syn::Expr>,
    },
    /// The migration's phase.
    Migration,
}

/// The salt.
#[derive(PartialEq, Eq)]
pub enum SaltSpec {
    /// `hash(...) % buckets`: indexes into [`KeySpec::encoded`], in hash order.
    Hash { buckets: u32, hashed: Vec<usize> },
    /// `random % buckets`.
    Random { buckets: u32 },
}

impl SaltSpec {
    pub fn buckets(&self) -> u32 {
        match self {
            SaltSpec::Hash { buckets, .. } | SaltSpec::Random { buckets } => *buckets,
        }
    }
}

/// One key field and how it is laid out.
pub struct Part {
    pub field: Field,
    pub layout: Layout,
}

/// How a key field is laid out.
#[derive(Clone, Copy)]
pub enum Layout {
    /// `field` or `rev(field)`.
    Plain(Order),
    /// `reverse(field)`: byte-reversed; equality scans only. The span of `reverse`.
    Reversed(Span),
    /// `bucket(field, width), field` (or `rev(field)`): the derived bucket,
    /// then the field. Two encoded components, one scan stage.
    Bucketed {
        width: u64,
        span: Span,
        order: Order,
    },
}

/// One encoded component of the key, as the runtime's `Schema` lists them.
pub struct Encoded<'a> {
    pub field: &'a Field,
    pub role: Role,
}

#[derive(Clone, Copy)]
pub enum Role {
    /// The field's value, ascending or descending.
    Value(Order),
    /// The field's value, byte-reversed.
    Reversed(Span),
    /// The bucket of the field (`field / width`); the value follows.
    Bucket {
        width: u64,
        span: Span,
        order: Order,
    },
}

impl Role {
    pub fn order(self) -> Order {
        match self {
            Role::Value(order) | Role::Bucket { order, .. } => order,
            Role::Reversed(_) => Order::Ascending,
        }
    }
}

impl KeySpec {
    /// The encoded components, in key order.
    pub fn encoded(&self) -> Vec<Encoded<'_>> {
        let mut out = Vec::with_capacity(self.parts.len() + 1);
        for part in &self.parts {
            let field = &part.field;
            match part.layout {
                Layout::Plain(order) => out.push(Encoded {
                    field,
                    role: Role::Value(order),
                }),
                Layout::Reversed(span) => out.push(Encoded {
                    field,
                    role: Role::Reversed(span),
                }),
                Layout::Bucketed { width, span, order } => {
                    out.push(Encoded {
                        field,
                        role: Role::Bucket { width, span, order },
                    });
                    out.push(Encoded {
                        field,
                        role: Role::Value(order),
                    });
                }
            }
        }
        out
    }

    /// How many leading encoded components form the partition key.
    pub fn partition_components(&self) -> Option<usize> {
        self.partition
    }

    /// Each part with the index of its first encoded component (its scan stage).
    pub fn stages(&self) -> Vec<(usize, &Part)> {
        let mut at = 0;
        self.parts
            .iter()
            .map(|part| {
                let stage = at;
                at += match part.layout {
                    Layout::Bucketed { .. } => 2,
                    _ => 1,
                };
                (stage, part)
            })
            .collect()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Ascending,
    Descending,
}

#[derive(Clone)]
pub struct Field {
    pub ident: Ident,
    pub ty: Type,
}

impl Field {
    /// The field's name without `r#`, as users read it.
    pub fn name(&self) -> String {
        use syn::ext::IdentExt;
        self.ident.unraw().to_string()
    }

    pub fn span(&self) -> Span {
        self.ident.span()
    }
}
