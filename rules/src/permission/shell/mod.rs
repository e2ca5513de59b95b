//! The command reader under the permission rules (hardline.json `plain`): a line read as bash
//! reads it, or called **opaque**.
//!
//! The reader models a named subset of bash and nothing else:
//! - words: plain characters, `'…'`, `"…"` (with `\"`, `\\`, `\$`, `` \` `` and a backslash before
//!   a newline), a backslash outside quotes, `$NAME`, `$1`, `$@` and the other one-character
//!   parameters, `${NAME}` with nothing else inside, `$( … )` and backticks (their commands read
//!   as lines of their own), unquoted `*`, `?` and `[` (the word is a glob), `~` at the start;
//! - simple commands with leading `NAME=value` assignments and redirections (`>`, `>>`, `>|`,
//!   `<`, `<>`, `>&`, `<&`, `&>`, `&>>`, `<<<`, with a descriptor number before);
//! - pipelines (`|`, `|&`, a leading `!`, the `time` keyword) and lists (`;`, `&`, `&&`, `||`,
//!   newlines, `#` comments);
//! - `( … )`, `{ …; }`, `if`/`then`/`elif`/`else`/`fi`, `while`/`until`/`do`/`done` and
//!   `for NAME in …; do …; done`.
//!
//! Anything else makes the line opaque, named by a [`Construct`]: a carriage return, a NUL or
//! another control character; `$'…'` and `$"…"`; `${…}` with an operator, a quote or a
//! substitution inside; here-documents; `case`, `select`, `[[`, `((`, `coproc` and function
//! definitions; brace expansion; arithmetic; process substitution; an unclosed quote or another
//! syntax error; nesting deeper than [`MAX_DEPTH`]; a line longer than [`MAX_LINE`]. What runs a
//! line or a file of its own (`eval`, `source`, `trap`, a shell reading a pipe) is found one level
//! up, by [`super::plain`]. The reader never reads a line differently from bash: where it cannot be
//! sure, it says so.

mod ast;
mod parser;

pub use ast::*;
pub use parser::{read, read_nested};

#[cfg(test)]
mod tests;
