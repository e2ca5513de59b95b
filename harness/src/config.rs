//! `lembas run`'s settings: each from its flag, else its environment variable, else the config
//! file, else its default; a clear message for anything missing or wrong, naming where it came
//! from. The config file is JSON: `--config FILE`, else `.lembas.json` in the project root, else
//! `$XDG_CONFIG_HOME/lembas/config.json` (`~/.config/lembas/config.json`), when there is one.

use anyhow::{anyhow, bail, Context as _, Result};
use lembas_rules::permission::Mode;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The environment variable the API key is read from unless `--api-key-env` names another.
pub const API_KEY_ENV: &str = "LEMBAS_API_KEY";

/// `--mode`: one of the rules' modes, by its word (clap lists them in the help and in an error).
fn mode_value() -> impl clap::builder::TypedValueParser<Value = Mode> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Mode::ALL.map(Mode::as_str))
        .try_map(|word| Mode::parse(&word).ok_or("not a mode"))
}

/// The settings of a run (`lembas run --help`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RunOptions {
    /// The server's base URL (…/v1); else LEMBAS_BASE_URL, else the config's base_url.
    #[arg(long)]
    pub base_url: Option<String>,
    /// The model's id; else LEMBAS_MODEL, else the config's model.
    #[arg(long)]
    pub model: Option<String>,
    /// The environment variable holding the API key (default LEMBAS_API_KEY).
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// The model's context window in tokens: a subagent is paused at 85% of it. Unknown: none.
    #[arg(long)]
    pub context: Option<u64>,
    /// The permission mode (default: edit, or the config's mode).
    #[arg(long, value_parser = mode_value())]
    pub mode: Option<Mode>,
    /// How many agents the tree may have, the main agent included: MIN..MAX (default 1..4).
    #[arg(long)]
    pub agents: Option<String>,
    /// Requests the server serves at once (none: no limit; 1: no subagents on it).
    #[arg(long)]
    pub parallel: Option<u64>,
    /// Ask the server for its prompt processing (llama.cpp's return_progress).
    #[arg(long)]
    pub return_progress: bool,
    /// The config file (JSON).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Nobody answers approvals: what would ask is refused.
    #[arg(long)]
    pub unattended: bool,
    /// Write every event as one JSON object a line to FILE.
    #[arg(long)]
    pub events: Option<PathBuf>,
    /// What to do.
    pub prompt: String,
}

/// The settings resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub context: Option<u64>,
    pub mode: Mode,
    pub agents: (u32, u32),
    pub parallel: Option<u64>,
    pub return_progress: bool,
}

const KEYS: &[&str] = &[
    "base_url",
    "model",
    "api_key_env",
    "context",
    "mode",
    "agents",
    "parallel",
    "return_progress",
];

/// The config file to read: the one given, else the project's, else the person's, if any.
fn config_path(given: Option<&Path>, root: &Path) -> Option<PathBuf> {
    if let Some(p) = given {
        return Some(p.to_path_buf());
    }
    let project = root.join(".lembas.json");
    if project.is_file() {
        return Some(project);
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    let person = base.join("lembas").join("config.json");
    person.is_file().then_some(person)
}

/// The config file's object (empty without one), its keys checked.
pub fn read_config(path: &Path) -> Result<Map<String, Value>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("the config file {}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .with_context(|| format!("the config file {} is not JSON", path.display()))?;
    let Value::Object(map) = value else {
        bail!("the config file {}: not a JSON object", path.display());
    };
    if let Some(k) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        bail!(
            "the config file {}: unknown key \"{k}\" (known: {})",
            path.display(),
            KEYS.join(", ")
        );
    }
    Ok(map)
}

/// `MIN..MAX`, or `N` for 1..N.
pub fn parse_agents(s: &str) -> Option<(u32, u32)> {
    let (min, max) = match s.split_once("..") {
        Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
        None => (1, s.trim().parse().ok()?),
    };
    (1 <= min && min <= max).then_some((min, max))
}

struct Source<'a> {
    file: Option<(PathBuf, Map<String, Value>)>,
    env: &'a dyn Fn(&str) -> Option<String>,
}

impl Source<'_> {
    /// The flag, else the variable, else the file's key (as text).
    fn text(&self, flag: Option<String>, env: Option<&str>, key: &str) -> Result<Option<String>> {
        if flag.is_some() {
            return Ok(flag);
        }
        if let Some(v) = env.and_then(|e| (self.env)(e)).filter(|v| !v.is_empty()) {
            return Ok(Some(v));
        }
        let Some((path, map)) = &self.file else {
            return Ok(None);
        };
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => bail!("the config file {}: {key} must be a string", path.display()),
        }
    }

    fn where_(&self) -> String {
        match &self.file {
            Some((p, _)) => format!(" or the config file {}", p.display()),
            None => String::new(),
        }
    }
}

