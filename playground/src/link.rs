//! A link that reproduces a case: `#v=2&spec=3.4.0&area=…&case=…`, the case's JSON compressed
//! (LZW, codes of 9 to 12 bits) and written in base64url. The link's format and the spec
//! version travel with it, so an older link still opens (format 1: the JSON in plain base64url)
//! or says why not, and a link made for another spec opens with a warning.

use crate::lzw::{compress, decompress};
use lembas_rules::conformance::Area;

/// The format this playground writes.
pub const LINK_VERSION: &str = "2";
/// The formats it reads.
const READS: &[&str] = &["1", "2"];

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url, without padding.
pub fn b64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            let idx = ((n >> (18 - 6 * i)) & 63) as usize;
            out.push(char::from(B64.get(idx).copied().unwrap_or(b'A')));
        }
    }
    out
}

/// base64url back to bytes; None for a character that is not one.
pub fn b64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in text.bytes() {
        let v = B64.iter().position(|x| *x == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Some(out)
}

/// A text as an address carries it: compressed, in base64url.
pub fn pack(text: &str) -> String {
    b64_encode(&compress(text.as_bytes()))
}

/// A packed text back; none when it is damaged.
pub fn unpack(packed: &str) -> Option<String> {
    String::from_utf8(decompress(&b64_decode(packed)?)?).ok()
}

/// The fragment of a link that reproduces a case.
pub fn case_link(area: &str, case_json: &str) -> String {
    format!(
        "v={LINK_VERSION}&spec={}&area={area}&case={}",
        lembas_rules::spec_version(),
        b64_encode(&compress(case_json.as_bytes()))
    )
}

/// A link's case: its area and its JSON text, and a warning when it was made for another spec;
/// or why it cannot be opened.
pub fn read_link(fragment: &str) -> Result<(String, String, Option<String>), String> {
    let mut v = None;
    let mut spec = None;
    let mut area = None;
    let mut case = None;
    for part in fragment.trim_start_matches('#').split('&') {
        match part.split_once('=') {
            Some(("v", x)) => v = Some(x),
            Some(("spec", x)) => spec = Some(x),
            Some(("area", x)) => area = Some(x),
            Some(("case", x)) => case = Some(x),
            _ => {}
        }
    }
    let v = v.ok_or("not a case link")?;
    if !READS.contains(&v) {
        return Err(format!(
            "this link is of format {v}; this playground reads formats {}",
            READS.join(" and ")
        ));
    }
    let area = area
        .filter(|a| Area::parse(a).is_some())
        .ok_or("the link names no known area")?;
    let damaged = || "the link's case is damaged".to_string();
    let bytes = case.and_then(b64_decode).ok_or_else(damaged)?;
    let bytes = if v == "1" {
        bytes
    } else {
        decompress(&bytes).ok_or_else(damaged)?
    };
    let text = String::from_utf8(bytes).map_err(|_| damaged())?;
    let warning = spec
        .filter(|s| *s != lembas_rules::spec_version())
        .map(|s| {
            format!(
                "this link was made for spec {s}; this playground runs spec {}",
                lembas_rules::spec_version()
            )
        });
    Ok((area.to_string(), text, warning))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_text_unpacks() {
        let text = "{\"min\":1,\"steps\":[{\"op\":\"call\"},{\"op\":\"call\"}]}";
        assert_eq!(unpack(&pack(text)).as_deref(), Some(text));
        assert_eq!(unpack("!!"), None);
    }

    #[test]
    fn base64url_there_and_back() {
        for s in ["", "a", "ab", "abc", "{\"é\": \"→\"}"] {
            assert_eq!(b64_decode(&b64_encode(s.as_bytes())).unwrap(), s.as_bytes());
        }
    }

    #[test]
    fn every_built_in_case_makes_a_shorter_link_that_opens() {
        let files = crate::model::builtin_files();
        // Every area is built in (an area may have more than one file: permission has two).
        for area in Area::ALL {
            assert!(
                files.iter().any(|f| f.area == area.as_str()),
                "{} is not built in",
                area.as_str()
            );
        }
        assert!(files.iter().all(|f| Area::parse(&f.area).is_some()));
        let mut plain = 0;
        let mut packed = 0;
        for f in &files {
            for c in f.cases.iter() {
                let json = c.to_string();
                let link = case_link(&f.area, &json);
                let (area, text, warning) = read_link(&format!("#{link}")).unwrap();
                assert_eq!(
                    (area.as_str(), text.as_str(), warning),
                    (f.area.as_str(), json.as_str(), None)
                );
                // The same case as a format-1 link: the same header, the JSON uncompressed.
                let v1 = format!(
                    "v=1&spec={}&area={}&case={}",
                    lembas_rules::spec_version(),
                    f.area,
                    b64_encode(json.as_bytes())
                );
                assert!(link.len() < v1.len(), "{}: {link} is not shorter", f.area);
                plain += v1.len();
                packed += link.len();
            }
        }
        // Every link is shorter than its plain form, and all of them together by more than a
        // seventh (short cases — most of allowed.json's — compress least).
        assert!(packed * 100 < plain * 85, "links {packed} vs plain {plain}");
    }

    #[test]
    fn older_links_open_and_others_say_why_not() {
        let v1 = format!(
            "v=1&spec=3.4.0&area=progress&case={}",
            b64_encode(b"{\"now\": 1}")
        );
        assert_eq!(
            read_link(&v1).unwrap(),
            ("progress".into(), "{\"now\": 1}".into(), None)
        );
        let old = case_link("progress", "{}").replace("spec=3.4.0", "spec=3.3.0");
        assert!(read_link(&old).unwrap().2.unwrap().contains("spec 3.3.0"));
        assert!(read_link("v=9&area=progress&case=e30")
            .unwrap_err()
            .contains("format 9"));
        assert!(read_link("v=2&area=progress&case=!!").is_err());
        assert!(read_link("v=2&area=nowhere&case=e30").is_err());
        assert!(
            read_link("v=2&area=progress&case=____").is_err(),
            "codes no compression writes"
        );
    }
}
