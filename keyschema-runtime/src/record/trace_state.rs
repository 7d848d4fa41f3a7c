//! What the runs of one trace of a type share ([`super::trace`]): the
//! state they learn, and why a run stopped.

use super::user_types::{UserType, VariantForm};
use serde::de;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// Why a run stopped.
#[derive(Debug)]
pub(super) enum Traced {
    /// A struct met inside itself, at this depth of the stack.
    Recursion { name: &'static str, depth: usize },
    /// The type refused a sample (its `Deserialize` validates), in its
    /// words.
    Refused(String),
    /// The type asked for whatever the format holds, or something the
    /// trace does not follow.
    Untraceable,
}

impl fmt::Display for Traced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for Traced {}

impl de::Error for Traced {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Traced::Refused(message.to_string())
    }
}

/// The key a run feeds a struct that names no such field, and the tag it
/// feeds an enum that has no such variant.
pub(super) const FOREIGN: &str = "\u{1}keyschema-probe";

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
    /// The site of the last sample fed in this run.
    pub(super) last_site: Option<String>,
    /// A site found recursive in this run.
    pub(super) recursed_at: bool,
    /// The struct field this run leaves out.
    pub(super) omit: Option<(&'static str, &'static str)>,
    /// Whether this run left its field out.
    pub(super) omitted: bool,
    /// The variants chosen in the run that first traced each struct (or
    /// `Enum::Variant`) and enum: a run asking about it takes them.
    pub(super) reached: HashMap<&'static str, HashMap<&'static str, usize>>,
    /// `(owner, name, first)`: a struct's field's other name, found when
    /// serde said the field was given twice; `first` is the name fed before
    /// it (the field's first name in serde's list).
    pub(super) aliases: Vec<(&'static str, &'static str, &'static str)>,
    /// `(owner, first, name)`: the field's own name, as serde's message
    /// said it.
    pub(super) primaries: Vec<(&'static str, &'static str, String)>,
    /// Whether this run found a field's other name (the next run leaves it
    /// out).
    pub(super) retry: bool,
    /// The struct this run feeds a member it does not name.
    pub(super) extra: Option<&'static str>,
    /// Whether it was fed.
    pub(super) extra_fed: bool,
    /// The enum this run feeds a tag none of its variants has.
    pub(super) foreign: Option<&'static str>,
    /// Whether it was fed.
    pub(super) foreign_fed: bool,
}

impl State {
    /// The site the trace is at.
    pub(super) fn site(&self) -> String {
        self.path.join("/")
    }
}
