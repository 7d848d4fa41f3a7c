//! Parse: the struct-level `#[rowkey(...)]` attribute into plain values.
//!
//! The attribute is not a list of `syn::Meta` (`then = a, b, rev(c)` has
//! commas inside one value), so it has a small grammar of its own:
//!
//! ```text
//! attr      := option ("," option)* ","?
//! option    := "salt" "=" salt | "then" "=" item ("," item)*
//!            | "prefix" "=" (string | byte-string) | "format" "=" ident ("(" ... ")")?
//!            | "family" "=" string | "crate" "=" string
//!            | "index" "(" ident ("," option)* ")"   (an index layout; its options as written)
//! salt      := "hash" "(" ("*" | ident ("," ident)*)? ")" "%" integer
//!            | "random" "%" integer
//! item      := component | "(" (component ("," component)*)? ")"   (the partition key)
//! component := ident | ident "(" ident ("," integer)? ")"
//! ```
//!
//! A component list ends where the next `ident =` begins. Nothing is checked
//! here beyond the grammar: unknown fields, bad bucket counts and the like are
//! the check stage's business, so they can all be reported at once.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::{parenthesized, Ident, LitByteStr, LitInt, LitStr, Token};

/// The options of one or more `#[rowkey(...)]` attributes on the struct.
#[derive(Default)]
pub struct KeyAttr {
    pub salt: Option<SaltExpr>,
    pub then: Option<(Ident, Vec<ComponentExpr>)>,
    /// Every `( ... )` group in `then` (the partition key; one is allowed).
    pub groups: Vec<Group>,
    pub prefix: Option<(Span, Vec<u8>)>,
    /// `binary`, or `text` with its optional `sep = "#"`.
    pub format: Option<(Ident, Option<LitStr>)>,
    pub krate: Option<syn::Path>,
    /// `family = "..."`: the Bigtable column family of the value fields.
    pub family: Option<LitStr>,
    /// `index(Name, ...)`: further key layouts of the same rows.
    pub indexes: Vec<IndexAttr>,
}

/// `index(Name, prefix = ..., salt = ..., then = ...)`: a further key
/// layout of the rows, whose entries are the struct `Name`. Its options are
/// kept as written (with their spans) and checked as a key type's.
#[derive(Clone)]
pub struct IndexAttr {
    /// The `index` keyword.
    pub span: Span,
    pub name: Ident,
    /// `building`: the index's entries are being built (by its backfill);
    /// its scans are refused until it is removed.
    pub building: Option<Span>,
    /// `dynamodb = encoded` or `dynamodb = native`: the index's form on
    /// DynamoDB, the word as written (checked by the check stage).
    pub dynamodb: Option<Ident>,
    /// The options after the name, as written (without `building` and
    /// `dynamodb = ...`).
    pub body: proc_macro2::TokenStream,
}

pub struct SaltExpr {
    /// `hash` or `random`.
    pub keyword: Ident,
    /// `None` for `random`.
    pub fields: Option<HashFields>,
    pub modulus: LitInt,
}

pub enum HashFields {
    All,
    List(Vec<HashItem>),
}

/// A field inside `hash(...)`, or a bucket of one: `bucket(date, 30)`.
pub struct HashItem {
    pub field: Ident,
    pub bucket: Option<LitInt>,
}

impl Parse for HashItem {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let first = input.call(Ident::parse_any)?;
        if first != "bucket" || !input.peek(syn::token::Paren) {
            return Ok(HashItem {
                field: first,
                bucket: None,
            });
        }
        let content;
        parenthesized!(content in input);
        let field = content.call(Ident::parse_any)?;
        content.parse::<Token![,]>()?;
        let width = content.parse()?;
        Ok(HashItem {
            field,
            bucket: Some(width),
        })
    }
}

/// A parenthesized group of components in `then`: the partition key, after
/// CQL's `PRIMARY KEY ((a, b), c)`.
pub struct Group {
    /// The span of the parentheses.
    pub span: Span,
    /// The index in `then` of its first component, and how many it holds.
    pub start: usize,
    pub len: usize,
}

pub struct ComponentExpr {
    pub field: Ident,
    pub transform: Option<Transform>,
}

pub struct Transform {
    pub name: Ident,
    /// Further arguments after the field (`bucket(ts, 86400)`).
    pub args: Vec<LitInt>,
}

