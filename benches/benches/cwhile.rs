//! Measures the Cwhile frontend (bytes per second): parsing and checking the two largest held-in benchmarks and a 1 MB synthetic program, printing them, and building their space.
//!
//! The held-in programs are the paper's benchmarks of `examples/` (through `paces-heldin`); the
//! synthetic program is one thread of 25,000 labelled assignments over three globals.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn inputs() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        ["rtl8169", "usb-serial"].iter().map(|n| (format!("{n}.cw"), paces_heldin::source(n).to_owned())).collect();
    let mut big = String::from("var x, y, z;\nthread t {\n");
    let mut i = 0;
    while big.len() < 1_000_000 {
        big.push_str(&format!("  L{i}: x := (y + {i}) * z - x;\n"));
        i += 1;
    }
    big.push_str("}\n");
    out.push(("synthetic-1MB".to_owned(), big));
    out
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("cwhile");
    group.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    for (name, source) in inputs() {
        group.throughput(Throughput::Bytes(source.len() as u64));
        group.bench_with_input(BenchmarkId::new("parse", &name), &source, |b, s| {
            b.iter(|| paces_cwhile::parse(black_box(s)).expect("valid program"))
        });
        let program = paces_cwhile::parse(&source).expect("valid program");
        group.bench_with_input(BenchmarkId::new("print", &name), &program, |b, p| {
            b.iter(|| paces_cwhile::Printer::new(black_box(p)).print())
        });
        if name != "synthetic-1MB" {
            // One block of 25,000 items has 3 * 10^8 pairs: the space is for real programs.
            group.bench_with_input(BenchmarkId::new("space", &name), &program, |b, p| b.iter(|| black_box(p).space()));
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
