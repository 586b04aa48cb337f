//! A checker for Lark grammar text: it tokenizes and parses every statement, and checks
//! that every referenced rule or terminal is defined (or imported or declared) and that
//! a `start` rule exists. It does not run the grammar.

use std::collections::BTreeSet;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Literal,
    Number,
    Colon,
    Pipe,
    Open(char),
    Close(char),
    Quantifier,
    Tilde,
    DotDot,
    Dot,
    Comma,
    Arrow,
    Directive(String),
    Newline,
}

struct Lexed {
    token: Token,
    line: usize,
}

fn lex(text: &str) -> Result<Vec<Lexed>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        let token = match c {
            '\n' => {
                line += 1;
                i += 1;
                Token::Newline
            }
            ' ' | '\t' | '\r' => {
                i += 1;
                continue;
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '"' | '/' => {
                let close = c;
                i += 1;
                loop {
                    match chars.get(i) {
                        None | Some('\n') => {
                            return Err(format!(
                                "line {start_line}: unterminated {}",
                                if close == '"' {
                                    "string"
                                } else {
                                    "regular expression"
                                }
                            ));
                        }
                        Some('\\') => i += 2,
                        Some(ch) if *ch == close => {
                            i += 1;
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
                // Flags such as "..."i or /.../imsx.
                while chars.get(i).is_some_and(|ch| ch.is_ascii_lowercase()) {
                    i += 1;
                }
                Token::Literal
            }
            ':' => {
                i += 1;
                Token::Colon
            }
            '|' => {
                i += 1;
                Token::Pipe
            }
            '(' | '[' => {
                i += 1;
                Token::Open(c)
            }
            ')' | ']' => {
                i += 1;
                Token::Close(c)
            }
            '?' | '!'
                if tokens
                    .last()
                    .is_none_or(|last: &Lexed| last.token == Token::Newline)
                    && chars.get(i + 1).is_some_and(|ch| ch.is_ascii_alphabetic()) =>
            {
                // `?rule:` (inline) and `!rule:` (keep tokens) at the start of a line.
                let start = i;
                i += 1;
                while chars
                    .get(i)
                    .is_some_and(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
                {
                    i += 1;
                }
                Token::Name(chars[start..i].iter().collect())
            }
            '?' | '*' | '+' => {
                i += 1;
                Token::Quantifier
            }
            '~' => {
                i += 1;
                Token::Tilde
            }
            ',' => {
                i += 1;
                Token::Comma
            }
            '.' if chars.get(i + 1) == Some(&'.') => {
                i += 2;
                Token::DotDot
            }
            '.' => {
                i += 1;
                Token::Dot
            }
            '-' if chars.get(i + 1) == Some(&'>') => {
                i += 2;
                Token::Arrow
            }
            '-' if chars.get(i + 1).is_some_and(char::is_ascii_digit) => {
                i += 1;
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
                Token::Number
            }
            '%' => {
                i += 1;
                let start = i;
                while chars.get(i).is_some_and(|ch| ch.is_ascii_alphabetic()) {
                    i += 1;
                }
                Token::Directive(chars[start..i].iter().collect())
            }
            c if c.is_ascii_digit() => {
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
                Token::Number
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                i += 1;
                while chars
                    .get(i)
                    .is_some_and(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
                {
                    i += 1;
                }
                Token::Name(chars[start..i].iter().collect())
            }
            other => return Err(format!("line {line}: unexpected character `{other}`")),
        };
        tokens.push(Lexed {
            token,
            line: start_line,
        });
    }
    Ok(tokens)
}

/// One logical statement: its tokens, with continuation lines (`| ...`) joined.
fn statements(tokens: Vec<Lexed>) -> Vec<Vec<Lexed>> {
    let mut statements: Vec<Vec<Lexed>> = Vec::new();
    let mut current: Vec<Lexed> = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(lexed) = iter.next() {
        if lexed.token == Token::Newline {
            // A line that starts with `|` continues the statement.
            while iter.peek().is_some_and(|next| next.token == Token::Newline) {
                iter.next();
            }
            if iter.peek().is_some_and(|next| next.token == Token::Pipe) {
                continue;
            }
            if !current.is_empty() {
                statements.push(std::mem::take(&mut current));
            }
        } else {
            current.push(lexed);
        }
    }
    if !current.is_empty() {
        statements.push(current);
    }
    statements
}

struct Parser<'t> {
    tokens: &'t [Lexed],
    position: usize,
    referenced: Vec<(String, usize)>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.position).map(|lexed| &lexed.token)
    }

    fn line(&self) -> usize {
        self.tokens
            .get(self.position)
            .or(self.tokens.last())
            .map_or(0, |lexed| lexed.line)
    }

    fn error<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("line {}: {what}", self.line()))
    }

    fn expansions(&mut self) -> Result<(), String> {
        self.alternative()?;
        while self.peek() == Some(&Token::Pipe) {
            self.position += 1;
            self.alternative()?;
        }
        Ok(())
    }

    fn alternative(&mut self) -> Result<(), String> {
        let mut items = 0;
        while let Some(token) = self.peek() {
            match token {
                Token::Pipe | Token::Close(_) | Token::Arrow => break,
                _ => {
                    self.item()?;
                    items += 1;
                }
            }
        }
        if self.peek() == Some(&Token::Arrow) {
            self.position += 1;
            match self.peek() {
                Some(Token::Name(_)) => self.position += 1,
                _ => return self.error("expected an alias name after `->`"),
            }
        }
        let _ = items; // An empty alternative is valid Lark (it matches nothing).
        Ok(())
    }

    fn item(&mut self) -> Result<(), String> {
        self.atom()?;
        match self.peek() {
            Some(Token::Quantifier) => self.position += 1,
            Some(Token::Tilde) => {
                self.position += 1;
                self.number()?;
                if self.peek() == Some(&Token::DotDot) {
                    self.position += 1;
                    self.number()?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn number(&mut self) -> Result<(), String> {
        match self.peek() {
            Some(Token::Number) => {
                self.position += 1;
                Ok(())
            }
            _ => self.error("expected a number"),
        }
    }

    fn atom(&mut self) -> Result<(), String> {
        let line = self.line();
        match self.peek().cloned() {
            Some(Token::Open(open)) => {
                self.position += 1;
                self.expansions()?;
                let close = if open == '(' { ')' } else { ']' };
                match self.peek() {
                    Some(Token::Close(c)) if *c == close => {
                        self.position += 1;
                        Ok(())
                    }
                    _ => self.error(&format!("expected `{close}` to close `{open}`")),
                }
            }
            Some(Token::Literal) => {
                self.position += 1;
                if self.peek() == Some(&Token::DotDot) {
                    self.position += 1;
                    match self.peek() {
                        Some(Token::Literal) => self.position += 1,
                        _ => return self.error("expected a string after `..`"),
                    }
                }
                Ok(())
            }
            Some(Token::Name(name)) => {
                self.position += 1;
                self.referenced.push((name, line));
                Ok(())
            }
            Some(other) => self.error(&format!("unexpected {other:?} in a rule")),
            None => self.error("unexpected end of rule"),
        }
    }
}

fn is_terminal(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Checks Lark grammar text.
pub(crate) fn check(text: &str) -> Result<(), String> {
    let statements = statements(lex(text)?);
    let mut defined = BTreeSet::new();
    let mut referenced = Vec::new();
    for statement in &statements {
        let mut parser = Parser {
            tokens: statement,
            position: 0,
            referenced: Vec::new(),
        };
        match parser.peek().cloned() {
            Some(Token::Directive(directive)) => {
                parser.position += 1;
                match directive.as_str() {
                    "import" => {
                        // %import module.NAME [-> ALIAS] | %import module (A, B)
                        let mut last = None;
                        let mut group = false;
                        while let Some(token) = parser.peek().cloned() {
                            parser.position += 1;
                            match token {
                                Token::Name(name) => last = Some(name),
                                Token::Open('(') => group = true,
                                Token::Comma | Token::Close(')') => {
                                    if let Some(name) = last.take() {
                                        defined.insert(name);
                                    }
                                }
                                Token::Dot | Token::Arrow => {}
                                _ => return parser.error("malformed %import"),
                            }
                        }
                        if !group {
                            match last {
                                Some(name) => {
                                    defined.insert(name);
                                }
                                None => return parser.error("%import needs a name"),
                            }
                        }
                    }
                    "declare" => {
                        while let Some(Token::Name(name)) = parser.peek().cloned() {
                            parser.position += 1;
                            defined.insert(name);
                        }
                    }
                    "ignore" => {
                        parser.expansions()?;
                        referenced.append(&mut parser.referenced);
                    }
                    "override" | "extend" => {
                        parser.position += 0;
                    }
                    other => return parser.error(&format!("unknown directive %{other}")),
                }
                if parser.position < statement.len()
                    && !matches!(directive.as_str(), "override" | "extend")
                {
                    return parser.error("unexpected tokens after the directive");
                }
                if !matches!(directive.as_str(), "override" | "extend") {
                    continue;
                }
                // %override / %extend are followed by an ordinary definition.
                parser.position = 1;
                define(&mut parser, &mut defined)?;
                referenced.append(&mut parser.referenced);
            }
            Some(Token::Name(_)) => {
                define(&mut parser, &mut defined)?;
                referenced.append(&mut parser.referenced);
            }
            _ => return parser.error("expected a rule or terminal definition"),
        }
    }
    if !statements.iter().any(|statement| {
        matches!(statement.first().map(|l| &l.token), Some(Token::Name(n)) if n.trim_start_matches(['?', '!']) == "start")
    }) {
        return Err("the grammar has no `start` rule".to_string());
    }
    for (name, line) in referenced {
        if !defined.contains(&name) {
            let kind = if is_terminal(&name) {
                "terminal"
            } else {
                "rule"
            };
            return Err(format!(
                "line {line}: {kind} `{name}` is used but never defined"
            ));
        }
    }
    Ok(())
}

/// `name[.priority]: expansions`
fn define(parser: &mut Parser<'_>, defined: &mut BTreeSet<String>) -> Result<(), String> {
    let Some(Token::Name(name)) = parser.peek().cloned() else {
        return parser.error("expected a rule or terminal name");
    };
    parser.position += 1;
    if parser.peek() == Some(&Token::Dot) {
        parser.position += 1;
        parser.number()?;
    }
    if parser.peek() != Some(&Token::Colon) {
        return parser.error(&format!("expected `:` after `{name}`"));
    }
    parser.position += 1;
    parser.expansions()?;
    if parser.position < parser.tokens.len() {
        return parser.error("unexpected token; is a `(` or `[` unbalanced?");
    }
    defined.insert(name.trim_start_matches(['?', '!']).to_string());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn accepts_a_patch_like_grammar() {
        let grammar = r#"
start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?
hunk: add_hunk | delete_hunk
    | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change?
filename: /(.+)/
add_line: "+" /(.*)/ LF -> line
change: (change_context | change_line)+
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
%import common.LF
"#;
        check(grammar).unwrap();
    }

    #[test]
    fn rejects_what_is_broken() {
        assert!(
            check("start: a")
                .unwrap_err()
                .contains("rule `a` is used but never defined")
        );
        assert!(
            check("rule: \"x\"")
                .unwrap_err()
                .contains("no `start` rule")
        );
        assert!(check("start: (\"x\"").unwrap_err().contains("expected `)`"));
        assert!(
            check("start: \"x")
                .unwrap_err()
                .contains("unterminated string")
        );
        assert!(check("start \"x\"").unwrap_err().contains("expected `:`"));
        assert!(
            check("start: \"a\" ~ x")
                .unwrap_err()
                .contains("expected a number")
        );
    }
}
