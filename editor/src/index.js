// The YAML editor of Kube Atlas: CodeMirror 6 behind a small API that the wasm side calls
// (src/components/code_editor.rs). Bundled by esbuild into dist/kube-atlas-editor.js and
// imported by the app only when an editor first opens, so it costs nothing at page start.
//
// No eval, no `new Function`, no inline scripts. CodeMirror puts its styles in <style>
// elements in the document head (style-mod); a Content-Security-Policy has to allow them
// (style-src 'unsafe-inline', or a nonce through EditorView.cspNonce), unless the editor is
// created with `isolateStyles: true`: then it lives in a shadow root of `parent` and its styles
// go to that root's adoptedStyleSheets, which `style-src 'self'` allows (measured in
// Chromium). The page's CSS variables still reach it (custom properties inherit into shadow
// trees). The lint markers below draw without the data: images of CodeMirror's default theme.

import { basicSetup } from "codemirror";
import { isolateHistory } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { MergeView } from "@codemirror/merge";
import { Annotation, Compartment, EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { tags } from "@lezer/highlight";

const MONO = 'ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, monospace';

// Colours are the page's own CSS variables (style/main.css), which switch with
// prefers-color-scheme; only CodeMirror's base theme needs telling (darkTheme, below).
const pageTheme = EditorView.theme({
  "&": {
    color: "var(--text)",
    backgroundColor: "var(--code-bg)",
    border: "1px solid var(--border)",
    borderRadius: "6px",
    fontSize: "12.5px",
  },
  "&.cm-focused": { outline: "2px solid var(--accent)", outlineOffset: "-1px" },
  ".cm-scroller": { fontFamily: MONO, lineHeight: "1.5", overflow: "auto" },
  ".cm-content": { caretColor: "var(--text)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--text)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
    { backgroundColor: "var(--selected)" },
  ".cm-gutters": {
    backgroundColor: "var(--panel-2)",
    color: "var(--muted)",
    borderRight: "1px solid var(--border)",
    borderRadius: "6px 0 0 6px",
  },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--accent-soft) 45%, transparent)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--accent-soft)", color: "var(--text)" },
  ".cm-selectionMatch": { backgroundColor: "color-mix(in srgb, var(--accent) 18%, transparent)" },
  "&.cm-focused .cm-matchingBracket": {
    backgroundColor: "color-mix(in srgb, var(--ok) 25%, transparent)",
    outline: "1px solid color-mix(in srgb, var(--ok) 60%, transparent)",
  },
  "&.cm-focused .cm-nonmatchingBracket": {
    backgroundColor: "color-mix(in srgb, var(--bad) 25%, transparent)",
  },
  ".cm-searchMatch": {
    backgroundColor: "color-mix(in srgb, var(--warn) 30%, transparent)",
    outline: "1px solid color-mix(in srgb, var(--warn) 70%, transparent)",
  },
  ".cm-searchMatch.cm-searchMatch-selected": {
    backgroundColor: "color-mix(in srgb, var(--accent) 35%, transparent)",
  },
  ".cm-foldPlaceholder": {
    backgroundColor: "var(--panel-2)",
    border: "1px solid var(--border)",
    color: "var(--muted)",
  },
  ".cm-panels": { backgroundColor: "var(--panel-2)", color: "var(--text)" },
  ".cm-panels.cm-panels-top": { borderBottom: "1px solid var(--border)" },
  ".cm-panels.cm-panels-bottom": { borderTop: "1px solid var(--border)" },
  ".cm-textfield": {
    backgroundColor: "var(--panel)",
    color: "var(--text)",
    border: "1px solid var(--border)",
    borderRadius: "4px",
  },
  ".cm-button": {
    backgroundImage: "none",
    backgroundColor: "var(--panel)",
    color: "var(--text)",
    border: "1px solid var(--border)",
    borderRadius: "4px",
  },
  ".cm-tooltip": {
    backgroundColor: "var(--panel)",
    color: "var(--text)",
    border: "1px solid var(--border)",
  },
  ".cm-tooltip-autocomplete > ul > li[aria-selected]": {
    backgroundColor: "var(--selected)",
    color: "var(--text)",
  },
  // Lint: a wavy underline and a dot in the gutter, in the page's colours (CodeMirror's own
  // markers are data: SVG images, which an img-src policy would also have to allow).
  ".cm-lintRange": { backgroundImage: "none", textDecorationLine: "underline", textDecorationStyle: "wavy", textDecorationSkipInk: "none" },
  ".cm-lintRange-error": { textDecorationColor: "var(--bad)" },
  ".cm-lintRange-warning": { textDecorationColor: "var(--warn)" },
  ".cm-lintRange-info": { textDecorationColor: "var(--accent)" },
  ".cm-lintRange-hint": { textDecorationColor: "var(--muted)" },
  ".cm-lintPoint:after": { borderBottomColor: "var(--bad)" },
  ".cm-lint-marker": { content: "normal", width: "0.7em", height: "0.7em", borderRadius: "50%", margin: "0.3em 0.15em" },
  ".cm-lint-marker-error": { content: "normal", backgroundColor: "var(--bad)" },
  ".cm-lint-marker-warning": { content: "normal", backgroundColor: "var(--warn)" },
  ".cm-lint-marker-info": { content: "normal", backgroundColor: "var(--accent)" },
  ".cm-diagnostic-error": { borderLeftColor: "var(--bad)" },
  ".cm-diagnostic-warning": { borderLeftColor: "var(--warn)" },
  ".cm-diagnostic-info": { borderLeftColor: "var(--accent)" },
});

