//! A downstream crate that declares its own tools. It depends on `holon-core` only;
//! the tools reach the global registry of any program that links this crate.
