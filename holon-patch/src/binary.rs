//! `GIT binary patch` data: git's base85 lines, zlib-deflated, holding either the
//! new content (`literal`) or a git delta against the old (`delta`); blob ids check
//! both sides, as `git apply` does.

use std::io::Read;

const ALPHABET: &[u8; 85] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

fn digit(byte: u8) -> Option<u32> {
    ALPHABET.iter().position(|c| *c == byte).map(|at| at as u32)
}

/// One base85 line: a length letter (`A`-`Z` = 1-26, `a`-`z` = 27-52), then groups
/// of five digits, four bytes each.
pub(crate) fn decode_line(line: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let (&first, digits) = line.split_first().ok_or("an empty binary data line")?;
    let length = match first {
        b'A'..=b'Z' => usize::from(first - b'A') + 1,
        b'a'..=b'z' => usize::from(first - b'a') + 27,
        _ => return Err(format!("a bad binary line length `{}`", first as char)),
    };
    if digits.len() % 5 != 0 || digits.len() / 5 * 4 < length {
        return Err("a binary data line of the wrong length".into());
    }
    let mut decoded = Vec::with_capacity(digits.len() / 5 * 4);
    for group in digits.chunks(5) {
        let mut value: u32 = 0;
        for byte in group {
            let d = digit(*byte).ok_or("a character outside git's base85 alphabet")?;
            value = value
                .checked_mul(85)
                .and_then(|v| v.checked_add(d))
                .ok_or("a base85 group out of range")?;
        }
        decoded.extend_from_slice(&value.to_be_bytes());
    }
    out.extend_from_slice(&decoded[..length]);
    Ok(())
}

/// Inflates the zlib stream; it must hold exactly `size` bytes.
pub(crate) fn inflate(deflated: &[u8], size: usize) -> Result<Vec<u8>, String> {
    let mut data = Vec::with_capacity(size.min(1 << 24));
    flate2::read::ZlibDecoder::new(deflated)
        .take((size as u64).saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|error| format!("the binary data does not inflate: {error}"))?;
    if data.len() != size {
        return Err(format!(
            "the binary data inflates to {} bytes, not the {size} its header says",
            data.len()
        ));
    }
    Ok(data)
}

fn varint(delta: &[u8], at: &mut usize) -> Result<usize, String> {
    let mut value = 0usize;
    let mut shift = 0;
    loop {
        let byte = *delta.get(*at).ok_or("the delta ends in its header")?;
        *at += 1;
        value |= usize::from(byte & 0x7f)
            .checked_shl(shift)
            .ok_or("a delta size out of range")?;
        shift += 7;
        if byte & 0x80 == 0 || shift > 63 {
            return Ok(value);
        }
    }
}

/// Applies a git delta (copy and insert instructions) to `base`.
pub(crate) fn apply_delta(base: &[u8], delta: &[u8]) -> Result<Vec<u8>, String> {
    let mut at = 0;
    if varint(delta, &mut at)? != base.len() {
        return Err("the delta is for a file of another size".into());
    }
    let size = varint(delta, &mut at)?;
    let mut out = Vec::with_capacity(size.min(1 << 24));
    while at < delta.len() {
        let command = delta[at];
        at += 1;
        if command & 0x80 != 0 {
            let mut field = |bits: u8, shift: u32, value: &mut usize| -> Result<(), String> {
                if command & bits != 0 {
                    let byte = *delta.get(at).ok_or("the delta ends in a copy")?;
                    at += 1;
                    *value |= usize::from(byte) << shift;
                }
                Ok(())
            };
            let (mut offset, mut length) = (0usize, 0usize);
            for (bit, shift) in [(0x01, 0), (0x02, 8), (0x04, 16), (0x08, 24)] {
                field(bit, shift, &mut offset)?;
            }
            for (bit, shift) in [(0x10, 0), (0x20, 8), (0x40, 16)] {
                field(bit, shift, &mut length)?;
            }
            if length == 0 {
                length = 0x10000;
            }
            let piece = base
                .get(offset..offset.saturating_add(length))
                .ok_or("the delta copies past the end of the file")?;
            out.extend_from_slice(piece);
        } else if command != 0 {
            let piece = delta
                .get(at..at + usize::from(command))
                .ok_or("the delta ends in an insert")?;
            out.extend_from_slice(piece);
            at += usize::from(command);
        } else {
            return Err("the delta has a zero instruction".into());
        }
    }
    if out.len() != size {
        return Err("the delta makes a file of another size than it says".into());
    }
    Ok(out)
}

/// git's blob id of `content`: SHA-1 of `blob <len>\0<content>`.
pub(crate) fn blob_id(content: &[u8]) -> String {
    let mut hash = sha1_smol::Sha1::new();
    hash.update(format!("blob {}\0", content.len()).as_bytes());
    hash.update(content);
    hash.digest().to_string()
}

/// The id git writes for "no file".
pub(crate) const NO_FILE: &str = "0000000000000000000000000000000000000000";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_gits() {
        assert_eq!(blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
        assert_eq!(blob_id(b"a\n"), "78981922613b2afb6025042ff6bd878ac1994e85");
    }

    #[test]
    fn deltas_copy_and_insert() {
        // base "hello world", target "hello there": copy 6 bytes, insert "there".
        let delta = [11, 11, 0x91, 0, 6, 5, b't', b'h', b'e', b'r', b'e'];
        assert_eq!(apply_delta(b"hello world", &delta).unwrap(), b"hello there");
        assert!(apply_delta(b"short", &delta).is_err());
        assert!(apply_delta(b"hello world", &[11, 11, 0]).is_err());
    }

    #[test]
    fn base85_lines_decode() {
        let mut out = Vec::new();
        // git encodes the 4 bytes 0,0,0,0 as "00000" with length letter `D`.
        decode_line(b"D00000", &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 0]);
        assert!(decode_line(b"Z00000", &mut Vec::new()).is_err());
        assert!(decode_line(b"A0000", &mut Vec::new()).is_err());
    }
}