const pageHighlight = HighlightStyle.define([
  { tag: tags.definition(tags.propertyName), color: "var(--accent)" },
  { tag: [tags.string, tags.attributeValue], color: "var(--ok)" },
  { tag: tags.special(tags.string), color: "var(--beta)" },
  { tag: [tags.labelName, tags.typeName, tags.keyword], color: "var(--alpha)" },
  { tag: [tags.comment, tags.lineComment], color: "var(--muted)", fontStyle: "italic" },
  { tag: [tags.separator, tags.punctuation, tags.squareBracket, tags.brace, tags.meta], color: "var(--muted)" },
  { tag: tags.invalid, color: "var(--bad)" },
]);

const darkQuery = () =>
  typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null;

/// Keeps CodeMirror's base theme (its light/dark variants) on the system setting, as the page is.
function followColorScheme(views) {
  const compartment = new Compartment();
  const query = darkQuery();
  const extension = compartment.of(EditorView.darkTheme.of(Boolean(query && query.matches)));
  const onChange = () => {
    for (const view of views()) {
      view.dispatch({ effects: compartment.reconfigure(EditorView.darkTheme.of(query.matches)) });
    }
  };
  return {
    extension,
    start() {
      if (query) query.addEventListener("change", onChange);
    },
    stop() {
      if (query) query.removeEventListener("change", onChange);
    },
  };
}

function commonExtensions(label, readOnly, readOnlyCompartment, scheme) {
  return [
    basicSetup,
    yaml(),
    syntaxHighlighting(pageHighlight),
    pageTheme,
    scheme.extension,
    readOnlyCompartment.of(EditorState.readOnly.of(Boolean(readOnly))),
    // tabindex: the content is the editor's one focus stop, and says so to accessibility
    // checkers that do not count contenteditable as focusable (its scroller must hold one).
    EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
  ];
}

/// Changes made by setText: not reported through onChange (the caller knows the text).
const External = Annotation.define();

const SEVERITIES = new Set(["error", "warning", "info", "hint"]);

/// UTF-16 offset in `text` of 1-based `column`, counted in Unicode characters (code points,
/// as Rust's `chars()`), clamped to the end of the line.
function offsetOfColumn(text, column) {
  let offset = 0;
  let remaining = column - 1;
  for (const ch of text) {
    if (remaining <= 0) break;
    offset += ch.length;
    remaining -= 1;
  }
  return offset;
}

/// `{line, column, message, severity}` (1-based) to CodeMirror diagnostics: the underline runs
/// from the column to the end of the word there (one character at least, when there is one).
function toDiagnostics(doc, list) {
  const found = [];
  for (const item of Array.isArray(list) ? list : []) {
    if (!item) continue;
    const lineNumber = Math.min(Math.max(1, Math.floor(Number(item.line) || 1)), doc.lines);
    const line = doc.line(lineNumber);
    const column = Math.max(1, Math.floor(Number(item.column) || 1));
    const from = line.from + offsetOfColumn(line.text, column);
    let to = from;
    while (to < line.to && !/\s/.test(line.text[to - line.from])) to += 1;
    if (to === from && to < line.to) to += 1;
    found.push({
      from,
      to,
      severity: SEVERITIES.has(item.severity) ? item.severity : "error",
      message: String(item.message ?? ""),
      source: item.source ? String(item.source) : undefined,
    });
  }
  return found;
}

