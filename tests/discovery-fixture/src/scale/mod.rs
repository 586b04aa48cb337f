//! Discovery at scale: the measurements of scripts/discovery-scale, which generates
//! the catalog's tools many times over (10,000 by default), a crate of 200 per
//! generated module (`holon_scale_00`, ...), and a binary that links them all and
//! calls [`run`]. One run measures the first tenth of the crates (1,000 tools) and
//! then all of them, and prints each figure at both sizes with their ratio, so that
//! every figure shows how it grows: the registry's and the search index's build time
//! and heap (kept, and peak while building), search latency p50/p99 over the query
//! set, export time and size per provider (full and deferred) against a plain
//! `serde_json` serialization of the same definitions, and the MCP `tools/list`
//! round trip (every tool, and only the meta-tools).

mod measure;

use measure::{Figures, measure, warm_up};
/// The allocator the benchmark's binary installs as its global allocator, for the
/// memory figures (its `realloc` always moves: the times are a little above the
/// system allocator's, for both sizes alike).
pub use peak_alloc::PeakAlloc;

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn kib(bytes: usize) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

fn ms(seconds: f64) -> String {
    format!("{:.3} ms", seconds * 1000.0)
}

/// One line of the table: a measure at both sizes and large / small.
fn row(label: &str, small: f64, large: f64, show: impl Fn(f64) -> String) {
    println!(
        "| {label} | {} | {} | {:.2}x |",
        show(small),
        show(large),
        large / small
    );
}

fn print(small: &Figures, large: &Figures) {
    println!(
        "Build and export times: the median of 5 runs; search: {} queries, 5 rounds; heap: the last build's.",
        crate::queries().len()
    );
    println!();
    println!(
        "| measure | {} tools | {} tools | ratio |",
        small.tools, large.tools
    );
    println!("| --- | --- | --- | --- |");
    let bytes = |b: f64| mib(b as usize);
    let secs = |s: f64| ms(s);
    row(
        "registry build",
        small.registry.seconds,
        large.registry.seconds,
        secs,
    );
    row(
        "registry heap kept",
        small.registry.kept as f64,
        large.registry.kept as f64,
        bytes,
    );
    row(
        "registry heap peak while building",
        small.registry.peak as f64,
        large.registry.peak as f64,
        bytes,
    );
    row(
        "search index build",
        small.index.seconds,
        large.index.seconds,
        secs,
    );
    row(
        "search index heap kept",
        small.index.kept as f64,
        large.index.kept as f64,
        bytes,
    );
    row("search p50", small.search.p50, large.search.p50, secs);
    row("search p99", small.search.p99, large.search.p99, secs);
    row("search max", small.search.max, large.search.max, secs);
    row(
        "plain serde_json of the definitions: time",
        small.plain.seconds,
        large.plain.seconds,
        secs,
    );
    row(
        "plain serde_json of the definitions: size",
        small.plain.bytes as f64,
        large.plain.bytes as f64,
        |b| kib(b as usize),
    );
    for (s, l) in small.exports.iter().zip(&large.exports) {
        let name = s.provider.as_str();
        row(
            &format!("export {name}, full: time"),
            s.full.seconds,
            l.full.seconds,
            secs,
        );
        row(
            &format!("export {name}, full: size"),
            s.full.bytes as f64,
            l.full.bytes as f64,
            |b| kib(b as usize),
        );
        match (&s.deferred, &l.deferred) {
            (Ok(sd), Ok(ld)) => {
                row(
                    &format!("export {name}, deferred: time"),
                    sd.seconds,
                    ld.seconds,
                    secs,
                );
                row(
                    &format!("export {name}, deferred: size"),
                    sd.bytes as f64,
                    ld.bytes as f64,
                    |b| kib(b as usize),
                );
            }
            (Err(error), _) | (_, Err(error)) => {
                println!("| export {name}, deferred | {error} | | |");
            }
        }
    }
    row(
        "MCP tools/list, every tool: first (builds the list)",
        small.list_all.first,
        large.list_all.first,
        secs,
    );
    row(
        "MCP tools/list, every tool: median of the next 5",
        small.list_all.median,
        large.list_all.median,
        secs,
    );
    row(
        "MCP tools/list, every tool: size",
        small.list_all.bytes as f64,
        large.list_all.bytes as f64,
        |b| kib(b as usize),
    );
    row(
        "MCP tools/list, meta-tools only: median of 5",
        small.list_meta.median,
        large.list_meta.median,
        secs,
    );
    row(
        "MCP tools/list, meta-tools only: size",
        small.list_meta.bytes as f64,
        large.list_meta.bytes as f64,
        |b| kib(b as usize),
    );

    println!();
    println!(
        "Against a plain serde_json serialization of the same definitions (name, description, input schema), at each size:"
    );
    println!(
        "| measure | {} tools | {} tools |",
        small.tools, large.tools
    );
    println!("| --- | --- | --- |");
    for (s, l) in small.exports.iter().zip(&large.exports) {
        println!(
            "| export {} full / plain: time, size | {:.2}x, {:.2}x | {:.2}x, {:.2}x |",
            s.provider.as_str(),
            s.full.seconds / small.plain.seconds,
            s.full.bytes as f64 / small.plain.bytes as f64,
            l.full.seconds / large.plain.seconds,
            l.full.bytes as f64 / large.plain.bytes as f64,
        );
    }
    println!(
        "| MCP tools/list (warm) / plain: time, size | {:.2}x, {:.2}x | {:.2}x, {:.2}x |",
        small.list_all.median / small.plain.seconds,
        small.list_all.bytes as f64 / small.plain.bytes as f64,
        large.list_all.median / large.plain.seconds,
        large.list_all.bytes as f64 / large.plain.bytes as f64,
    );
    println!(
        "| MCP tools/list, meta-tools only / every tool: size | {:.5}x | {:.5}x |",
        small.list_meta.bytes as f64 / small.list_all.bytes as f64,
        large.list_meta.bytes as f64 / large.list_all.bytes as f64,
    );
}

/// Measures the tools of the first tenth of the `crates` generated crates (at least
/// one) and then of all of them, and prints the figures as Markdown tables. `heap`
/// is the program's global allocator.
///
/// # Panics
/// When the linked tools are not those of `crates` generated crates (a registry
/// problem, or a crate that contributed no tool).
pub fn run(heap: &PeakAlloc, crates: usize) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let baseline = (crates / 10).max(1);
    warm_up(baseline);
    runtime.block_on(async {
        let small = measure(heap, baseline).await;
        let large = measure(heap, crates).await;
        print(&small, &large);
    });
}
