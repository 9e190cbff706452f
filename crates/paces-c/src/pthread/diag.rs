//! The diagnostics of the pthread C frontend: the dialect's error constructor, shared.

pub(crate) use crate::read::error;
