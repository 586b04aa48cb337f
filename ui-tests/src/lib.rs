//! trybuild cases live in `tests/ui/`.
