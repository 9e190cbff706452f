//! The diagnostics of the pthread C frontend.

use paces_cwhile::{Diagnostic, Span};

/// An error with its code, message, span and label.
pub(crate) fn error(
    code: &'static str,
    message: impl Into<String>,
    span: Span,
    label: impl Into<String>,
) -> Diagnostic {
    Diagnostic { code, message: message.into(), primary: span, label: label.into(), notes: Vec::new() }
}
