//! Text from the cluster shown as what it is. Annotations, Event messages and custom columns
//! may hold anything: control characters (terminal escapes, a bell) and bidirectional
//! controls (U+202E turns `gnp.exe` into what reads as `exe.png`). Shown as they are, they
//! are invisible or make text read differently from what it is; here each is written out. Markup needs nothing here: views insert text as text, never as HTML.

use std::borrow::Cow;

/// Bidirectional formatting characters: embeddings, overrides, isolates and marks.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

fn needs_sign(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

/// `text` with every control character except newline and tab, and every bidirectional
/// control, written as its JSON escape (`\u001b` for escape, `\u202e`), as the JSON view and
/// `kubectl get -o json` show it (and legible in any font). Borrowed when nothing needs it.
pub fn with_visible_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_sign) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_sign(c) {
            shown.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_left_alone() {
        let text = "Back-off restarting failed container\nשלום עולם\tمرحبا <b>&amp;";
        assert!(matches!(with_visible_controls(text), Cow::Borrowed(_)));
    }

    #[test]
    fn controls_and_bidi_overrides_are_written_out() {
        assert_eq!(
            with_visible_controls("\u{1b}[31mred\u{1b}[0m\u{7}"),
            "\\u001b[31mred\\u001b[0m\\u0007"
        );
        assert_eq!(
            with_visible_controls("invoice-\u{202E}gnp.exe"),
            "invoice-\\u202egnp.exe"
        );
        assert_eq!(
            with_visible_controls("a\u{2067}b\u{2069}\u{85}\u{7F}\u{0}"),
            "a\\u2067b\\u2069\\u0085\\u007f\\u0000"
        );
    }
}
