//! The shape a value field's type text spells (`Vec<i64>`, `(u8,
//! String)`, `[f32; 3]`, `BTreeMap<String, Vec<u32>>`, `Option<..>` around
//! any of them, a user type the document's `types` lists), parsed once per
//! field ([`super::shape`] reads a stored value by it).

use super::kind::{kind_of, Kind};
use super::{UserTypes, ValueField};

/// The deepest type text parsed; deeper types read as stored.
const MAX_DEPTH: usize = 32;

/// The largest fixed array (`[T; N]`) read by its length; larger ones
/// read as stored.
const MAX_ARRAY: usize = 4096;

/// What a type text spells.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape {
    /// An integer, float, `bool`, `char` or string.
    Scalar(Kind),
    /// `serde_bytes::ByteBuf` and the like.
    Bytes,
    /// `()`.
    Unit,
    /// `Option<T>`.
    Option(Box<Shape>),
    /// A sequence of any length: `Vec`, `VecDeque`, the sets.
    Seq(Box<Shape>),
    /// A tuple, or a fixed array (`array`), of exactly these elements.
    Tuple { items: Vec<Shape>, array: bool },
    /// A map: `HashMap`, `BTreeMap`, `IndexMap`.
    Map(Box<Shape>, Box<Shape>),
    /// A struct or enum of the user's, by its name in the document's
    /// `types`.
    User(&'static str),
    /// A type the text does not describe: read as stored.
    Any,
}

/// `text` cut at its top-level commas (those outside `<>`, `()`, `[]`).
fn top_level(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.retain(|p| !p.is_empty());
    parts
}

impl Shape {
    /// The shape of the Rust type `type_name` (as the schema document
    /// writes it).
    #[cfg(test)]
    pub(crate) fn of(type_name: &str) -> Shape {
        Self::of_in(type_name, super::no_user_types())
    }

    /// The shape of `type_name`, naming the user types of `users`.
    pub(crate) fn of_in(type_name: &str, users: &UserTypes) -> Shape {
        let text: String = type_name.chars().filter(|c| !c.is_whitespace()).collect();
        Self::parse(&text, 0, users)
    }

    /// [`of_in`](Self::of_in) a value field's type and user types, parsed
    /// once per thread: a scan renders the same few fields for every row.
    pub(crate) fn of_field(field: &ValueField) -> std::rc::Rc<Shape> {
        type Shapes = std::collections::HashMap<(&'static str, usize), std::rc::Rc<Shape>>;
        thread_local! {
            static SHAPES: std::cell::RefCell<Shapes> = std::cell::RefCell::default();
        }
        let users = field.user_types.get();
        let key = (field.type_name, users as *const UserTypes as usize);
        SHAPES.with(|shapes| {
            shapes
                .borrow_mut()
                .entry(key)
                .or_insert_with(|| {
                    let text = field.user_types.reading_text(field.type_name);
                    std::rc::Rc::new(Shape::of_in(&text, users))
                })
                .clone()
        })
    }

    fn parse(t: &str, depth: usize, users: &UserTypes) -> Shape {
        if depth > MAX_DEPTH {
            return Shape::Any;
        }
        let inner = |t: &str| Box::new(Self::parse(t, depth + 1, users));
        if t == "()" {
            return Shape::Unit;
        }
        if let Some(body) = t.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            let items = top_level(body)
                .into_iter()
                .map(|t| Self::parse(t, depth + 1, users))
                .collect();
            return Shape::Tuple {
                items,
                array: false,
            };
        }
        if let Some(body) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            return match body.rsplit_once(';') {
                Some((item, n)) => match n.parse::<usize>() {
                    Ok(n) if n <= MAX_ARRAY => Shape::Tuple {
                        items: vec![Self::parse(item, depth + 1, users); n],
                        array: true,
                    },
                    _ => Shape::Any,
                },
                None => Shape::Any,
            };
        }
        let user = |name: &str| match users.get(name) {
            Some(_) => Shape::User(crate::dynamic::intern(name)),
            None => Shape::Any,
        };
        let Some((head, args)) = t.split_once('<') else {
            return match kind_of(t).0 {
                Kind::Bytes => Shape::Bytes,
                Kind::Nested | Kind::Auto => user(t.rsplit("::").next().unwrap_or(t)),
                scalar => Shape::Scalar(scalar),
            };
        };
        let Some(args) = args.strip_suffix('>') else {
            return Shape::Any;
        };
        // Lifetimes are no part of what is stored.
        let args: Vec<&str> = top_level(args)
            .into_iter()
            .filter(|a| !a.starts_with('\''))
            .collect();
        let name = head.rsplit("::").next().unwrap_or(head);
        match (name, args.as_slice()) {
            ("Option", [t]) => Shape::Option(inner(t)),
            ("Box" | "Rc" | "Arc", [t]) => Self::parse(t, depth + 1, users),
            (
                "Vec" | "VecDeque" | "LinkedList" | "BinaryHeap" | "HashSet" | "BTreeSet"
                | "IndexSet",
                [t, ..],
            ) => Shape::Seq(inner(t)),
            ("HashMap" | "BTreeMap" | "IndexMap", [k, v, ..]) => Shape::Map(inner(k), inner(v)),
            // A generic type of the user's, listed by its serde name.
            _ => user(name),
        }
    }

    /// Whether the shape is `Vec<u8>` (or an `Option` of it), which a
    /// field marked `#[serde(with = "serde_bytes")]` stores as bytes
    /// under the same type text.
    pub(crate) fn is_bytes_like(&self) -> bool {
        match self {
            Shape::Option(inner) => inner.is_bytes_like(),
            Shape::Seq(item) => **item == Shape::Scalar(Kind::U8),
            _ => false,
        }
    }

    /// Whether the shape describes more than "whatever is stored".
    pub(crate) fn is_known(&self) -> bool {
        *self != Shape::Any
    }
}
