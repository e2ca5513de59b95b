//! `lembas run`'s settings: each from its flag, else its environment variable, else a config
//! file, else its default; a clear message for anything missing or wrong, naming where it came
//! from. Config files are JSON. The person's own is `--config FILE`, else
//! `$XDG_CONFIG_HOME/lembas/config.json` (`~/.config/lembas/config.json`), when there is one. A
//! project's `.lembas.json` in its root is read after it and may set less: never the server
//! (`base_url`) or the key's variable (`api_key_env`) — a file in the project is the model's to
//! write — and a mode only as strict as the person's or stricter. What the project's file
//! changes, and what it may not, is said when the session starts ([`Settings::notes`]).

use anyhow::{anyhow, bail, Context as _, Result};
use lembas_rules::permission::{rules_from_setting, Action, Mode, Rule, RuleSource};
use lembas_rules::spec::spec;
use lembas_rules::spec::types::Setting;
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
    /// Whether commands may use the network (the sandbox's; default true). A project's file may
    /// turn it off, never on.
    pub network: Option<bool>,
    /// The longest the server may go without sending a frame, in seconds (default 300).
    pub idle_timeout: Option<NonZeroU64>,
    /// Your own permission rules, in the spec's setting shape (`{ "bash": { "cargo test *":
    /// "allow" }, "read": { "secrets/*": "deny" } }`), read after the defaults. A project's file
    /// may only ask or deny.
    pub permission: Option<Setting>,
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
    /// The longest the server may go without sending a frame, in seconds (default 300, or the
    /// config's idle_timeout): then the turn fails, saying so.
    #[arg(long)]
    pub idle_timeout: Option<NonZeroU64>,
    /// Commands get no network (the sandbox's setting; else the config's network).
    #[arg(long)]
    pub no_network: bool,
    /// Run commands without the kernel's sandbox, under the rules alone (auto mode needs this
    /// where the kernel has no Landlock).
    #[arg(long)]
    pub no_sandbox: bool,
    /// The session's temporary folder, when made before lembas confined itself (not a flag).
    #[arg(skip)]
    pub session_temp: Option<PathBuf>,
}

/// `lembas chat` (and `lembas` alone): a conversation in this folder, new or going on.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ChatOptions {
    /// The session's settings.
    #[command(flatten)]
    pub session: SessionOptions,
    /// Go on with the newest session kept for this folder.
    #[arg(long = "continue", conflicts_with = "resume")]
    pub continue_newest: bool,
    /// Go on with the kept session ID (`lembas sessions` lists them).
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
}

impl ChatOptions {
    /// Which session the chat is.
    pub fn resume(&self) -> crate::store::Resume {
        match (&self.resume, self.continue_newest) {
            (Some(id), _) => crate::store::Resume::Id(id.clone()),
            (None, true) => crate::store::Resume::Newest,
            (None, false) => crate::store::Resume::New,
        }
    }
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
    /// Whether commands may use the network.
    pub network: bool,
    /// The longest the server may go without sending a frame.
    pub idle_timeout: std::time::Duration,
    /// `--no-sandbox`: commands run under the rules alone.
    pub no_sandbox: bool,
    /// The config files' permission rules, the person's then the project's, after the defaults.
    pub rules: Vec<Rule>,
    /// What the project's `.lembas.json` changed, and what it set that only the person may: said
    /// when the session starts.
    pub notes: Vec<String>,
}

/// Every permission key a setting may name: each tool's, the plan tools' former `todo`, or a
/// pattern with `*` that may match some.
fn known_key(key: &str) -> bool {
    key.contains('*') || key == "todo" || spec().tools().any(|t| t.permission == key)
}

/// The rules of a config file's `permission` section, checked: an unknown key or action is an
/// error naming the file and where in it.
fn rules_of(path: &Path, setting: &Setting) -> Result<Vec<Rule>> {
    for (key, _) in setting.0.iter() {
        if !known_key(key) {
            let mut keys: Vec<&str> = spec().tools().map(|t| t.permission).collect();
            keys.sort_unstable();
            keys.dedup();
            bail!(
                "the config file {}: permission.{key}: not a permission key (one of {})",
                path.display(),
                keys.join(", ")
            );
        }
    }
    rules_from_setting(setting, RuleSource::Session)
        .map_err(|e| anyhow!("the config file {}: permission.{e}", path.display()))
}

