//! The error type of `paces-constraint`.

/// What went wrong; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A location name was registered twice.
    DuplicateLoc,
    /// A location is unknown to the space.
    UnknownLoc,
    /// A location was added as an item of two blocks, or twice to one block.
    DuplicateItem,
    /// A block id is unknown to the space.
    UnknownBlock,
    /// Two locations that were expected to be items of one block are not (one of them may be
    /// no item at all).
    NotInOneBlock,
    /// A fixed pair names one item twice, or puts the later item of the original order first.
    BadFixedPair,
    /// A block order is not a permutation of the block's items, or the number of block orders
    /// is not the number of blocks.
    NotAPermutation,
    /// A block order puts a fixed pair out of its original order.
    FixedPairViolated,
    /// An atomic section is malformed (out of order, overlapping, or holding alone an item that
    /// already runs as one step).
    BadSection,
    /// An atomic section was placed in a block closed to atomic sections.
    BlockClosed,
    /// A transformation does not apply (the swapped items are not adjacent, must keep their
    /// order, or lie in an added atomic section).
    BadTransformation,
    /// More ids than fit in 32 bits, or more candidates than the caller's limit.
    TooMany,
    /// A [`Formula`](crate::Formula) to import names a child that is not an earlier node, or
    /// holds no node.
    BadFormula,
}

crate::define_error!(
    /// The error of every fallible operation of this crate.
    Error,
    ErrorKind
);
