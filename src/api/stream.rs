//! Streamed HTTP responses: the body handed over as text while it arrives, for pod logs with
//! `follow=true` and chunked watches (`?watch=true` over plain HTTP). Logged as an open stream
//! with its chunk count, like a WebSocket watch.

use std::ops::ControlFlow;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::{open, ApiError, ApiRequest, LoggedStream, Transport};

/// How a stream that did not fail ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEnd {
    /// The server ended the response (the whole body was delivered).
    Closed,
    /// The caller stopped reading (`on_chunk` returned `Break`); the response was cancelled.
    Stopped,
}

/// Sends `request` and calls `on_chunk` with the body's text as it arrives, until the server
/// ends the response or `on_chunk` breaks. Chunks end anywhere (in the middle of a line, never
/// of a UTF-8 character: the decoder keeps a split character for the next chunk).
///
/// Aborting `signal` cancels the request and the reading ([`ApiError::Aborted`]). A non-2xx
/// answer gives [`ApiError::from_response`] of its body; a connection that breaks mid-stream
/// gives [`ApiError::Unreachable`] (what was delivered before stays delivered).
pub async fn stream_text(
    request: &ApiRequest,
    signal: Option<&web_sys::AbortSignal>,
    mut on_chunk: impl FnMut(&str) -> ControlFlow<()>,
) -> Result<StreamEnd, ApiError> {
    let log = LoggedStream::start(request, Transport::Stream);
    let finish =
        |status: Option<u16>, bytes: usize, error: Option<String>| log.finish(status, bytes, error);
    let aborted = || signal.is_some_and(web_sys::AbortSignal::aborted);
    let response = match open(request, signal).await {
        Ok(response) => response,
        Err(error) => {
            finish(None, 0, Some(error.log_text()));
            return Err(error.into_api_error());
        }
    };
    let status = response.status();
    if !(200..300).contains(&status) {
        // Errors are small Status documents: read whole.
        let body = response.text().await.unwrap_or_default();
        let error = ApiError::from_response(status, &body);
        finish(Some(status), body.len(), Some(error.to_string()));
        return Err(error);
    }
    let Some(body) = response.body() else {
        // No body at all (e.g. 204): an empty stream.
        finish(Some(status), 0, None);
        return Ok(StreamEnd::Closed);
    };
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let decoder = match web_sys::TextDecoder::new_with_label("utf-8") {
        Ok(decoder) => decoder,
        Err(error) => {
            let message = format!("no UTF-8 decoder: {error:?}");
            finish(Some(status), 0, Some(message.clone()));
            // Nothing will read the body: let the connection go.
            drop(reader.cancel());
            return Err(ApiError::Unreachable(message));
        }
    };
    let streaming = web_sys::TextDecodeOptions::new();
    streaming.set_stream(true);
    let mut bytes = 0;
    loop {
        let read = match JsFuture::from(reader.read()).await {
            Ok(read) => read.unchecked_into::<web_sys::ReadableStreamReadResult>(),
            Err(error) => {
                let cancelled = aborted();
                let text = if cancelled {
                    "cancelled".to_string()
                } else {
                    format!("the stream broke off: {}", js_error_text(&error))
                };
                finish(Some(status), bytes, Some(text.clone()));
                return Err(if cancelled {
                    ApiError::Aborted
                } else {
                    ApiError::Unreachable(text)
                });
            }
        };
        let (text, done) = if read.get_done().unwrap_or(false) {
            // The end: whatever the decoder held back (an incomplete character) comes out.
            (decoder.decode().unwrap_or_default(), true)
        } else {
            let Ok(chunk) = read.get_value().dyn_into::<js_sys::Uint8Array>() else {
                continue;
            };
            bytes += chunk.length() as usize;
            log.message(chunk.length() as usize);
            let text = decoder
                .decode_with_js_u8_array_and_options(&chunk, &streaming)
                .unwrap_or_default();
            (text, false)
        };
        if !text.is_empty() && on_chunk(&text).is_break() {
            // The promise only says when the cancel is done; nothing waits for it.
            drop(reader.cancel());
            finish(Some(status), bytes, None);
            return Ok(StreamEnd::Stopped);
        }
        if done {
            finish(Some(status), bytes, None);
            return Ok(StreamEnd::Closed);
        }
    }
}

/// The message of a JS error (a `DOMException`, `TypeError`...), or its debug form.
fn js_error_text(error: &wasm_bindgen::JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|| format!("{error:?}"))
}
