//! Rules of `#[rowkey_was(...)]`, the older layout of a key type.

use super::format::text_separator_of;
use super::salt::salt_spec;
use super::{error, Errors, Listed, StructFields};
use crate::attr::{KeyAttr, Until, WasAttr};
use crate::model::{Cut, Order, Role, SaltSpec, WasSpec};
use syn::spanned::Spanned;
use syn::DeriveInput;

/// Rules of `#[rowkey_was(...)]`: given once; it changes the prefix or the
/// salt (else it is the same layout); its salt follows the salt rules and is
/// not random (nor is the declared one: a row's key must be computable from
/// its fields in both layouts, for the backfill and for reads); `until`
/// names a key field stored plain or `rev` (its bytes then sort like it) or
/// `migration`.
pub(super) fn was_spec(
    input: &DeriveInput,
    attr: &KeyAttr,
    listed: &[Listed],
    fields: &StructFields,
    salt: Option<&SaltSpec>,
    errors: &mut Errors,
) -> Option<WasSpec> {
    let mut found = input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("rowkey_was"));
    let first = found.next()?;
    if let Some(again) = found.next() {
        errors.push(error(
            again.span(),
            "`#[rowkey_was(...)]` is given twice: a key type names one older layout (migrate in steps, one layout change at a time)",
        ));
    }
    let was = match first
        .parse_args_with(|stream: syn::parse::ParseStream| WasAttr::parse(first.span(), stream))
    {
        Ok(was) => was,
        Err(e) => {
            errors.push(e.into());
            return None;
        }
    };
    attr.then.as_ref()?;
    let old_salt = was
        .salt
        .as_ref()
        .and_then(|s| salt_spec(s, listed, fields, errors));
    let random = |s: Option<&SaltSpec>| matches!(s, Some(SaltSpec::Random { .. }));
    if random(salt) || random(old_salt.as_ref()) {
        errors.push(error(
            was.span,
            "a layout history needs keys computed from the fields in both layouts: `random % N` salts cannot be re-keyed row by row; use `hash(...) % N`",
        ));
    }
    let prefix = was
        .prefix
        .as_ref()
        .map(|(_, p)| p.clone())
        .unwrap_or_else(|| {
            attr.prefix
                .as_ref()
                .map(|(_, p)| p.clone())
                .unwrap_or_default()
        });
    let same_prefix = prefix
        == attr
            .prefix
            .as_ref()
            .map(|(_, p)| p.clone())
            .unwrap_or_default();
    if same_prefix && was.salt.is_some() == salt.is_some() && old_salt.as_ref() == salt {
        errors.push(error(
            was.span,
            "`#[rowkey_was(...)]` describes the declared layout itself: give the older layout's `salt` (or `salt = none`) or `prefix`",
        ));
    }
    // With `until = migration` no field tells a key's layout: the two
    // layouts' keys must never read as two different rows.
    let header = |prefix: &[u8], salt: Option<&SaltSpec>| {
        let salt = salt.map_or(0, |s| match text_separator_of(attr) {
            Some(()) => (s.buckets().saturating_sub(1).max(1)).ilog10() as usize + 2,
            None if s.buckets() > 256 => 2,
            None => 1,
        });
        // The prefix as written: escaped and terminated in binary keys,
        // followed by the separator in text keys.
        let written = match (prefix.is_empty(), text_separator_of(attr)) {
            (true, _) => 0,
            (false, Some(())) => prefix.len() + 1,
            (false, None) => prefix.len() + 1 + prefix.iter().filter(|&&b| b <= 1).count(),
        };
        written + salt
    };
    let declared_prefix = attr
        .prefix
        .as_ref()
        .map(|(_, p)| p.clone())
        .unwrap_or_default();
    // Written prefixes are prefix-free: two different, non-empty ones never
    // begin each other's keys.
    let disjoint = !prefix.is_empty() && !declared_prefix.is_empty() && prefix != declared_prefix;
    let same_length = header(&prefix, old_salt.as_ref()) == header(&declared_prefix, salt);
    if matches!(was.until, Some(Until::Migration)) && !disjoint && !same_length {
        errors.push(error(
            was.span,
            "with `until = migration` nothing tells which layout a key is in, so the two layouts must not read one key as two rows: keep the salt's width (N up to 256, or both above) and the prefix, or give the older layout a prefix of its own; or cut over on a field (`until = field >= value`)",
        ));
    }
    // With a cut-over on a field, a key that reads in both layouts is
    // decided by the field only when one reading is past it: an older key
    // before it that also reads as a declared row is taken for that row.
    // Refuse the layouts where that is common, not rare: an unsalted,
    // unprefixed older layout whose first component usually begins with a
    // byte the declared salt can be.
    if let (Some(Until::Field { .. }), Some(salt), Some(first)) = (&was.until, salt, listed.first())
    {
        let bare = prefix.is_empty() && old_salt.is_none() && declared_prefix.is_empty();
        let why = match first.role {
            Role::Bucket { .. } => Some("a bucket number begins with byte 0"),
            Role::Value(Order::Ascending) => {
                crate::types::small_first_byte(&first.field.ty, salt.buckets())
            }
            _ => None,
        };
        if let (true, Some(why)) = (bare && text_separator_of(attr).is_none(), why) {
            let n = salt.buckets();
            errors.push(error(
                was.span,
                format!(
                    "older keys would be taken for other rows: the older layout's keys begin with `{}`, and {why}, which is also a salt byte of the declared layout (0 to {}), so about 1 in {n} rows before the cut-over would read as another row of the declared layout and the two would overwrite each other; give the declared layout a prefix (`prefix = \"...\"`: an older key is then misread only if it begins with the prefix's bytes)",
                    first.field.name(),
                    n - 1,
                ),
            ));
        }
    }
    let cut = match was.until {
        None => {
            errors.push(error(
                was.span,
                "`#[rowkey_was(...)]` needs `until = field >= value` (rows at or past the value use the declared layout) or `until = migration`",
            ));
            return None;
        }
        Some(Until::Migration) => Cut::Migration,
        Some(Until::Field { field, value }) => {
            let at = listed
                .iter()
                .position(|l| l.field.ident == field && !matches!(l.role, Role::Bucket { .. }));
            let Some(at) = at else {
                errors.push(error(
                    field.span(),
                    format!(
                        "the cut-over field `{field}` is not in the key{}",
                        fields.suggest(&field)
                    ),
                ));
                return None;
            };
            if matches!(listed[at].role, Role::Reversed(_)) {
                errors.push(error(
                    field.span(),
                    format!("the cut-over field `{field}` is stored `reverse`d, so its bytes do not sort like it; cut over on a plain or `rev` field"),
                ));
                return None;
            }
            if at > 0 && matches!(listed[at - 1].role, Role::Bucket { .. }) {
                errors.push(error(
                    field.span(),
                    format!("the cut-over field `{field}` is bucketed; cut over on a plain or `rev` field"),
                ));
                return None;
            }
            Cut::Field {
                component: at,
                field: Box::new(listed[at].field.clone()),
                value: Box::new(value),
            }
        }
    };
    Some(WasSpec {
        prefix,
        salt: old_salt,
        cut,
    })
}
