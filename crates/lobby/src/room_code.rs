//! Room codes: what players type or share to find a room.

/// Letters and digits that cannot be confused with one another.
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/// A random room code: 6 characters for a public room, 10 for a private
/// one, whose code is its only protection.
pub fn new_code(private: bool) -> String {
    let length = if private { 10 } else { 6 };
    let random = uuid::Uuid::new_v4().as_u128();
    (0..length)
        .map(|i| CODE_ALPHABET[((random >> (5 * i)) & 31) as usize] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_use_the_unambiguous_alphabet() {
        for private in [false, true] {
            let code = new_code(private);
            assert_eq!(code.len(), if private { 10 } else { 6 });
            assert!(code.bytes().all(|b| CODE_ALPHABET.contains(&b)));
        }
        assert_ne!(new_code(false), new_code(false));
    }
}
