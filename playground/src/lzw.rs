//! LZW with codes of 9 to 12 bits, written most significant bit first: the compression of the
//! playground's links (`link.rs`: a case's JSON, a Tree session's steps), before base64url.
//! The table starts with the 256 bytes and grows to 4,096 codes; once full it stays as it is
//! (no reset code). The built-in case files are not compressed here: they come beside the
//! `.wasm` as `cases.json`, and the server's brotli or gzip shrinks them.

use std::collections::HashMap;

/// The most codes the table holds (12 bits).
const TABLE_MAX: usize = 4096;

/// The bits a code is written with while the table has `entries` entries: 9 to 12.
fn width(entries: usize) -> u32 {
    let mut w = 9;
    while w < 12 && entries > (1 << w) {
        w += 1;
    }
    w
}

struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl Bits {
    fn put(&mut self, code: u16, width: u32) {
        self.acc = (self.acc << width) | u32::from(code);
        self.n += width;
        while self.n >= 8 {
            self.n -= 8;
            self.out.push(((self.acc >> self.n) & 0xff) as u8);
        }
        self.acc &= (1 << self.n) - 1;
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(((self.acc << (8 - self.n)) & 0xff) as u8);
        }
        self.out
    }
}

/// LZW: each longest run already in the table written as its code.
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    let mut table: HashMap<(u16, u8), u16> = HashMap::new();
    let mut next = 256usize;
    let mut bits = Bits {
        out: Vec::new(),
        acc: 0,
        n: 0,
    };
    let Some((&first, rest)) = bytes.split_first() else {
        return Vec::new();
    };
    let mut w = u16::from(first);
    for &c in rest {
        if let Some(&code) = table.get(&(w, c)) {
            w = code;
            continue;
        }
        bits.put(w, width(next));
        if next < TABLE_MAX {
            table.insert((w, c), next as u16);
            next += 1;
        }
        w = u16::from(c);
    }
    bits.put(w, width(next));
    bits.finish()
}

/// [`compress`] undone; None for codes that no compression writes.
pub fn decompress(data: &[u8]) -> Option<Vec<u8>> {
    let mut table: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    let mut out = Vec::new();
    let mut prev: Option<Vec<u8>> = None;
    let (mut acc, mut n, mut at) = (0u32, 0u32, 0usize);
    loop {
        let w = width(if prev.is_none() { 256 } else { table.len() + 1 });
        while n < w {
            let Some(&b) = data.get(at) else {
                return Some(out);
            };
            at += 1;
            acc = (acc << 8) | u32::from(b);
            n += 8;
        }
        n -= w;
        let code = ((acc >> n) & ((1 << w) - 1)) as usize;
        acc &= (1 << n) - 1;
        let entry = match (table.get(code), &prev) {
            (Some(e), _) => e.clone(),
            (None, Some(p)) if code == table.len() => {
                let mut e = p.clone();
                e.push(*p.first()?);
                e
            }
            _ => return None,
        };
        out.extend_from_slice(&entry);
        if let Some(p) = prev {
            if table.len() < TABLE_MAX {
                let mut e = p;
                e.push(*entry.first()?);
                table.push(e);
            }
        }
        prev = Some(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts of every shape: empty, one byte, runs, the KwKwK case, past a full table, UTF-8.
    fn samples() -> Vec<Vec<u8>> {
        let mut v: Vec<Vec<u8>> = ["", "a", "ab", "aaaaaaa", "abababababab", "{\"é\": \"→\"}"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        let mut seed = 7u64;
        for len in [10, 300, 5_000, 60_000] {
            let mut bytes = Vec::with_capacity(len);
            for _ in 0..len {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                // Few symbols, so the table fills and long runs form.
                bytes.push(b"{}\":, abcxyz0123"[(seed >> 60) as usize]);
            }
            v.push(bytes);
        }
        v.push((0..=255u8).cycle().take(20_000).collect());
        v
    }

    #[test]
    fn compress_then_decompress_is_the_same_bytes() {
        for s in samples() {
            assert_eq!(
                decompress(&compress(&s)).as_deref(),
                Some(s.as_slice()),
                "{} bytes",
                s.len()
            );
        }
    }
}
