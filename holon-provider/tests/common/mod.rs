//! What the integration tests share.
#![allow(dead_code)]

pub mod tools;
