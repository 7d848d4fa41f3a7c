//! The schema document's `types`: the user types (structs, enums,
//! newtypes, tuple structs) the value fields' types hold, by serde name
//! (docs/ENCODING.md, "User types"). Read back by
//! `dynamic::types::read_types`.

use super::json_text::string;
use crate::record::{UserField, UserType, UserTypes, VariantForm};
use std::fmt::Write;

/// The value fields' user types, merged (a name two fields' types spell
/// differently is left out: a reader reads it as stored).
pub(crate) fn merged(fields: &[super::ValueField]) -> UserTypes {
    let mut types = UserTypes::default();
    let mut clashes = Vec::new();
    for f in fields {
        types.merge(f.user_types.get(), &mut clashes);
    }
    types
}

/// `types` as the document's JSON object.
pub(crate) fn write_types(out: &mut String, types: &UserTypes) {
    out.push('{');
    for (i, (name, t)) in types.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, name);
        out.push(':');
        match t {
            UserType::Struct(fields) => {
                out.push_str("{\"fields\":");
                write_fields(out, fields);
                if types.is_closed(name) {
                    out.push_str(",\"closed\":true");
                }
                out.push('}');
            }
            UserType::Tuple(items) => {
                out.push_str("{\"tuple\":");
                write_list(out, items);
                out.push('}');
            }
            UserType::Newtype(inner) => {
                out.push_str("{\"newtype\":");
                string(out, inner);
                out.push('}');
            }
            UserType::Unit => out.push_str("{\"unit\":true}"),
            UserType::Enum(variants) => {
                out.push_str("{\"enum\":[");
                for (j, v) in variants.iter().enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    out.push_str("{\"name\":");
                    string(out, &v.name);
                    match &v.form {
                        VariantForm::Unit => {}
                        VariantForm::Newtype(inner) => {
                            out.push_str(",\"newtype\":");
                            string(out, inner);
                        }
                        VariantForm::Tuple(items) => {
                            out.push_str(",\"tuple\":");
                            write_list(out, items);
                        }
                        VariantForm::Struct(fields) => {
                            out.push_str(",\"fields\":");
                            write_fields(out, fields);
                            if types.is_closed(&format!("{name}::{}", v.name)) {
                                out.push_str(",\"closed\":true");
                            }
                        }
                    }
                    out.push('}');
                }
                out.push(']');
                if types.has_other(name) {
                    out.push_str(",\"other\":true");
                }
                out.push('}');
            }
        }
    }
    out.push('}');
}

fn write_list(out: &mut String, items: &[String]) {
    out.push('[');
    for (i, t) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, t);
    }
    out.push(']');
}

fn write_fields(out: &mut String, fields: &[UserField]) {
    out.push('[');
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"name\":");
        string(out, &f.name);
        out.push_str(",\"type\":");
        string(out, &f.type_name);
        if f.optional {
            let _ = write!(out, ",\"optional\":true");
        }
        if !f.aliases.is_empty() {
            out.push_str(",\"aliases\":");
            write_list(out, &f.aliases);
        }
        out.push('}');
    }
    out.push(']');
}
