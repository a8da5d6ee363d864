//! Label and field selectors checked before they are sent, with errors that say where
//! (column) and what was expected, so a view can point at the mistake instead of showing the
//! server's 400.
//!
//! The label grammar is kube-apiserver's (`k8s.io/apimachinery/pkg/labels`): `a=b`, `a==b`,
//! `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, and the numeric `a>1`, `a<1`, comma
//! separated (AND). The field grammar is `k8s.io/apimachinery/pkg/fields`: `a=b`, `a==b`,
//! `a!=b`, comma separated, with `\` escaping `\`, `,`, `=` and `!` in values.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

/// Where a selector is wrong and what would have been right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    /// Offset of the problem in characters, from 0.
    pub offset: usize,
    /// How many characters the problem spans (at least 1, for underlining).
    pub len: usize,
    /// What was expected there, e.g. "`(` to start the values of `in`".
    pub expected: String,
    /// What was found, e.g. "`x`" or "the end".
    pub found: String,
}

impl SelectorError {
    /// The 1-based column, as editors count.
    pub fn column(&self) -> usize {
        self.offset + 1
    }
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "column {}: expected {}, found {}",
            self.column(),
            self.expected,
            self.found
        )
    }
}

impl std::error::Error for SelectorError {}

// ---------------------------------------------------------------------------------------------
// Label selectors
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelOperator {
    /// `=`
    Equals,
    /// `==`
    DoubleEquals,
    /// `!=`
    NotEquals,
    /// `in (…)`
    In,
    /// `notin (…)`
    NotIn,
    /// the bare key
    Exists,
    /// `!key`
    DoesNotExist,
    /// `>`: the label is an integer greater than the value.
    GreaterThan,
    /// `<`
    LessThan,
}

/// One comma-separated term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelRequirement {
    pub key: String,
    pub operator: LabelOperator,
    /// One value for `=`, `==`, `!=`, `>`, `<`; one or more for `in`/`notin`; none otherwise.
    pub values: Vec<String>,
}

/// A parsed label selector; empty matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    pub requirements: Vec<LabelRequirement>,
}

impl LabelRequirement {
    /// Whether an object with these labels satisfies the requirement (as the server decides).
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let value = labels.get(&self.key);
        let first = self.values.first().map(String::as_str).unwrap_or_default();
        let compare_int = |want: fn(i64, i64) -> bool| {
            let have = value.and_then(|v| v.parse::<i64>().ok());
            let limit = first.parse::<i64>().ok();
            matches!((have, limit), (Some(h), Some(l)) if want(h, l))
        };
        match self.operator {
            LabelOperator::Equals | LabelOperator::DoubleEquals | LabelOperator::In => {
                value.is_some_and(|v| self.values.contains(v))
            }
            LabelOperator::NotEquals | LabelOperator::NotIn => {
                value.is_none_or(|v| !self.values.contains(v))
            }
            LabelOperator::Exists => value.is_some(),
            LabelOperator::DoesNotExist => value.is_none(),
            LabelOperator::GreaterThan => compare_int(|h, l| h > l),
            LabelOperator::LessThan => compare_int(|h, l| h < l),
        }
    }
}

impl LabelSelector {
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }

    /// Reads an API object's `metav1.LabelSelector` (`{"matchLabels": {…}, "matchExpressions":
    /// [{"key", "operator", "values"}]}`) as apimachinery's `LabelSelectorAsSelector` does: the
    /// labels, then the expressions, all ANDed. An unknown operator, or values where there must
    /// be none (or none where there must be some), is an error, as there.
    pub fn from_api(selector: &Value) -> Result<LabelSelector, String> {
        let mut requirements = Vec::new();
        if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
            for (key, value) in labels {
                let value = value
                    .as_str()
                    .ok_or_else(|| format!("matchLabels `{key}` is not a string"))?;
                requirements.push(LabelRequirement {
                    key: key.clone(),
                    operator: LabelOperator::Equals,
                    values: vec![value.to_string()],
                });
            }
        }
        let expressions = selector.get("matchExpressions").and_then(Value::as_array);
        for expression in expressions.into_iter().flatten() {
            let key = expression.get("key").and_then(Value::as_str).unwrap_or("");
            if key.is_empty() {
                return Err("a matchExpression without a key".to_string());
            }
            let values: Vec<String> = expression
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            let operator = expression.get("operator").and_then(Value::as_str);
            let (operator, needs_values) = match operator {
                Some("In") => (LabelOperator::In, true),
                Some("NotIn") => (LabelOperator::NotIn, true),
                Some("Exists") => (LabelOperator::Exists, false),
                Some("DoesNotExist") => (LabelOperator::DoesNotExist, false),
                other => {
                    let other = other.unwrap_or("nothing");
                    return Err(format!("`{key}` has an unknown operator `{other}`"));
                }
            };
            if needs_values == values.is_empty() {
                let want = if needs_values { "values" } else { "no values" };
                return Err(format!("`{key}` with its operator needs {want}"));
            }
            requirements.push(LabelRequirement {
                key: key.to_string(),
                operator,
                values,
            });
        }
        Ok(LabelSelector { requirements })
    }
}

