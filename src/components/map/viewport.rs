//! Where the drawing sits in its frame: a scale and an offset, changed by dragging, the
//! wheel, the zoom buttons and Fit. The drawing's own coordinates (the model's layout) never
//! change with it, so panning and zooming move no node relative to another.

/// The smallest and largest scale: a 2,000-object map fits; a node's words stay readable.
const MIN_SCALE: f64 = 0.1;
const MAX_SCALE: f64 = 3.0;

/// A zoom button's step, and a wheel notch's.
pub const BUTTON_ZOOM: f64 = 1.25;
const WHEEL_ZOOM_PER_PIXEL: f64 = 0.0015;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub scale: f64,
    pub x: f64,
    pub y: f64,
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport {
            scale: 1.0,
            x: 0.0,
            y: 0.0,
        }
    }
}

impl Viewport {
    /// The SVG transform of the drawing's group.
    pub fn transform(&self) -> String {
        format!(
            "translate({:.1} {:.1}) scale({:.4})",
            self.x, self.y, self.scale
        )
    }

    /// Zoomed by `factor` around the frame point (`at_x`, `at_y`), which stays where it is.
    pub fn zoomed(self, factor: f64, at_x: f64, at_y: f64) -> Viewport {
        let scale = (self.scale * factor).clamp(MIN_SCALE, MAX_SCALE);
        let kept = scale / self.scale;
        Viewport {
            scale,
            x: at_x - (at_x - self.x) * kept,
            y: at_y - (at_y - self.y) * kept,
        }
    }

    /// Zoomed by a wheel's `delta_y` pixels (up zooms in).
    pub fn wheeled(self, delta_y: f64, at_x: f64, at_y: f64) -> Viewport {
        self.zoomed((-delta_y * WHEEL_ZOOM_PER_PIXEL).exp(), at_x, at_y)
    }

    /// Moved by a drag of (`dx`, `dy`) frame pixels.
    pub fn panned(self, dx: f64, dy: f64) -> Viewport {
        Viewport {
            x: self.x + dx,
            y: self.y + dy,
            ..self
        }
    }

    /// The whole drawing (`width` × `height`) in a frame of `frame_width` × `frame_height`,
    /// centred, never larger than its natural size.
    pub fn fit(width: f64, height: f64, frame_width: f64, frame_height: f64) -> Viewport {
        if width <= 0.0 || height <= 0.0 || frame_width <= 0.0 || frame_height <= 0.0 {
            return Viewport::default();
        }
        let scale = (frame_width / width)
            .min(frame_height / height)
            .clamp(MIN_SCALE, 1.0);
        Viewport {
            scale,
            x: (frame_width - width * scale) / 2.0,
            y: (frame_height - height * scale) / 2.0,
        }
    }

    /// The first view of a drawing: the whole of it when that is readable, else the left
    /// part (where the way in is) at `readable` scale, centred in height when it fits.
    pub fn first(
        width: f64,
        height: f64,
        frame_width: f64,
        frame_height: f64,
        readable: f64,
    ) -> Viewport {
        let fit = Viewport::fit(width, height, frame_width, frame_height);
        if fit.scale >= readable {
            return fit;
        }
        let y = (frame_height - height * readable) / 2.0;
        Viewport {
            scale: readable,
            x: 0.0,
            y: y.max(0.0),
        }
    }

    /// Moved just enough that the drawing's box (`x`, `y`, `width`, `height`) is inside the
    /// frame (the node the keyboard moved to).
    pub fn showing(self, x: f64, y: f64, width: f64, height: f64, frame: (f64, f64)) -> Viewport {
        let shift = |start: f64, size: f64, offset: f64, frame: f64| {
            let (from, to) = (
                start * self.scale + offset,
                (start + size) * self.scale + offset,
            );
            if from < 0.0 {
                -from
            } else if to > frame {
                (frame - to).max(-from)
            } else {
                0.0
            }
        };
        self.panned(
            shift(x, width, self.x, frame.0),
            shift(y, height, self.y, frame.1),
        )
    }
}
