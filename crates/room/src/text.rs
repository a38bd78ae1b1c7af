//! A message's JSON text, made once and shared by every connection it is
//! sent to.

use bytes::Bytes;

/// UTF-8 text held in reference-counted bytes, so that a message sent to a
/// room's five connections is written once and cloned by a counter.
///
/// The room crate knows no WebSocket library: the edge turns a `Text`
/// into its library's frame, which checks the UTF-8 once more (a few tens
/// of nanoseconds for a message of the protocol's size).
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Text(Bytes);

impl Text {
    pub const fn from_static(text: &'static str) -> Text {
        Text(Bytes::from_static(text.as_bytes()))
    }

    /// The text. Every constructor takes a `str`, so the bytes are UTF-8;
    /// reading them back checks that again, which is why the paths taken
    /// for every message use [`Text::into_bytes`] instead.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("a Text is made from UTF-8 only")
    }

    /// The text's bytes, read without a check.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The text's length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The bytes, for the WebSocket library.
    pub fn into_bytes(self) -> Bytes {
        self.0
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text(Bytes::from(text))
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text(Bytes::copy_from_slice(text.as_bytes()))
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Text;

    #[test]
    fn text_reads_back_as_it_was_made() {
        let owned = Text::from(String::from("{\"type\":\"pong\"}"));
        assert_eq!(owned.as_str(), "{\"type\":\"pong\"}");
        assert_eq!(Text::from("é♠"), Text::from(String::from("é♠")));
        assert_eq!(Text::from_static("ok").into_bytes().as_ref(), b"ok");
        assert_eq!(format!("{:?}", Text::from("a\"b")), "\"a\\\"b\"");
    }
}
