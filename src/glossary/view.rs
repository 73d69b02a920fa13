//! The glossary's views: a term defined where the page first uses it (a button that opens
//! its definition in a popover, by click, touch, Enter or Space), and the glossary section
//! listing every term. The terms themselves are `crate::glossary`'s table. Plain
//! functions, not components: they add nothing of yew's machinery to the page's module.

use super::{find, TERMS};
use yew::prelude::*;

/// `shown`, the page's words for the term `key`, as a button that opens its definition
/// (the browser's popover: it closes with Escape, a click outside or another press).
/// Used once per term (the id is the term's): where the page first uses it.
pub fn term(key: &'static str, shown: &'static str) -> Html {
    let Some(t) = find(key) else {
        return html! { { shown } };
    };
    let id = format!("term-{key}");
    html! {
        <span class="term">
            <button type="button" class="term-button" popovertarget={id.clone()} data-term={key} aria-haspopup="dialog"
                    title={format!("What is {}?", t.term)}>{ shown }</button>
            <span popover="auto" id={id} class="term-pop" role="note" data-testid={format!("term-{key}")}>
                <dfn>{ t.term }</dfn>{ ": " }{ t.definition }{ " " }<a href={format!("#glossary-{key}")}>{ "All terms" }</a>
            </span>
        </span>
    }
}

/// Every term of the page with its definition, in the table's order.
pub fn glossary() -> Html {
    html! {
        <section id="glossary" class="glossary" aria-labelledby="glossary-title">
            <h2 id="glossary-title">{ "Glossary" }</h2>
            <dl data-testid="glossary">
                { for TERMS.iter().map(|t| html! {
                    <>
                        <dt id={format!("glossary-{}", t.key)}><dfn>{ t.term }</dfn></dt>
                        <dd>{ t.definition }</dd>
                    </>
                }) }
            </dl>
        </section>
    }
}
