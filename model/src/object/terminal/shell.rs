//! The default shell (bash, else sh) and typed command lines turned into argv.
//!
//! Exec runs an argv, not a line: no shell reads it unless it is one. A typed line is split
//! into words as a POSIX shell splits a simple command (whitespace, `'…'`, `"…"`, `\`); a
//! line using what only a shell does (pipes, redirects, `;`, `&&`, variables, globs, `~`,
//! `NAME=value` prefixes) runs as `sh -c LINE` instead, so the container's shell does it.

use std::fmt;

use super::status::{classify_failure, ExecEnd, FailureKind};

/// A shell to open when the user did not name a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Sh,
}

impl Shell {
    /// Tried first, as Lens and Headlamp do; many images have only `sh`.
    pub const DEFAULT: Shell = Shell::Bash;

    pub fn program(self) -> &'static str {
        match self {
            Shell::Bash => "bash",
            Shell::Sh => "sh",
        }
    }

    /// The argv (found on the image's `PATH`).
    pub fn command(self) -> Vec<String> {
        vec![self.program().to_string()]
    }
}

/// The shell to try after `tried` ended as `after`: `sh` when bash is not there. A runtime
/// refuses a missing executable (containerd: "executable file not found in $PATH"), Docker
/// and some shells exit 126 or 127; after the user typed something, 127 is their last
/// command's code, not the shell's, and nothing is retried.
pub fn next_default_shell(tried: Shell, user_typed: bool, after: &ExecEnd) -> Option<Shell> {
    let missing = match after {
        ExecEnd::Exited(126 | 127) => !user_typed,
        ExecEnd::Failed(message) => classify_failure(message) == FailureKind::ExecutableNotFound,
        _ => false,
    };
    (tried == Shell::Bash && missing).then_some(Shell::Sh)
}

/// Why a typed line has no argv.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandLineError {
    Empty,
    UnterminatedQuote(char),
}

impl fmt::Display for CommandLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandLineError::Empty => f.write_str("Type a command to run"),
            CommandLineError::UnterminatedQuote(quote) => write!(f, "Unterminated {quote}"),
        }
    }
}

/// The argv for a typed line: its words for a simple command, `["sh", "-c", line]` for a line
/// that needs a shell.
pub fn command_argv(line: &str) -> Result<Vec<String>, CommandLineError> {
    let split = split(line)?;
    if split.needs_shell {
        return Ok(vec!["sh".into(), "-c".into(), line.trim().to_string()]);
    }
    Ok(split.words)
}

/// The words of a line, quotes and backslashes removed, as a shell splits them (without
/// expanding anything).
pub fn split_words(line: &str) -> Result<Vec<String>, CommandLineError> {
    split(line).map(|split| split.words)
}

struct Split {
    words: Vec<String>,
    /// Something a shell would expand or interpret appeared outside single quotes.
    needs_shell: bool,
}

