//! What happens to errors on their way out: sanitised before the model sees them, classified before
//! telemetry sees them.

mod classify;
mod sanitize;

pub use classify::ErrorClass;
pub use sanitize::sanitize_for_model;
