//! A scripted OpenAI-compatible server on 127.0.0.1, to try `lembas run` by hand without a
//! model: `cargo run -p lembas-harness --example fake-server -- SCRIPT.json [PORT]` prints its
//! URL and answers until Ctrl-C. The script's shape is in `tests/common/scripted.rs`; an example:
//! `harness/examples/subagent.json` (the main agent adds a subagent, which writes notes.txt and
//! reports; the main agent answers).

#[path = "../tests/common/scripted.rs"]
mod scripted;

use anyhow::{anyhow, Context as _, Result};

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or_else(|| anyhow!("usage: fake-server SCRIPT.json [PORT]"))?;
    let port: u16 = match args.next() {
        Some(p) => p.parse().with_context(|| format!("PORT: \"{p}\""))?,
        None => 0,
    };
    let text = std::fs::read_to_string(&path).with_context(|| path.clone())?;
    let script: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{path} is not JSON"))?;
    let rules = scripted::from_json(&script).map_err(|e| anyhow!("{path}: {e}"))?;
    let server = scripted::serve(rules, port).await;
    println!("{}", server.url);
    tokio::signal::ctrl_c().await?;
    for (who, when) in server.unused() {
        eprintln!("not used: who {who:?} when {when:?}");
    }
    Ok(())
}