impl fmt::Display for LabelRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = &self.key;
        let first = self.values.first().map(String::as_str).unwrap_or_default();
        match self.operator {
            LabelOperator::Equals => write!(f, "{key}={first}"),
            LabelOperator::DoubleEquals => write!(f, "{key}=={first}"),
            LabelOperator::NotEquals => write!(f, "{key}!={first}"),
            LabelOperator::In => write!(f, "{key} in ({})", self.values.join(",")),
            LabelOperator::NotIn => write!(f, "{key} notin ({})", self.values.join(",")),
            LabelOperator::Exists => write!(f, "{key}"),
            LabelOperator::DoesNotExist => write!(f, "!{key}"),
            LabelOperator::GreaterThan => write!(f, "{key}>{first}"),
            LabelOperator::LessThan => write!(f, "{key}<{first}"),
        }
    }
}

/// The canonical text (`app=web,tier in (a,b)`), which parses back to the same selector.
impl fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, requirement) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{requirement}")?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum TokenKind {
    Identifier,
    In,
    NotIn,
    /// `=`, `==`, `!=`, `!`, `>`, `<`, `(`, `)`, `,`, or an unknown run of those characters.
    Symbol,
    End,
}

#[derive(Debug, Clone)]
struct Token {
    kind: TokenKind,
    text: String,
    /// In characters.
    offset: usize,
}

impl Token {
    fn is(&self, symbol: &str) -> bool {
        self.kind == TokenKind::Symbol && self.text == symbol
    }

    fn describe(&self) -> String {
        match self.kind {
            TokenKind::End => "the end".into(),
            _ => format!("`{}`", self.text),
        }
    }

    fn len(&self) -> usize {
        self.text.chars().count().max(1)
    }
}

fn is_special(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<')
}

const SYMBOLS: [&str; 9] = ["=", "==", "!=", "!", ">", "<", "(", ")", ","];

/// Splits as the apiserver's lexer does: symbols greedily (`!=` not `!` `=`), identifiers up
/// to whitespace or a symbol character.
fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c.is_whitespace() {
            at += 1;
            continue;
        }
        let start = at;
        if is_special(c) {
            let mut symbol = String::from(c);
            at += 1;
            while let Some(&next) = chars.get(at) {
                let longer = format!("{symbol}{next}");
                if !SYMBOLS.contains(&longer.as_str()) {
                    break;
                }
                symbol = longer;
                at += 1;
            }
            tokens.push(Token {
                kind: TokenKind::Symbol,
                text: symbol,
                offset: start,
            });
            continue;
        }
        while at < chars.len() && !chars[at].is_whitespace() && !is_special(chars[at]) {
            at += 1;
        }
        let word: String = chars[start..at].iter().collect();
        let kind = match word.as_str() {
            "in" => TokenKind::In,
            "notin" => TokenKind::NotIn,
            _ => TokenKind::Identifier,
        };
        tokens.push(Token {
            kind,
            text: word,
            offset: start,
        });
    }
    tokens.push(Token {
        kind: TokenKind::End,
        text: String::new(),
        offset: chars.len(),
    });
    tokens
}

struct LabelParser {
    tokens: Vec<Token>,
    at: usize,
}

