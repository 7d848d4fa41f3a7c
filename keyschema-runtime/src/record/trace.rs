//! Tracing a value field's Rust type for the user types it holds: its
//! `Deserialize` is run against a deserializer that holds no data and
//! feeds each request a sample (0, `""`, one element of a sequence, each
//! field of a struct, a chosen variant of an enum), noting what was asked
//! at each place. One run sees one variant of each enum, so runs repeat
//! until every variant is seen; then one run per struct field leaves the
//! field out, and a run that succeeds marks it optional (`Option`, or
//! `#[serde(default)]`). A type that asks for whatever the format holds
//! (`deserialize_any`: `serde_json::Value`, untagged or internally tagged
//! enums, `flatten`), or whose `Deserialize` refuses every sample, traces
//! to no user types: readers read its values as stored.
//!
//! The deserializer says it is not human-readable, as the stores' formats
//! (MessagePack, DynamoDB items, cells) are, so that a type asks what it
//! asks of them (a `uuid::Uuid` asks for bytes).

use super::trace_access::Tracer;
use super::trace_state::{State, Traced};
use super::user_types::{UserField, UserType, UserTypes, UserVariant, VariantForm};
use serde::de::DeserializeOwned;
use std::any::TypeId;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

/// The most runs one trace makes; a type that needs more traces to none.
const MAX_RUNS: usize = 512;

/// The user types `T` holds, traced once per type and kept.
pub fn traced<T: DeserializeOwned + 'static>() -> &'static UserTypes {
    static TRACED: OnceLock<Mutex<HashMap<TypeId, &'static UserTypes>>> = OnceLock::new();
    let cache = TRACED.get_or_init(Mutex::default);
    let id = TypeId::of::<T>();
    if let Some(known) = cache.lock().ok().and_then(|c| c.get(&id).copied()) {
        return known;
    }
    let types: &'static UserTypes = Box::leak(Box::new(trace::<T>()));
    match cache.lock() {
        Ok(mut c) => c.entry(id).or_insert(types),
        Err(_) => types,
    }
}

