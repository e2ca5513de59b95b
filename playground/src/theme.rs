//! The page's colours: the system's (light or dark, as the browser says), or light or dark as
//! the person picks, kept in the browser (`lembas.theme`) and set on the page's root element
//! (`data-theme`) — index.html sets it again before the first paint.

use leptos::prelude::*;

/// The colours a person may pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Theme {
    System,
    Light,
    Dark,
}

impl Theme {
    fn word(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    fn next(self) -> Theme {
        match self {
            Theme::System => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::System,
        }
    }

    fn parse(word: &str) -> Theme {
        match word {
            "light" => Theme::Light,
            "dark" => Theme::Dark,
            _ => Theme::System,
        }
    }
}

const KEY: &str = "lembas.theme";

/// Sets the page's colours and keeps the choice.
fn apply(theme: Theme) {
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element());
    if let Some(root) = root {
        let _ = match theme {
            Theme::System => root.remove_attribute("data-theme"),
            other => root.set_attribute("data-theme", other.word()),
        };
    }
    if let Some(s) = crate::storage::storage() {
        let _ = match theme {
            Theme::System => s.remove_item(KEY),
            other => s.set_item(KEY, other.word()),
        };
    }
}

/// A button that moves from the system's colours to light, to dark, and back.
#[component]
pub(crate) fn ThemeToggle() -> impl IntoView {
    let kept = crate::storage::storage()
        .and_then(|s| s.get_item(KEY).ok().flatten())
        .map_or(Theme::System, |w| Theme::parse(&w));
    let theme = RwSignal::new(kept);
    view! {
        <button class="theme" data-testid="theme" aria-label=move || format!("Colours: {} (change)", theme.get().word())
            on:click=move |_| {
                let next = theme.get_untracked().next();
                theme.set(next);
                apply(next);
            }>
            {move || format!("Colours: {}", theme.get().word())}
        </button>
    }
}
