// The terminal of Kube Atlas: xterm.js behind a small API that the wasm side calls
// (src/components/terminal/bundle.rs). Bundled by esbuild into dist/kube-atlas-terminal.js
// and imported only when a Terminal tab first opens, so it costs nothing at page start.
//
// The wasm side owns the session (the WebSocket, the channel protocol, how it ended); this
// only draws bytes and reports keys and sizes. Output is written as terminal data, never as
// HTML: xterm.js draws cells, so `<b>` from a pod is four characters on the screen.

import { Terminal } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import xtermCss from "@xterm/xterm/css/xterm.css";

// Bytes per piece handed to xterm.js (see write below).
const WRITE_PIECE = 4096;

const MONO = 'ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, monospace';

let styled = false;
// xterm.js needs its stylesheet; added once, when the first terminal opens.
function addStyles() {
  if (styled) return;
  styled = true;
  const style = document.createElement("style");
  style.dataset.kubeAtlas = "xterm";
  style.textContent = xtermCss;
  document.head.appendChild(style);
}

function cssVariable(name, fallback) {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

// Ctrl+Shift+C copies the selection (Ctrl+C is the process's interrupt); pasting is the
// browser's paste event, which xterm.js turns into input (bracketed when the program asks).
function copyKeys(terminal) {
  return (event) => {
    if (event.type !== "keydown") return true;
    const copy = (event.ctrlKey || event.metaKey) && event.shiftKey && event.code === "KeyC";
    if (copy) {
      const text = terminal.getSelection();
      if (text && navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {});
      return false;
    }
    return true;
  };
}

// A terminal in `parent` that follows the parent's size. `onData(text)` gets what the user
// typed or pasted, `onResize(cols, rows)` each new size (and the first one). `convertEol`:
// output comes from a process without a TTY, whose bare newlines a terminal's line
// discipline would have turned into CRLF.
export function createTerminal(parent, onData, onResize, convertEol) {
  addStyles();
  const terminal = new Terminal({
    cursorBlink: true,
    convertEol: Boolean(convertEol),
    fontFamily: MONO,
    fontSize: 13,
    scrollback: 5000,
    screenReaderMode: false,
    theme: {
      background: cssVariable("--code-bg", "#1e1e1e"),
      foreground: cssVariable("--text", "#d4d4d4"),
      cursor: cssVariable("--text", "#d4d4d4"),
      selectionBackground: cssVariable("--selected", "#264f78"),
    },
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  terminal.open(parent);
  terminal.attachCustomKeyEventHandler(copyKeys(terminal));
  const dataListener = terminal.onData((data) => onData(data));
  const resizeListener = terminal.onResize(({ cols, rows }) => onResize(cols, rows));
  const refit = () => {
    // A hidden panel has no size: keep the last one.
    if (parent.clientWidth > 0 && parent.clientHeight > 0) fit.fit();
  };
  const observer = new ResizeObserver(refit);
  observer.observe(parent);
  refit();
  onResize(terminal.cols, terminal.rows);
  return {
    write(bytes) {
      // Copies: the wasm side passes a view into its memory, which is reused before
      // xterm.js's write queue reads it. In pieces: xterm.js yields to the page between the
      // pieces of its queue (every 12 ms), never inside one, and a server's message can hold
      // hundreds of kilobytes.
      for (let at = 0; at < bytes.length; at += WRITE_PIECE) {
        terminal.write(bytes.slice(at, at + WRITE_PIECE));
      }
    },
    writeText(text) {
      terminal.write(text);
    },
    size() {
      return [terminal.cols, terminal.rows];
    },
    selection() {
      return terminal.getSelection();
    },
    paste(text) {
      terminal.paste(text);
    },
    focus() {
      terminal.focus();
    },
    reset() {
      terminal.reset();
    },
    // The screen's text, row by row (for tests and copying the whole screen).
    screenText() {
      const buffer = terminal.buffer.active;
      const lines = [];
      for (let i = 0; i < buffer.length; i++) {
        const line = buffer.getLine(i);
        if (line) lines.push(line.translateToString(true));
      }
      return lines.join("\n").replace(/\n+$/, "");
    },
    destroy() {
      observer.disconnect();
      dataListener.dispose();
      resizeListener.dispose();
      terminal.dispose();
    },
  };
}
