//! PACES umbrella (under construction).
