//! Errors collected while a macro input is read, so that all of them are reported at
//! once rather than only the first.

use proc_macro2::Span;
use quote::ToTokens;

/// Collects errors so that all of them can be reported at once.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(existing) => existing.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub(crate) fn at(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub(crate) fn at_span(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    pub(crate) fn into_result(self) -> Result<(), syn::Error> {
        match self.0 {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}
