//! The rules of a policy and how a call is matched against them.
//!
//! A rule names what it applies to (a tool, an annotation, a family, or every call)
//! and, optionally, who (a session, a principal, a scope). Every field a rule sets
//! must match. Of the rules that match a call, the most specific decides:
//!
//! 1. by what it names: a `tool` before an `annotation` before a `family` before a
//!    rule that names none of them;
//! 2. then by whom it names: a `session` before a `principal` before a `scope`
//!    before nobody;
//! 3. then, between equally specific rules, the stricter verdict (`deny`, then
//!    `ask`, then `allow`).
//!
//! When no rule matches, the policy's `default` decides (`allow` unless set).

use std::fmt;

use serde::{Deserialize, Serialize};

use holon_core::{ToolAnnotations, ToolCapabilityFamily};

/// What a rule answers.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Run the call.
    #[default]
    Allow,
    /// Store the call and ask the operator.
    Ask,
    /// Refuse the call.
    Deny,
}

impl Verdict {
    /// The snake_case wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A behaviour a tool declares in its annotations, as a rule matches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnnotationMatch {
    /// The tool declares `destructive`.
    Destructive,
    /// The tool declares `open_world`.
    OpenWorld,
    /// The tool does not declare `read_only`.
    NotReadOnly,
}

impl AnnotationMatch {
    /// Whether a tool with `annotations` has this behaviour. Only what the tool
    /// declares counts: an annotation it left out is not assumed.
    pub fn matches(self, annotations: &ToolAnnotations) -> bool {
        match self {
            Self::Destructive => annotations.destructive == Some(true),
            Self::OpenWorld => annotations.open_world == Some(true),
            Self::NotReadOnly => annotations.read_only != Some(true),
        }
    }

    /// The snake_case wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Destructive => "destructive",
            Self::OpenWorld => "open_world",
            Self::NotReadOnly => "not_read_only",
        }
    }
}

/// One rule of an [`ApprovalPolicy`]. Every field that is set must match the call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The tool's canonical name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// A behaviour the tool declares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation: Option<AnnotationMatch>,
    /// The tool's capability family.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<ToolCapabilityFamily>,
    /// The session the call came in (an MCP session id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The principal of the call (see [`CallFacts::principal`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// A scope granted to the call's authenticated principal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// What the rule answers.
    pub decision: Verdict,
    /// Why, in the operator's words; shown with an `ask` and a `deny`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who granted it, for a standing grant ("always") of an operator: the
    /// `decided_by` of the signed decision that made it. The audit record of a call
    /// the rule allows names them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted_by: Option<String>,
}

impl Rule {
    /// A rule answering `decision` to every call; narrow it with the `for_*` methods.
    pub fn new(decision: Verdict) -> Self {
        Self {
            tool: None,
            annotation: None,
            family: None,
            session: None,
            principal: None,
            scope: None,
            decision,
            reason: None,
            granted_by: None,
        }
    }

    /// Narrows the rule to the tool `name` (canonical).
    pub fn for_tool(mut self, name: impl Into<String>) -> Self {
        self.tool = Some(name.into());
        self
    }

    /// Narrows the rule to tools declaring `annotation`.
    pub fn for_annotation(mut self, annotation: AnnotationMatch) -> Self {
        self.annotation = Some(annotation);
        self
    }

    /// Narrows the rule to tools of `family`.
    pub fn for_family(mut self, family: ToolCapabilityFamily) -> Self {
        self.family = Some(family);
        self
    }

    /// Narrows the rule to calls of the session `id`.
    pub fn for_session(mut self, id: impl Into<String>) -> Self {
        self.session = Some(id.into());
        self
    }

    /// Narrows the rule to calls of the principal `id`.
    pub fn for_principal(mut self, id: impl Into<String>) -> Self {
        self.principal = Some(id.into());
        self
    }

