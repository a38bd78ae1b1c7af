//! Who a connection is: players, their session tokens, and which
//! connection each player is on now.
//!
//! Accounts and sessions live in the store. A token is random; the store
//! keeps only its SHA-256, so a copy of the database does not let anyone in.
//! Guest tokens start with `g_` and account tokens with `a_`; both are
//! presented the same way, in `hello` or as an HTTP bearer token.

use std::time::Duration;

use sha2::{Digest, Sha256};
use spades_protocol::ws::MAX_NAME_CHARS;
use spades_room::PlayerRef;
use spades_store::{Account, Store, StoreError};
use time::OffsetDateTime;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::UnicodeGeneralCategory;
use uuid::Uuid;

/// What a display name may be, in words for people: the message that comes
/// with `bad_name`. A unit test holds its length to `MAX_NAME_CHARS`.
pub const NAME_RULES: &str = "a name is 1 to 24 characters and starts with a visible one; \
     control characters, invisible ones (zero-width spaces and joiners, fillers, blank signs) \
     and those that change the direction of text are refused";

/// Checks and tidies a display name: see [`clean_text`], with names' length.
pub fn clean_name(name: &str) -> Option<String> {
    clean_text(name, MAX_NAME_CHARS)
}

/// The form of a name that is stored and compared: Unicode NFC, trimmed.
/// The same name typed with a precomposed letter or with a letter and a
/// combining accent then finds the same account.
pub fn normalize(text: &str) -> String {
    text.nfc().collect::<String>().trim().to_string()
}

/// Checks and tidies a name shown to others: [`normalize`]d, 1 to `max`
/// characters (Unicode scalar values), starting with a visible character,
/// and holding no character that could hide what the name is or change
/// how the text around it is shown (see [`Shown`]).
pub fn clean_text(text: &str, max: usize) -> Option<String> {
    let text = normalize(text);
    if !(1..=max).contains(&text.chars().count()) {
        return None;
    }
    let mut previous = None;
    for c in text.chars() {
        let shown = Shown::of(c);
        let fits = match (previous, shown) {
            (_, Shown::Hidden) => false,
            // A mark at the start would sit on whatever a client shows
            // before the name, and a selector there would select nothing.
            (None, shown) => shown == Shown::Visible,
            (Some(_), Shown::Visible | Shown::Space | Shown::Mark) => true,
            // After a space or another selector, a selector is nothing.
            (Some(before), Shown::Selector) => matches!(before, Shown::Visible | Shown::Mark),
        };
        if !fits {
            return None;
        }
        previous = Some(shown);
    }
    Some(text)
}

/// How a character shows in a name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shown {
    /// Drawn as itself: letters, digits, punctuation, symbols.
    Visible,
    /// A space between words.
    Space,
    /// A combining mark, drawn on the character before it.
    Mark,
    /// A variation selector, which picks the look of the character before it
    /// (the emoji or the text form of a symbol, say).
    Selector,
    /// Refused: control and format characters (zero-width spaces and
    /// joiners, the marks and embeddings that change the direction of text,
    /// soft hyphens, byte order marks, tags), line and paragraph
    /// separators, private-use, surrogate and unassigned code points, and
    /// the characters drawn as nothing that Unicode files among letters,
    /// marks and symbols.
    Hidden,
}

impl Shown {
    fn of(c: char) -> Shown {
        use unicode_properties::{GeneralCategory as Category, GeneralCategoryGroup as Group};
        if is_variation_selector(c) {
            return Shown::Selector;
        }
        if is_blank(c) {
            return Shown::Hidden;
        }
        match c.general_category_group() {
            // Control, format, surrogate, private-use and unassigned.
            Group::Other => Shown::Hidden,
            Group::Mark => Shown::Mark,
            Group::Separator if c.general_category() == Category::SpaceSeparator => Shown::Space,
            // The line and paragraph separators.
            Group::Separator => Shown::Hidden,
            Group::Letter | Group::Number | Group::Punctuation | Group::Symbol => Shown::Visible,
        }
    }
}

/// The variation selectors: the Mongolian free variation selectors, the
/// sixteen of the basic block and the 240 of the supplement.
fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{180B}'..='\u{180D}' | '\u{180F}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Characters drawn as nothing that are not control or format characters:
/// those Unicode calls default-ignorable among letters and marks (the
/// combining grapheme joiner, the Hangul fillers, the Khmer inherent
/// vowels), and the blank Braille pattern, a symbol with no dots.
fn is_blank(c: char) -> bool {
    matches!(
        c,
        '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}' | '\u{2800}' | '\u{3164}' | '\u{FFA0}'
    )
}

/// The kind of session a token opens.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TokenKind {
    Guest,
    Account,
}

impl TokenKind {
    fn prefix(self) -> &'static str {
        match self {
            TokenKind::Guest => "g_",
            TokenKind::Account => "a_",
        }
    }
}

/// A fresh random token: the prefix and 244 random bits in hexadecimal.
fn new_token(kind: TokenKind) -> String {
    format!(
        "{}{}{}",
        kind.prefix(),
        Uuid::new_v4().simple(),
        Uuid::new_v4().simple()
    )
}

/// A fresh secret of 244 random bits in hexadecimal (a reset link's).
pub fn new_secret() -> String {
    format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple())
}

pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Opens a session for an account and returns its token.
pub async fn open_session(
    store: &Store,
    account: Uuid,
    kind: TokenKind,
    lifetime: Duration,
) -> Result<String, StoreError> {
    let token = new_token(kind);
    let now = OffsetDateTime::now_utc();
    store
        .create_session(&token_hash(&token), account, now, now + lifetime)
        .await?;
    Ok(token)
}

/// The account a token belongs to, if the session is live.
pub async fn resolve(store: &Store, token: &str) -> Result<Option<Account>, StoreError> {
    Ok(resolve_session(store, token).await?.map(|(account, _)| account))
}

/// The account a token belongs to and when its session expires, if the
/// session is live.
pub async fn resolve_session(
    store: &Store,
    token: &str,
) -> Result<Option<(Account, OffsetDateTime)>, StoreError> {
    if token.len() > 128 {
        return Ok(None);
    }
    store.session(&token_hash(token), OffsetDateTime::now_utc()).await
}

/// Creates a guest account and its session, and returns the player and
/// the session's token.
pub async fn new_guest(
    store: &Store,
    name: &str,
    lifetime: Duration,
) -> Result<(PlayerRef, String), StoreError> {
    let id = Uuid::new_v4();
    store
        .create_account(id, name, None, OffsetDateTime::now_utc())
        .await?;
    let token = open_session(store, id, TokenKind::Guest, lifetime).await?;
    Ok((PlayerRef::new(id, name), token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(clean_name("  Ann "), Some("Ann".to_string()));
        assert_eq!(clean_name(""), None);
        assert_eq!(clean_name("   "), None);
        assert_eq!(clean_name(&"x".repeat(25)), None);
        assert_eq!(clean_name("a\u{7}b"), None);
        assert!(clean_name(&"é".repeat(24)).is_some());
        assert!(clean_name(&"x".repeat(24)).is_some());
    }

    #[test]
    fn names_are_stored_in_nfc_and_counted_after_it() {
        // An "e" and a combining acute accent make one precomposed letter.
        assert_eq!(clean_name("Jose\u{301}"), Some("Jos\u{E9}".to_string()));
        assert_eq!(clean_name("Jose\u{301}"), clean_name("Jos\u{E9}"));
        assert!(
            clean_name(&"e\u{301}".repeat(24)).is_some(),
            "24 letters once composed"
        );
        assert_eq!(normalize(" Jose\u{301}\u{3000}"), "Jos\u{E9}");
    }

    #[test]
    fn invisible_and_direction_changing_characters_are_refused() {
        let refused = [
            "\u{200B}",           // zero-width space
            "Ann\u{200B}",        // ... anywhere in the name
            "An\u{200C}n",        // zero-width non-joiner
            "An\u{200D}n",        // zero-width joiner
            "\u{202E}evil",       // right-to-left override
            "evil\u{202A}",       // left-to-right embedding
            "a\u{2066}b\u{2069}", // isolates
            "a\u{200E}",          // left-to-right mark
            "a\u{200F}",          // right-to-left mark
            "a\u{61C}",           // Arabic letter mark
            "\u{FEFF}Ann",        // byte order mark
            "An\u{AD}n",          // soft hyphen
            "Ann\u{E0041}",       // a tag character
            "a\u{2060}b",         // word joiner
            "\u{115F}",           // Hangul choseong filler
            "\u{1160}",           // Hangul jungseong filler
            "\u{3164}",           // Hangul filler
            "\u{FFA0}",           // halfwidth Hangul filler
            "\u{2800}",           // blank Braille pattern
            "a\u{34F}",           // combining grapheme joiner
            "\u{FE0F}",           // a variation selector alone
            "a \u{FE0F}",         // ... after a space
            "\u{301}a",           // a combining mark with nothing before it
            "a\u{2028}b",         // line separator
            "a\u{E000}",          // private use
            "a\u{378}",           // unassigned
            "a\tb",               // control characters
            "a\u{85}b",
        ];
        for name in refused {
            assert_eq!(clean_name(name), None, "{name:?}");
        }
        let accepted = [
            "Ann Lee",
            "\u{2764}\u{FE0F}",                           // a heart shown as an emoji
            "1\u{FE0F}\u{20E3}",                          // a keycap
            "\u{845B}\u{E0100}",                          // an ideographic variation
            "\u{5F20}\u{4F1F}",                           // Chinese
            "\u{645}\u{62D}\u{645}\u{62F}",               // Arabic, which runs right to left by itself
            "\u{928}\u{92E}\u{938}\u{94D}\u{924}\u{947}", // Devanagari, with its combining signs
            "O'Brien-Smith",
        ];
        for name in accepted {
            assert!(clean_name(name).is_some(), "{name:?}");
        }
    }

    #[test]
    fn the_name_rules_say_the_length_in_force() {
        assert!(NAME_RULES.contains(&format!("1 to {MAX_NAME_CHARS} characters")));
    }

    #[test]
    fn tokens_are_distinct_and_typed() {
        let guest = new_token(TokenKind::Guest);
        let account = new_token(TokenKind::Account);
        assert!(guest.starts_with("g_") && account.starts_with("a_"));
        assert_eq!(guest.len(), 2 + 64);
        assert_ne!(token_hash(&guest), token_hash(&account));
    }
}