impl LabelParser {
    fn peek(&self) -> &Token {
        // The token list always ends with End, and `at` never passes it.
        &self.tokens[self.at.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> Token {
        let token = self.peek().clone();
        if token.kind != TokenKind::End {
            self.at += 1;
        }
        token
    }

    fn error(token: &Token, expected: impl Into<String>) -> SelectorError {
        SelectorError {
            offset: token.offset,
            len: token.len(),
            expected: expected.into(),
            found: token.describe(),
        }
    }

    fn requirement(&mut self) -> Result<LabelRequirement, SelectorError> {
        if self.peek().is("!") {
            self.next();
            let key = self.key("a label key after `!`")?;
            return Ok(LabelRequirement {
                key,
                operator: LabelOperator::DoesNotExist,
                values: Vec::new(),
            });
        }
        let key = self.key("a label key (or `!key`)")?;
        let token = self.peek().clone();
        let operator = match token.kind {
            TokenKind::End => LabelOperator::Exists,
            TokenKind::In => LabelOperator::In,
            TokenKind::NotIn => LabelOperator::NotIn,
            TokenKind::Symbol => match token.text.as_str() {
                "," => LabelOperator::Exists,
                "=" => LabelOperator::Equals,
                "==" => LabelOperator::DoubleEquals,
                "!=" => LabelOperator::NotEquals,
                ">" => LabelOperator::GreaterThan,
                "<" => LabelOperator::LessThan,
                _ => return Err(Self::error(&token, OPERATORS)),
            },
            TokenKind::Identifier => return Err(Self::error(&token, OPERATORS)),
        };
        if operator == LabelOperator::Exists {
            return Ok(LabelRequirement {
                key,
                operator,
                values: Vec::new(),
            });
        }
        self.next();
        let values = match operator {
            LabelOperator::In | LabelOperator::NotIn => self.value_set(&token.text)?,
            LabelOperator::GreaterThan | LabelOperator::LessThan => {
                let value = self.next();
                if value.kind == TokenKind::Identifier && value.text.parse::<i64>().is_ok() {
                    vec![value.text]
                } else {
                    return Err(Self::error(
                        &value,
                        format!("an integer after `{}`", token.text),
                    ));
                }
            }
            _ => vec![self.single_value(&token.text)?],
        };
        Ok(LabelRequirement {
            key,
            operator,
            values,
        })
    }

    fn key(&mut self, expected: &str) -> Result<String, SelectorError> {
        let token = self.next();
        if token.kind != TokenKind::Identifier {
            return Err(Self::error(&token, expected));
        }
        check_qualified_name(&token.text, token.offset)?;
        Ok(token.text)
    }

    /// The value of `=`, `==`, `!=`: may be empty (`app=` matches an empty label).
    fn single_value(&mut self, operator: &str) -> Result<String, SelectorError> {
        let token = self.peek().clone();
        match token.kind {
            TokenKind::End => Ok(String::new()),
            TokenKind::Symbol if token.text == "," => Ok(String::new()),
            TokenKind::Identifier | TokenKind::In | TokenKind::NotIn => {
                self.next();
                check_label_value(&token.text, token.offset)?;
                Ok(token.text)
            }
            TokenKind::Symbol => Err(Self::error(
                &token,
                format!("a label value after `{operator}`"),
            )),
        }
    }

    /// `(a,b)`; an element may be empty (`(a,)`), the set may not (`()`).
    fn value_set(&mut self, operator: &str) -> Result<Vec<String>, SelectorError> {
        let open = self.next();
        if !open.is("(") {
            return Err(Self::error(
                &open,
                format!("`(` to start the values of `{operator}`"),
            ));
        }
        let mut values = Vec::new();
        let mut expect_value = true;
        loop {
            let token = self.peek().clone();
            match token.kind {
                TokenKind::Identifier | TokenKind::In | TokenKind::NotIn if expect_value => {
                    self.next();
                    check_label_value(&token.text, token.offset)?;
                    values.push(token.text);
                    expect_value = false;
                }
                TokenKind::Symbol if token.text == "," => {
                    if expect_value {
                        values.push(String::new());
                    }
                    self.next();
                    expect_value = true;
                }
                TokenKind::Symbol if token.text == ")" => {
                    if expect_value && !values.is_empty() {
                        values.push(String::new());
                    }
                    if values.is_empty() {
                        return Err(Self::error(
                            &token,
                            format!("at least one value for `{operator}`"),
                        ));
                    }
                    self.next();
                    return Ok(values);
                }
                _ if expect_value => {
                    return Err(Self::error(&token, "a label value, `,` or `)`"));
                }
                _ => return Err(Self::error(&token, "`,` or `)`")),
            }
        }
    }
}

const OPERATORS: &str = "an operator (`=`, `==`, `!=`, `in`, `notin`, `>`, `<`), `,` or the end";

/// Parses and checks a label selector. Whitespace is free between tokens; an empty text is the
/// empty selector (everything).
pub fn parse_label_selector(text: &str) -> Result<LabelSelector, SelectorError> {
    let mut parser = LabelParser {
        tokens: tokenize(text),
        at: 0,
    };
    let mut selector = LabelSelector::default();
    if parser.peek().kind == TokenKind::End {
        return Ok(selector);
    }
    loop {
        selector.requirements.push(parser.requirement()?);
        let token = parser.next();
        match token.kind {
            TokenKind::End => return Ok(selector),
            TokenKind::Symbol if token.text == "," => {}
            _ => {
                return Err(LabelParser::error(
                    &token,
                    "`,` before the next requirement, or the end",
                ))
            }
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, at most 63 characters.
fn name_part_problem(name: &str) -> Option<&'static str> {
    if name.len() > 63 {
        return Some("at most 63 characters");
    }
    if !name.chars().all(is_name_char) {
        return Some("only letters, digits, `-`, `_` and `.`");
    }
    let edges_ok = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if !edges_ok(name.chars().next()) || !edges_ok(name.chars().last()) {
        return Some("a letter or digit at the start and end");
    }
    None
}

/// A DNS-1123 subdomain: lowercase labels joined by dots, at most 253 characters.
fn dns_subdomain_problem(prefix: &str) -> Option<&'static str> {
    if prefix.len() > 253 {
        return Some("a prefix of at most 253 characters");
    }
    let label_ok = |label: &str| {
        let bytes = label.as_bytes();
        let edge = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        edge(bytes.first())
            && edge(bytes.last())
            && bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
    };
    if prefix.split('.').all(label_ok) {
        None
    } else {
        Some("a DNS subdomain prefix (lowercase letters, digits, `-` and `.`, like `example.com`)")
    }
}

/// A label key: an optional DNS subdomain prefix and `/`, then a name part.
fn check_qualified_name(key: &str, offset: usize) -> Result<(), SelectorError> {
    let problem = |at: usize, text: &str, expected: String| SelectorError {
        offset: offset + at,
        len: text.chars().count().max(1),
        expected,
        found: describe_text(text),
    };
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    let name_offset = prefix.map_or(0, |p| p.chars().count() + 1);
    if let Some(prefix) = prefix {
        if let Some(why) = dns_subdomain_problem(prefix) {
            return Err(problem(0, prefix, format!("in the key's prefix {why}")));
        }
        if name.contains('/') {
            let extra = name_offset + name.find('/').map_or(0, |i| name[..i].chars().count());
            return Err(problem(extra, "/", "at most one `/` in a label key".into()));
        }
    }
    if name.is_empty() {
        return Err(problem(
            name_offset,
            name,
            "a key name after the prefix".into(),
        ));
    }
    match name_part_problem(name) {
        Some(why) => Err(problem(
            name_offset,
            name,
            format!("a label key name of {why}"),
        )),
        None => Ok(()),
    }
}

/// A label value: empty, or a name part (at most 63 characters).
fn check_label_value(value: &str, offset: usize) -> Result<(), SelectorError> {
    if value.is_empty() {
        return Ok(());
    }
    match name_part_problem(value) {
        Some(why) => Err(SelectorError {
            offset,
            len: value.chars().count(),
            expected: format!("a label value of {why}"),
            found: describe_text(value),
        }),
        None => Ok(()),
    }
}

/// `` `text` `` shortened, with its length when that is what is wrong.
fn describe_text(text: &str) -> String {
    let count = text.chars().count();
    if count > 40 {
        let head: String = text.chars().take(20).collect();
        format!("`{head}…` ({count} characters)")
    } else if text.is_empty() {
        "nothing".into()
    } else {
        format!("`{text}` ({count} characters)")
    }
}

// ---------------------------------------------------------------------------------------------
// Field selectors
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldOperator {
    /// `=`
    Equals,
    /// `==`
    DoubleEquals,
    /// `!=`
    NotEquals,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRequirement {
    /// A field path such as `metadata.name` or `status.phase`.
    pub field: String,
    pub operator: FieldOperator,
    /// Unescaped.
    pub value: String,
}

/// A parsed field selector; empty matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector {
    pub requirements: Vec<FieldRequirement>,
}

impl FieldSelector {
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
}

/// Escapes a value for a field selector (`\`, `,`, `=`, `!`), as `fields.EscapeValue` does.
pub fn escape_field_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | ',' | '=' | '!') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The canonical text, which parses back to the same selector.
impl fmt::Display for FieldSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            let operator = match r.operator {
                FieldOperator::Equals => "=",
                FieldOperator::DoubleEquals => "==",
                FieldOperator::NotEquals => "!=",
            };
            let separator = if i > 0 { "," } else { "" };
            write!(
                f,
                "{separator}{}{operator}{}",
                r.field,
                escape_field_value(&r.value)
            )?;
        }
        Ok(())
    }
}