impl Settings {
    /// Resolves the options in `root` with the environment `env`.
    pub fn resolve(
        o: &RunOptions,
        root: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings> {
        let file = match config_path(o.config.as_deref(), root) {
            Some(p) => Some((p.clone(), read_config(&p)?)),
            None => None,
        };
        let src = Source { file, env };
        let missing = |what: &str, flag: &str, var: &str, key: &str| {
            anyhow!(
                "no {what}: give {flag}, set {var}, or put \"{key}\" in a config file (.lembas.json)"
            )
        };
        let base_url = src
            .text(o.base_url.clone(), Some("LEMBAS_BASE_URL"), "base_url")?
            .ok_or_else(|| missing("server", "--base-url URL", "LEMBAS_BASE_URL", "base_url"))?;
        let model = src
            .text(o.model.clone(), Some("LEMBAS_MODEL"), "model")?
            .ok_or_else(|| missing("model", "--model ID", "LEMBAS_MODEL", "model"))?;
        let key_env = src
            .text(o.api_key_env.clone(), None, "api_key_env")?
            .unwrap_or_else(|| API_KEY_ENV.into());
        let api_key = env(&key_env).filter(|v| !v.is_empty());
        let number = |flag: Option<u64>, key: &str| -> Result<Option<u64>> {
            match src.text(flag.map(|n| n.to_string()), None, key)? {
                None => Ok(None),
                Some(t) => match t.parse::<u64>() {
                    Ok(n) if n > 0 => Ok(Some(n)),
                    _ => bail!(
                        "{key}: \"{t}\" is not a whole number above 0{}",
                        src.where_()
                    ),
                },
            }
        };
        let context = number(o.context, "context")?;
        let parallel = number(o.parallel, "parallel")?;
        let mode = match o.mode {
            Some(mode) => mode,
            None => {
                let text = src
                    .text(None, None, "mode")?
                    .unwrap_or_else(|| Mode::Edit.as_str().into());
                Mode::parse(&text).ok_or_else(|| {
                    anyhow!(
                        "mode: \"{text}\" is not a mode ({}){}",
                        Mode::ALL.map(Mode::as_str).join(", "),
                        src.where_()
                    )
                })?
            }
        };
        let agents_text = src
            .text(o.agents.clone(), None, "agents")?
            .unwrap_or_else(|| "1..4".into());
        let agents = parse_agents(&agents_text).ok_or_else(|| {
            anyhow!("agents: \"{agents_text}\" is not MIN..MAX with 1 ≤ MIN ≤ MAX (e.g. 1..4)")
        })?;
        let return_progress = o.return_progress
            || src
                .text(None, None, "return_progress")?
                .is_some_and(|v| v == "true");
        Ok(Settings {
            base_url,
            model,
            api_key,
            context,
            mode,
            agents,
            parallel,
            return_progress,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str, config: Option<&str>) -> PathBuf {
        let d = std::env::temp_dir().join(format!("lembas-config-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        if let Some(c) = config {
            std::fs::write(d.join(".lembas.json"), c).unwrap();
        }
        d
    }

    fn opts() -> RunOptions {
        RunOptions {
            prompt: "p".into(),
            ..RunOptions::default()
        }
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn flags_then_variables_then_the_file() {
        let d = dir(
            "order",
            Some(
                r#"{"base_url": "http://file/v1", "model": "file-m", "agents": "2..5", "context": 8192}"#,
            ),
        );
        let env = |k: &str| (k == "LEMBAS_MODEL").then(|| "env-m".to_string());
        let s = Settings::resolve(&opts(), &d, &env).unwrap();
        assert_eq!(s.base_url, "http://file/v1");
        assert_eq!(s.model, "env-m");
        assert_eq!(s.agents, (2, 5));
        assert_eq!(s.context, Some(8192));
        assert_eq!(s.mode, Mode::Edit);
        let o = RunOptions {
            model: Some("flag-m".into()),
            agents: Some("3".into()),
            ..opts()
        };
        let s = Settings::resolve(&o, &d, &env).unwrap();
        assert_eq!((s.model.as_str(), s.agents), ("flag-m", (1, 3)));
    }

    #[test]
    fn what_is_missing_or_wrong_is_named() {
        let d = dir("missing", None);
        let o = RunOptions {
            config: Some(d.join("none.json")),
            ..opts()
        };
        let e = Settings::resolve(&o, &d, &no_env).unwrap_err().to_string();
        assert!(e.contains("none.json"), "{e}");
        let o = RunOptions {
            base_url: Some("http://x/v1".into()),
            ..opts()
        };
        let e = Settings::resolve(&o, &d, &no_env).unwrap_err().to_string();
        assert!(
            e.starts_with("no model: give --model ID, set LEMBAS_MODEL"),
            "{e}"
        );
        let d = dir("unknown", Some(r#"{"modle": "x"}"#));
        let e = Settings::resolve(&opts(), &d, &no_env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown key \"modle\""), "{e}");
        let d = dir(
            "bad",
            Some(r#"{"base_url": "u", "model": "m", "agents": "5..2"}"#),
        );
        let e = Settings::resolve(&opts(), &d, &no_env)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("agents: \"5..2\""), "{e}");
        let d = dir(
            "badmode",
            Some(r#"{"base_url": "u", "model": "m", "mode": "yolo"}"#),
        );
        let e = Settings::resolve(&opts(), &d, &no_env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"yolo\" is not a mode"), "{e}");
        let d = dir("notjson", Some("{"));
        let e = format!("{:#}", Settings::resolve(&opts(), &d, &no_env).unwrap_err());
        assert!(e.contains("is not JSON"), "{e}");
    }

    #[test]
    fn agents_read_as_min_and_max() {
        assert_eq!(parse_agents("1..4"), Some((1, 4)));
        assert_eq!(parse_agents(" 2 .. 2 "), Some((2, 2)));
        assert_eq!(parse_agents("6"), Some((1, 6)));
        assert_eq!(parse_agents("0..3"), None);
        assert_eq!(parse_agents("a..b"), None);
    }
}