fn split(line: &str) -> Result<Split, CommandLineError> {
    let mut words = Vec::new();
    let mut needs_shell = false;
    // A word in progress; `Some("")` after `''`, an empty argument.
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(done) = word.take() {
                    words.push(done);
                }
            }
            '\'' => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => text.push(c),
                        None => return Err(CommandLineError::UnterminatedQuote('\'')),
                    }
                }
            }
            '"' => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => text.push(c),
                            Some(c) => {
                                text.push('\\');
                                text.push(c);
                            }
                            None => return Err(CommandLineError::UnterminatedQuote('"')),
                        },
                        Some(c) => {
                            needs_shell |= matches!(c, '$' | '`');
                            text.push(c);
                        }
                        None => return Err(CommandLineError::UnterminatedQuote('"')),
                    }
                }
            }
            '\\' => {
                // A trailing backslash is a line continuation in a shell: nothing to escape.
                if let Some(escaped) = chars.next() {
                    word.get_or_insert_with(String::new).push(escaped);
                }
            }
            c => {
                let starts_word = word.is_none();
                needs_shell |= "|&;<>()$`*?[".contains(c)
                    || (starts_word && matches!(c, '~' | '#'))
                    || (c == '=' && words.is_empty());
                word.get_or_insert_with(String::new).push(c);
            }
        }
    }
    words.extend(word);
    if words.is_empty() {
        return Err(CommandLineError::Empty);
    }
    Ok(Split { words, needs_shell })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        split_words(line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    #[test]
    fn bash_first_then_sh_when_bash_is_missing() {
        assert_eq!(Shell::DEFAULT.command(), ["bash"]);
        let oci = "OCI runtime exec failed: exec failed: unable to start container process: \
                   exec: \"bash\": executable file not found in $PATH: unknown";
        let missing = ExecEnd::Failed(oci.into());
        assert_eq!(
            next_default_shell(Shell::Bash, false, &missing),
            Some(Shell::Sh)
        );
        assert_eq!(
            next_default_shell(Shell::Bash, false, &ExecEnd::Exited(127)),
            Some(Shell::Sh)
        );
        assert_eq!(
            next_default_shell(Shell::Bash, false, &ExecEnd::Exited(126)),
            Some(Shell::Sh)
        );
        // sh is the last resort.
        assert_eq!(next_default_shell(Shell::Sh, false, &missing), None);
    }

    #[test]
    fn a_shell_that_ran_is_not_replaced() {
        assert_eq!(
            next_default_shell(Shell::Bash, true, &ExecEnd::Exited(127)),
            None
        );
        assert_eq!(
            next_default_shell(Shell::Bash, false, &ExecEnd::Exited(0)),
            None
        );
        assert_eq!(
            next_default_shell(Shell::Bash, false, &ExecEnd::ConnectionLost),
            None
        );
        let not_running = ExecEnd::Failed("container \"web\" is not running".into());
        assert_eq!(next_default_shell(Shell::Bash, false, &not_running), None);
    }

    #[test]
    fn words_split_like_a_shell_without_expanding() {
        assert_eq!(words("  ls   -la /tmp "), ["ls", "-la", "/tmp"]);
        assert_eq!(
            words(r#"echo 'a  b' "c d" e\ f"#),
            ["echo", "a  b", "c d", "e f"]
        );
        assert_eq!(
            words(r#"printf "say \"hi\" \\ \n""#),
            ["printf", r#"say "hi" \ \n"#]
        );
        assert_eq!(words("grep '' file"), ["grep", "", "file"]);
        assert_eq!(words(r#"a'b'"c"d"#), ["abcd"]);
        assert_eq!(words(r"echo \$HOME"), ["echo", "$HOME"]);
        assert_eq!(words("cat ./a#b"), ["cat", "./a#b"]);
    }

    #[test]
    fn broken_lines_are_errors() {
        assert_eq!(split_words("   "), Err(CommandLineError::Empty));
        assert_eq!(
            split_words("echo 'oops"),
            Err(CommandLineError::UnterminatedQuote('\''))
        );
        assert_eq!(
            split_words(r#"echo "oops\"#),
            Err(CommandLineError::UnterminatedQuote('"'))
        );
        assert_eq!(
            CommandLineError::UnterminatedQuote('"').to_string(),
            "Unterminated \""
        );
    }

    #[test]
    fn lines_needing_a_shell_run_in_sh() {
        for line in [
            "ps aux | grep nginx",
            "cd /tmp && ls",
            "echo $HOME",
            "echo \"$HOME\"",
            "ls *.log",
            "cat ~/.profile",
            "FOO=1 env",
            "date; hostname",
            "echo hi > /tmp/x",
            "ls # comment",
        ] {
            assert_eq!(
                command_argv(line),
                Ok(vec!["sh".into(), "-c".into(), line.into()]),
                "{line}"
            );
        }
        assert_eq!(command_argv("ls -l 'a|b'"), Ok(words("ls -l 'a|b'")));
        assert_eq!(command_argv("env a=b"), Ok(words("env a=b")));
        assert_eq!(
            command_argv("echo '$HOME'"),
            Ok(vec!["echo".into(), "$HOME".into()])
        );
    }
}