/// Parses and checks a field selector. Empty terms (`a=b,,c=d`, a trailing comma) are skipped
/// as the server skips them; field paths are dotted names (`metadata.name`).
pub fn parse_field_selector(text: &str) -> Result<FieldSelector, SelectorError> {
    let mut selector = FieldSelector::default();
    for (term, term_offset) in split_unescaped_commas(text) {
        if term.is_empty() {
            continue;
        }
        let (field, operator, raw_value, value_offset) = split_field_term(term, term_offset)?;
        check_field_path(field, term_offset)?;
        let value = unescape_field_value(raw_value, value_offset)?;
        selector.requirements.push(FieldRequirement {
            field: field.to_string(),
            operator,
            value,
        });
    }
    Ok(selector)
}

/// Terms with their character offsets; `\,` does not split.
fn split_unescaped_commas(text: &str) -> Vec<(&str, usize)> {
    let mut terms = Vec::new();
    let (mut start_byte, mut start_char) = (0, 0);
    let mut escaped = false;
    for (char_index, (byte, c)) in text.char_indices().enumerate() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            ',' => {
                terms.push((&text[start_byte..byte], start_char));
                start_byte = byte + 1;
                start_char = char_index + 1;
            }
            _ => {}
        }
    }
    terms.push((&text[start_byte..], start_char));
    terms
}

