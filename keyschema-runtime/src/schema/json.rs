//! The schema as a versioned JSON document, for tools and other languages
//! (see "The schema as JSON" in `docs/ENCODING.md`).

use super::json_text::string;
use super::{Cut, Format, Order, Salt, Schema};
use std::fmt::Write as _;

/// The version of the JSON document [`Schema::to_json`] writes.
const JSON_VERSION: u32 = 2;
/// The version of a document with a layout history (`"history"`).
const HISTORY_VERSION: u32 = 3;
/// The version of the stored row's form (the ordered stores' MessagePack
/// map, the DynamoDB item, the Bigtable cells) that the document's
/// `row_format` names: what "Value fields" in `docs/ENCODING.md` specifies.
pub(crate) const ROW_FORMAT: u32 = 1;

impl Schema {
    /// The layout as a JSON document: name, format and separator, prefix
    /// (hex), salt (kind, N, hashed components), the partition, every
    /// component with its type, order and transform; for a key type with
    /// value fields (`#[rowkey(value)]`) each one's name, Rust type and
    /// whether a row must hold it, whether its type reads nil and whether it
    /// is self-describing, the Bigtable family and the version of the
    /// stored row's form (`row_format`); each index's own document
    /// (`indexes`); and for a key type with `#[rowkey_was(...)]` the older
    /// layout's prefix and salt and the cut-over (version 3). The format is
    /// specified in `docs/ENCODING.md`.
    ///
    /// ```
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(salt = hash(user_id) % 8, then = (user_id), rev(ts))]
    /// struct Visit { user_id: String, ts: u64 }
    ///
    /// assert_eq!(
    ///     Visit::schema().to_json(),
    ///     r#"{"keyschema":2,"name":"Visit","format":{"kind":"binary"},"prefix":"","salt":{"kind":"hash","buckets":8,"hashed":[0]},"partition":1,"components":[{"name":"user_id","type":"String","order":"asc","transform":"plain","encoding":"String","fixed_width":null},{"name":"ts","type":"u64","order":"desc","transform":"plain","encoding":"u64","fixed_width":8}]}"#
    /// );
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(then = (user_id), ts, family = "visit")]
    /// struct Page {
    ///     user_id: String,
    ///     ts: u64,
    ///     #[rowkey(value)]
    ///     url: String,
    ///     #[rowkey(value)]
    ///     referrer: Option<String>,
    /// }
    ///
    /// assert!(Page::schema().to_json().ends_with(
    ///     r#""values":[{"name":"url","type":"String","required":true},{"name":"referrer","type":"Option<String>","required":false,"nil":true}],"family":"visit","row_format":1}"#
    /// ));
    /// ```
    pub fn to_json(&self) -> String {
        self.document(None)
    }

    /// The document; an index's (`dynamodb`: its form on DynamoDB, as the
    /// row type's document lists it) says its form (`"dynamodb"`).
    fn document(&self, dynamodb: Option<&str>) -> String {
        let mut out = String::new();
        // Version 3 is version 2 with a `history`; a key type without one
        // writes version 2, which every earlier reader reads.
        let version = if self.history.is_some() {
            HISTORY_VERSION
        } else {
            JSON_VERSION
        };
        let _ = write!(out, "{{\"keyschema\":{version},\"name\":");
        string(&mut out, self.name);
        out.push_str(",\"format\":");
        match self.format {
            Format::Binary => out.push_str("{\"kind\":\"binary\"}"),
            Format::Text { sep } => {
                out.push_str("{\"kind\":\"text\",\"sep\":");
                string(&mut out, &char::from(sep).to_string());
                out.push('}');
            }
        }
        out.push_str(",\"prefix\":");
        hex(&mut out, self.prefix);
        out.push_str(",\"salt\":");
        salt(&mut out, self.salt);
        out.push_str(",\"partition\":");
        match self.partition {
            Some(n) => {
                let _ = write!(out, "{n}");
            }
            None => out.push_str("null"),
        }
        out.push_str(",\"components\":[");
        for (i, c) in self.components.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"name\":");
            string(&mut out, c.name);
            out.push_str(",\"type\":");
            string(&mut out, c.type_name);
            let order = match c.order {
                Order::Ascending => "asc",
                Order::Descending => "desc",
            };
            let _ = write!(out, ",\"order\":\"{order}\",\"transform\":");
            match (c.reversed, c.bucket) {
                (true, _) => out.push_str("\"reverse\""),
                (false, Some(width)) => {
                    let _ = write!(out, "{{\"bucket\":{width}}}");
                }
                (false, None) => out.push_str("\"plain\""),
            }
            out.push_str(",\"encoding\":");
            match c.encoding {
                Some(e) => string(&mut out, &e.to_string()),
                None => out.push_str("null"),
            }
            out.push_str(",\"fixed_width\":");
            match c.fixed_width {
                Some(w) => {
                    let _ = write!(out, "{w}");
                }
                None => out.push_str("null"),
            }
            out.push('}');
        }
        out.push(']');
        // Only a key type with value fields has these: a document without
        // them is byte for byte what it was, and a reader of keys ignores
        // them (they change nothing in the keys: no new version).
        if !self.values().is_empty() {
            out.push_str(",\"values\":[");
            for (i, v) in self.values().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str("{\"name\":");
                string(&mut out, v.name);
                out.push_str(",\"type\":");
                string(&mut out, v.type_name);
                // The type text to read it by, where the Rust text does
                // not say it (a transparent or renamed type of the user's).
                if let crate::record::UserTypesOf::Traced(trace) = v.user_types {
                    if let Some(shape) = crate::record::shape_text(v.type_name, trace()) {
                        out.push_str(",\"shape\":");
                        string(&mut out, &shape);
                    }
                } else if let crate::record::UserTypesOf::Read(_, Some(shape)) = v.user_types {
                    out.push_str(",\"shape\":");
                    string(&mut out, shape);
                }
                // A field whose type reads nil need not be stored: its
                // nil has no cell (Bigtable) or attribute (DynamoDB).
                let _ = write!(out, ",\"required\":{}", v.refused_if_missing());
                if (v.reads_nil)() {
                    out.push_str(",\"nil\":true");
                }
                // A reader of cells must know it: its non-string values
                // are stored `c1` and MessagePack.
                if (v.self_describing)() {
                    out.push_str(",\"self_describing\":true");
                }
                out.push('}');
            }
            out.push(']');
            // The user types the value fields hold (structs, enums,
            // newtypes): a reader without the Rust types reads by them.
            let types = super::types_json::merged(self.values());
            if !types.is_empty() {
                out.push_str(",\"types\":");
                super::types_json::write_types(&mut out, &types);
            }
            out.push_str(",\"family\":");
            string(&mut out, self.family());
            let _ = write!(out, ",\"row_format\":{ROW_FORMAT}");
        }
        // Each index's entry layout, as its own document: a reader of the
        // table finds a row's entries (and an entry's row) from it.
        if self.has_indexes() {
            out.push_str(",\"indexes\":[");
            for (i, index) in self.indexes().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                // Its form on DynamoDB as the struct resolves it, for
                // items with key-field attributes (the default shape):
                // native where it can be unless declared encoded.
                let form = match super::native::index_form(index, self, true).is_native() {
                    true => "native",
                    false => "encoded",
                };
                out.push_str(&index.document(Some(form)));
            }
            out.push(']');
        }
        if let Some(history) = self.history {
            out.push_str(",\"history\":{\"prefix\":");
            hex(&mut out, history.older().prefix);
            out.push_str(",\"salt\":");
            salt(&mut out, history.older().salt);
            out.push_str(",\"cut\":");
            match history.cut() {
                Cut::Migration => out.push_str("{\"kind\":\"migration\"}"),
                Cut::Field { component, at } => {
                    let _ = write!(
                        out,
                        "{{\"kind\":\"field\",\"component\":{component},\"at\":"
                    );
                    hex(&mut out, at());
                    out.push('}');
                }
            }
            out.push('}');
        }
        if let Some(form) = dynamodb {
            let _ = write!(out, ",\"dynamodb\":\"{form}\"");
        }
        out.push('}');
        out
    }
}

/// Appends `bytes` as a JSON string of lowercase hex.
fn hex(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out.push('"');
}

/// Appends a salt: `null`, `{"kind":"random",...}` or `{"kind":"hash",...}`.
fn salt(out: &mut String, salt: Option<Salt>) {
    match salt {
        None => out.push_str("null"),
        Some(s) if s.random => {
            let _ = write!(out, "{{\"kind\":\"random\",\"buckets\":{}}}", s.buckets);
        }
        Some(s) => {
            let hashed: Vec<String> = s.hashed.iter().map(usize::to_string).collect();
            let _ = write!(
                out,
                "{{\"kind\":\"hash\",\"buckets\":{},\"hashed\":[{}]}}",
                s.buckets,
                hashed.join(",")
            );
        }
    }
}
