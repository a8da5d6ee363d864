//! Where a field the server names (`spec.replicas`, `spec.template.spec.containers[0].image`,
//! `metadata.labels[app]`) is in the editor's YAML text, so a 422's causes are marked at
//! their lines. Block-style YAML as the editor prints it: a key at some indent, its children
//! deeper, list items as `- `.

/// One step of a server field path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum FieldStep {
    Key(String),
    Index(usize),
}

/// `spec.containers[0].image` -> Key(spec), Key(containers), Index(0), Key(image); a
/// bracketed word (`labels[app]`, a map key) is a key.
fn steps(field: &str) -> Vec<FieldStep> {
    let mut out = Vec::new();
    for part in field.trim_start_matches('.').split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            out.push(FieldStep::Key(name.to_string()));
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let Some(end) = inner.find(']') else { break };
            let token = &inner[..end];
            out.push(match token.parse::<usize>() {
                Ok(index) => FieldStep::Index(index),
                Err(_) => FieldStep::Key(token.to_string()),
            });
            rest = &inner[end + 1..];
        }
    }
    out
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The key a line (or the rest of a list item's line) starts with, if it is `key: ...`.
fn key_of(content: &str) -> Option<&str> {
    let (key, after) = content.split_once(':')?;
    if !(after.is_empty() || after.starts_with(' ')) || key.contains(' ') && !key.starts_with('"') {
        return None;
    }
    Some(key.trim_matches(|c| c == '"' || c == '\''))
}

/// One open level while reading the text: a key or a list item, and its indent.
struct Frame {
    indent: usize,
    step: FieldStep,
    is_item: bool,
}

/// The field path each line shows (None for blank and comment lines), by indentation.
fn line_paths(text: &str) -> Vec<Option<Vec<FieldStep>>> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut next_index: std::collections::HashMap<Vec<FieldStep>, usize> = Default::default();
    let path = |stack: &[Frame]| stack.iter().map(|f| f.step.clone()).collect::<Vec<_>>();
    text.lines()
        .map(|line| {
            let indent = indent_of(line);
            let mut content = line.trim_start();
            if content.is_empty() || content.starts_with('#') || content == "---" {
                return None;
            }
            let dash = content.starts_with("- ") || content == "-";
            // Leave the levels this line is not inside of. A list item may sit at its
            // key's own indent (`containers:` then `- name:` below it, unindented).
            while let Some(top) = stack.last() {
                let outside = if dash {
                    top.indent > indent || (top.indent == indent && top.is_item)
                } else {
                    top.indent >= indent
                };
                if !outside {
                    break;
                }
                stack.pop();
            }
            let mut key_indent = indent;
            if dash {
                let parent = path(&stack);
                let index = next_index.entry(parent).or_insert(0);
                stack.push(Frame {
                    indent,
                    step: FieldStep::Index(*index),
                    is_item: true,
                });
                *index += 1;
                content = content.trim_start_matches('-').trim_start();
                key_indent = indent + 2;
            }
            if let Some(key) = key_of(content) {
                stack.push(Frame {
                    indent: key_indent,
                    step: FieldStep::Key(key.to_string()),
                    is_item: false,
                });
            }
            Some(path(&stack))
        })
        .collect()
}

/// The 1-based line of `field` in `text`, or of its nearest ancestor found there; None when
/// not even its first step is there.
pub fn line_of_field(text: &str, field: &str) -> Option<usize> {
    let wanted = steps(field);
    let mut best: Option<(usize, usize)> = None;
    for (index, shown) in line_paths(text).into_iter().enumerate() {
        let Some(shown) = shown else { continue };
        if shown.is_empty() || !wanted.starts_with(&shown) {
            continue;
        }
        if best.is_none_or(|(depth, _)| shown.len() > depth) {
            best = Some((shown.len(), index + 1));
        }
    }
    best.map(|(_, line)| line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: -1
  template:
    spec:
      containers:
      - name: web
        image: nginx
      - name: sidecar
        image: ''
        ports:
        - containerPort: 80
";

    #[test]
    fn fields_are_found_at_their_lines() {
        assert_eq!(line_of_field(DEPLOYMENT, "spec.replicas"), Some(8));
        assert_eq!(line_of_field(DEPLOYMENT, "metadata.name"), Some(4));
        assert_eq!(line_of_field(DEPLOYMENT, "metadata.labels[app]"), Some(6));
        assert_eq!(
            line_of_field(DEPLOYMENT, "spec.template.spec.containers[1].image"),
            Some(15)
        );
        assert_eq!(
            line_of_field(DEPLOYMENT, "spec.template.spec.containers[0].name"),
            Some(12)
        );
        assert_eq!(
            line_of_field(
                DEPLOYMENT,
                "spec.template.spec.containers[1].ports[0].containerPort"
            ),
            Some(17)
        );
    }

    #[test]
    fn indented_lists_and_block_strings_as_the_editor_prints_them() {
        let text = "data:\n  script: |\n    echo: hi\n  after: x\nspec:\n  ports:\n    - name: http\n      port: 80\n    - name: https\n      port: 443\n";
        assert_eq!(line_of_field(text, "spec.ports[1].port"), Some(10));
        assert_eq!(line_of_field(text, "spec.ports[0].name"), Some(7));
        assert_eq!(line_of_field(text, "data.after"), Some(4));
    }

    #[test]
    fn a_missing_field_points_at_its_nearest_ancestor() {
        // `spec.selector` is not in the text: its parent `spec` is.
        assert_eq!(line_of_field(DEPLOYMENT, "spec.selector"), Some(7));
        assert_eq!(line_of_field(DEPLOYMENT, "status.replicas"), None);
        // A same-named key deeper down is not taken for a top-level one.
        assert_eq!(line_of_field(DEPLOYMENT, "name"), None);
    }
}
