//! paces-cwhile (under construction).

pub mod ir;
