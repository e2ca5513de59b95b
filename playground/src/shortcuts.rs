//! The page's keys, listed where a person asks for them: `?` (outside a text field) opens the
//! list, Escape or Close closes it and gives the keyboard back where it was.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Every key of the page with what it does.
const KEYS: [(&str, &str); 9] = [
    (
        "Ctrl+Space",
        "In the editor: complete a key or a value from the case format.",
    ),
    (
        "Ctrl+Enter (⌘+Enter)",
        "Run the case and go to its first difference.",
    ),
    (
        "Ctrl+S (⌘+S)",
        "Save the case into its file, wherever the keyboard is on the Editor tab.",
    ),
    ("Ctrl+F (⌘+F)", "In the editor: search, and replace."),
    (
        "Ctrl+Z, Ctrl+Shift+Z",
        "In the editor: undo and redo (kept for each case while the page is open).",
    ),
    ("Tab, Shift+Tab", "In the editor: indent and outdent."),
    ("Esc, then Tab", "Leave the editor for the next control."),
    ("← → Home End", "On the tabs: move to another tab."),
    ("?", "This list (Esc closes it)."),
];

/// Whether the key was pressed where text is typed (a field, a list, the editor).
fn typing(ev: &web_sys::KeyboardEvent) -> bool {
    let Some(target) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return false;
    };
    matches!(target.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
        || target.is_content_editable()
}

/// The list of keys, opened by `?`.
#[component]
pub(crate) fn Shortcuts() -> impl IntoView {
    let open = RwSignal::new(false);
    // Where the keyboard was when the list opened, to give it back.
    let before: StoredValue<Option<web_sys::HtmlElement>, LocalStorage> =
        StoredValue::new_local(None);
    let close = move || {
        open.set(false);
        before.update_value(|b| {
            if let Some(e) = b.take() {
                let _ = e.focus();
            }
        });
    };
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() == "?" && !typing(&ev) && !open.get_untracked() {
            ev.prevent_default();
            let active = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element())
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
            before.set_value(active);
            open.set(true);
            crate::page::focus_after_render("shortcuts-close");
        } else if ev.key() == "Escape" && open.get_untracked() {
            ev.prevent_default();
            close();
        }
    });
    on_cleanup(move || keys.remove());
    view! {
        <section class="shortcuts" role="dialog" aria-modal="false" aria-labelledby="shortcuts-title" data-testid="shortcuts" hidden=move || !open.get()>
            <h2 id="shortcuts-title">"Keys"</h2>
            <dl>
                {KEYS.map(|(key, what)| view! { <dt><kbd>{key}</kbd></dt><dd>{what}</dd> }).collect_view()}
            </dl>
            <button id="shortcuts-close" on:click=move |_| close()>"Close"</button>
        </section>
    }
}