/// A run that asks the type one question once every variant is seen.
#[derive(Clone, Copy)]
enum Probe {
    /// Whether a struct reads without this field (`Option`, `default`).
    Omit(&'static str, &'static str),
    /// Whether a struct refuses a member it does not name
    /// (`deny_unknown_fields`).
    Extra(&'static str),
    /// Whether an enum reads a tag none of its variants has (`other`).
    Foreign(&'static str),
}

/// What the probes found.
#[derive(Default)]
struct Found {
    optional: Vec<(&'static str, &'static str)>,
    closed: Vec<&'static str>,
    other: Vec<&'static str>,
}

/// Traces `T`; no user types if it cannot be.
fn trace<T: DeserializeOwned>() -> UserTypes {
    let mut state = State::default();
    let mut probes: Option<Vec<Probe>> = None;
    let mut asked: Option<Probe> = None;
    let mut found = Found::default();
    let mut root: Option<String> = None;
    for _ in 0..MAX_RUNS {
        state.stack.clear();
        state.path.clear();
        state.refused_at = None;
        state.last_site = None;
        state.recursed_at = false;
        state.omitted = false;
        state.retry = false;
        state.extra_fed = false;
        state.foreign_fed = false;
        let run = T::deserialize(Tracer::new(&mut state));
        if let Some(question) = asked.take() {
            match question {
                Probe::Omit(owner, field) if run.is_ok() && state.omitted => {
                    found.optional.push((owner, field))
                }
                Probe::Extra(owner) if run.is_err() && state.extra_fed => found.closed.push(owner),
                Probe::Foreign(name) if run.is_ok() && state.foreign_fed => found.other.push(name),
                _ => {}
            }
            state.omit = None;
            state.extra = None;
            state.foreign = None;
            match probes.as_mut().and_then(Vec::pop) {
                Some(next) => asked = Some(probe(&mut state, next)),
                None => return finish(state, &found, root),
            }
            continue;
        }
        match run {
            Ok(_) => {}
            // A field's other name found: the next run leaves it out.
            Err(_) if state.retry => continue,
            // A refusal where a sample was refused, or else (a `with`
            // function that parses what it read) after the last sample
            // read: another sample there.
            Err(Traced::Refused(_)) => match state.refused_at.take().or(state.last_site.take()) {
                // Another sample where the type refused one.
                Some(site) => {
                    *state.sample.entry(site).or_default() += 1;
                    continue;
                }
                None => return UserTypes::default(),
            },
            Err(Traced::Recursion { .. }) if state.recursed_at => continue,
            // An enum met inside itself before any variant of it was seen:
            // its next variant first.
            Err(Traced::Recursion { name, .. }) if state.enums.contains_key(name) => {
                let variants = state.enums.get(name).map_or(0, |(v, _)| v.len());
                let next = state.choice.get(name).copied().unwrap_or(0) + 1;
                if next >= variants {
                    return UserTypes::default();
                }
                state.choice.insert(name, next);
                continue;
            }
            Err(_) => return UserTypes::default(),
        }
        root.get_or_insert_with(|| state.last.clone());
        // Every variant of every enum, each in a run of its own.
        if let Some((name, next)) = next_variant(&state) {
            state.choice.insert(name, next);
            continue;
        }
        // Then the questions, one run each.
        let list = probes.get_or_insert_with(|| questions(&state));
        match list.pop() {
            Some(first) => asked = Some(probe(&mut state, first)),
            None => return finish(state, &found, root),
        }
    }
    UserTypes::default()
}

/// Sets the next run to ask `question`, taking the variants of the run
/// that reached what it asks about.
fn probe(state: &mut State, question: Probe) -> Probe {
    let owner = match question {
        Probe::Omit(owner, _) | Probe::Extra(owner) | Probe::Foreign(owner) => owner,
    };
    if let Some(choice) = state.reached.get(owner) {
        state.choice = choice.clone();
    }
    match question {
        Probe::Omit(owner, field) => state.omit = Some((owner, field)),
        Probe::Extra(owner) => state.extra = Some(owner),
        Probe::Foreign(name) => state.foreign = Some(name),
    }
    question
}

/// The first enum with a variant no run has seen, and that variant.
fn next_variant(state: &State) -> Option<(&'static str, usize)> {
    state.enum_order.iter().find_map(|name| {
        let (_, forms) = state.enums.get(name)?;
        forms.iter().position(Option::is_none).map(|i| (*name, i))
    })
}

/// Every field of every struct and struct variant to leave out in turn,
/// every struct to give a member it does not name, every enum to give a
/// tag it does not have.
fn questions(state: &State) -> Vec<Probe> {
    let mut out = Vec::new();
    for (name, t) in &state.containers {
        if let UserType::Struct(fields) = t {
            out.extend(fields.iter().map(|f| Probe::Omit(name, leak_name(&f.name))));
            out.push(Probe::Extra(name));
        }
    }
    for (name, (variants, forms)) in &state.enums {
        out.push(Probe::Foreign(name));
        for (variant, form) in variants.iter().zip(forms) {
            if let Some(VariantForm::Struct(fields)) = form {
                let owner = leak_name(&format!("{name}::{variant}"));
                out.extend(
                    fields
                        .iter()
                        .map(|f| Probe::Omit(owner, leak_name(&f.name))),
                );
                out.push(Probe::Extra(owner));
            }
        }
    }
    out
}

/// A field or owner name as the `'static` the trace keys by (serde's own
/// names are `'static`; the joined `Enum::Variant` is made once per
/// variant and type traced).
fn leak_name(name: &str) -> &'static str {
    crate::dynamic::intern(name)
}

/// The traced types, with what the probes found marked: optional fields,
/// each field's other names, closed structs, enums with an `other`.
fn finish(state: State, found: &Found, root: Option<String>) -> UserTypes {
    let mark = |owner: &str, fields: &[UserField]| -> Vec<UserField> {
        fields
            .iter()
            .map(|f| {
                // A field fed first under one of its other names takes its
                // own; every name but its own is an alias.
                let primary = state
                    .primaries
                    .iter()
                    .find(|(o, first, _)| *o == owner && *first == f.name)
                    .map(|(_, _, p)| p.clone());
                let name = primary.clone().unwrap_or_else(|| f.name.clone());
                let mut aliases: Vec<String> = state
                    .aliases
                    .iter()
                    .filter(|(o, _, first)| *o == owner && *first == f.name)
                    .map(|(_, alias, _)| alias.to_string())
                    .chain(primary.map(|_| f.name.clone()))
                    .filter(|a| *a != name)
                    .collect();
                aliases.sort();
                aliases.dedup();
                UserField {
                    optional: found
                        .optional
                        .iter()
                        .any(|(o, n)| *o == owner && *n == f.name),
                    name,
                    aliases,
                    ..f.clone()
                }
            })
            .collect()
    };
    let mut types = BTreeMap::new();
    for (name, t) in &state.containers {
        let t = match t {
            UserType::Struct(fields) => UserType::Struct(mark(name, fields)),
            other => other.clone(),
        };
        types.insert(name.to_string(), t);
    }
    for (name, (variants, forms)) in &state.enums {
        let mut out = Vec::with_capacity(variants.len());
        for (variant, form) in variants.iter().zip(forms) {
            let Some(form) = form else {
                return UserTypes::default();
            };
            let form = match form {
                VariantForm::Struct(fields) => {
                    VariantForm::Struct(mark(&format!("{name}::{variant}"), fields))
                }
                other => other.clone(),
            };
            out.push(UserVariant {
                name: variant.to_string(),
                form,
            });
        }
        types.insert(name.to_string(), UserType::Enum(out));
    }
    UserTypes {
        types,
        closed: found.closed.iter().map(|c| c.to_string()).collect(),
        other: found.other.iter().map(|c| c.to_string()).collect(),
        root,
    }
}
