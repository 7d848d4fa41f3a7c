//! `#[derive(KeyComponent)]`: a newtype delegates to the type it wraps; a
//! fieldless enum is its discriminant. The same stages as `RowKey`, small
//! enough for a file each: `check` reads the item into a [`check::Shape`]
//! (reporting every rule it breaks together), `expand` writes the impls.

mod check;
mod expand;

use proc_macro2::TokenStream;

/// The derive: the impls, or the errors.
pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    match check::check(input) {
        Ok(shape) => expand::expand(&shape),
        Err(errors) => errors.write_errors(),
    }
}
