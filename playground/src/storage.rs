//! What this browser keeps for the page (local storage): the author's files — their own and the
//! built-in ones they saved into — and the edits not yet saved, by case; and a file handed to the
//! person as a download. A browser that will not keep something says so: nothing is lost unsaid.

use crate::model::{read_value, CaseFile, Source};
use serde_json::Value;
use wasm_bindgen::JsCast;

/// Where this browser keeps the author's files.
const STORAGE_KEY: &str = "lembas.playground.files";
/// Where it keeps the edits not yet saved into their files, by case.
const DRAFTS_KEY: &str = "lembas.playground.drafts";

/// The browser's storage for the page, when it has one.
pub(crate) fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// Copies `text` to the clipboard; `said` hears what came of it: `copied` once it is there, or
/// why not.
pub(crate) fn copy_text(text: &str, copied: String, said: impl Fn(String) + 'static) {
    let Some(clipboard) = web_sys::window().map(|w| w.navigator().clipboard()) else {
        said("This browser has no clipboard for the page.".into());
        return;
    };
    let promise = clipboard.write_text(text);
    leptos::task::spawn_local(async move {
        said(match wasm_bindgen_futures::JsFuture::from(promise).await {
            Ok(_) => copied,
            Err(_) => "The browser did not let the page copy: select the text and copy it.".into(),
        });
    });
}

/// The built-in files with the author's changes saved into them, then the author's own files.
pub(crate) fn load_files(builtin: Vec<CaseFile>) -> Vec<CaseFile> {
    let mut files = builtin;
    let Some(text) = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()) else {
        return files;
    };
    let Ok(Value::Array(list)) = serde_json::from_str::<Value>(&text) else {
        return files;
    };
    for v in list {
        let Some(name) = v.get("name").and_then(Value::as_str) else {
            continue;
        };
        let edited = v.get("source").and_then(Value::as_str) == Some(Source::Edited.as_str());
        let source = if edited { Source::Edited } else { Source::Own };
        let Some(file) = v
            .get("file")
            .and_then(|f| read_value(name, f.clone(), source, None).ok())
        else {
            continue;
        };
        match files
            .iter_mut()
            .find(|f| edited && f.source == Source::BuiltIn && f.name == file.name)
        {
            Some(built_in) => *built_in = file,
            None => files.push(file),
        }
    }
    files
}

/// Keeps the author's files (their own and the built-in ones they saved into) in this browser;
/// an error when the browser would not keep them, so that nothing is lost without being said.
pub(crate) fn save_files(files: &[CaseFile]) -> Result<(), String> {
    let kept: Vec<Value> = files
        .iter()
        .filter(|f| f.source.kept())
        .map(|f| {
            let file = f.to_value();
            serde_json::json!({"name": f.name, "source": f.source.as_str(), "file": file})
        })
        .collect();
    let Some(s) = storage() else {
        return Err(
            "this browser keeps no files for this page: your files are shown until you leave"
                .into(),
        );
    };
    lembas_rules::json::to_text(&Value::Array(kept))
        .ok()
        .and_then(|text| s.set_item(STORAGE_KEY, &text).ok())
        .ok_or_else(|| {
            "this browser's storage for the page is full: your files are shown until you leave, and not kept (download them, or remove one)".to_string()
        })
}

/// The key of a case's edit in the drafts: its file's name and its index.
pub(crate) fn draft_key(file: &str, index: usize) -> String {
    format!("{file}#{index}")
}

/// Every edit not yet saved, by case.
pub(crate) fn drafts() -> serde_json::Map<String, Value> {
    storage()
        .and_then(|s| s.get_item(DRAFTS_KEY).ok().flatten())
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .unwrap_or_default()
}

/// Keeps a case's unsaved edit (`Some`) or forgets it (`None`); an error when the browser
/// would not keep it.
pub(crate) fn keep_draft(key: &str, text: Option<&str>) -> Result<(), String> {
    let mut all = drafts();
    match text {
        Some(t) => {
            all.insert(key.to_string(), Value::String(t.to_string()));
        }
        None => {
            all.remove(key);
        }
    }
    let stored = storage().and_then(|s| {
        let text = lembas_rules::json::to_text(&Value::Object(all)).ok()?;
        s.set_item(DRAFTS_KEY, &text).ok()
    });
    stored.ok_or_else(|| {
        "this browser will not keep your edit: save it into its file or download it before you leave".to_string()
    })
}

/// Hands `text` to the person as a file called `name` (the browser's download).
pub(crate) fn download(name: &str, text: &str) -> Result<(), String> {
    let failed = || format!("{name} could not be downloaded");
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/json");
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|_| failed())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| failed())?;
    let link = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
        .ok_or_else(failed)?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}