    /// Narrows the rule to principals granted `scope`.
    pub fn for_scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// Sets the reason shown with the rule's verdict.
    pub fn because(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// Names who granted the rule (see [`Rule::granted_by`]).
    pub fn granted_by(mut self, who: impl Into<String>) -> Self {
        self.granted_by = Some(who.into());
        self
    }

    /// Whether every field the rule sets matches `call`.
    pub fn matches(&self, call: &CallFacts<'_>) -> bool {
        self.tool.as_deref().is_none_or(|tool| tool == call.tool)
            && self
                .annotation
                .is_none_or(|annotation| annotation.matches(call.annotations))
            && self.family.is_none_or(|family| family == call.family)
            && self
                .session
                .as_deref()
                .is_none_or(|session| call.session == Some(session))
            && self
                .principal
                .as_deref()
                .is_none_or(|principal| principal == call.principal)
            && self
                .scope
                .as_deref()
                .is_none_or(|scope| call.scopes.contains(&scope))
    }

    /// How specific the rule is, the larger the more (see the module's order).
    fn specificity(&self) -> (u8, u8, Verdict) {
        let what = if self.tool.is_some() {
            3
        } else if self.annotation.is_some() {
            2
        } else {
            u8::from(self.family.is_some())
        };
        let who = if self.session.is_some() {
            3
        } else if self.principal.is_some() {
            2
        } else {
            u8::from(self.scope.is_some())
        };
        (what, who, self.decision)
    }

    /// The rule as one line, for the operator: `ask for tool ExecCommand`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(tool) = &self.tool {
            parts.push(format!("tool {tool}"));
        }
        if let Some(annotation) = self.annotation {
            parts.push(format!("annotation {}", annotation.as_str()));
        }
        if let Some(family) = self.family {
            parts.push(format!("family {family}"));
        }
        if let Some(session) = &self.session {
            parts.push(format!("session {session}"));
        }
        if let Some(principal) = &self.principal {
            parts.push(format!("principal {principal}"));
        }
        if let Some(scope) = &self.scope {
            parts.push(format!("scope {scope}"));
        }
        if parts.is_empty() {
            parts.push("every call".to_string());
        }
        format!("{} for {}", self.decision, parts.join(", "))
    }
}

/// What a policy knows of a call when it decides.
#[derive(Debug, Clone, Copy)]
pub struct CallFacts<'a> {
    /// The tool's canonical name.
    pub tool: &'a str,
    /// Its family.
    pub family: ToolCapabilityFamily,
    /// Its annotations.
    pub annotations: &'a ToolAnnotations,
    /// Who the call is for: the id of the [`Principal`](holon_core::Principal) the host
    /// authenticated, else the caller's id (an agent), else empty.
    pub principal: &'a str,
    /// The scopes granted to the authenticated principal.
    pub scopes: &'a [&'a str],
    /// The session id, where the transport has sessions.
    pub session: Option<&'a str>,
}

/// The answer of a policy to one call, and the rule that gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    /// The answer.
    pub verdict: Verdict,
    /// The rule that decided; `None` when the policy's default did.
    pub rule: Option<Rule>,
}

impl Evaluation {
    /// Why the call got its verdict, for the operator and the model.
    pub fn why(&self) -> String {
        match &self.rule {
            Some(rule) => match &rule.reason {
                Some(reason) => format!("{reason} (rule: {})", rule.describe()),
                None => format!("rule: {}", rule.describe()),
            },
            None => format!("the policy's default is {}", self.verdict),
        }
    }
}

/// The rules a host sets. Deserializes from the policy file's form:
///
/// ```toml
/// default = "allow"
///
/// [[rule]]
/// family = "authority_expanding"
/// decision = "ask"
/// reason = "widens what the agent can reach"
///
/// [[rule]]
/// tool = "ExecCommand"
/// principal = "ci-bot"
/// decision = "deny"
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalPolicy {
    /// The answer when no rule matches.
    #[serde(default = "allow")]
    pub default: Verdict,
    /// The rules, in any order: the most specific match decides.
    #[serde(default, rename = "rule", skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Rule>,
}

fn allow() -> Verdict {
    Verdict::Allow
}

impl ApprovalPolicy {
    /// A policy answering `default` to every call, with no rule yet.
    pub fn new(default: Verdict) -> Self {
        Self {
            default,
            rules: Vec::new(),
        }
    }

