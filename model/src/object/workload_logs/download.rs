//! A workload's merged logs as one text file: `[pod/container] time message` per line.

use crate::object::pod_logs::safe_file_stem;
use crate::object::workload_logs::merge::LogLine;

/// One line as downloaded: `[web-7d4b9c-x2x9q/app] 2026-12-07T01:02:03.123456789Z message`;
/// a line that came without a time has none (`[pod/container] message`): only what the
/// server sent is written.
pub fn download_line(line: &LogLine) -> String {
    match line.time {
        Some(time) => format!("[{}] {} {}", line.stream, time, line.text),
        None => format!("[{}] {}", line.stream, line.text),
    }
}

/// `lines` (all held, or those shown) as one text, a newline after each.
pub fn download_text<'a>(lines: impl IntoIterator<Item = &'a LogLine>) -> String {
    let mut text = String::new();
    for line in lines {
        text.push_str(&download_line(line));
        text.push('\n');
    }
    text
}

/// `deployment-web-logs.txt`: the kind in lowercase and the name, safe on every file system.
pub fn download_file_name(kind: &str, name: &str) -> String {
    let kind = kind.to_ascii_lowercase();
    let parts: Vec<&str> = [kind.as_str(), name]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect();
    format!("{}-logs.txt", safe_file_stem(&parts.join("-"), "workload"))
}
