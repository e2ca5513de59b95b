//! The command reader under the permission rules (hardline.json `plain`): a line read as bash
//! reads it, or called **opaque**. This is where the reader's subset is written; the README links
//! here.
//!
//! Every `bash` call is judged on the commands its line runs, so the reader is security code: a
//! model may craft a line that a careless reader takes for `echo …` while bash runs something
//! else. It reads a named subset of bash and nothing else:
//! - words: plain characters, `'…'`, `"…"` (with `\"`, `\\`, `\$`, `` \` `` and a backslash before
//!   a newline), a backslash outside quotes, `$NAME`, `$1`, `$@` and the other one-character
//!   parameters, `${NAME}` with nothing else inside, `$( … )` and backticks (their commands read
//!   as lines of their own), unquoted `*`, `?` and `[` (the word is a glob), `~` at the start;
//! - simple commands with leading `NAME=value` assignments and redirections (`>`, `>>`, `>|`,
//!   `<`, `<>`, `>&`, `<&`, `&>`, `&>>`, `<<<`, with a descriptor number before);
//! - here-documents (`<<`, `<<-`) whose delimiter is quoted (`<<'EOF'`: the body is text, whatever
//!   it holds) or whose body holds no `$`, backtick or backslash;
//! - pipelines (`|`, `|&`, a leading `!`, the `time` keyword) and lists (`;`, `&`, `&&`, `||`,
//!   newlines, `#` comments);
//! - `( … )`, `{ …; }`, `if`/`then`/`elif`/`else`/`fi`, `while`/`until`/`do`/`done` and
//!   `for NAME in …; do …; done`.
//!
//! Anything else makes the line opaque, named by a [`Construct`]: a carriage return, a NUL or
//! another control character; `$'…'` and `$"…"`; `${…}` with an operator, a quote or a
//! substitution inside; a here-document that expands (an unquoted delimiter and a body holding
//! `$`, a backtick or a backslash) or whose delimiter is an expansion (`<<$X`); `case`, `select`,
//! `[[`, `((`, `coproc` and function definitions; brace expansion; arithmetic; process
//! substitution; arrays; an unclosed quote or another syntax error; nesting deeper than
//! [`MAX_DEPTH`] (8); a line longer than [`MAX_LINE`] (16 KB). Where bash and a real parser read a
//! line differently (`a | time b`), the line is opaque too.
//!
//! One level up, [`super::plain`] calls opaque what runs a line or a file of its own or changes
//! the shell: `eval`, `source` and `.`, `trap`, `alias`, `declare` and the other builtins that
//! change the shell, `set --`, a command name from an expansion, a shell reading a pipe, a
//! here-string or a file, a shell whose syntax is not bash's (`zsh`, `fish`, …), and assigning
//! `PATH`, `LD_*`, `IFS`, `BASH_ENV`, `HOME`, `GIT_*` and the like.
//!
//! No rule, approval or grant allows an opaque line, in any mode: manual and edit ask; plan,
//! unattended and auto refuse (`decided_by: { by: "opaque", construct }` names what could not be
//! read). The reader never reads a line differently from bash: where it cannot be sure, it says
//! so. `rules/tests/shfmt.rs` holds it to a real parser (`shfmt`) over the hostile corpus and
//! generated lines.

mod ast;
mod parser;

pub use ast::*;
pub use parser::{read, read_nested, value_of_assignment};

#[cfg(test)]
mod tests;
