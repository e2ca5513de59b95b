//! The folders a relative path of a line may mean at one of its commands: the project root at
//! the start, then each folder a `cd` may have moved to (hardline.json `plain`: a path is read
//! from the folder the line is in).

use std::borrow::Cow;

/// The folders a relative path may mean, in the order they were found: a folder [`Folders::add`]
/// is given twice is kept once, a list collected is kept as listed. The first is kept apart from
/// the rest, so that a line that never moves (most lines) needs no list.
#[derive(Debug, Clone, Default)]
pub(super) struct Folders<'a> {
    first: Option<Cow<'a, str>>,
    /// Empty unless `first` is set.
    rest: Vec<Cow<'a, str>>,
}

impl<'a> Folders<'a> {
    /// One folder.
    pub(super) fn one(folder: Cow<'a, str>) -> Folders<'a> {
        Folders {
            first: Some(folder),
            rest: Vec::new(),
        }
    }

    /// Every folder, the first first.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Cow<'a, str>> {
        self.first.iter().chain(&self.rest)
    }

    /// How many folders there are.
    pub(super) fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    /// Adds a folder, unless it is one already.
    pub(super) fn add(&mut self, folder: Cow<'a, str>) {
        if !self.iter().any(|f| *f == folder) {
            self.push(folder);
        }
    }

    /// Adds a folder at the end.
    fn push(&mut self, folder: Cow<'a, str>) {
        match self.first {
            None => self.first = Some(folder),
            Some(_) => self.rest.push(folder),
        }
    }
}

impl<'a> FromIterator<Cow<'a, str>> for Folders<'a> {
    /// The folders of a list, as listed.
    fn from_iter<I: IntoIterator<Item = Cow<'a, str>>>(folders: I) -> Folders<'a> {
        let mut all = Folders::default();
        for folder in folders {
            all.push(folder);
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_added_once_in_the_order_found() {
        let mut folders = Folders::one(Cow::Borrowed("/r"));
        for folder in ["/a", "/r", "/b", "/a"] {
            folders.add(Cow::Borrowed(folder));
        }
        let listed: Vec<&str> = folders.iter().map(|f| f.as_ref()).collect();
        assert_eq!(listed, ["/r", "/a", "/b"]);
        assert_eq!(folders.len(), 3);
        let collected: Folders<'_> = ["/b", "/b"].into_iter().map(Cow::Borrowed).collect();
        assert_eq!(collected.len(), 2);
        assert_eq!(Folders::default().iter().count(), 0);
        assert_eq!(Folders::default().len(), 0);
    }
}
