//! Newtype ids shared by the whole workspace.

/// Defines a `u32` newtype id with a checked constructor and a short `Display`.
///
/// Other crates of the workspace use it for their own ids (threads, events, variables), so
/// every id behaves the same way.
#[macro_export]
macro_rules! define_id {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        #[repr(transparent)]
        pub struct $name(u32);

        impl $name {
            /// Creates the id from an index; `None` when the index does not fit in 32 bits.
            #[inline]
            pub fn new(index: usize) -> Option<Self> {
                u32::try_from(index).ok().map(Self)
            }

            /// Creates the id from a raw `u32`.
            #[inline]
            pub const fn from_u32(raw: u32) -> Self {
                Self(raw)
            }

            /// The id as an index into dense tables.
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// The raw `u32`.
            #[inline]
            pub const fn as_u32(self) -> u32 {
                self.0
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

define_id!(
    /// A program location: one statement of the program. Its human name (a Cwhile label)
    /// is kept by the [`Space`](crate::Space) that created it.
    Loc,
    "l"
);
define_id!(
    /// A block: a sequence of items written between one pair of braces.
    BlockId,
    "b"
);
define_id!(
    /// A node of a constraint [`Arena`](crate::Arena).
    NodeId,
    "n"
);
define_id!(
    /// A thread of the program: the number [`SpaceBuilder::thread`](crate::SpaceBuilder::thread)
    /// gives it (threads are numbered from 0 in the order declared), and the thread of a
    /// trace's events.
    ThreadId,
    "t"
);

impl ThreadId {
    /// The thread of a trace's final checks (an assertion evaluated once every thread has
    /// finished, `paces_trace::TraceBuilder::final_check`): not a thread of the program and
    /// never declared by a space. Its events have no scope and no location of the space;
    /// everything else treats it as a thread of its own.
    pub const FINAL: ThreadId = ThreadId::from_u32(u32::MAX);

    /// The thread's name in `names` (the program's thread names, indexed by thread id), or
    /// the id (`t0`) when `names` has none for it; `final check` for [`ThreadId::FINAL`].
    pub fn name_in(self, names: &[&str]) -> String {
        if self == ThreadId::FINAL {
            return "final check".to_owned();
        }
        names.get(self.index()).map_or_else(|| self.to_string(), |name| (*name).to_owned())
    }
}

/// Defines a crate's error type the way every PACES crate has it: an opaque struct holding a
/// kind (a `#[non_exhaustive]` enum the crate defines) and a message, with `kind()`, a human
/// `Display` and `std::error::Error`, plus a crate-private `new(kind, message)`.
#[macro_export]
macro_rules! define_error {
    ($(#[$meta:meta])* $name:ident, $kind:ty) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name {
            kind: $kind,
            message: ::std::string::String,
        }

        impl $name {
            #[allow(dead_code)] // Reason: a crate may build its errors another way too.
            pub(crate) fn new(kind: $kind, message: impl ::core::convert::Into<::std::string::String>) -> Self {
                $name { kind, message: message.into() }
            }

            /// The kind of error.
            pub fn kind(&self) -> &$kind {
                &self.kind
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(&self.message)
            }
        }

        impl ::std::error::Error for $name {}
    };
}

/// Defines the error type of a crate that composes others, the way [`define_error!`] does,
/// plus the component error that caused it as its `source()`: crate-private
/// `new(kind, message)` (no source) and `from_source(kind, message, source)`. `Display` prints
/// the message, then `: ` and the source's message, so `{e}` says everything; `PartialEq`
/// compares kinds and those texts.
#[macro_export]
macro_rules! define_sourced_error {
    ($(#[$meta:meta])* $name:ident, $kind:ty) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        pub struct $name {
            kind: $kind,
            message: ::std::string::String,
            source: ::core::option::Option<
                ::std::sync::Arc<dyn ::std::error::Error + ::core::marker::Send + ::core::marker::Sync + 'static>,
            >,
        }

        impl $name {
            #[allow(dead_code)] // Reason: a crate may build all its errors from sources.
            pub(crate) fn new(kind: $kind, message: impl ::core::convert::Into<::std::string::String>) -> Self {
                $name { kind, message: message.into(), source: ::core::option::Option::None }
            }

            #[allow(dead_code)] // Reason: a crate may have no component errors to wrap.
            pub(crate) fn from_source(
                kind: $kind,
                message: impl ::core::convert::Into<::std::string::String>,
                source: impl ::std::error::Error + ::core::marker::Send + ::core::marker::Sync + 'static,
            ) -> Self {
                let source = ::std::sync::Arc::new(source);
                $name { kind, message: message.into(), source: ::core::option::Option::Some(source) }
            }

            /// The kind of error.
            pub fn kind(&self) -> &$kind {
                &self.kind
            }
        }

        impl ::core::cmp::PartialEq for $name {
            fn eq(&self, other: &$name) -> bool {
                self.kind == other.kind && self.to_string() == other.to_string()
            }
        }

        impl ::core::cmp::Eq for $name {}

        impl ::core::fmt::Display for $name {
            /// The message, then the source's; a source that already begins with the
            /// message (a layer passing on a lower layer's error of the same kind) is printed
            /// alone, so no words appear twice.
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match &self.source {
                    ::core::option::Option::Some(source) => {
                        let source = source.to_string();
                        if source.starts_with(self.message.as_str()) {
                            f.write_str(&source)
                        } else {
                            write!(f, "{}: {source}", self.message)
                        }
                    }
                    ::core::option::Option::None => f.write_str(&self.message),
                }
            }
        }

        impl ::std::error::Error for $name {
            fn source(&self) -> ::core::option::Option<&(dyn ::std::error::Error + 'static)> {
                self.source.as_deref().map(|s| s as &(dyn ::std::error::Error + 'static))
            }
        }
    };
}

/// Implements serde's `Serialize` and `Deserialize` for ids made by [`define_id!`]: an id is
/// its raw `u32`. For crates with a `serde` feature; the calling crate depends on `serde`.
#[doc(hidden)]
#[macro_export]
macro_rules! serde_ids {
    ($($name:ty),* $(,)?) => {
        $(
            impl ::serde::Serialize for $name {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    serializer.serialize_u32(self.as_u32())
                }
            }

            impl<'de> ::serde::Deserialize<'de> for $name {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                    <u32 as ::serde::Deserialize>::deserialize(deserializer).map(<$name>::from_u32)
                }
            }
        )*
    };
}
