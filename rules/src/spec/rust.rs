//! Writing the spec data back as Rust (`build.rs` does, into `$OUT_DIR/spec_data.rs`): the
//! [`Rust`] trait for the values the spec types hold, and `spec_struct!`, which declares a spec
//! struct with its writer. Shared by the crate and `build.rs` (`#[macro_use]` before `types`).

use super::types::{List, Str};
use std::borrow::Cow;

/// Writes a value as the constant Rust expression that builds it (`build.rs` writes the spec data
/// so: a `static`, made by no code at run time).
pub trait Rust {
    /// Writes the value's Rust expression to `out`.
    fn rust(&self, out: &mut String);

    /// The empty value of the type, for a field that is not kept ([`NOT_KEPT`]).
    fn rust_empty(&self, out: &mut String) {
        self.rust(out);
    }
}

impl Rust for Str {
    fn rust(&self, out: &mut String) {
        out.push_str(&format!("Str({:?})", self.0));
    }

    fn rust_empty(&self, out: &mut String) {
        out.push_str("Str(\"\")");
    }
}

/// `wrapper(&[item, item, ])`: a built-in slice, each item's Rust written in turn.
fn rust_slice<T: Rust>(wrapper: &str, items: &[T], out: &mut String) {
    out.push_str(wrapper);
    out.push_str("(&[");
    for item in items {
        item.rust(out);
        out.push_str(", ");
    }
    out.push_str("])");
}

impl<T: Rust> Rust for List<T> {
    fn rust(&self, out: &mut String) {
        rust_slice("List", self, out);
    }

    fn rust_empty(&self, out: &mut String) {
        out.push_str("List(&[])");
    }
}

impl Rust for Cow<'static, str> {
    fn rust(&self, out: &mut String) {
        out.push_str(&format!("Cow::Borrowed({:?})", self.as_ref()));
    }

    fn rust_empty(&self, out: &mut String) {
        out.push_str("Cow::Borrowed(\"\")");
    }
}

macro_rules! rust_literal {
    ($($t:ty),*) => {$(
        impl Rust for $t {
            fn rust(&self, out: &mut String) {
                out.push_str(&format!("{self:?}"));
            }

            fn rust_empty(&self, out: &mut String) {
                out.push_str(&format!("{:?}", <$t>::default()));
            }
        }
    )*};
}
rust_literal!(bool, u32, u64, usize, f64);

impl<T: Rust> Rust for Option<T> {
    fn rust(&self, out: &mut String) {
        match self {
            None => out.push_str("None"),
            Some(v) => {
                out.push_str("Some(");
                v.rust(out);
                out.push(')');
            }
        }
    }
}

impl<T: Rust + Clone> Rust for Cow<'static, [T]> {
    fn rust(&self, out: &mut String) {
        rust_slice("Cow::Borrowed", self, out);
    }

    fn rust_empty(&self, out: &mut String) {
        out.push_str("Cow::Borrowed(&[])");
    }
}

impl<A: Rust, B: Rust> Rust for (A, B) {
    fn rust(&self, out: &mut String) {
        out.push('(');
        self.0.rust(out);
        out.push_str(", ");
        self.1.rust(out);
        out.push(')');
    }
}

/// Fields the rules never read at run time, written empty wherever they are: the data's notes for
/// people (`about`, `ours`).
pub const NOT_KEPT: &[&str] = &["about", "ours"];

/// Fields only `build.rs` reads, written empty, each named with its struct (a field of the same
/// name elsewhere is kept): the lines a program's grammar must accept and refuse, which it checks.
pub const BUILD_ONLY: &[(&str, &str)] = &[("Program", "matches"), ("Program", "not_match")];

/// A struct of the spec data, with its [`Rust`] writer.
macro_rules! spec_struct {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        pub struct $name {
            $(
                $(#[$fm])*
                #[doc = concat!("The spec file's `", stringify!($f), "`.")]
                pub $f: $t
            ),*
        }

        impl Rust for $name {
            fn rust(&self, out: &mut String) {
                out.push_str(concat!(stringify!($name), " { "));
                $(
                    out.push_str(concat!(stringify!($f), ": "));
                    if NOT_KEPT.contains(&stringify!($f))
                        || BUILD_ONLY.contains(&(stringify!($name), stringify!($f)))
                    {
                        self.$f.rust_empty(out);
                    } else {
                        self.$f.rust(out);
                    }
                    out.push_str(", ");
                )*
                out.push('}');
            }
        }
    };
}
