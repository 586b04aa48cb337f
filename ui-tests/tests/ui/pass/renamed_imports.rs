// Nothing is glob-imported: the attribute, the derives and the types are renamed, so the
// generated code must name everything through `::holon_core::...` itself.
use ::holon_core::prelude::Deserialize as De;
use ::holon_core::prelude::JsonSchema as Schema;
use ::holon_core::prelude::Serialize as Ser;
use ::holon_core::prelude::ToolArgs as Args;
use ::holon_core::prelude::ToolContext as Ctx;
use ::holon_core::prelude::ToolError as Failure;
use ::holon_core::prelude::holon_tool as tool_attr;

/// Arguments of Shout.
#[derive(Debug, De, Schema, Args)]
#[serde(crate = "::holon_core::__private::serde")]
#[schemars(crate = "::holon_core::__private::schemars")]
#[serde(deny_unknown_fields)]
pub struct ShoutArgs {
    /// The text to shout.
    pub text: String,
}

#[derive(Ser, Schema)]
#[serde(crate = "::holon_core::__private::serde")]
#[schemars(crate = "::holon_core::__private::schemars")]
pub struct Shouted {
    pub shouted: String,
}

// Shadow names the generated code might otherwise pick up.
#[allow(dead_code)]
struct Result;
#[allow(dead_code)]
struct Option;
#[allow(dead_code)]
mod core {}
#[allow(dead_code)]
mod holon_core {}

/// Shouts the text.
#[tool_attr(family = CoreAgent)]
fn shout(context: &Ctx, args: ShoutArgs) -> std::result::Result<Shouted, Failure> {
    let caller = context.caller().unwrap_or("nobody");
    std::result::Result::Ok(Shouted {
        shouted: format!("{caller}: {}", args.text.to_uppercase()),
    })
}

fn main() {
    // `Ctx` is `ToolContext` under another name: the handler still gets the context.
    let context = Ctx::new(::holon_core::FamilyPolicy::all()).with_caller("ada");
    let call = ::holon_core::ToolCall::new("Shout", serde_json::json!({ "text": "hi" }));
    let result = block_on(::holon_core::Registry::global().dispatch(&context, call));
    assert_eq!(result.structured.unwrap()["shouted"], "ada: HI");
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}
