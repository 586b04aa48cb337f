//! A facade over `holon-core`: its users depend on this crate only (and `serde`), and
//! point the macros at the re-export with `crate = holon_facade::core`.

pub use holon_core as core;
