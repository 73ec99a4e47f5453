//! Turning what the model sent into an input the tool can trust: coercion of near-miss types, then
//! JSON Schema validation with messages that name the field.

mod coerce;
mod validate;

pub use coerce::coerce_to_schema;
pub use validate::{CompiledSchema, SchemaError};