/// One option, as parsed.
enum Option_ {
    Salt(SaltExpr),
    Then(Ident, Vec<ComponentExpr>, Vec<Group>),
    Prefix(Span, Vec<u8>),
    Format(Ident, Option<LitStr>),
    Crate(syn::Path),
    Family(LitStr),
}

impl KeyAttr {
    /// Merges the options of another `#[rowkey(...)]` attribute (`later`:
    /// not the first); a repeated option is an error.
    pub fn parse_into(&mut self, input: ParseStream, later: bool) -> syn::Result<()> {
        while !input.is_empty() {
            let key = input.call(Ident::parse_any)?;
            if key == "index" && input.peek(syn::token::Paren) {
                self.indexes.push(parse_index(&key, input)?);
                if input.is_empty() {
                    break;
                }
                input.parse::<Token![,]>()?;
                continue;
            }
            let duplicate = || {
                let message = if later && key != "crate" {
                    format!("`{key}` is given twice: this is a second `#[rowkey(...)]` attribute, and a key type has one key layout. For the layout the table's older rows use, write `#[rowkey_was(salt = ..., until = ...)]` under `#[rowkey(...)]`; for a second layout of the same rows, declare an index: `index(EventBySite, prefix = \"s\", then = ...)`")
                } else {
                    format!("`{key}` is given twice")
                };
                syn::Error::new(key.span(), message)
            };
            match parse_option(&key, input)? {
                Option_::Salt(s) if self.salt.is_none() => self.salt = Some(s),
                Option_::Then(k, c, g) if self.then.is_none() => {
                    self.then = Some((k, c));
                    self.groups = g;
                }
                Option_::Prefix(s, p) if self.prefix.is_none() => self.prefix = Some((s, p)),
                Option_::Format(f, sep) if self.format.is_none() => self.format = Some((f, sep)),
                Option_::Crate(p) if self.krate.is_none() => self.krate = Some(p),
                Option_::Family(f) if self.family.is_none() => self.family = Some(f),
                _ => return Err(duplicate()),
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(())
    }
}

/// `index(Name, options...)`, after the `index` keyword.
fn parse_index(key: &Ident, input: ParseStream) -> syn::Result<IndexAttr> {
    let content;
    parenthesized!(content in input);
    let named = "an index starts with the name of its entry type: `index(EventBySite, prefix = \"s\", then = site, rev(timestamp), user_id)`";
    let name: Ident = content
        .parse()
        .map_err(|e| syn::Error::new(e.span(), named))?;
    if content.peek(Token![=]) {
        return Err(syn::Error::new(name.span(), named));
    }
    if !content.is_empty() {
        content.parse::<Token![,]>()?;
    }
    // `building` is a word of its own between commas; the rest is kept.
    let tokens: Vec<proc_macro2::TokenTree> = content
        .parse::<proc_macro2::TokenStream>()?
        .into_iter()
        .collect();
    let comma = |t: Option<&proc_macro2::TokenTree>| matches!(t, Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ',');
    let mut building = None;
    let mut dynamodb = None;
    let mut body = proc_macro2::TokenStream::new();
    let mut i = 0;
    while i < tokens.len() {
        let starts = i == 0 || comma(tokens.get(i - 1));
        // `dynamodb = word`, an option of its own between commas.
        if let (true, Some(proc_macro2::TokenTree::Ident(form))) = (
            starts && is_assignment(&tokens[i..], "dynamodb"),
            tokens.get(i + 2),
        ) {
            if dynamodb.is_some() {
                return Err(syn::Error::new(
                    tokens[i].span(),
                    "`dynamodb` is given twice",
                ));
            }
            dynamodb = Some(form.clone());
            i += 4; // `dynamodb`, `=`, the word and its comma
            continue;
        }
        let word = matches!(&tokens[i], proc_macro2::TokenTree::Ident(w) if w == "building");
        let alone = starts && (i + 1 == tokens.len() || comma(tokens.get(i + 1)));
        if word && alone {
            if building.is_some() {
                return Err(syn::Error::new(
                    tokens[i].span(),
                    "`building` is given twice",
                ));
            }
            building = Some(tokens[i].span());
            i += 2; // the word and its comma
            continue;
        }
        body.extend([tokens[i].clone()]);
        i += 1;
    }
    // An option taken out last leaves the comma before it: drop it, so
    // that options appended to the body (the row's format) follow one.
    let mut kept: Vec<proc_macro2::TokenTree> = body.into_iter().collect();
    if comma(kept.last()) {
        kept.pop();
    }
    let body: proc_macro2::TokenStream = kept.into_iter().collect();
    Ok(IndexAttr {
        span: key.span(),
        name,
        building,
        dynamodb,
        body,
    })
}

/// Whether `tokens` begin with `key = word` followed by a comma or the end.
fn is_assignment(tokens: &[proc_macro2::TokenTree], key: &str) -> bool {
    use proc_macro2::TokenTree::{Ident, Punct};
    matches!(tokens.first(), Some(Ident(w)) if w == key)
        && matches!(tokens.get(1), Some(Punct(p)) if p.as_char() == '=')
        && matches!(tokens.get(2), Some(Ident(_)))
        && tokens
            .get(3)
            .is_none_or(|t| matches!(t, Punct(p) if p.as_char() == ','))
}

fn parse_option(key: &Ident, input: ParseStream) -> syn::Result<Option_> {
    let name = key.to_string();
    let known = ["salt", "then", "prefix", "format", "family", "crate"];
    if !known.contains(&name.as_str()) {
        return Err(syn::Error::new(
            key.span(),
            format!("unknown rowkey option `{name}`; expected one of `salt`, `then`, `prefix`, `format`, `family`, `crate`, `index(Name, ...)` (inside `index(Name, ...)`: `building`, `dynamodb = encoded` or `dynamodb = native`, `prefix`, `salt`, `then`, `format`)"),
        ));
    }
    input.parse::<Token![=]>()?;
    Ok(match name.as_str() {
        "salt" => Option_::Salt(input.parse()?),
        "then" => {
            let (components, groups) = parse_components(input)?;
            Option_::Then(key.clone(), components, groups)
        }
        "prefix" => {
            if input.peek(LitByteStr) {
                let lit: LitByteStr = input.parse()?;
                Option_::Prefix(lit.span(), lit.value())
            } else {
                let lit: LitStr = input.parse()?;
                Option_::Prefix(lit.span(), lit.value().into_bytes())
            }
        }
        "format" => {
            let format: Ident = input.parse()?;
            let mut sep = None;
            if input.peek(syn::token::Paren) {
                let content;
                parenthesized!(content in input);
                while !content.is_empty() {
                    let key: Ident = content.parse()?;
                    if key != "sep" {
                        return Err(syn::Error::new(key.span(), "expected `sep = \"#\"`"));
                    }
                    content.parse::<Token![=]>()?;
                    sep = Some(content.parse::<LitStr>()?);
                    if !content.is_empty() {
                        content.parse::<Token![,]>()?;
                    }
                }
            }
            Option_::Format(format, sep)
        }
        "family" => Option_::Family(input.parse()?),
        _ => {
            let lit: LitStr = input.parse()?;
            Option_::Crate(lit.parse()?)
        }
    })
}

fn parse_components(input: ParseStream) -> syn::Result<(Vec<ComponentExpr>, Vec<Group>)> {
    let mut components = Vec::new();
    let mut groups = Vec::new();
    parse_item(input, &mut components, &mut groups)?;
    while input.peek(Token![,]) {
        let ahead = input.fork();
        ahead.parse::<Token![,]>()?;
        let next_is_option = ahead.is_empty()
            || (ahead.peek(Ident::peek_any) && ahead.peek2(Token![=]))
            || (ahead
                .fork()
                .call(Ident::parse_any)
                .is_ok_and(|i| i == "index")
                && ahead.peek2(syn::token::Paren));
        if next_is_option {
            break;
        }
        input.parse::<Token![,]>()?;
        parse_item(input, &mut components, &mut groups)?;
    }
    Ok((components, groups))
}

/// One item of `then`: a component, or a `( ... )` group of them.
fn parse_item(
    input: ParseStream,
    components: &mut Vec<ComponentExpr>,
    groups: &mut Vec<Group>,
) -> syn::Result<()> {
    if !input.peek(syn::token::Paren) {
        components.push(input.parse()?);
        return Ok(());
    }
    let content;
    let paren = parenthesized!(content in input);
    let inner = content.parse_terminated(ComponentExpr::parse, Token![,])?;
    groups.push(Group {
        span: paren.span.join(),
        start: components.len(),
        len: inner.len(),
    });
    components.extend(inner);
    Ok(())
}

impl Parse for ComponentExpr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let first = input.call(Ident::parse_any)?;
        if !input.peek(syn::token::Paren) {
            return Ok(ComponentExpr {
                field: first,
                transform: None,
            });
        }
        let content;
        parenthesized!(content in input);
        let field = content.call(Ident::parse_any)?;
        let mut args = Vec::new();
        while !content.is_empty() {
            content.parse::<Token![,]>()?;
            if content.is_empty() {
                break;
            }
            args.push(content.parse()?);
        }
        Ok(ComponentExpr {
            field,
            transform: Some(Transform { name: first, args }),
        })
    }
}

