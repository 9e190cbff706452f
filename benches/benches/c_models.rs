//! Measures reading the paper's C dialect (`paces_c::parse`, bytes per second) on synthetic
//! models of about 250 KB and 1 MB: reading is linear when the larger takes about four times
//! as long as the smaller.
//!
//! Each model has three globals and two threads started from `main`, each a long body of
//! assignments (`x = y + i;` and `y = (x * k) - z;`); the second waits for the first's last
//! write and ends in an assertion.
//!
//! It reads with the allocator the `paces` binary uses (mimalloc), so that it measures what a
//! user's `paces fmt` or `paces repair` does.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A model of the dialect of about `bytes` bytes.
fn model(bytes: usize) -> String {
    let mut first = String::new();
    let mut second = String::new();
    let mut i = 0;
    while first.len() + second.len() < bytes {
        first.push_str(&format!("    x = y + {i};\n"));
        second.push_str(&format!("    y = (x * {}) - z;\n", i % 13));
        i += 1;
    }
    format!(
        "int x = 0;\nint y = 0;\nint z = 0;\n\nvoid thread1() {{\n{first}    z = 1;\n}}\n\n\
         void thread2() {{\n    assume(z == 1);\n{second}    assert(y == 1);\n}}\n\n\
         void main() {{\n    thread1();\n    thread2();\n}}\n"
    )
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("c_models");
    group.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(3));
    for (name, bytes) in [("250KB", 250_000), ("1MB", 1_000_000)] {
        let source = model(bytes);
        group.throughput(Throughput::Bytes(source.len() as u64));
        group.bench_with_input(BenchmarkId::new("parse", name), &source, |b, s| {
            b.iter(|| paces_c::parse(black_box(s)).expect("valid model"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