    /// Adds `rule`.
    pub fn with_rule(mut self, rule: Rule) -> Self {
        self.rules.push(rule);
        self
    }

    /// The answer to `call`: the most specific matching rule's, else the default.
    pub fn evaluate(&self, call: &CallFacts<'_>) -> Evaluation {
        self.evaluate_with(call, &[])
    }

    /// [`ApprovalPolicy::evaluate`] with `more` rules (the operator's standing grants)
    /// taken as if they were the policy's own.
    pub fn evaluate_with(&self, call: &CallFacts<'_>, more: &[Rule]) -> Evaluation {
        let best = self
            .rules
            .iter()
            .chain(more)
            .filter(|rule| rule.matches(call))
            .max_by_key(|rule| rule.specificity());
        match best {
            Some(rule) => Evaluation {
                verdict: rule.decision,
                rule: Some(rule.clone()),
            },
            None => Evaluation {
                verdict: self.default,
                rule: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ToolCapabilityFamily::*;

    fn facts<'a>(
        tool: &'a str,
        family: ToolCapabilityFamily,
        annotations: &'a ToolAnnotations,
        principal: &'a str,
    ) -> CallFacts<'a> {
        CallFacts {
            tool,
            family,
            annotations,
            principal,
            scopes: &[],
            session: None,
        }
    }

    #[test]
    fn the_most_specific_rule_wins_whatever_the_order() {
        let destructive = ToolAnnotations {
            destructive: Some(true),
            ..ToolAnnotations::default()
        };
        let rules = [
            Rule::new(Verdict::Deny).for_family(LocalEnvironment),
            Rule::new(Verdict::Ask).for_annotation(AnnotationMatch::Destructive),
            Rule::new(Verdict::Allow).for_tool("ExecCommand"),
            Rule::new(Verdict::Deny)
                .for_tool("ExecCommand")
                .for_principal("mallory"),
        ];
        for rotation in 0..rules.len() {
            let mut policy = ApprovalPolicy::new(Verdict::Allow);
            let mut order = rules.to_vec();
            order.rotate_left(rotation);
            policy.rules = order;
            let verdict = |tool, principal| {
                policy
                    .evaluate(&facts(tool, LocalEnvironment, &destructive, principal))
                    .verdict
            };
            assert_eq!(verdict("ExecCommand", "ada"), Verdict::Allow);
            assert_eq!(verdict("ExecCommand", "mallory"), Verdict::Deny);
            assert_eq!(verdict("ApplyPatch", "ada"), Verdict::Ask);
            let plain = ToolAnnotations::default();
            let evaluation = policy.evaluate(&facts("ViewImage", LocalEnvironment, &plain, "ada"));
            assert_eq!(evaluation.verdict, Verdict::Deny);
            assert!(evaluation.why().contains("family local_environment"));
        }
    }

    #[test]
    fn equally_specific_rules_take_the_stricter_verdict_and_the_default_decides_the_rest() {
        let plain = ToolAnnotations::default();
        let policy = ApprovalPolicy::new(Verdict::Ask)
            .with_rule(Rule::new(Verdict::Allow).for_family(Web))
            .with_rule(Rule::new(Verdict::Deny).for_family(Web));
        assert_eq!(
            policy.evaluate(&facts("WebFetch", Web, &plain, "")).verdict,
            Verdict::Deny
        );
        let other = policy.evaluate(&facts("Sleep", CoreAgent, &plain, ""));
        assert_eq!((other.verdict, other.rule), (Verdict::Ask, None));
    }

    #[test]
    fn not_read_only_matches_tools_that_do_not_declare_read_only() {
        let read_only = ToolAnnotations {
            read_only: Some(true),
            ..ToolAnnotations::default()
        };
        let rule = Rule::new(Verdict::Ask).for_annotation(AnnotationMatch::NotReadOnly);
        assert!(!rule.matches(&facts("Get", CoreAgent, &read_only, "")));
        assert!(rule.matches(&facts("Set", CoreAgent, &ToolAnnotations::default(), "")));
    }
}
