//! A short list kept with its first item apart from the rest: most lists the judge makes of a
//! call hold one item (one part, one folder a path is read from), and one item needs no `Vec`.

/// Items in the order they were pushed, the first apart: `rest` is empty unless `first` is set.
#[derive(Debug, Clone)]
pub(crate) struct FirstThenRest<T> {
    first: Option<T>,
    rest: Vec<T>,
}

impl<T> Default for FirstThenRest<T> {
    fn default() -> Self {
        FirstThenRest {
            first: None,
            rest: Vec::new(),
        }
    }
}

impl<T> FirstThenRest<T> {
    /// One item.
    pub(crate) fn one(item: T) -> Self {
        FirstThenRest {
            first: Some(item),
            rest: Vec::new(),
        }
    }

    /// Adds an item at the end.
    pub(crate) fn push(&mut self, item: T) {
        match self.first {
            None => self.first = Some(item),
            Some(_) => self.rest.push(item),
        }
    }

    /// Every item, the first first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.first.iter().chain(&self.rest)
    }

    /// How many items there are.
    pub(crate) fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    /// The first item (none when the list is empty) and the rest.
    pub(crate) fn into_first_and_rest(self) -> (Option<T>, Vec<T>) {
        (self.first, self.rest)
    }
}

impl<T> Extend<T> for FirstThenRest<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for item in items {
            self.push(item);
        }
    }
}

impl<T> FromIterator<T> for FirstThenRest<T> {
    /// The items, as listed.
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut all = FirstThenRest::default();
        all.extend(items);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_kept_in_the_order_pushed() {
        let mut list = FirstThenRest::one(1);
        list.extend([2, 3]);
        assert_eq!(list.iter().copied().collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(list.len(), 3);
        assert_eq!(list.into_first_and_rest(), (Some(1), vec![2, 3]));
        let empty: FirstThenRest<u8> = std::iter::empty().collect();
        assert_eq!(empty.len(), 0);
        assert_eq!(empty.iter().count(), 0);
        assert_eq!(empty.into_first_and_rest(), (None, vec![]));
        let collected: FirstThenRest<u8> = [7, 7].into_iter().collect();
        assert_eq!(collected.into_first_and_rest(), (Some(7), vec![7]));
    }
}
