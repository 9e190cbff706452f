//! paces-explore (under construction).
