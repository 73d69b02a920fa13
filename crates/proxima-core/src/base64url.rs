//! Base64url without padding (RFC 4648 §5): bytes as text that needs no escaping in a URL or
//! a JSON string. Share codes and the app's playback logs use it; written here because the
//! core takes no dependency for forty lines.

use std::fmt;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Why a text is not base64url.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Base64Error {
    /// The character at this 0-based position is outside the alphabet.
    BadCharacter { position: usize, character: char },
    /// The length leaves one stray character at the end: the text was cut or changed.
    StrayEnd,
}

impl fmt::Display for Base64Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Base64Error::BadCharacter { position, character } => {
                let shown: String = character.escape_default().collect();
                write!(f, "character {} ('{shown}') is not base64url", position + 1)
            }
            Base64Error::StrayEnd => f.write_str("a stray character at the end (cut off?)"),
        }
    }
}

pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        // A chunk of k bytes gives k + 1 characters.
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// The inverse of [`encode`]. Padding (`=`) is accepted at the end, since some tools add it.
pub fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return Err(Base64Error::StrayEnd);
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for (position, character) in text.char_indices() {
        let v = match character {
            'A'..='Z' => character as u32 - 'A' as u32,
            'a'..='z' => character as u32 - 'a' as u32 + 26,
            '0'..='9' => character as u32 - '0' as u32 + 52,
            '-' => 62,
            '_' => 63,
            _ => return Err(Base64Error::BadCharacter { position, character }),
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4648_vectors_and_round_trips() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded).unwrap(), plain.as_bytes());
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&all)).unwrap(), all);
        assert_eq!(decode("Zm9vYg=="), Ok(b"foob".to_vec()));
        assert_eq!(decode("Zm9%"), Err(Base64Error::BadCharacter { position: 3, character: '%' }));
        assert_eq!(decode("Zm9vY"), Err(Base64Error::StrayEnd));
    }
}
