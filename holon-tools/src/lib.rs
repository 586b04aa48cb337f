//! Built-in tools.
