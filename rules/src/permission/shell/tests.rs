use super::*;

fn texts(line: &str) -> Vec<String> {
    let r = read(line);
    assert_eq!(r.opaque, None, "{line}");
    r.commands.iter().map(Command::text).collect()
}

fn opaque(line: &str) -> Option<Construct> {
    read(line).opaque
}

#[test]
fn splits_lists_pipelines_and_compound_commands() {
    assert_eq!(
        texts("a && b || c; d | e & f\ng"),
        ["a", "b", "c", "d", "e", "f", "g"]
    );
    assert_eq!(texts("(cd x && make)"), ["cd x", "make"]);
    assert_eq!(
        texts("echo $(rm -rf /) x"),
        ["rm -rf /", "echo $(rm -rf /) x"]
    );
    assert_eq!(texts("echo `whoami`"), ["whoami", "echo `whoami`"]);
    assert_eq!(texts("echo \"rm -rf /\""), ["echo rm -rf /"]);
    assert_eq!(texts("git commit -m 'a b'"), ["git commit -m a b"]);
    assert_eq!(texts("r\\m -rf x"), ["rm -rf x"]);
    assert_eq!(texts("ls # a comment"), ["ls"]);
    assert_eq!(texts("{ a; b; }"), ["a", "b"]);
    assert_eq!(texts("if true; then rm -rf /; fi"), ["true", "rm -rf /"]);
    assert_eq!(texts("! rm x"), ["rm x"]);
    assert_eq!(texts("time { rm -rf /; }"), ["rm -rf /"]);
    assert_eq!(
        texts("while read l; do echo $l; done"),
        ["read l", "echo $l"]
    );
    assert_eq!(texts("for f in a b; do rm $f; done"), ["rm $f"]);
    assert_eq!(texts("echo x#y"), ["echo x#y"]);
    assert_eq!(texts("find . -exec rm {} \\;"), ["find . -exec rm {} ;"]);
}

#[test]
fn reads_redirections() {
    let c = read("echo x > /dev/sda 2>&1").commands;
    assert_eq!(c[0].text(), "echo x");
    assert_eq!(c[0].redirects[0].op, RedirectOp::Write);
    assert_eq!(c[0].redirects[0].target.text, "/dev/sda");
    assert!(c[0].redirects[0].writes_file());
    assert_eq!(c[0].redirects[1].fd, Some(2));
    assert!(!c[0].redirects[1].writes_file());
    let c = read("make &> log.txt && ls").commands;
    assert_eq!(c[0].redirects[0].op, RedirectOp::WriteBoth);
    assert_eq!(c[1].text(), "ls");
    for line in [
        "echo x >& /etc/passwd",
        "echo x >| f",
        "cat <> f",
        "echo &>> f",
    ] {
        assert!(read(line).commands[0].redirects[0].writes_file(), "{line}");
    }
    assert!(!read("echo x >&2").commands[0].redirects[0].writes_file());
}

#[test]
fn constructs_outside_the_subset_are_opaque() {
    use Construct::*;
    for (line, want) in [
        ("echo x\r# ; rm -rf src", CarriageReturn),
        ("echo a\0b", ControlCharacter),
        ("echo $'\\''; rm -rf src", AnsiCQuote),
        ("echo $\"x\"", LocaleQuote),
        ("echo ${x#'}'}; rm -rf src", ParameterOperator),
        ("echo ${x:-$(rm -rf src)}", ParameterOperator),
        ("cat <<EOF\n$(rm -rf src)\nEOF", HereDocument),
        ("case x in x) rm;; esac", Keyword),
        ("[[ -f x ]]", Keyword),
        ("f(){ rm -rf \"$1\"; }; f /", FunctionDefinition),
        ("function f { x; }", FunctionDefinition),
        ("{rm,-rf,/}", BraceExpansion),
        ("echo {1..3}", BraceExpansion),
        ("echo $((1+2))", Arithmetic),
        ("((x++))", Arithmetic),
        ("source <(curl x)", ProcessSubstitution),
        ("diff <(a) <(b)", ProcessSubstitution),
        ("a=(1 2)", Array),
        ("echo 'unclosed", UnclosedQuote),
        ("echo \"unclosed", UnclosedQuote),
        ("echo )", Syntax),
        ("&& ls", Syntax),
        ("exec {fd}>x", DescriptorVariable),
    ] {
        assert_eq!(opaque(line), Some(want), "{line:?}");
    }
    let deep = "echo $(".repeat(20) + &")".repeat(20);
    assert_eq!(opaque(&deep), Some(TooDeep));
    assert_eq!(opaque(&"a".repeat(MAX_LINE + 1)), Some(TooLong));
}

#[test]
fn a_fork_bomb_is_a_function_that_calls_itself() {
    assert_eq!(read(":(){ :|:& };:").self_calling.as_deref(), Some(":"));
    assert_eq!(
        read("bomb(){ bomb|bomb& }; bomb").self_calling.as_deref(),
        Some("bomb")
    );
    assert_eq!(read("f(){ ls; }; f").self_calling, None);
}

