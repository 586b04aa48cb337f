//! `holon-tools keys rotate` and `serve --key-file`: the `requestState` keyring of a
//! store, rotated from the command line, and a key file refused with what is wrong.

use holon_mcp::{StoreUrl, Stores};

use crate::cli_support::holon_command;

#[test]
fn keys_rotate_makes_a_new_current_key_and_keeps_the_one_before_as_previous() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("state.db").display());
    let store: StoreUrl = url.parse().unwrap();
    let first = Stores::open(&store).unwrap().keyring().unwrap();
    let rotate = || {
        let output = holon_command(dir.path())
            .args(["keys", "rotate", "--store", &url])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    };
    let once = rotate();
    let after_once = Stores::open(&store).unwrap().keyring().unwrap();
    assert_eq!(
        after_once.previous_ids().collect::<Vec<_>>(),
        [first.current_id()]
    );
    assert!(
        once.contains(&format!(
            "current key {}, previous {}",
            after_once.current_id(),
            first.current_id()
        )),
        "{once}"
    );
    // Through the environment, as `serve` takes it.
    let output = holon_command(dir.path())
        .args(["keys", "rotate"])
        .env("HOLON_STORE_URL", &url)
        .output()
        .unwrap();
    assert!(output.status.success());
    let twice = Stores::open(&store).unwrap().keyring().unwrap();
    assert_eq!(
        twice.previous_ids().collect::<Vec<_>>(),
        [after_once.current_id()],
        "the first key is rotated out"
    );
}

#[test]
fn keys_rotate_on_memory_is_refused_and_says_which_stores_have_a_keyring() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon_command(dir.path())
        .args(["keys", "rotate", "--store", "memory"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no keyring to rotate"), "{stderr}");
    assert!(stderr.contains("`sqlite:` or `postgres://`"), "{stderr}");
}

#[test]
fn serve_refuses_a_key_file_that_holds_no_valid_key_and_says_how_to_write_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys");
    std::fs::write(&file, "# the keys\ncurrent c2hvcnQ=\n").unwrap();
    let output = holon_command(dir.path())
        .args(["serve", "--key-file"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--key-file"), "{stderr}");
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(stderr.contains("openssl rand -base64 32"), "{stderr}");
    let missing = holon_command(dir.path())
        .args(["serve"])
        .env("HOLON_KEY_FILE", dir.path().join("absent"))
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("cannot be read"), "{stderr}");
}

#[test]
fn keys_rotate_on_postgres_rotates_the_approval_key_too() {
    use holon_policy::OperatorKeySource as _;
    use holon_runtime::approvals::postgres::PostgresApprovalStore;

    let database = holon_test_support::postgres::TestPostgres::start();
    let dir = tempfile::tempdir().unwrap();
    let keys = PostgresApprovalStore::open(database.url()).unwrap().keys();
    let first = keys.load().unwrap();
    let output = holon_command(dir.path())
        .args(["keys", "rotate", "--store", database.url()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let after = keys.load().unwrap();
    assert_eq!(after.previous_id(), first.current_id());
    assert_ne!(after.current_id(), first.current_id());
    assert!(
        stdout.contains(&format!(
            "operator key of its approvals: current key {}, previous {}",
            after.current_id().unwrap(),
            first.current_id().unwrap()
        )),
        "{stdout}"
    );
}
