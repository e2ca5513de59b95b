//! Reading JSON that comes from outside (a case file, a JavaScript caller, a model): every value is
//! checked where it is read, and a wrong one is an [`InputError`] that names its field by path
//! (`progress.since: expected an integer`). Nothing here panics, whatever the input.

use serde_json::{Map, Value};
use thiserror::Error;

/// Input that does not say what the rules need. The message names the field and the value.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InputError {
    /// A field that must be there is not.
    #[error("{path}: missing")]
    Missing {
        /// The field.
        path: String,
    },
    /// A field of the wrong JSON type.
    #[error("{path}: expected {expected}")]
    Type {
        /// The field.
        path: String,
        /// What it should be (`a string`, `a whole number`).
        expected: &'static str,
    },
    /// A word the rules do not know (a mode, a phase, an op).
    #[error("{path}: unknown {what} \"{value}\"")]
    Unknown {
        /// The field.
        path: String,
        /// What kind of word it should be.
        what: &'static str,
        /// The word given.
        value: String,
    },
    /// A field the object does not have.
    #[error("{path}: not a field here")]
    Extra {
        /// The field.
        path: String,
    },
    /// A value of the right type that cannot be (a min above the max).
    #[error("{path}: {message}")]
    Invalid {
        /// The field.
        path: String,
        /// What is wrong with it.
        message: String,
    },
}

impl InputError {
    /// A field that must be there and is not, at `path`.
    pub fn missing(path: impl Into<String>) -> InputError {
        InputError::Missing { path: path.into() }
    }

    /// The field the error is about.
    pub fn path(&self) -> &str {
        match self {
            InputError::Missing { path }
            | InputError::Type { path, .. }
            | InputError::Unknown { path, .. }
            | InputError::Extra { path }
            | InputError::Invalid { path, .. } => path,
        }
    }

    /// The error with its path read from `prefix` (`by` under `steps[3]` is `steps[3].by`).
    pub fn under(mut self, prefix: &str) -> InputError {
        let path = match &mut self {
            InputError::Missing { path }
            | InputError::Type { path, .. }
            | InputError::Unknown { path, .. }
            | InputError::Extra { path }
            | InputError::Invalid { path, .. } => path,
        };
        *path = join(prefix, path);
        self
    }

    /// A stable code for callers that branch on the kind of error.
    pub fn code(&self) -> &'static str {
        match self {
            InputError::Missing { .. } => "missing_field",
            InputError::Type { .. } => "wrong_type",
            InputError::Unknown { .. } => "unknown_value",
            InputError::Extra { .. } => "unknown_field",
            InputError::Invalid { .. } => "invalid_value",
        }
    }
}

/// `path.key`, or `key` at the top.
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `path[i]`.
pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// An object read field by field.
#[derive(Clone, Copy)]
pub struct Obj<'a> {
    /// Where the object is (`steps[2]`), for the paths its errors name.
    pub path: &'a str,
    /// Its fields.
    pub map: &'a Map<String, Value>,
}

