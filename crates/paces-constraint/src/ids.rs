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
