//! The editor's side: the list of problems, and the selection's properties as fields
//! that edit the description.

use super::{EditAction, Editor, Element, Property, ServerField};
use crate::Shared;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PanelProps {
    pub editor: Shared<Editor>,
    pub edit: Callback<EditAction>,
}

/// Every problem, with a button that selects (and reveals) its element.
#[component]
pub fn ProblemList(props: &PanelProps) -> Html {
    let ed = &props.editor;
    if ed.problems.is_empty() {
        return html! {};
    }
    html! {
        <div class="editor-problems" role="alert" data-testid="topology-problems">
            <p><strong>{ format!("{} problem{} to fix before a run:", ed.problems.len(), if ed.problems.len() == 1 { "" } else { "s" }) }</strong></p>
            <ul>{ for ed.problems.iter().map(|p| {
                let show = p.element.clone().map(|e| {
                    let edit = props.edit.clone();
                    html! { <button type="button" class="small" onclick={Callback::from(move |_| edit.emit(EditAction::Select(Some(e.clone()))))}>{ "show" }</button> }
                });
                // The field path stays in the tooltip, for whoever fixes the JSON file by hand.
                html! { <li title={format!("in the exported file: {}", p.problem.field)}>{ p.text.clone() }{ " " }{ for show }</li> }
            }) }</ul>
        </div>
    }
}

/// A number rounded to three decimals, as the fields show it.
fn rounded(x: f64) -> String {
    format!("{}", (x * 1000.0).round() / 1000.0)
}

/// A number field that sets `property` of the description when it changes.
fn number_field(
    edit: &Callback<EditAction>,
    label: &str,
    property: Property,
    value: String,
    step: &'static str,
) -> Html {
    let (edit, f) = (edit.clone(), property.clone());
    let on = Callback::from(move |e: Event| {
        let v = e.target_unchecked_into::<HtmlInputElement>().value();
        edit.emit(EditAction::Set { property: f.clone(), value: v });
    });
    html! {
        <label>{ label }<input type="number" step={step} min="0" value={value} onchange={on} data-field={format!("{property:?}")} /></label>
    }
}

/// The problems of one element, under its fields.
fn problems_of(ed: &Editor, e: &Element) -> Html {
    html! { <>{ for ed.problems_of(e).iter().map(|p| html! { <p class="field-error" role="alert">{ p.text.clone() }</p> }) }</> }
}

/// The selection's properties, as fields that edit the description.
#[component]
pub fn PropertiesPanel(props: &PanelProps) -> Html {
    let (ed, edit) = (&props.editor, &props.edit);
    let servers = ed.selected_servers();
    let body = match &ed.selection {
        _ if servers.len() > 1 || ed.selected_nodes().len() > 1 => many_servers(ed, &servers, edit),
        None => {
            html! { <p class="hint">{ "Select a switch, server, GPU or link to edit it (click it, or use the arrow keys)." }</p> }
        }
        Some(Element::Link(i)) => link_fields(ed, *i, edit),
        Some(Element::Node(id)) if ed.doc.spec.servers.iter().any(|s| s.id == *id) => server_fields(ed, id, edit),
        Some(Element::Node(id)) if ed.doc.spec.switches.iter().any(|s| s.id == *id) => switch_fields(ed, id, edit),
        Some(Element::Node(_)) => html! {},
        Some(Element::Gpu(server, k)) => html! {
            <>
                <h4>{ format!("GPU {k} of server {server}") }</h4>
                <p class="hint">{ "Delete removes one GPU from its server; G adds one." }</p>
            </>
        },
    };
    let on_name = edit.reform(|e: Event| EditAction::Set {
        property: Property::Name,
        value: e.target_unchecked_into::<HtmlInputElement>().value(),
    });
    html! {
        <div class="editor-properties" data-testid="editor-properties">
            <label>{ "Cluster name " }<input type="text" value={ed.doc.spec.name.clone()} onchange={on_name} /></label>
            { body }
        </div>
    }
}

/// A link's fields: its bandwidth and latency.
fn link_fields(ed: &Editor, i: usize, edit: &Callback<EditAction>) -> Html {
    let Some(l) = ed.doc.spec.links.get(i) else { return html! {} };
    html! {
        <>
            <h4>{ format!("Link {} – {}", l.a, l.b) }</h4>
            { number_field(edit, "Bandwidth (Gb/s) ", Property::LinkBandwidth(i), rounded(l.bandwidth_gbps), "any") }
            { number_field(edit, "Latency (µs) ", Property::LinkLatency(i), rounded(l.latency_us), "any") }
            { problems_of(ed, &Element::Link(i)) }
        </>
    }
}