impl<'a> Obj<'a> {
    /// `value` as an object at `path`.
    pub fn new(path: &'a str, value: &'a Value) -> Result<Obj<'a>, InputError> {
        match value {
            Value::Object(map) => Ok(Obj { path, map }),
            _ => Err(InputError::Type {
                path: path.to_string(),
                expected: "an object",
            }),
        }
    }

    /// The path of a field of it (`steps[2].by`).
    pub fn at(&self, key: &str) -> String {
        join(self.path, key)
    }

    /// The field, absent when missing or null.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        match self.map.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v),
        }
    }

    /// Whether the field is there and not null.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn missing(&self, key: &str) -> InputError {
        InputError::missing(self.at(key))
    }

    fn wrong(&self, key: &str, expected: &'static str) -> InputError {
        InputError::Type {
            path: self.at(key),
            expected,
        }
    }

    /// A string field that must be there.
    pub fn str(&self, key: &str) -> Result<&'a str, InputError> {
        self.opt_str(key)?.ok_or_else(|| self.missing(key))
    }

    /// A string field, if there.
    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>, InputError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.wrong(key, "a string")),
        }
    }

    /// An integer field that must be there.
    pub fn int(&self, key: &str) -> Result<i64, InputError> {
        self.opt_int(key)?.ok_or_else(|| self.missing(key))
    }

    /// An integer field, if there.
    pub fn opt_int(&self, key: &str) -> Result<Option<i64>, InputError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(i) => Ok(Some(i)),
                None => match n.as_u64() {
                    Some(large) => Err(InputError::Invalid {
                        path: self.at(key),
                        message: format!("{large} is too large"),
                    }),
                    None => Err(self.wrong(key, "an integer")),
                },
            },
            Some(_) => Err(self.wrong(key, "an integer")),
        }
    }

    /// A whole number that is not negative.
    pub fn opt_count(&self, key: &str) -> Result<Option<u64>, InputError> {
        match self.opt_int(key)? {
            None => Ok(None),
            Some(i) => u64::try_from(i).map(Some).map_err(|_| InputError::Invalid {
                path: self.at(key),
                message: format!("{i} is below 0"),
            }),
        }
    }

    /// A whole-number field (0 or more) that must be there.
    pub fn count(&self, key: &str) -> Result<u64, InputError> {
        self.opt_count(key)?.ok_or_else(|| self.missing(key))
    }

    /// A number field, if there.
    pub fn opt_number(&self, key: &str) -> Result<Option<f64>, InputError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.wrong(key, "a number")),
            Some(_) => Err(self.wrong(key, "a number")),
        }
    }

    /// A boolean field, if there.
    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>, InputError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.wrong(key, "true or false")),
        }
    }

    /// A boolean field, `default` when it is not there.
    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool, InputError> {
        Ok(self.opt_bool(key)?.unwrap_or(default))
    }

    /// An array field, if there.
    pub fn opt_array(&self, key: &str) -> Result<Option<&'a Vec<Value>>, InputError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(_) => Err(self.wrong(key, "an array")),
        }
    }

    /// An array field that must be there.
    pub fn array(&self, key: &str) -> Result<&'a Vec<Value>, InputError> {
        self.opt_array(key)?.ok_or_else(|| self.missing(key))
    }

    /// An array of strings.
    pub fn opt_strings(&self, key: &str) -> Result<Option<Vec<&'a str>>, InputError> {
        let Some(items) = self.opt_array(key)? else {
            return Ok(None);
        };
        let base = self.at(key);
        items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s.as_str()),
                _ => Err(InputError::Type {
                    path: index(&base, i),
                    expected: "a string",
                }),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// An object field, if there, read at `path`.
    pub fn opt_obj(&self, key: &str, path: &'a str) -> Result<Option<Obj<'a>>, InputError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => Obj::new(path, v).map(Some),
        }
    }

    /// A field whose string names one of a fixed set, read with `parse`.
    pub fn opt_word<T>(
        &self,
        key: &str,
        what: &'static str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, InputError> {
        match self.opt_str(key)? {
            None => Ok(None),
            Some(s) => parse(s).map(Some).ok_or_else(|| InputError::Unknown {
                path: self.at(key),
                what,
                value: s.to_string(),
            }),
        }
    }

    /// A field whose string names one of a fixed set, read with `parse`; it must be there.
    pub fn word<T>(
        &self,
        key: &str,
        what: &'static str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, InputError> {
        self.opt_word(key, what, parse)?
            .ok_or_else(|| self.missing(key))
    }

    /// Fails on a field not in `allowed` (a misspelt field is said, not ignored).
    pub fn only(&self, allowed: &[&str]) -> Result<(), InputError> {
        match self.map.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(InputError::Extra { path: self.at(k) }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn errors_name_the_field() {
        let v = json!({"since": "x", "n": 1.5, "big": 18446744073709551615u64, "list": [1]});
        let o = Obj::new("progress", &v).unwrap();
        assert_eq!(
            o.int("since").unwrap_err().to_string(),
            "progress.since: expected an integer"
        );
        assert_eq!(
            o.int("n").unwrap_err().to_string(),
            "progress.n: expected an integer"
        );
        assert_eq!(
            o.int("big").unwrap_err().to_string(),
            "progress.big: 18446744073709551615 is too large"
        );
        assert_eq!(
            o.str("phase").unwrap_err().to_string(),
            "progress.phase: missing"
        );
        assert_eq!(
            o.opt_strings("list").unwrap_err().to_string(),
            "progress.list[0]: expected a string"
        );
        assert_eq!(o.only(&["since"]).unwrap_err().code(), "unknown_field");
        assert!(Obj::new("x", &json!([])).is_err());
    }
}
