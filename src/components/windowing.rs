//! Windowing, shared by the virtual table and the pod logs: only the rows in view (plus a
//! margin) are drawn. `use_windowing` keeps a scroller's scroll position and visible height
//! and gives the index range to draw.

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Rows rendered beyond each edge of the viewport, so a fast scroll shows no gap.
const OVERSCAN: usize = 8;

/// What `use_windowing` windows.
#[derive(Clone, Copy)]
pub struct UseWindowingOptions {
    pub scroller: NodeRef<html::Div>,
    /// Every row's height in pixels (the stylesheet sets the same).
    pub row_height: f64,
    /// How many rows there are.
    pub count: Signal<usize>,
    /// The visible height assumed until the scroller is measured.
    pub initial_viewport: f64,
}

/// The window's inputs (the view writes them when it scrolls) and the rows to draw.
#[derive(Clone, Copy)]
pub struct UseWindowingReturn {
    pub scroll_top: RwSignal<f64>,
    pub viewport: RwSignal<f64>,
    /// `[start, end)` of the rows to draw.
    pub range: Memo<(usize, usize)>,
}

impl UseWindowingReturn {
    /// Reads the scroller's scroll position and visible height again.
    pub fn measure(&self, scroller: &web_sys::Element) {
        self.scroll_top.set(f64::from(scroller.scroll_top()));
        self.viewport.set(viewport_height(scroller));
    }
}

/// Follows the scroller's height from when it is in the page until the view goes.
pub fn use_windowing(options: UseWindowingOptions) -> UseWindowingReturn {
    let UseWindowingOptions {
        scroller,
        row_height,
        count,
        initial_viewport,
    } = options;
    let scroll_top = RwSignal::new(0.0_f64);
    let viewport = RwSignal::new(initial_viewport);
    follow_viewport_height(scroller, viewport);
    let range = Memo::new(move |_| {
        visible_range_of_rows(scroll_top.get(), viewport.get(), count.get(), row_height)
    });
    UseWindowingReturn {
        scroll_top,
        viewport,
        range,
    }
}

/// The visible index range for a scroll position over rows of `row_height`: `[start, end)`
/// clamped to `count`.
pub fn visible_range_of_rows(
    scroll_top: f64,
    viewport: f64,
    count: usize,
    row_height: f64,
) -> (usize, usize) {
    let first = (scroll_top.max(0.0) / row_height).floor() as usize;
    let shown = (viewport.max(0.0) / row_height).ceil() as usize + 1;
    let start = first.saturating_sub(OVERSCAN).min(count);
    let end = (first + shown + OVERSCAN).min(count);
    (start, end)
}

/// The height of a scrolling container, never more than the window's: a container left
/// without a height (no stylesheet) must not turn 100,000 rows into 100,000 DOM rows.
pub fn viewport_height(scroller: &web_sys::Element) -> f64 {
    let window_height = web_sys::window()
        .and_then(|w| w.inner_height().ok())
        .and_then(|h| h.as_f64())
        .unwrap_or(f64::MAX);
    f64::from(scroller.client_height()).min(window_height)
}

/// A ResizeObserver and the callback it calls (kept alive as long as it observes).
struct ResizeWatch {
    observer: web_sys::ResizeObserver,
    _on_resize: wasm_bindgen::closure::Closure<dyn FnMut()>,
}

/// Keeps `viewport` equal to the scroller's visible height, from when it is in the page until
/// the component goes. Measured by a ResizeObserver, not once at mount: a page is built before
/// it is attached (a lazily loaded page is built out of the document, where every height is 0),
/// and the height changes with the window and with what sits above the scroller (an error,
/// the request log opening).
pub fn follow_viewport_height(scroller: NodeRef<html::Div>, viewport: RwSignal<f64>) {
    let watching = StoredValue::new_local(None::<ResizeWatch>);
    Effect::new(move |_| {
        let Some(el) = scroller.get() else {
            return;
        };
        viewport.set(viewport_height(&el));
        let on_resize = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
            if let Some(el) = scroller.get_untracked() {
                viewport.set(viewport_height(&el));
            }
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) {
            observer.observe(&el);
            let previous = watching.try_update_value(|slot| {
                slot.replace(ResizeWatch {
                    observer,
                    _on_resize: on_resize,
                })
            });
            if let Some(Some(previous)) = previous {
                previous.observer.disconnect();
            }
        }
    });
    on_cleanup(move || {
        if let Some(Some(watch)) = watching.try_update_value(Option::take) {
            watch.observer.disconnect();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_covers_the_viewport_with_a_margin() {
        assert_eq!(
            visible_range_of_rows(0.0, 300.0, 100_000, 30.0),
            (0, 11 + OVERSCAN)
        );
        let (start, end) = visible_range_of_rows(30_000.0, 300.0, 100_000, 30.0);
        assert_eq!(start, 1000 - OVERSCAN);
        assert_eq!(end, 1000 + 11 + OVERSCAN);
        // Clamped to the list, also when scrolled past its end after it shrank.
        assert_eq!(visible_range_of_rows(30_000.0, 300.0, 5, 30.0), (5, 5));
        assert_eq!(visible_range_of_rows(0.0, 300.0, 0, 30.0), (0, 0));
    }
}