/// A server's fields: its GPUs, their NVLink, its network link, and a button that gives
/// its whole rack the same.
fn server_fields(ed: &Editor, id: &str, edit: &Callback<EditAction>) -> Html {
    let spec = &ed.doc.spec;
    let Some(s) = spec.servers.iter().find(|s| s.id == id) else { return html! {} };
    let uplink = spec.links.iter().position(|l| l.a == id || l.b == id);
    let id = id.to_string();
    html! {
        <>
            <h4>{ format!("Server {id}") }</h4>
            { number_field(edit, "GPUs ", Property::ServerGpus(id.clone()), s.gpus.to_string(), "1") }
            { number_field(edit, "NVLink Gb/s per GPU ", Property::ServerNvlink(id.clone()), rounded(s.nvlink_gbps), "any") }
            { number_field(edit, "NVLink latency (µs) ", Property::ServerNvlinkLatency(id.clone()), rounded(s.nvlink_latency_us), "any") }
            if let Some(li) = uplink {
                { number_field(edit, "Its network link (Gb/s) ", Property::LinkBandwidth(li), rounded(spec.links[li].bandwidth_gbps), "any") }
            }
            if let Some((rack, others)) = ed.rack_of(&id).filter(|(_, all)| all.len() > 1) {
                <button type="button" data-testid="apply-to-rack"
                        title={format!("Give every server of {rack} this server's GPUs, NIC link and GPU link")}
                        onclick={edit.reform({ let id = id.clone(); move |_| EditAction::ApplyToRack(id.clone()) })}>
                    { format!("Apply to the whole rack ({rack}, {} servers)", others.len()) }
                </button>
            }
            { problems_of(ed, &Element::Node(id.clone())) }
        </>
    }
}

/// The roles a switch can be given, with a label for the list.
const SWITCH_ROLES: [&str; 5] = ["", "tor", "rails", "agg", "spine"];

/// A switch's choices of role: (value, label, selected), with `role` itself at the end
/// when it is none of [`SWITCH_ROLES`] (a file may name others), so that it stays chosen.
pub fn role_choices(role: &str) -> Vec<(String, String, bool)> {
    let mut choices: Vec<(String, String, bool)> = SWITCH_ROLES
        .iter()
        .map(|r| (r.to_string(), if r.is_empty() { "none" } else { r }.to_string(), role == *r))
        .collect();
    if !SWITCH_ROLES.contains(&role) {
        choices.push((role.to_string(), role.to_string(), true));
    }
    choices
}

/// A switch's fields: its role, and its oversubscription when it has one.
fn switch_fields(ed: &Editor, id: &str, edit: &Callback<EditAction>) -> Html {
    let Some(sw) = ed.doc.spec.switches.iter().find(|s| s.id == id) else { return html! {} };
    let role = sw.role.clone().unwrap_or_default();
    let id = id.to_string();
    let on_role = {
        let id = id.clone();
        edit.reform(move |e: Event| EditAction::Set {
            property: Property::SwitchRole(id.clone()),
            value: e.target_unchecked_into::<HtmlSelectElement>().value(),
        })
    };
    html! {
        <>
            <h4>{ format!("Switch {id}") }</h4>
            <label>{ "Role " }
                <select onchange={on_role}>
                    { for role_choices(&role).into_iter().map(|(value, label, selected)| html! { <option {value} {selected}>{ label }</option> }) }
                </select>
            </label>
            if let Some(o) = ed.oversub(&id) {
                { number_field(edit, "Oversubscription (x:1) ", Property::Oversub(id.clone()), rounded(o), "any") }
            }
            { problems_of(ed, &Element::Node(id.clone())) }
        </>
    }
}

/// Several nodes selected: the fields every selected server shares, typed once for all.
fn many_servers(ed: &Editor, servers: &[String], edit: &Callback<EditAction>) -> Html {
    let others = ed.selected_nodes().len() - servers.len();
    let field = |f: ServerField| {
        let values: Vec<f64> = servers.iter().filter_map(|s| ed.server_value(s, f)).collect();
        // One value if they agree, else empty (typing sets them all).
        let shared = values.first().filter(|v| values.iter().all(|w| w == *v));
        let value = shared.map(|&v| rounded(v)).unwrap_or_default();
        let (edit, servers) = (edit.clone(), servers.to_vec());
        let on = Callback::from(move |e: Event| {
            let value = e.target_unchecked_into::<HtmlInputElement>().value();
            edit.emit(EditAction::SetServers { servers: servers.clone(), field: f, value });
        });
        let step = if f == ServerField::Gpus { "1" } else { "any" };
        html! {
            <label>{ format!("{} ", f.label()) }
                <input type="number" step={step} min="0" value={value} placeholder="differ" onchange={on}
                       data-field={format!("many-{f:?}")} />
            </label>
        }
    };
    html! {
        <>
            <h4 data-testid="multi-selection">{ format!("{} servers selected", servers.len()) }</h4>
            <p class="hint">{ servers.join(", ") }
                if others > 0 { { format!(" (and {others} switch{} with no such fields)", if others == 1 { "" } else { "es" }) } }
            </p>
            if !servers.is_empty() {
                { for ServerField::ALL.iter().map(|&f| field(f)) }
            }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_keeps_a_role_the_list_does_not_name() {
        let chosen =
            |role: &str| -> Vec<String> { role_choices(role).into_iter().filter(|c| c.2).map(|c| c.0).collect() };
        assert_eq!(chosen("agg"), ["agg"]);
        assert_eq!(chosen(""), [""]);
        assert_eq!(role_choices("").len(), SWITCH_ROLES.len());
        assert_eq!(role_choices("")[0].1, "none");
        let core = role_choices("core");
        assert_eq!(core.len(), SWITCH_ROLES.len() + 1);
        assert_eq!(core.last().unwrap(), &("core".to_string(), "core".to_string(), true));
        assert_eq!(chosen("core"), ["core"]);
    }
}
