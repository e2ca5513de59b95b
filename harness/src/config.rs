//! `lembas run`'s settings: each from its flag, else its environment variable, else the config
//! file, else its default; a clear message for anything missing or wrong, naming where it came
//! from. The config file is JSON: `--config FILE`, else `.lembas.json` in the project root, else
//! `$XDG_CONFIG_HOME/lembas/config.json` (`~/.config/lembas/config.json`), when there is one.

use anyhow::{anyhow, bail, Context as _, Result};
use lembas_rules::permission::Mode;
use lembas_rules::team::Team;
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};

/// The environment variable the API key is read from unless `--api-key-env` names another.
pub const API_KEY_ENV: &str = "LEMBAS_API_KEY";

/// `--mode`: one of the rules' modes, by its word (clap lists them in the help and in an error).
fn mode_value() -> impl clap::builder::TypedValueParser<Value = Mode> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Mode::ALL.map(Mode::as_str))
        .try_map(|word| Mode::parse(&word).ok_or("not a mode"))
}

/// How many agents the tree may have, the main agent included: `MIN..MAX`, or `N` for `1..N`
/// (team.md §2: 1 ≤ MIN ≤ MAX).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentRange {
    /// The fewest the main agent is asked to work with.
    pub min: u32,
    /// The most there may be.
    pub max: u32,
}

impl AgentRange {
    /// A setting a team can have (team.md §2: 1 ≤ min ≤ max), by the rules' own check
    /// (`Team::impossible_setting`); otherwise the rules' reason.
    pub fn new(min: u32, max: u32) -> Result<AgentRange, String> {
        match Team::impossible_setting(min, max) {
            Some(why) => Err(why),
            None => Ok(AgentRange { min, max }),
        }
    }
}

impl std::str::FromStr for AgentRange {
    type Err = String;

    fn from_str(s: &str) -> Result<AgentRange, String> {
        parse_agents(s)
            .map(|(min, max)| AgentRange { min, max })
            .ok_or_else(|| format!("\"{s}\" is not MIN..MAX with 1 ≤ MIN ≤ MAX (e.g. 1..4)"))
    }
}

impl<'de> serde::Deserialize<'de> for AgentRange {
    /// `"MIN..MAX"`, `"N"` or the number `N`.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<AgentRange, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Written {
            Text(String),
            Count(u32),
        }
        match Written::deserialize(d)? {
            Written::Text(text) => text.parse().map_err(serde::de::Error::custom),
            Written::Count(n) => n.to_string().parse().map_err(serde::de::Error::custom),
        }
    }
}

/// A mode as a config file writes it: one of the rules' words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeSetting(pub Mode);

impl<'de> serde::Deserialize<'de> for ModeSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ModeSetting, D::Error> {
        let word = String::deserialize(d)?;
        Mode::parse(&word).map(ModeSetting).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "\"{word}\" is not a mode ({})",
                Mode::ALL.map(Mode::as_str).join(", ")
            ))
        })
    }
}

/// The config file: every key optional, an unknown key an error naming it.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// The server's base URL (…/v1).
    pub base_url: Option<String>,
    /// The model's id.
    pub model: Option<String>,
    /// The environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// The model's context window in tokens.
    pub context: Option<NonZeroU64>,
    /// The permission mode.
    pub mode: Option<ModeSetting>,
    /// How many agents the tree may have.
    pub agents: Option<AgentRange>,
    /// Requests the server serves at once.
    pub parallel: Option<NonZeroU64>,
    /// Ask the server for its prompt processing.
    pub return_progress: Option<bool>,
}

/// The settings of a session (`lembas run --help`, `lembas chat --help`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SessionOptions {
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
    pub context: Option<NonZeroU64>,
    /// The permission mode (default: edit, or the config's mode).
    #[arg(long, value_parser = mode_value())]
    pub mode: Option<Mode>,
    /// How many agents the tree may have, the main agent included: MIN..MAX (default 1..4).
    #[arg(long)]
    pub agents: Option<AgentRange>,
    /// Requests the server serves at once (none: no limit; 1: no subagents on it).
    #[arg(long)]
    pub parallel: Option<NonZeroU64>,
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
}

/// `lembas run`: a session of one turn.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RunOptions {
    /// The session's settings.
    #[command(flatten)]
    pub session: SessionOptions,
    /// What to do.
    pub prompt: String,
}

/// The settings resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The server's base URL.
    pub base_url: String,
    /// The model's id.
    pub model: String,
    /// The API key, when its variable is set.
    pub api_key: Option<String>,
    /// The model's context window in tokens, when known.
    pub context: Option<u64>,
    /// The permission mode.
    pub mode: Mode,
    /// How many agents the tree may have.
    pub agents: AgentRange,
    /// Requests the server serves at once; none: no limit.
    pub parallel: Option<u64>,
    /// Ask the server for its prompt processing.
    pub return_progress: bool,
}

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