/// The smallest replacement turning the document into `text`, so cursor, folds and scroll stay
/// where the text did not change; one undo step of its own.
function replaceText(view, text) {
  const current = view.state.doc.toString();
  if (current === text) return;
  const isHigh = (code) => code >= 0xd800 && code <= 0xdbff;
  const isLow = (code) => code >= 0xdc00 && code <= 0xdfff;
  let start = 0;
  const shortest = Math.min(current.length, text.length);
  while (start < shortest && current.charCodeAt(start) === text.charCodeAt(start)) start += 1;
  if (start > 0 && isHigh(current.charCodeAt(start - 1))) start -= 1;
  let endCurrent = current.length;
  let endText = text.length;
  while (
    endCurrent > start &&
    endText > start &&
    current.charCodeAt(endCurrent - 1) === text.charCodeAt(endText - 1)
  ) {
    endCurrent -= 1;
    endText -= 1;
  }
  if (endCurrent < current.length && isLow(current.charCodeAt(endCurrent))) {
    endCurrent += 1;
    endText += 1;
  }
  view.dispatch({
    changes: { from: start, to: endCurrent, insert: text.slice(start, endText) },
    annotations: [External.of(true), isolateHistory.of("full")],
  });
}

/// Where the view goes: `parent` itself, or a fresh element in its (open) shadow root.
function mountPoint(parent, isolateStyles) {
  if (!isolateStyles) return { element: parent, root: undefined, remove() {} };
  const shadow = parent.shadowRoot || parent.attachShadow({ mode: "open" });
  const element = document.createElement("div");
  shadow.appendChild(element);
  // `root` too: a merge view builds its editors before it is attached, and without it they
  // would put their styles in the document.
  return { element, root: shadow, remove: () => element.remove() };
}

function applyMaxHeight(dom, maxHeight) {
  if (maxHeight) dom.style.maxHeight = String(maxHeight);
}

/**
 * An editor for YAML in `parent`.
 * options: { readOnly?: boolean, label?: string (aria-label, default "YAML editor"),
 *            maxHeight?: CSS length (default "70vh"), isolateStyles?: boolean (see the top) }
 * `onChange(text)` is called after each change the user makes (not after setText).
 */
export function createEditor(parent, text, onChange, options = {}) {
  const opts = options || {};
  const readOnly = new Compartment();
  let view = null;
  const scheme = followColorScheme(() => (view ? [view] : []));
  const mount = mountPoint(parent, opts.isolateStyles);
  view = new EditorView({
    parent: mount.element,
    root: mount.root,
    state: EditorState.create({
      doc: String(text ?? ""),
      extensions: [
        commonExtensions(opts.label || "YAML editor", opts.readOnly, readOnly, scheme),
        lintGutter(),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged || typeof onChange !== "function") return;
          if (update.transactions.every((tr) => tr.annotation(External))) return;
          onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  applyMaxHeight(view.dom, opts.maxHeight ?? "70vh");
  scheme.start();
  let destroyed = false;
  return {
    getText() {
      return destroyed ? "" : view.state.doc.toString();
    },
    setText(next) {
      if (!destroyed) replaceText(view, String(next ?? ""));
    },
    setDiagnostics(list) {
      if (!destroyed) view.dispatch(setDiagnostics(view.state, toDiagnostics(view.state.doc, list)));
    },
    setReadOnly(value) {
      if (!destroyed) {
        view.dispatch({ effects: readOnly.reconfigure(EditorState.readOnly.of(Boolean(value))) });
      }
    },
    focus() {
      if (!destroyed) view.focus();
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      scheme.stop();
      view.destroy();
      mount.remove();
    },
  };
}

/**
 * Two read-only YAML documents side by side with their differences marked.
 * options: { originalLabel?, modifiedLabel? (aria-labels), collapseUnchanged?: boolean (default
 *            true: long unchanged stretches fold away), maxHeight?: CSS length (default "70vh"),
 *            isolateStyles?: boolean (see the top) }
 */
export function createMergeView(parent, original, modified, options = {}) {
  const opts = options || {};
  let merge = null;
  const scheme = followColorScheme(() => (merge ? [merge.a, merge.b] : []));
  const side = (label) => commonExtensions(label, true, new Compartment(), scheme);
  const mount = mountPoint(parent, opts.isolateStyles);
  merge = new MergeView({
    parent: mount.element,
    root: mount.root,
    a: { doc: String(original ?? ""), extensions: side(opts.originalLabel || "Original YAML") },
    b: { doc: String(modified ?? ""), extensions: side(opts.modifiedLabel || "Modified YAML") },
    collapseUnchanged: opts.collapseUnchanged === false ? undefined : { margin: 3, minSize: 6 },
    gutter: true,
    highlightChanges: true,
  });
  applyMaxHeight(merge.dom, opts.maxHeight ?? "70vh");
  scheme.start();
  let destroyed = false;
  return {
    getOriginal() {
      return destroyed ? "" : merge.a.state.doc.toString();
    },
    getModified() {
      return destroyed ? "" : merge.b.state.doc.toString();
    },
    setTexts(nextOriginal, nextModified) {
      if (destroyed) return;
      replaceText(merge.a, String(nextOriginal ?? ""));
      replaceText(merge.b, String(nextModified ?? ""));
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      scheme.stop();
      merge.destroy();
      mount.remove();
    },
  };
}
