//! The page's address: the tab, the case open in the editor and the Cases filters, written in the
//! URL's fragment (`#tab=editor&file=delegation&case=3`) so that Back and Forward step through
//! them, a reload comes back to them, and every case has an address of its own. A link that
//! carries a case (`#v=2&…`, `link.rs`) is read before this.

use crate::model::Filter;

/// A tab of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The cases and their verdicts.
    Cases,
    /// One case, edited.
    Editor,
    /// The progress line.
    Progress,
    /// The tree explorer.
    Tree,
    /// The delegation explorer.
    Delegation,
    /// A run replayed from its `--events` file.
    Replay,
}

impl Tab {
    /// The tabs in the order they are shown.
    pub const ALL: [Tab; 6] = [
        Tab::Cases,
        Tab::Editor,
        Tab::Progress,
        Tab::Tree,
        Tab::Delegation,
        Tab::Replay,
    ];

    /// Its word in the address.
    pub fn as_str(self) -> &'static str {
        match self {
            Tab::Cases => "cases",
            Tab::Editor => "editor",
            Tab::Progress => "progress",
            Tab::Tree => "tree",
            Tab::Delegation => "delegation",
            Tab::Replay => "replay",
        }
    }

    /// Its name on its button.
    pub fn label(self) -> &'static str {
        match self {
            Tab::Cases => "Cases",
            Tab::Editor => "Editor",
            Tab::Progress => "Progress",
            Tab::Tree => "Tree",
            Tab::Delegation => "Delegation",
            Tab::Replay => "Replay",
        }
    }

    /// The tab a word names.
    pub fn parse(word: &str) -> Option<Tab> {
        Tab::ALL.into_iter().find(|t| t.as_str() == word)
    }
}

/// What the address says.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Address {
    /// The tab; none: the first.
    pub tab: Option<Tab>,
    /// The case open in the editor: its file's name and its index in the file.
    pub case: Option<(String, usize)>,
    /// The Cases tab's filters.
    pub filter: Filter,
    /// The Tree tab's session, packed (`link::pack`).
    pub team: Option<String>,
}

/// A value as the address writes it: `%`, `&`, `=`, `#` and spaces escaped.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// An escaped value read back; none when it is not one.
fn unescaped(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'%' => {
                let hex = text.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

impl Address {
    /// The fragment, without its `#`. Only what differs from the page as it opens is written.
    pub fn to_fragment(&self) -> String {
        let mut parts = Vec::new();
        if let Some(tab) = self.tab.filter(|t| *t != Tab::Cases) {
            parts.push(format!("tab={}", tab.as_str()));
        }
        if let Some((file, index)) = &self.case {
            parts.push(format!("file={}&case={index}", escaped(file)));
        }
        let f = &self.filter;
        if let Some(area) = &f.area {
            parts.push(format!("area={}", escaped(area)));
        }
        if let Some(file) = &f.file {
            parts.push(format!("in={}", escaped(file)));
        }
        if f.failures_only {
            parts.push("failures=1".into());
        }
        if !f.text.is_empty() {
            parts.push(format!("q={}", escaped(&f.text)));
        }
        if let Some(team) = &self.team {
            parts.push(format!("team={}", escaped(team)));
        }
        parts.join("&")
    }

    /// The address a fragment says; what it does not say is the page as it opens, and a part
    /// it cannot read is left out.
    pub fn from_fragment(fragment: &str) -> Address {
        let mut address = Address::default();
        let mut file = None;
        let mut case = None;
        for part in fragment.trim_start_matches('#').split('&') {
            let Some((key, value)) = part.split_once('=') else {
                continue;
            };
            let Some(value) = unescaped(value) else {
                continue;
            };
            match key {
                "tab" => address.tab = Tab::parse(&value),
                "file" => file = Some(value),
                "case" => case = value.parse::<usize>().ok(),
                "area" => address.filter.area = Some(value),
                "in" => address.filter.file = Some(value),
                "failures" => address.filter.failures_only = value == "1",
                "q" => address.filter.text = value,
                "team" => address.team = Some(value),
                _ => {}
            }
        }
        address.case = file.zip(case);
        address
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_reads_back_as_written() {
        let address = Address {
            tab: Some(Tab::Editor),
            case: Some(("my team & co".into(), 3)),
            filter: Filter {
                area: Some("team".into()),
                file: Some("team".into()),
                failures_only: true,
                text: "50% = #1 é".into(),
            },
            team: Some(crate::link::pack("{\"steps\": []}")),
        };
        let fragment = address.to_fragment();
        assert!(!fragment.contains(' ') && !fragment.contains('#'));
        assert_eq!(Address::from_fragment(&format!("#{fragment}")), address);
        assert_eq!(Address::default().to_fragment(), "");
        assert_eq!(
            Address::from_fragment("tab=nowhere&case=x&file=a&q=%ZZ"),
            Address::default()
        );
        for tab in Tab::ALL {
            assert_eq!(Tab::parse(tab.as_str()), Some(tab));
        }
    }
}