/// `field op value` at the first unescaped operator.
fn split_field_term(
    term: &str,
    offset: usize,
) -> Result<(&str, FieldOperator, &str, usize), SelectorError> {
    let mut escaped = false;
    for (char_index, (byte, c)) in term.char_indices().enumerate() {
        if escaped {
            escaped = false;
            continue;
        }
        if c == '\\' {
            escaped = true;
            continue;
        }
        let rest = &term[byte..];
        let operator = [
            ("!=", FieldOperator::NotEquals),
            ("==", FieldOperator::DoubleEquals),
            ("=", FieldOperator::Equals),
        ]
        .into_iter()
        .find(|(symbol, _)| rest.starts_with(symbol));
        if let Some((symbol, operator)) = operator {
            let value_byte = byte + symbol.len();
            let value_offset = offset + char_index + symbol.len();
            return Ok((&term[..byte], operator, &term[value_byte..], value_offset));
        }
    }
    Err(SelectorError {
        offset: offset + term.chars().count(),
        len: 1,
        expected: "`=`, `==` or `!=` and a value (like `status.phase=Running`)".into(),
        found: if term.chars().count() > 40 {
            "the end of the term".into()
        } else {
            format!("only `{term}`")
        },
    })
}

/// Dotted names: `metadata.name`, `spec.nodeName`, `involvedObject.kind`, `type`.
fn check_field_path(field: &str, offset: usize) -> Result<(), SelectorError> {
    let segment_ok = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    if field.split('.').all(segment_ok) {
        return Ok(());
    }
    Err(SelectorError {
        offset,
        len: field.chars().count().max(1),
        expected: "a field path like `metadata.name` or `status.phase`".into(),
        found: if field.is_empty() {
            "no field before the operator".into()
        } else {
            format!("`{field}`")
        },
    })
}

