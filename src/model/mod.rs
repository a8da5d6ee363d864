//! Pure discovery model (placeholder while building).