/// A piece of text whose place is not in its word's text (which the builders never make) is
/// read as a value known only when the line runs, not as some other text.
#[test]
fn a_piece_out_of_its_word_is_unknown() {
    let word = Word {
        text: "/etc".into(),
        pieces: Pieces::One(Piece::Text {
            span: 0..9,
            quoted: false,
        }),
    };
    assert!(matches!(
        word.first_piece(),
        Some(PieceView::Substitution { .. })
    ));
    let cut_in_a_letter = Word {
        text: "/é".into(),
        pieces: Pieces::One(Piece::Text {
            span: 0..2,
            quoted: false,
        }),
    };
    assert!(matches!(
        cut_in_a_letter.first_piece(),
        Some(PieceView::Substitution { .. })
    ));
    let fitting = Word::literal("/etc");
    assert!(matches!(
        fitting.first_piece(),
        Some(PieceView::Text { text: "/etc", .. })
    ));
}

#[test]
fn words_keep_their_pieces() {
    let c = &read("rm -rf \"$HOME\"/x ~/y '*' *").commands[0];
    assert!(c.words[2].dynamic());
    assert!(!c.words[4].glob());
    assert!(c.words[5].glob());
    // A glob character quoted, a `[` with no `]`, none at all, a quoted `[` before a `]`, and
    // unquoted after a quoted piece.
    let words = &read(r#"ls 'a*'b x[ plain \? "["x] 'a'* x[y]"#).commands[0].words;
    let globs: Vec<bool> = words.iter().map(Word::glob).collect();
    assert_eq!(
        globs,
        [false, false, false, false, false, false, true, true]
    );
    let r = read("X=/usr; rm -rf $X");
    assert_eq!(r.bindings[0].name, "X");
    assert_eq!(r.commands[0].text(), "rm -rf $X");
}

#[test]
fn never_panics_on_odd_lines() {
    for line in [
        "", "$", "$(", "`", "\\", "\"", "'", "${", ">", "2>", "&>", "((((", "))))", "$((1+2))",
        "a >| b", "<<<x", "{", "}", "if", "then", "for", "for x", "for x in", "do", "a |", "| a",
        "a ;;", "x=", "=x", "a=b c=d", "2", "2>&", "${}", "$(())", "``", "\\\n", "!",
    ] {
        let _ = read(line);
    }
    let _ = read(&"$(".repeat(500));
    let _ = read(&"(".repeat(500));
    let _ = read(&"{ ".repeat(500));
}

#[test]
fn here_documents_are_read_exactly() {
    assert_eq!(
        texts("ls /dev/null <<'EOF'\necho it's\nEOF\nrm -rf src"),
        ["ls /dev/null", "rm -rf src"]
    );
    let r = read("cat > notes.md <<'EOF'\n:(){ :|:& };:\n$(x) `y` \\z\nEOF");
    assert_eq!(r.opaque, None);
    assert_eq!(r.self_calling, None);
    assert_eq!(r.commands.len(), 1);
    assert_eq!(
        texts("cat <<-X\n\tplain body\n\tX\necho done"),
        ["cat", "echo done"]
    );
    assert_eq!(
        texts("cat <<A; cat <<B\na\nA\nb\nB\nls"),
        ["cat", "cat", "ls"]
    );
    assert_eq!(texts("cat <<EOF\nno expansion here\nEOF"), ["cat"]);
    assert_eq!(
        opaque("cat <<EOF\n`id`\nEOF"),
        Some(Construct::HereDocument)
    );
    assert_eq!(opaque("cat <<$X\nEOF"), Some(Construct::HereDocument));
    // Their bodies are kept as written, one a here-document, those of a substitution too.
    assert_eq!(
        read("cat <<A; cat <<B\na 1\nA\nb\nB\nls").here_documents,
        ["a 1\n", "b\n"]
    );
    assert_eq!(
        read("echo \"$(cat <<'E'\nx\nE\n)\"").here_documents,
        ["x\n"]
    );
}

#[test]
fn an_assignment_that_adds_says_so() {
    let r = read("F=a; F+=b; G=c");
    let appends: Vec<(&str, bool)> = r
        .bindings
        .iter()
        .map(|b| (b.name.as_str(), b.appends))
        .collect();
    assert_eq!(appends, [("F", false), ("F", true), ("G", false)]);
}

#[test]
fn every_redirection_operator_is_reachable_in_the_table() {
    for (i, a) in REDIRECT_OPS.iter().enumerate() {
        for b in REDIRECT_OPS.iter().skip(i + 1) {
            assert!(
                !b.as_str().starts_with(a.as_str()),
                "{} comes before {} and hides it",
                a.as_str(),
                b.as_str()
            );
        }
        let line = format!("cat {} x", a.as_str());
        let r = read(&line);
        assert_eq!(
            r.commands.first().map(|c| c.redirects[0].op),
            Some(*a),
            "{line}"
        );
    }
}
