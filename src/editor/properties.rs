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

/// The selection's properties, as fields that edit the description.
#[component]
pub fn PropertiesPanel(props: &PanelProps) -> Html {
    let ed = &props.editor;
    let spec = &ed.doc.spec;
    let edit = props.edit.clone();
    let field = |label: &str, f: Property, value: String, step: &'static str, min: &'static str| {
        let edit = edit.clone();
        let f2 = f.clone();
        let on = Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            edit.emit(EditAction::Set { property: f2.clone(), value: v });
        });
        html! {
            <label>{ label }<input type="number" step={step} min={min} value={value} onchange={on} data-field={format!("{f:?}")} /></label>
        }
    };
    let num = |x: f64| format!("{}", (x * 1000.0).round() / 1000.0);
    let name_field = {
        let edit = edit.clone();
        let on = Callback::from(move |e: Event| {
            edit.emit(EditAction::Set {
                property: Property::Name,
                value: e.target_unchecked_into::<HtmlInputElement>().value(),
            })
        });
        html! { <label>{ "Cluster name " }<input type="text" value={spec.name.clone()} onchange={on} /></label> }
    };
    let problems = |e: &Element| -> Html {
        let ps = ed.problems_of(e);
        html! { <>{ for ps.iter().map(|p| html! { <p class="field-error" role="alert">{ p.text.clone() }</p> }) }</> }
    };
    let servers = ed.selected_servers();
    let body = match &ed.selection {
        _ if servers.len() > 1 || ed.selected_nodes().len() > 1 => many_servers(ed, &servers, &edit),
        None => {
            html! { <p class="hint">{ "Select a switch, server, GPU or link to edit it (click it, or use the arrow keys)." }</p> }
        }
        Some(e @ Element::Link(i)) => match spec.links.get(*i) {
            Some(l) => html! {
                <>
                    <h4>{ format!("Link {} – {}", l.a, l.b) }</h4>
                    { field("Bandwidth (Gb/s) ", Property::LinkBandwidth(*i), num(l.bandwidth_gbps), "any", "0") }
                    { field("Latency (µs) ", Property::LinkLatency(*i), num(l.latency_us), "any", "0") }
                    { problems(e) }
                </>
            },
            None => html! {},
        },
        Some(e @ Element::Node(id)) => {
            if let Some(s) = spec.servers.iter().find(|s| s.id == *id) {
                let uplink = spec.links.iter().position(|l| l.a == *id || l.b == *id);
                html! {
                    <>
                        <h4>{ format!("Server {id}") }</h4>
                        { field("GPUs ", Property::ServerGpus(id.clone()), s.gpus.to_string(), "1", "0") }
                        { field("NVLink Gb/s per GPU ", Property::ServerNvlink(id.clone()), num(s.nvlink_gbps), "any", "0") }
                        { field("NVLink latency (µs) ", Property::ServerNvlinkLatency(id.clone()), num(s.nvlink_latency_us), "any", "0") }
                        if let Some(li) = uplink {
                            { field("Its network link (Gb/s) ", Property::LinkBandwidth(li), num(spec.links[li].bandwidth_gbps), "any", "0") }
                        }
                        if let Some((rack, others)) = ed.rack_of(id).filter(|(_, all)| all.len() > 1) {
                            <button type="button" data-testid="apply-to-rack"
                                    title={format!("Give every server of {rack} this server's GPUs, NIC link and GPU link")}
                                    onclick={edit.reform({ let id = id.clone(); move |_| EditAction::ApplyToRack(id.clone()) })}>
                                { format!("Apply to the whole rack ({rack}, {} servers)", others.len()) }
                            </button>
                        }
                        { problems(e) }
                    </>
                }
            } else if let Some(sw) = spec.switches.iter().find(|s| s.id == *id) {
                let role = sw.role.clone().unwrap_or_default();
                let on_role = {
                    let edit = edit.clone();
                    let id = id.clone();
                    Callback::from(move |e: Event| {
                        edit.emit(EditAction::Set {
                            property: Property::SwitchRole(id.clone()),
                            value: e.target_unchecked_into::<HtmlSelectElement>().value(),
                        })
                    })
                };
                let roles = ["", "tor", "rails", "agg", "spine"];
                html! {
                    <>
                        <h4>{ format!("Switch {id}") }</h4>
                        <label>{ "Role " }
                            <select onchange={on_role}>
                                { for roles.iter().map(|r| html! { <option value={*r} selected={role == *r}>{ if r.is_empty() { "none" } else { *r } }</option> }) }
                                if !roles.contains(&role.as_str()) {
                                    <option value={role.clone()} selected=true>{ role.clone() }</option>
                                }
                            </select>
                        </label>
                        if let Some(o) = ed.oversub(id) {
                            { field("Oversubscription (x:1) ", Property::Oversub(id.clone()), num(o), "any", "0") }
                        }
                        { problems(e) }
                    </>
                }
            } else {
                html! {}
            }
        }
        Some(Element::Gpu(server, k)) => html! {
            <>
                <h4>{ format!("GPU {k} of server {server}") }</h4>
                <p class="hint">{ "Delete removes one GPU from its server; G adds one." }</p>
            </>
        },
    };
    html! {
        <div class="editor-properties" data-testid="editor-properties">
            { name_field }
            { body }
        </div>
    }
}

/// Several nodes selected: the fields every selected server shares, typed once for all.
fn many_servers(ed: &Editor, servers: &[String], edit: &Callback<EditAction>) -> Html {
    let others = ed.selected_nodes().len() - servers.len();
    let field = |f: ServerField| {
        let values: Vec<f64> = servers.iter().filter_map(|s| ed.server_value(s, f)).collect();
        // One value if they agree, else empty (typing sets them all).
        let shared = values.first().filter(|v| values.iter().all(|w| w == *v));
        let value = shared.map(|v| format!("{}", (v * 1000.0).round() / 1000.0)).unwrap_or_default();
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
