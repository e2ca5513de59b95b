//! Writing the spec data back as Rust (`build.rs` does, into `$OUT_DIR/spec_data.rs`): the
//! [`Rust`] trait for the values the spec types hold, and `spec_struct!`, which declares a spec
//! struct with its writer. Shared by the crate and `build.rs` (`#[macro_use]` before `types`).

use std::collections::BTreeMap;

/// Writes a value as the Rust expression that builds it (`build.rs` writes the spec data so).
pub trait Rust {
    fn rust(&self, out: &mut String);
}

impl Rust for String {
    fn rust(&self, out: &mut String) {
        out.push_str(&format!("String::from({self:?})"));
    }
}

macro_rules! rust_literal {
    ($($t:ty),*) => {$(
        impl Rust for $t {
            fn rust(&self, out: &mut String) {
                out.push_str(&format!("{self:?}"));
            }
        }
    )*};
}
rust_literal!(bool, u32, u64, usize, f64);

/// A JSON value is written as its text, read again when the data is built.
impl Rust for serde_json::Value {
    fn rust(&self, out: &mut String) {
        out.push_str(&format!(
            "serde_json::from_str::<serde_json::Value>({:?}).unwrap_or_default()",
            self.to_string()
        ));
    }
}

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

impl<T: Rust> Rust for Vec<T> {
    fn rust(&self, out: &mut String) {
        out.push_str("vec![");
        for v in self {
            v.rust(out);
            out.push_str(", ");
        }
        out.push(']');
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

impl<T: Rust> Rust for BTreeMap<String, T> {
    fn rust(&self, out: &mut String) {
        out.push_str("BTreeMap::from([");
        for (k, v) in self {
            out.push('(');
            k.rust(out);
            out.push_str(", ");
            v.rust(out);
            out.push_str("), ");
        }
        out.push_str("])");
    }
}

/// Fields the rules never read at run time, written as their default: the data's notes for people
/// (`about`, `ours`) and a tool's description and parameters (a model is sent the tool's whole
/// text).
pub const NOT_KEPT: &[&str] = &["about", "ours", "description", "parameters"];

/// A struct of the spec data, with its [`Rust`] writer.
macro_rules! spec_struct {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        pub struct $name { $($(#[$fm])* pub $f: $t),* }

        impl Rust for $name {
            fn rust(&self, out: &mut String) {
                out.push_str(concat!(stringify!($name), " { "));
                $(
                    out.push_str(concat!(stringify!($f), ": "));
                    if NOT_KEPT.contains(&stringify!($f)) {
                        out.push_str("Default::default()");
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
