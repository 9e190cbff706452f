//! paces-generalize (under construction).
