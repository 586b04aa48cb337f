//! The downstream crate's tools pass every check a host would run at start.

use holon_downstream_tools as _;

#[test]
fn the_tools_of_this_crate_are_valid() {
    holon_export::testing::check_registry();
}