/// Undoes `\` escapes; only `\\`, `\,`, `\=` and `\!` exist (as the server insists).
fn unescape_field_value(raw: &str, offset: usize) -> Result<String, SelectorError> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().enumerate();
    while let Some((index, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some((_, escaped @ ('\\' | ',' | '=' | '!'))) => out.push(escaped),
            other => {
                return Err(SelectorError {
                    offset: offset + index,
                    len: 2,
                    expected: "`\\` to escape only `\\`, `,`, `=` or `!`".into(),
                    found: match other {
                        Some((_, c)) => format!("`\\{c}`"),
                        None => "a `\\` at the end".into(),
                    },
                })
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;
    use serde_json::json;

    #[test]
    fn api_selectors_read_as_the_server_reads_them() {
        let selector = LabelSelector::from_api(&json!({
            "matchLabels": {"app": "web", "tier": "front"},
            "matchExpressions": [
                {"key": "track", "operator": "In", "values": ["stable", "canary"]},
                {"key": "legacy", "operator": "DoesNotExist"},
            ],
        }))
        .expect("a valid selector");
        let text = selector.to_string();
        assert_eq!(text, "app=web,tier=front,track in (stable,canary),!legacy");
        assert_eq!(parse_label_selector(&text), Ok(selector.clone()));
        let pod = labels(&[("app", "web"), ("tier", "front"), ("track", "canary")]);
        assert!(selector.matches(&pod));
        let legacy = labels(&[
            ("app", "web"),
            ("tier", "front"),
            ("track", "stable"),
            ("legacy", ""),
        ]);
        assert!(!selector.matches(&legacy));
        assert_eq!(
            LabelSelector::from_api(&json!({})),
            Ok(LabelSelector::default())
        );
        for (bad, why) in [
            (
                json!({"matchLabels": {"app": 3}}),
                "matchLabels `app` is not a string",
            ),
            (
                json!({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}),
                "`a` has an unknown operator `Gt`",
            ),
            (
                json!({"matchExpressions": [{"key": "a", "operator": "In"}]}),
                "`a` with its operator needs values",
            ),
            (
                json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}),
                "`a` with its operator needs no values",
            ),
            (
                json!({"matchExpressions": [{"operator": "Exists"}]}),
                "a matchExpression without a key",
            ),
        ] {
            assert_eq!(LabelSelector::from_api(&bad), Err(why.to_string()));
        }
    }

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn requirement(key: &str, operator: LabelOperator, values: &[&str]) -> LabelRequirement {
        LabelRequirement {
            key: key.into(),
            operator,
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn parses_every_label_form() {
        let selector = parse_label_selector(
            "app=web, tier==front,env!=dev,zone in (a, b),rel notin (x),example.com/owner,!legacy,n>3,m<10",
        )
        .expect("valid");
        use LabelOperator::*;
        assert_eq!(
            selector.requirements,
            [
                requirement("app", Equals, &["web"]),
                requirement("tier", DoubleEquals, &["front"]),
                requirement("env", NotEquals, &["dev"]),
                requirement("zone", In, &["a", "b"]),
                requirement("rel", NotIn, &["x"]),
                requirement("example.com/owner", Exists, &[]),
                requirement("legacy", DoesNotExist, &[]),
                requirement("n", GreaterThan, &["3"]),
                requirement("m", LessThan, &["10"]),
            ]
        );
        let canonical = selector.to_string();
        assert_eq!(
            canonical,
            "app=web,tier==front,env!=dev,zone in (a,b),rel notin (x),example.com/owner,!legacy,n>3,m<10"
        );
        assert_eq!(parse_label_selector(&canonical), Ok(selector));
    }

    #[test]
    fn empty_values_and_whitespace_are_accepted() {
        assert!(parse_label_selector("").expect("empty").is_empty());
        assert!(parse_label_selector("   ").expect("blank").is_empty());
        let selector = parse_label_selector("a=,b in (x,),c==").expect("valid");
        assert_eq!(selector.requirements[0].values, [""]);
        assert_eq!(selector.requirements[1].values, ["x", ""]);
        assert_eq!(selector.requirements[2].values, [""]);
        assert!(parse_label_selector("  a  in(x)  ,  !b ").is_ok());
        // `in` is a keyword only in operator position: a value may be spelled `in`.
        assert_eq!(
            parse_label_selector("a=in").map(|s| s.requirements[0].values.clone()),
            Ok(vec!["in".to_string()])
        );
        assert!(parse_label_selector(&format!("k={}", "v".repeat(63))).is_ok());
        assert!(parse_label_selector(&format!("{}/{}", "p".repeat(253), "n".repeat(63))).is_ok());
    }

    fn label_error(text: &str) -> SelectorError {
        parse_label_selector(text).expect_err(text)
    }

    #[test]
    fn label_errors_say_where_and_what() {
        let e = label_error("app=web,tier in x");
        assert_eq!((e.column(), e.found.as_str()), (17, "`x`"));
        assert!(e.expected.contains("`(`"), "{e}");
        assert_eq!(
            e.to_string(),
            format!("column 17: expected {}, found `x`", e.expected)
        );

        let e = label_error("app web");
        assert_eq!(e.offset, 4);
        assert!(e.expected.contains("operator"));

        let e = label_error("app=web,");
        assert_eq!((e.offset, e.found.as_str()), (8, "the end"));
        assert!(e.expected.contains("label key"));

        let e = label_error("zone in ()");
        assert_eq!(e.offset, 9);
        assert!(e.expected.contains("at least one value"));

        let e = label_error("zone in (a b)");
        assert_eq!(e.offset, 11);

        let e = label_error("zone in (a");
        assert_eq!(e.found, "the end");

        let e = label_error("a=b=c");
        assert_eq!(e.offset, 3);
        assert!(e.expected.contains("`,`"));

        let e = label_error("a=(b)");
        assert_eq!(e.offset, 2);

        let e = label_error("n>three");
        assert!(e.expected.contains("integer"));

        let e = label_error("!");
        assert_eq!(e.found, "the end");

        let e = label_error("=x");
        assert_eq!(e.offset, 0);

        let e = label_error("a=!=");
        assert_eq!(e.offset, 2);
    }

    #[test]
    fn label_keys_and_values_are_validated() {
        let e = label_error(&format!("app={}", "v".repeat(64)));
        assert_eq!(e.offset, 4);
        assert!(e.expected.contains("63"), "{e}");
        assert!(e.found.contains("64 characters"));

        let e = label_error("app=-web");
        assert!(e.expected.contains("start and end"));

        let e = label_error("app=w@b");
        assert!(e.expected.contains("only letters"));

        let e = label_error("Example.com/app=x");
        assert_eq!(e.offset, 0);
        assert!(e.expected.contains("prefix"), "{e}");

        let e = label_error("example.com/=x");
        assert_eq!(e.offset, 12);

        let e = label_error("a/b/c");
        assert_eq!(e.offset, 3);

        let e = label_error("x, example.com/_bad");
        assert_eq!(e.offset, 15);
        assert!(e.expected.contains("key name"));

        let e = label_error(&format!("{}/n", "p".repeat(254)));
        assert!(e.expected.contains("253"));

        // Offsets count characters, not bytes.
        let e = label_error("é=x, ü");
        assert_eq!(e.offset, 0);
        let e = label_error("a=b,c=ü");
        assert_eq!(e.offset, 6);
    }

    #[test]
    fn label_selectors_match_labels_like_the_server() {
        let selector = |text: &str| parse_label_selector(text).expect(text);
        let web = labels(&[("app", "web"), ("tier", "front"), ("n", "5")]);
        assert!(selector("").matches(&web));
        assert!(selector("app=web,tier in (front,back)").matches(&web));
        assert!(!selector("app=web,tier notin (front)").matches(&web));
        assert!(selector("env!=prod,!env,app").matches(&web));
        assert!(!selector("env").matches(&web));
        assert!(selector("n>4,n<6").matches(&web));
        assert!(!selector("app>4").matches(&web));
        assert!(selector("missing notin (x)").matches(&web));
        assert!(!selector("missing in (x)").matches(&web));
    }

    #[test]
    fn parses_field_selectors() {
        let selector =
            parse_field_selector("metadata.name=web,status.phase!=Running,spec.nodeName==node-1")
                .expect("valid");
        assert_eq!(
            selector.requirements,
            [
                FieldRequirement {
                    field: "metadata.name".into(),
                    operator: FieldOperator::Equals,
                    value: "web".into()
                },
                FieldRequirement {
                    field: "status.phase".into(),
                    operator: FieldOperator::NotEquals,
                    value: "Running".into()
                },
                FieldRequirement {
                    field: "spec.nodeName".into(),
                    operator: FieldOperator::DoubleEquals,
                    value: "node-1".into()
                },
            ]
        );
        assert_eq!(parse_field_selector(&selector.to_string()), Ok(selector));
        // Empty terms are skipped, empty values allowed, escapes undone.
        let selector = parse_field_selector(r"type=,,reason=a\,b\=c\!d\\e,").expect("valid");
        assert_eq!(selector.requirements.len(), 2);
        assert_eq!(selector.requirements[0].value, "");
        assert_eq!(selector.requirements[1].value, r"a,b=c!d\e");
        assert_eq!(
            parse_field_selector(&selector.to_string()),
            Ok(selector.clone())
        );
        assert!(parse_field_selector("").expect("empty").is_empty());
        // The first operator splits: the rest belongs to the value.
        let odd = parse_field_selector("a=b=c").expect("valid");
        assert_eq!(odd.requirements[0].value, "b=c");
    }

    #[test]
    fn field_errors_say_where_and_what() {
        let e = parse_field_selector("metadata.name=web,status.phase").expect_err("no operator");
        assert_eq!(e.offset, 30);
        assert!(e.expected.contains("`=`"));
        assert_eq!(e.found, "only `status.phase`");

        let e = parse_field_selector("=x").expect_err("no field");
        assert_eq!(e.offset, 0);
        assert!(e.found.contains("no field"));

        let e = parse_field_selector("a=1,meta data.name=x").expect_err("space");
        assert_eq!(e.offset, 4);
        assert!(e.expected.contains("metadata.name"));

        let e = parse_field_selector("a..b=x").expect_err("empty segment");
        assert_eq!(e.offset, 0);

        let e = parse_field_selector(r"a=x\y").expect_err("bad escape");
        assert_eq!((e.offset, e.found.as_str()), (3, r"`\y`"));

        let e = parse_field_selector("a=x\\").expect_err("trailing escape");
        assert_eq!(e.offset, 3);
        assert!(e.found.contains("end"));

        let e = parse_field_selector("ü=1,b=é\\q").expect_err("offsets in chars");
        assert_eq!(e.offset, 0);
        let e = parse_field_selector("a=ü,b=é\\q").expect_err("offsets in chars");
        assert_eq!(e.offset, 7);
    }

    /// Any text, however odd, gives a selector or an error inside the text: never a panic.
    #[test]
    fn random_texts_never_panic_and_errors_point_inside() {
        let alphabet: Vec<String> = "ab=!(),<> in notin./\\-_é 0"
            .chars()
            .map(String::from)
            .collect();
        let alphabet: Vec<&str> = alphabet.iter().map(String::as_str).collect();
        let mut rng = TestRng::new(0xDEAD_BEEF_CAFE_F00D);
        for _ in 0..20_000 {
            let text = rng.text(&alphabet, 14);
            let chars = text.chars().count();
            for result in [
                parse_label_selector(&text).map(|_| ()),
                parse_field_selector(&text).map(|_| ()),
            ] {
                if let Err(e) = result {
                    assert!(e.offset <= chars, "{text:?}: {e}");
                    assert!(e.len >= 1, "{text:?}: {e}");
                }
            }
            if let Ok(selector) = parse_label_selector(&text) {
                assert_eq!(
                    parse_label_selector(&selector.to_string()),
                    Ok(selector),
                    "{text:?}"
                );
            }
        }
    }
}
