//! Shared helpers for the PACES benchmarks (data loading, synthetic inputs).
