#[test]
fn a_short_option_is_a_dash_and_its_letter() {
    for letter in ['r', 'f', 'é', '😀', '-'] {
        assert_eq!(super::short_option(letter), format!("-{letter}"));
    }
}
