//! paces-cwhile (under construction).
