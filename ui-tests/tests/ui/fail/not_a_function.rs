use holon_core::prelude::*;

/// Not a function.
#[holon_tool(family = CoreAgent)]
pub struct Echo {
    pub text: String,
}

#[holon_tool(family = CoreAgent)]
impl Echo {
    /// Sends the text back.
    pub fn echo(&self) -> String {
        self.text.clone()
    }
}

pub trait Echoer {
    /// A method without a body.
    #[holon_tool(family = CoreAgent)]
    fn echo(&self, text: String) -> String;
}

fn main() {}
