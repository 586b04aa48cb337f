//! The tests that run over every linked tool, built-in and downstream, in one binary:
//! one link of holon-tools instead of one per file, which keeps builds small.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod combined;
mod fuzz_replay;
mod result_schemas;
mod schema_agreement;