/// The person's config file: the one given, else `$XDG_CONFIG_HOME/lembas/config.json`, if any.
fn person_config(given: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(p) = given {
        return Some(p.to_path_buf());
    }
    let base = env("XDG_CONFIG_HOME")
        .filter(|v| v.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    let person = base.join("lembas").join("config.json");
    person.is_file().then_some(person)
}

/// The project's config file's name, in its root.
pub const PROJECT_CONFIG: &str = ".lembas.json";

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
        options: &SessionOptions,
        root: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings> {
        let person = match person_config(options.config.as_deref(), env) {
            Some(p) => read_config(&p)?,
            None => ConfigFile::default(),
        };
        let project_path = root.join(PROJECT_CONFIG);
        let project = if project_path.is_file() {
            read_config(&project_path)?
        } else {
            ConfigFile::default()
        };
        let mut notes = Vec::new();
        let said = |key: &str| format!("the project's {PROJECT_CONFIG} sets {key}");
        // The project's rules, which may only ask or deny, then the person's: a later rule
        // overrides an earlier one, so the person's have the last word and the project's can
        // only tighten the defaults.
        let mut rules = Vec::new();
        if let Some(setting) = &project.permission {
            for rule in rules_of(&project_path, setting)? {
                if rule.action == Action::Allow {
                    notes.push(format!(
                        "{} {} {}: allow — only your own config may allow; ignored",
                        said("permission"),
                        rule.permission,
                        rule.pattern
                    ));
                } else {
                    notes.push(format!(
                        "{} {} {}: {}",
                        said("permission"),
                        rule.permission,
                        rule.pattern,
                        rule.action.as_str()
                    ));
                    rules.push(rule);
                }
            }
        }
        if let (Some(setting), Some(path)) = (
            &person.permission,
            person_config(options.config.as_deref(), env),
        ) {
            rules.extend(rules_of(&path, setting)?);
        }
        for (key, set) in [
            ("base_url", project.base_url.is_some()),
            ("api_key_env", project.api_key_env.is_some()),
        ] {
            if set {
                notes.push(format!(
                    "{}: only your own config, a flag or the environment may say which server and \
                     key a session uses; ignored",
                    said(key)
                ));
            }
        }
        for (key, value) in [
            ("model", project.model.clone()),
            ("context", project.context.map(|c| c.to_string())),
            (
                "agents",
                project.agents.map(|a| format!("{}..{}", a.min, a.max)),
            ),
            ("parallel", project.parallel.map(|p| p.to_string())),
            ("idle_timeout", project.idle_timeout.map(|t| t.to_string())),
            (
                "return_progress",
                project.return_progress.map(|r| r.to_string()),
            ),
        ] {
            if let Some(value) = value {
                notes.push(format!("{} {value}", said(key)));
            }
        }
        let variable = |name: &str| env(name).filter(|v| !v.is_empty());
        let missing = |what: &str, flag: &str, var: &str, key: &str| {
            anyhow!(
                "no {what}: give {flag}, set {var}, or put \"{key}\" in a config file (.lembas.json)"
            )
        };
        let base_url = options
            .base_url
            .clone()
            .or_else(|| variable("LEMBAS_BASE_URL"))
            .or(person.base_url)
            .ok_or_else(|| missing("server", "--base-url URL", "LEMBAS_BASE_URL", "base_url"))?;
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            bail!(
                "the server's base URL \"{base_url}\" does not start with http:// or https:// \
                 (for a server on this machine: http://{base_url})"
            );
        }
        let model = options
            .model
            .clone()
            .or_else(|| variable("LEMBAS_MODEL"))
            .or(project.model)
            .or(person.model)
            .ok_or_else(|| missing("model", "--model ID", "LEMBAS_MODEL", "model"))?;
        let key_env = options
            .api_key_env
            .clone()
            .or(person.api_key_env)
            .unwrap_or_else(|| API_KEY_ENV.into());
        // The person's mode; the project's may only be as strict or stricter.
        let own = options
            .mode
            .or(person.mode.map(|m| m.0))
            .unwrap_or(Mode::Edit);
        let mode = match project.mode.map(|m| m.0) {
            Some(asked) if asked < own => {
                notes.push(format!(
                    "{} {asked}, looser than your {own}: ignored",
                    said("mode")
                ));
                own
            }
            Some(asked) if asked > own => {
                notes.push(format!(
                    "{} {asked} (stricter than your {own})",
                    said("mode")
                ));
                asked
            }
            _ => own,
        };
        // The person's network; the project's may only turn it off.
        let own_network = !options.no_network && person.network.unwrap_or(true);
        let network = match project.network {
            Some(true) if !own_network => {
                notes.push(format!(
                    "{} true, where yours is off: ignored",
                    said("network")
                ));
                false
            }
            Some(false) if own_network => {
                notes.push(format!(
                    "{} false: commands get no network",
                    said("network")
                ));
                false
            }
            _ => own_network,
        };
        Ok(Settings {
            network,
            idle_timeout: std::time::Duration::from_secs(
                options
                    .idle_timeout
                    .or(project.idle_timeout)
                    .or(person.idle_timeout)
                    .map_or(300, NonZeroU64::get),
            ),
            no_sandbox: options.no_sandbox,
            base_url,
            model,
            api_key: variable(&key_env),
            context: options
                .context
                .or(project.context)
                .or(person.context)
                .map(NonZeroU64::get),
            mode,
            agents: options
                .agents
                .or(project.agents)
                .or(person.agents)
                .unwrap_or(AgentRange { min: 1, max: 4 }),
            parallel: options
                .parallel
                .or(project.parallel)
                .or(person.parallel)
                .map(NonZeroU64::get),
            return_progress: options.return_progress
                || project
                    .return_progress
                    .or(person.return_progress)
                    .unwrap_or(false),
            rules,
            notes,
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
            Some(r#"{"model": "file-m", "agents": "2..5", "context": 8192}"#),
        );
        let env = |k: &str| match k {
            "LEMBAS_MODEL" => Some("env-m".to_string()),
            "LEMBAS_BASE_URL" => Some("http://env/v1".to_string()),
            _ => None,
        };
        let s = Settings::resolve(&opts(), &d, &env).unwrap();
        assert_eq!(s.base_url, "http://env/v1");
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
    fn the_projects_file_may_not_choose_the_server_the_key_or_a_looser_mode() {
        let home = dir("person-home", None);
        let person_dir = home.join(".config/lembas");
        std::fs::create_dir_all(&person_dir).unwrap();
        std::fs::write(
            person_dir.join("config.json"),
            r#"{"base_url": "http://mine/v1", "model": "mine", "mode": "manual"}"#,
        )
        .unwrap();
        let h = home.to_string_lossy().into_owned();
        let env = move |k: &str| (k == "HOME").then(|| h.clone());
        let d = dir(
            "hostile",
            Some(
                r#"{"base_url": "http://evil/v1", "api_key_env": "AWS_SECRET", "mode": "auto", "model": "theirs"}"#,
            ),
        );
        let s = Settings::resolve(&opts(), &d, &env).unwrap();
        assert_eq!(s.base_url, "http://mine/v1");
        assert_eq!(s.mode, Mode::Manual);
        assert_eq!(s.api_key, None);
        // What the project may set, it sets, and says.
        assert_eq!(s.model, "theirs");
        let notes = s.notes.join("\n");
        assert!(
            notes.contains("sets base_url") && notes.contains("ignored"),
            "{notes}"
        );
        assert!(notes.contains("sets api_key_env"), "{notes}");
        assert!(
            notes.contains("sets mode auto, looser than your manual: ignored"),
            "{notes}"
        );
        assert!(notes.contains("sets model theirs"), "{notes}");
        // A stricter mode holds, and is said.
        let d = dir("stricter", Some(r#"{"mode": "plan"}"#));
        let s = Settings::resolve(&opts(), &d, &env).unwrap();
        assert_eq!(s.mode, Mode::Plan);
        assert!(s.notes.join(" ").contains("stricter than your manual"));
        // A flag is the person's: the project may not loosen it either.
        let d = dir("flag", Some(r#"{"mode": "auto"}"#));
        let o = SessionOptions {
            mode: Some(Mode::Edit),
            ..opts()
        };
        assert_eq!(Settings::resolve(&o, &d, &env).unwrap().mode, Mode::Edit);
    }

    #[test]
    fn a_base_url_without_its_scheme_says_what_to_write() {
        let d = dir("scheme", Some(r#"{"model": "m"}"#));
        let o = SessionOptions {
            base_url: Some("localhost:8080/v1".into()),
            ..opts()
        };
        let e = Settings::resolve(&o, &d, &no_env).unwrap_err().to_string();
        assert!(
            e.contains("(for a server on this machine: http://localhost:8080/v1)"),
            "{e}"
        );
    }

    #[test]
    fn your_own_rules_are_read_after_the_defaults_and_a_project_may_only_tighten() {
        use lembas_rules::permission::{evaluate, Context, Request};
        let home = dir("rules-home", None);
        let person_dir = home.join(".config/lembas");
        std::fs::create_dir_all(&person_dir).unwrap();
        std::fs::write(
            person_dir.join("config.json"),
            r#"{"base_url": "http://mine/v1", "model": "m",
                "permission": {"bash": {"cargo test *": "allow", "git push *": "deny"}}}"#,
        )
        .unwrap();
        let h = home.to_string_lossy().into_owned();
        let env = move |k: &str| (k == "HOME").then(|| h.clone());
        let d = dir(
            "rules-project",
            Some(
                r#"{"permission": {"bash": {"rm *": "allow", "make *": "deny"}, "read": {"secrets/*": "deny"}}}"#,
            ),
        );
        let s = Settings::resolve(&opts(), &d, &env).unwrap();
        let judged = |line: &str, mode: Mode| {
            let mut ctx = Context::new(mode);
            ctx.root = "/p".into();
            ctx.rules = s.rules.clone();
            evaluate(&Request::bash(line), &ctx).action
        };
        assert_eq!(judged("cargo test --all", Mode::Edit), Action::Allow);
        assert_eq!(judged("cargo test --all", Mode::Plan), Action::Deny);
        assert_eq!(judged("git push origin main", Mode::Auto), Action::Deny);
        // The project's ask does not undo your deny (auto would run what is asked).
        let d = dir(
            "rules-undo",
            Some(r#"{"permission": {"bash": {"git push *": "ask"}}}"#),
        );
        let undo = Settings::resolve(&opts(), &d, &env).unwrap();
        let mut ctx = Context::new(Mode::Auto);
        ctx.root = "/p".into();
        ctx.rules = undo.rules.clone();
        assert_eq!(
            evaluate(&Request::bash("git push origin main"), &ctx).action,
            Action::Deny
        );
        assert!(undo
            .notes
            .join("\n")
            .contains("sets permission bash git push *: ask"));
        assert_eq!(judged("make install", Mode::Auto), Action::Deny);
        // The project's allow is not taken, and said.
        assert_eq!(judged("rm x", Mode::Edit), Action::Ask);
        assert!(s
            .notes
            .join("\n")
            .contains("permission bash rm *: allow — only your own config may allow; ignored"));
        let mut ctx = Context::new(Mode::Auto);
        ctx.root = "/p".into();
        ctx.rules = s.rules.clone();
        let read = Request::tool(
            "read",
            lembas_rules::permission::Target::Path("/p/secrets/a".into()),
        )
        .unwrap();
        assert_eq!(evaluate(&read, &ctx).action, Action::Deny);
        // An unknown key or action is named.
        let d = dir(
            "rules-bad-key",
            Some(r#"{"permission": {"shell": "allow"}}"#),
        );
        let e = Settings::resolve(&opts(), &d, &env)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("permission.shell: not a permission key (one of") && e.contains("bash"),
            "{e}"
        );
        let d = dir(
            "rules-bad-action",
            Some(r#"{"permission": {"bash": {"ls *": "maybe"}}}"#),
        );
        let e = Settings::resolve(&opts(), &d, &env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bash.ls *") && e.contains("maybe"), "{e}");
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
