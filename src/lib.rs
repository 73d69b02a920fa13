//! Proxima in the browser.
//!
//! For now this is a placeholder page: a title, one sentence on what Proxima is, an
//! empty topology view and a run button that is not wired up yet. The elements carry
//! `data-testid` attributes, which the browser and end-to-end tests look for.
//!
//! The crate is a library plus a thin binary (`src/main.rs`) so that tests can mount
//! [`App`] into a node of their own, and so that a web-worker binary can later share
//! this code.

use yew::prelude::*;

/// The whole page.
#[component]
pub fn App() -> Html {
    html! {
        <main class="proxima">
            <header>
                <h1>{ "Proxima" }</h1>
                <p class="tagline">
                    { "Proxima simulates distributed deep-learning jobs on a GPU cluster and \
                       schedules them with a network-sensitive scheduler, all in your browser." }
                </p>
            </header>
            <section class="topology" data-testid="topology-view" aria-label="Cluster topology">
                <p class="placeholder">{ "The cluster topology will be drawn here." }</p>
            </section>
            <div class="controls">
                // Disabled until the simulation core can be driven from the page.
                <button type="button" data-testid="run-button" disabled=true>{ "Run" }</button>
            </div>
        </main>
    }
}
