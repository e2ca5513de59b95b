#[test]
fn a_short_option_is_a_dash_and_its_letter() {
    for letter in ['r', 'f', 'é', '😀', '-'] {
        assert_eq!(super::short_option(letter), format!("-{letter}"));
    }
}

/// `alias_at` searches each program's `subcommand_names` by halves: every list is sorted and
/// holds no name twice.
#[test]
fn every_list_of_subcommand_names_is_sorted() {
    for (program, entry) in crate::spec::spec().programs.programs.iter() {
        if let Some(effects) = entry.effects.as_ref() {
            let names: Vec<&str> = effects
                .subcommand_names
                .iter()
                .map(|n| n.as_ref())
                .collect();
            assert!(
                names.windows(2).all(|pair| pair.first() < pair.get(1)),
                "{program}: subcommand_names is not sorted"
            );
        }
    }
}
