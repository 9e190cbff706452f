//! paces-solver (under construction).
