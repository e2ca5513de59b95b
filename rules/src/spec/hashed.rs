//! The spec's tables by name hashed, made once: asked of every command of a line (a program's
//! grammar, effects and reads, its wrapper, the hardline's entries naming it), a table's search of
//! its sorted names compared a name at each of eight or nine steps; a hash of a short name finds
//! it in one or two.

use super::types::Map;
use rustc_hash::FxHashMap;

/// The places of names in a list, by name.
#[derive(Debug, Default)]
pub struct NamePlaces(FxHashMap<&'static str, usize>);

impl NamePlaces {
    /// Each name's place (the first, for a name given twice).
    pub fn of(names: impl Iterator<Item = &'static str>) -> NamePlaces {
        let mut places = FxHashMap::default();
        for (at, name) in names.enumerate() {
            places.entry(name).or_insert(at);
        }
        NamePlaces(places)
    }

    /// The place of `name`, when the list has it.
    pub fn place(&self, name: &str) -> Option<usize> {
        self.0.get(name).copied()
    }
}

/// A table of the spec by name with its names hashed: [`Map::get`]'s answers in a step.
#[derive(Debug)]
pub struct HashedMap<T: Clone + 'static> {
    map: &'static Map<T>,
    places: NamePlaces,
}

impl<T: Clone + 'static> HashedMap<T> {
    /// The table's names hashed.
    pub fn of(map: &'static Map<T>) -> HashedMap<T> {
        HashedMap {
            map,
            places: NamePlaces::of(map.0.iter().map(|(name, _)| name.as_str())),
        }
    }

    /// The value under `key`: what [`Map::get`] gives.
    pub fn get(&self, key: &str) -> Option<&'static T> {
        let at = self.places.place(key)?;
        self.map.0.get(at).map(|(_, value)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::spec;

    /// Every name of the programs' table and of the wrappers', and names near them, are found
    /// as the sorted search finds them.
    #[test]
    fn a_hashed_table_answers_as_its_search_does() {
        let programs = HashedMap::of(&spec().programs.programs);
        let wrappers = HashedMap::of(&spec().hardline.plain.wrappers);
        let mut names: Vec<String> = ["", "git", "gi", "gitx", "é", "\u{0}"]
            .map(String::from)
            .to_vec();
        for (name, _) in spec().programs.programs.iter().chain(std::iter::empty()) {
            names.push(name.to_string());
            names.push(format!("{name}x"));
            names.push(name.chars().skip(1).collect());
            names.push(name.to_uppercase());
        }
        names.extend(spec().hardline.plain.wrappers.keys().map(String::from));
        let mut found = 0;
        for name in &names {
            let hashed = programs.get(name).map(std::ptr::from_ref);
            assert_eq!(
                hashed,
                spec().programs.programs.get(name).map(std::ptr::from_ref),
                "{name:?}"
            );
            found += usize::from(hashed.is_some());
            assert_eq!(
                wrappers.get(name).map(std::ptr::from_ref),
                spec()
                    .hardline
                    .plain
                    .wrappers
                    .get(name)
                    .map(std::ptr::from_ref),
                "{name:?}"
            );
        }
        assert!(found > 50, "{found}");
    }
}