/// The config file, read: an error names the file and what is wrong in it, and where.
pub fn read_config(path: &Path) -> Result<ConfigFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("the config file {}", path.display()))?;
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(&text) {
        bail!("the config file {} is not JSON: {e}", path.display());
    }
    serde_json::from_str(&text).map_err(|e| anyhow!("the config file {}: {e}", path.display()))
}

/// `MIN..MAX`, or `N` for 1..N, a setting a team can have ([`AgentRange::new`]).
pub fn parse_agents(s: &str) -> Option<(u32, u32)> {
    let (min, max) = match s.split_once("..") {
        Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
        None => (1, s.trim().parse().ok()?),
    };
    AgentRange::new(min, max).ok().map(|r| (r.min, r.max))
}

impl Settings {
    /// Resolves the options in `root` with the environment `env`: each setting from its flag,
    /// else its variable, else the config file, else its default.
    pub fn resolve(
        o: &SessionOptions,
        root: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings> {
        let file = match config_path(o.config.as_deref(), root) {
            Some(p) => read_config(&p)?,
            None => ConfigFile::default(),
        };
        let variable = |name: &str| env(name).filter(|v| !v.is_empty());
        let missing = |what: &str, flag: &str, var: &str, key: &str| {
            anyhow!(
                "no {what}: give {flag}, set {var}, or put \"{key}\" in a config file (.lembas.json)"
            )
        };
        let base_url = o
            .base_url
            .clone()
            .or_else(|| variable("LEMBAS_BASE_URL"))
            .or(file.base_url)
            .ok_or_else(|| missing("server", "--base-url URL", "LEMBAS_BASE_URL", "base_url"))?;
        let model = o
            .model
            .clone()
            .or_else(|| variable("LEMBAS_MODEL"))
            .or(file.model)
            .ok_or_else(|| missing("model", "--model ID", "LEMBAS_MODEL", "model"))?;
        let key_env = o
            .api_key_env
            .clone()
            .or(file.api_key_env)
            .unwrap_or_else(|| API_KEY_ENV.into());
        Ok(Settings {
            base_url,
            model,
            api_key: variable(&key_env),
            context: o.context.or(file.context).map(NonZeroU64::get),
            mode: o.mode.or(file.mode.map(|m| m.0)).unwrap_or(Mode::Edit),
            agents: o
                .agents
                .or(file.agents)
                .unwrap_or(AgentRange { min: 1, max: 4 }),
            parallel: o.parallel.or(file.parallel).map(NonZeroU64::get),
            return_progress: o.return_progress || file.return_progress.unwrap_or(false),
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

    fn opts() -> SessionOptions {
        SessionOptions::default()
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
        assert_eq!(s.agents, AgentRange { min: 2, max: 5 });
        assert_eq!(s.context, Some(8192));
        assert_eq!(s.mode, Mode::Edit);
        let o = SessionOptions {
            model: Some("flag-m".into()),
            agents: Some("3".parse().unwrap()),
            ..opts()
        };
        let s = Settings::resolve(&o, &d, &env).unwrap();
        assert_eq!(
            (s.model.as_str(), s.agents),
            ("flag-m", AgentRange { min: 1, max: 3 })
        );
    }

    #[test]
    fn what_is_missing_or_wrong_is_named() {
        let d = dir("missing", None);
        let o = SessionOptions {
            config: Some(d.join("none.json")),
            ..opts()
        };
        let e = Settings::resolve(&o, &d, &no_env).unwrap_err().to_string();
        assert!(e.contains("none.json"), "{e}");
        let o = SessionOptions {
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
        assert!(e.contains("unknown field `modle`"), "{e}");
        let d = dir(
            "bad",
            Some(r#"{"base_url": "u", "model": "m", "agents": "5..2"}"#),
        );
        let e = Settings::resolve(&opts(), &d, &no_env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"5..2\" is not MIN..MAX"), "{e}");
        // Numbers are numbers: a zero window, or a window written as text, is named.
        let d = dir(
            "zero",
            Some(r#"{"base_url": "u", "model": "m", "context": 0}"#),
        );
        let e = Settings::resolve(&opts(), &d, &no_env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1 column"), "{e}");
        let d = dir(
            "text",
            Some(r#"{"base_url": "u", "model": "m", "parallel": "2", "agents": 3}"#),
        );
        let e = Settings::resolve(&opts(), &d, &no_env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("invalid type: string \"2\""), "{e}");
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
        // The rules' check, with their reason.
        assert_eq!(
            AgentRange::new(3, 2).unwrap_err(),
            "min: 3 is more than max 2"
        );
        assert_eq!(AgentRange::new(2, 2), Ok(AgentRange { min: 2, max: 2 }));
        assert_eq!(parse_agents("a..b"), None);
    }
}
