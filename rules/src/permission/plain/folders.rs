//! The folders a relative path of a line may mean at one of its commands: the project root at
//! the start, then each folder a `cd` may have moved to (hardline.json `plain`: a path is read
//! from the folder the line is in).

use crate::permission::first_then_rest::FirstThenRest;
use std::borrow::Cow;

/// The folders a relative path may mean, in the order they were found: a folder [`Folders::add`]
/// is given twice is kept once, a list collected is kept as listed. The first is kept apart from
/// the rest, so that a line that never moves (most lines) needs no list.
#[derive(Debug, Clone, Default)]
pub(super) struct Folders<'a>(FirstThenRest<Cow<'a, str>>);

impl<'a> Folders<'a> {
    /// One folder.
    pub(super) fn one(folder: Cow<'a, str>) -> Folders<'a> {
        Folders(FirstThenRest::one(folder))
    }

    /// Every folder, the first first.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Cow<'a, str>> {
        self.0.iter()
    }

    /// How many folders there are.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// Adds a folder, unless it is one already.
    pub(super) fn add(&mut self, folder: Cow<'a, str>) {
        if !self.iter().any(|f| *f == folder) {
            self.0.push(folder);
        }
    }
}

impl<'a> FromIterator<Cow<'a, str>> for Folders<'a> {
    /// The folders of a list, as listed.
    fn from_iter<I: IntoIterator<Item = Cow<'a, str>>>(folders: I) -> Folders<'a> {
        Folders(folders.into_iter().collect())
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