impl Parse for SaltExpr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let keyword: Ident = input.parse()?;
        match keyword.to_string().as_str() {
            "hash" => {
                let content;
                parenthesized!(content in input);
                let fields = if content.peek(Token![*]) {
                    content.parse::<Token![*]>()?;
                    HashFields::All
                } else {
                    let list = content.parse_terminated(HashItem::parse, Token![,])?;
                    HashFields::List(list.into_iter().collect())
                };
                input.parse::<Token![%]>()?;
                let modulus = input.parse()?;
                Ok(SaltExpr {
                    keyword,
                    fields: Some(fields),
                    modulus,
                })
            }
            "random" => {
                input.parse::<Token![%]>()?;
                let modulus = input.parse()?;
                Ok(SaltExpr {
                    keyword,
                    fields: None,
                    modulus,
                })
            }
            _ => Err(syn::Error::new(
                keyword.span(),
                "expected `hash(field, ...) % N`, `hash(*) % N` or `random % N`",
            )),
        }
    }
}

/// `#[rowkey_was(...)]`: the layout the table's older rows use, and the
/// cut-over between it and the declared one.
///
/// ```text
/// was   := option ("," option)* ","?
/// option:= "prefix" "=" string | "salt" "=" salt | "salt" "=" "none"
///        | "until" "=" ident ">=" expr | "until" "=" "migration"
/// ```
pub struct WasAttr {
    /// The span of the attribute, for errors about it as a whole.
    pub span: Span,
    /// `None`: the same prefix as the declared layout.
    pub prefix: Option<(Span, Vec<u8>)>,
    /// `None`: no salt (unsalted older rows); `Some(salt)`.
    pub salt: Option<SaltExpr>,
    pub until: Option<Until>,
}

