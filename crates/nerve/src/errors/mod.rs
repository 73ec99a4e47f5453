//! What happens to errors on their way out: sanitised before the model sees them, classified before
//! telemetry sees them.

mod classify;
mod sanitize;
mod wrapper;

pub use classify::ErrorClass;
pub use sanitize::sanitize_for_model;
pub use wrapper::{tool_use_error_message, wrap_tool_use_error};
