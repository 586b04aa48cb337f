//! A handler that takes the host's state from the context, returns typed errors of its
//! own, and what a caller gets back for a bad input.
//!
//! ```sh
//! cargo run --example state_and_errors
//! ```

use std::collections::HashMap;
use std::sync::Mutex;

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall, ToolErrorKind};

/// The host's state: the books of a library and who has each. The host puts it into the
/// context once (`ToolContext::with_state`); every call of a tool that takes `&Library`
/// gets it.
pub struct Library {
    /// Title of each book, by ISBN.
    titles: HashMap<String, String>,
    /// Who has each lent book, by ISBN.
    loans: Mutex<HashMap<String, String>>,
}

/// Arguments of LendBook.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct LendBookArgs {
    /// The book's ISBN, digits only.
    #[schemars(length(min = 10, max = 13))]
    pub isbn: String,
    /// Who borrows it.
    #[schemars(length(min = 1))]
    pub borrower: String,
}

/// A loan made.
#[derive(Serialize, JsonSchema)]
pub struct Loan {
    /// The book's title.
    pub title: String,
    /// Who has it now.
    pub borrower: String,
}

/// Why a loan failed: the tool's own errors, each with a stable kind.
#[derive(Debug)]
pub enum LendError {
    /// The library has no book with this ISBN.
    NotFound {
        /// The ISBN asked for.
        isbn: String,
    },
    /// Someone has the book already.
    AlreadyLent {
        /// Who has it.
        borrower: String,
    },
}

/// The error a model sees: a kind it can branch on, the field at fault, how to recover.
impl From<LendError> for ToolError {
    fn from(error: LendError) -> Self {
        match error {
            LendError::NotFound { isbn } => ToolError::new(
                ToolErrorKind::new("book_not_found"),
                format!("the library has no book with ISBN {isbn}"),
            )
            .with_field("isbn")
            .with_hint("check the ISBN's digits; the catalogue lists every book"),
            LendError::AlreadyLent { borrower } => ToolError::new(
                ToolErrorKind::new("book_already_lent"),
                format!("{borrower} has this book"),
            )
            .with_details(serde_json::json!({ "borrower": borrower }))
            .with_hint("try again once it is returned")
            .retryable(),
        }
    }
}

/// Lend a book of the library to a borrower.
#[holon_tool(family = CoreAgent)]
fn lend_book(library: &Library, args: LendBookArgs) -> Result<Loan, LendError> {
    let Some(title) = library.titles.get(&args.isbn) else {
        return Err(LendError::NotFound { isbn: args.isbn });
    };
    // A poisoned lock only means another call panicked; the map itself is intact.
    let mut loans = library.loans.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(borrower) = loans.get(&args.isbn) {
        return Err(LendError::AlreadyLent {
            borrower: borrower.clone(),
        });
    }
    loans.insert(args.isbn, args.borrower.clone());
    Ok(Loan {
        title: title.clone(),
        borrower: args.borrower,
    })
}

/// Dispatches `input` (JSON text, as a provider sends it) and prints the outcome; returns
/// whether it was the one expected (`None`: a success).
async fn show(
    registry: &Registry,
    context: &ToolContext,
    input: &str,
    expected: Option<&str>,
) -> bool {
    let result = registry.dispatch_text(context, "LendBook", input).await;
    println!("call: {input}");
    match &result.error {
        None => println!("  ok: {}", result.receipt()),
        Some(error) => {
            println!("  kind: {}", error.kind);
            println!("  message: {}", error.message);
            if let Some(field) = &error.field {
                println!("  field: {field}");
            }
            if let Some(hint) = &error.recovery_hint {
                println!("  hint: {hint}");
            }
        }
    }
    println!();
    result.error_kind() == expected
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let registry = match Registry::try_global() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("{error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let library = Library {
        titles: HashMap::from([("9780140449136".to_string(), "The Odyssey".to_string())]),
        loans: Mutex::default(),
    };
    let context = ToolContext::new(FamilyPolicy::all()).with_state(library);
    let lend = r#"{"isbn": "9780140449136", "borrower": "Ada"}"#;
    let cases = [
        (lend, None),
        // The handler's own errors.
        (lend, Some("book_already_lent")),
        (
            r#"{"isbn": "9780000000000", "borrower": "Ada"}"#,
            Some("book_not_found"),
        ),
        // Bad inputs never reach the handler: each gets a typed error with its field.
        (
            r#"{"isbn": 9780140449136, "borrower": "Ada"}"#,
            Some("invalid_tool_input"),
        ),
        (
            r#"{"isbm": "9780140449136", "borrower": "Ada"}"#,
            Some("unknown_field"),
        ),
        (
            r#"{"isbn": "9780140449136", "borrower": "Ada", "borrower": "Eve"}"#,
            Some("duplicate_field"),
        ),
        (
            r#"{"isbn": "978", "borrower": "Ada"}"#,
            Some("invalid_tool_input"),
        ),
    ];
    let mut all_as_expected = true;
    for (input, expected) in cases {
        all_as_expected &= show(registry, &context, input, expected).await;
    }
    // A host that forgot the state: the handler does not run.
    println!("without the Library in the context:");
    let bare = ToolContext::new(FamilyPolicy::all());
    all_as_expected &= show(registry, &bare, lend, Some("missing_context")).await;

    let call = ToolCall::new("LendBook", serde_json::json!({ "isbn": "x" }));
    let parsed = registry.dispatch(&context, call).await;
    println!(
        "a parsed input with two problems lists both:\n{}",
        parsed.receipt()
    );

    if all_as_expected {
        std::process::ExitCode::SUCCESS
    } else {
        eprintln!("an outcome differed from the one expected");
        std::process::ExitCode::FAILURE
    }
}