/// When a row belongs to the declared (newer) layout.
pub enum Until {
    /// `until = field >= value`: rows whose `field` is at or past `value`.
    Field { field: Ident, value: syn::Expr },
    /// `until = migration`: the migration's phase decides (old, both, new).
    Migration,
}

impl WasAttr {
    pub fn parse(span: Span, input: ParseStream) -> syn::Result<Self> {
        let mut was = WasAttr {
            span,
            prefix: None,
            salt: None,
            until: None,
        };
        let mut salt_seen = false;
        while !input.is_empty() {
            let key = input.call(Ident::parse_any)?;
            let duplicate = || syn::Error::new(key.span(), format!("`{key}` is given twice"));
            input.parse::<Token![=]>()?;
            match key.to_string().as_str() {
                "prefix" if was.prefix.is_none() => {
                    let lit: LitStr = input.parse()?;
                    was.prefix = Some((lit.span(), lit.value().into_bytes()));
                }
                "salt" if !salt_seen => {
                    salt_seen = true;
                    if input.peek(Ident) && input.fork().parse::<Ident>().is_ok_and(|i| i == "none") {
                        input.parse::<Ident>()?;
                    } else {
                        was.salt = Some(input.parse()?);
                    }
                }
                "until" if was.until.is_none() => {
                    let first = input.call(Ident::parse_any)?;
                    if first == "migration" && !input.peek(Token![>=]) {
                        was.until = Some(Until::Migration);
                    } else {
                        input.parse::<Token![>=]>()?;
                        let value: syn::Expr = input.parse()?;
                        was.until = Some(Until::Field { field: first, value });
                    }
                }
                "prefix" | "salt" | "until" => return Err(duplicate()),
                "then" | "format" => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("the older layout keeps the declared `{key}`: a layout history changes only `prefix` and `salt`, so rows of both layouts sort alike after the salt"),
                    ))
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown rowkey_was option `{other}`; expected `prefix`, `salt` or `until`"),
                    ))
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(was)
    }
}
