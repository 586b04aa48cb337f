use holon_core::prelude::*;

#[derive(Serialize, JsonSchema)]
pub struct Guess {
    pub guess: String,
}

/// Guesses the next step. Its shape may still change.
#[holon_tool(family = AgentCreation, stability = experimental)]
fn guess_next_step() -> Result<Guess, ToolError> {
    Ok(Guess {
        guess: String::new(),
    })
}

/// Kept for old prompts.
#[holon_tool(family = AgentCreation, stability = deprecated)]
fn old_guess() -> Result<Guess, ToolError> {
    Ok(Guess {
        guess: String::new(),
    })
}

/// The default, spelt out.
#[holon_tool(family = AgentCreation, stability = stable)]
fn stable_guess() -> Result<Guess, ToolError> {
    Ok(Guess {
        guess: String::new(),
    })
}

fn main() {
    use holon_core::Stability;
    let registry = holon_core::Registry::global();
    let stability = |name: &str| registry.get(name).expect("registered").stability;
    assert_eq!(stability("GuessNextStep"), Stability::Experimental);
    assert_eq!(stability("OldGuess"), Stability::Deprecated);
    assert_eq!(stability("StableGuess"), Stability::Stable);
}
