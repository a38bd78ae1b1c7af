//! How the API's times are described in its schemas.

use schemars::JsonSchema;

/// A time as the API writes it: an RFC 3339 string in UTC.
pub(crate) struct Rfc3339;

impl JsonSchema for Rfc3339 {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Rfc3339".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "format": "date-time"})
    }
}
