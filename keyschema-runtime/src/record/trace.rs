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

use super::trace_de::{Traced, Tracer};
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

/// What the runs of one trace share and learn.
#[derive(Default)]
pub(super) struct State {
    /// The containers being traced, innermost last (a struct met again
    /// inside itself is a recursion).
    pub(super) stack: Vec<&'static str>,
    /// Where the trace is: segments joined into a site's name.
    pub(super) path: Vec<String>,
    /// The type text of the value last traced.
    pub(super) last: String,
    /// The structs and tuple structs, newtypes and unit structs seen.
    pub(super) containers: BTreeMap<&'static str, UserType>,
    /// Each enum's variant names, and the form of each seen so far.
    pub(super) enums: BTreeMap<&'static str, (Vec<&'static str>, Vec<Option<VariantForm>>)>,
    /// Enums in the order met (the order their variants are tried in).
    pub(super) enum_order: Vec<&'static str>,
    /// The variant each enum takes in this run.
    pub(super) choice: HashMap<&'static str, usize>,
    /// Sites (an `Option`, a sequence, a map) whose content is a struct
    /// met inside itself: the type text of that content, taken as nil or
    /// empty there from then on.
    pub(super) recursive: HashMap<String, String>,
    /// Sites whose sample the type refused: which sample to try next.
    pub(super) sample: HashMap<String, usize>,
    /// A site whose sample was refused in this run.
    pub(super) refused_at: Option<String>,
    /// A site found recursive in this run.
    pub(super) recursed_at: bool,
    /// The struct field this run leaves out.
    pub(super) omit: Option<(&'static str, &'static str)>,
    /// Whether this run left its field out.
    pub(super) omitted: bool,
    /// The variants chosen in the run that first traced each struct (or
    /// `Enum::Variant`): a run leaving one of its fields out takes them.
    pub(super) reached: HashMap<&'static str, HashMap<&'static str, usize>>,
}

impl State {
    /// The site the trace is at.
    pub(super) fn site(&self) -> String {
        self.path.join("/")
    }
}

/// Traces `T`; no user types if it cannot be.
fn trace<T: DeserializeOwned>() -> UserTypes {
    let mut state = State::default();
    let mut probes: Option<Vec<(&'static str, &'static str)>> = None;
    let mut optional: Vec<(&'static str, &'static str)> = Vec::new();
    for _ in 0..MAX_RUNS {
        state.stack.clear();
        state.path.clear();
        state.refused_at = None;
        state.recursed_at = false;
        state.omitted = false;
        let run = T::deserialize(Tracer::new(&mut state));
        if let Some(left_out) = state.omit {
            // A run leaving a field out: whether the type read without it.
            if run.is_ok() && state.omitted {
                optional.push(left_out);
            }
            match probes.as_mut().and_then(Vec::pop) {
                Some(next) => probe(&mut state, next),
                None => return finish(state, &optional),
            }
            continue;
        }
        match run {
            Ok(_) => {}
            Err(Traced::Refused) => match state.refused_at.take() {
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
        // Every variant of every enum, each in a run of its own.
        if let Some((name, next)) = next_variant(&state) {
            state.choice.insert(name, next);
            continue;
        }
        // Then every struct field left out once.
        let list = probes.get_or_insert_with(|| fields_of(&state));
        match list.pop() {
            Some(first) => probe(&mut state, first),
            None => return finish(state, &optional),
        }
    }
    UserTypes::default()
}

/// Sets the next run to leave `field` out, taking the variants of the run
/// that reached its owner.
fn probe(state: &mut State, field: (&'static str, &'static str)) {
    if let Some(choice) = state.reached.get(field.0) {
        state.choice = choice.clone();
    }
    state.omit = Some(field);
}

/// The first enum with a variant no run has seen, and that variant.
fn next_variant(state: &State) -> Option<(&'static str, usize)> {
    state.enum_order.iter().find_map(|name| {
        let (_, forms) = state.enums.get(name)?;
        forms.iter().position(Option::is_none).map(|i| (*name, i))
    })
}

/// Every field of every struct and struct variant, to leave out in turn.
fn fields_of(state: &State) -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    for (name, t) in &state.containers {
        if let UserType::Struct(fields) = t {
            out.extend(fields.iter().map(|f| (*name, leak_name(&f.name))));
        }
    }
    for (name, (variants, forms)) in &state.enums {
        for (variant, form) in variants.iter().zip(forms) {
            if let Some(VariantForm::Struct(fields)) = form {
                let owner = leak_name(&format!("{name}::{variant}"));
                out.extend(fields.iter().map(|f| (owner, leak_name(&f.name))));
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

/// The traced types, with the fields found optional marked.
fn finish(state: State, optional: &[(&'static str, &'static str)]) -> UserTypes {
    let mark = |owner: &str, fields: &[UserField]| -> Vec<UserField> {
        fields
            .iter()
            .map(|f| UserField {
                optional: optional.iter().any(|(o, n)| *o == owner && *n == f.name),
                ..f.clone()
            })
            .collect()
    };
    let mut types = BTreeMap::new();
    for (name, t) in state.containers {
        let t = match t {
            UserType::Struct(fields) => UserType::Struct(mark(name, &fields)),
            other => other,
        };
        types.insert(name.to_string(), t);
    }
    for (name, (variants, forms)) in state.enums {
        let mut out = Vec::with_capacity(variants.len());
        for (variant, form) in variants.iter().zip(forms) {
            let Some(form) = form else {
                return UserTypes::default();
            };
            let form = match form {
                VariantForm::Struct(fields) => {
                    VariantForm::Struct(mark(&format!("{name}::{variant}"), &fields))
                }
                other => other,
            };
            out.push(UserVariant {
                name: variant.to_string(),
                form,
            });
        }
        types.insert(name.to_string(), UserType::Enum(out));
    }
    UserTypes { types }
}
