//! Who pays: the per-tenant table of one run, the tenants' colour legend and a chart of
//! each tenant's finish-time fairness ρ (or slowdown, where ρ is missing) under each policy.
//!
//! Cells carry their raw numbers as the summary table's do: `data-tenant` (the tenant's
//! name), `data-metric` (the key of the tenant in `summary.json`), `data-policy` and
//! `data-value` (the number as `summary.json` writes it).

use super::summary::sig3;
use super::tenants::{gpu_shares, share_text, tenant_colour, FairnessMeasure, TenantMetric, TENANT_METRICS};
use crate::glossary::view::term;
use crate::protocol::PolicyResult;
use crate::Shared;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TenantsProps {
    pub outcomes: Vec<Shared<PolicyResult>>,
}

/// The tenants of the run chosen (the first policy's unless another is picked), and the
/// fairness chart over every policy.
#[component]
pub fn TenantsSection(props: &TenantsProps) -> Html {
    let outcomes = &props.outcomes;
    let chosen = use_state(|| None::<String>);
    let watched =
        chosen.as_deref().and_then(|c| outcomes.iter().find(|o| o.policy == c)).or_else(|| outcomes.first()).cloned();
    let Some(watched) = watched else { return html! {} };
    let on_policy = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| chosen.set(Some(e.target_unchecked_into::<HtmlSelectElement>().value())))
    };
    let s = &watched.summary;
    let shares = gpu_shares(s);
    // ρ first appears in its column's head, which opens its definition (the glossary's).
    let head = |m: &TenantMetric| {
        let label = if m.key == "rho" {
            term("rho", m.label)
        } else {
            html! { { m.label } }
        };
        html! { <th scope="col" data-metric={m.key}>{ label }</th> }
    };
    html! {
        <section class="tenants" data-testid="tenants" aria-labelledby="tenants-title">
            <h3 id="tenants-title">{ "Tenants: who pays" }</h3>
            if outcomes.len() > 1 {
                <label class="tenant-policy">{ "Run " }
                    <select data-testid="tenant-policy-select" onchange={on_policy}>
                        { for outcomes.iter().map(|o| html! {
                            <option value={o.policy.clone()} selected={o.policy == watched.policy}>{ o.policy.clone() }</option>
                        }) }
                    </select>
                </label>
            }
            <Legend names={s.tenants.iter().map(|t| t.name.clone()).collect::<Vec<_>>()} />
            <div class="tenant-table-wrap">
            <table class="summary tenant-table" data-testid="tenant-table" data-policy={watched.policy.clone()}>
                <caption>
                    { format!(
                        "{}: one row per tenant. Quotas: {}. Jain's index over the tenants' slowdowns: {} (1: every tenant's work slowed alike).",
                        watched.policy,
                        serde_json::to_value(s.quotas).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
                        sig3(s.jain_slowdown),
                    ) }
                    if let Some(ms) = watched.fairness_ms {
                        { format!(" The isolated runs for ρ took {} ms in the worker.", sig3(ms)) }
                    }
                </caption>
                <thead><tr>
                    <th scope="col">{ "tenant" }</th>
                    { for TENANT_METRICS.iter().take(6).map(head) }
                    <th scope="col" data-metric="used_gpu_s">{ "GPU-time share used" }</th>
                    { for TENANT_METRICS.iter().skip(6).map(head) }
                </tr></thead>
                <tbody>
                    { for s.tenants.iter().enumerate().map(|(i, t)| {
                        let cell = |m: &super::tenants::TenantMetric| html! {
                            <td data-tenant={t.name.clone()} data-metric={m.key} data-policy={watched.policy.clone()}
                                data-value={m.raw(t)}>{ m.format(m.value(t)) }</td>
                        };
                        html! {
                            <tr data-tenant={t.name.clone()}>
                                <th scope="row">{ swatch(i) }{ t.name.clone() }</th>
                                { for TENANT_METRICS.iter().take(6).map(cell) }
                                <td data-tenant={t.name.clone()} data-metric="used_gpu_s" data-policy={watched.policy.clone()}
                                    data-value={serde_json::to_string(&t.used_gpu_s).unwrap_or_default()}
                                    data-quota-gpus={t.quota_gpus.to_string()}
                                    class={classes!((shares[i].used > shares[i].quota).then_some("over-quota"))}>
                                    { share_text(shares[i]) }
                                </td>
                                { for TENANT_METRICS.iter().skip(6).map(cell) }
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            </div>
            <FairnessChart outcomes={outcomes.clone()} />
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct LegendProps {
    names: Vec<String>,
}

/// Each tenant's colour, as the table and the chart use it.
#[component]
fn Legend(props: &LegendProps) -> Html {
    html! {
        <ul class="tenant-legend" data-testid="tenant-legend" aria-label="tenant colours">
            { for props.names.iter().enumerate().map(|(i, name)| html! {
                <li data-tenant={name.clone()} data-colour={tenant_colour(i)}>
                    { swatch(i) }{ name.clone() }
                </li>
            }) }
        </ul>
    }
}

/// A square of the tenant's colour (an SVG fill: the page's CSP allows no inline styles).
fn swatch(i: usize) -> Html {
    html! {
        <svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" fill={tenant_colour(i)} /></svg>
    }
}

const W: f64 = 640.0;
const H: f64 = 240.0;
const LEFT: f64 = 48.0;
const BOTTOM: f64 = 40.0;
const TOP: f64 = 12.0;

/// Bars of each tenant's ρ (or slowdown) grouped by policy, a line at 1 (no cost from
/// sharing), every bar labelled with its tenant and value so that colour is not needed.
#[derive(Properties, PartialEq)]
struct ChartProps {
    outcomes: Vec<Shared<PolicyResult>>,
}

#[component]
fn FairnessChart(props: &ChartProps) -> Html {
    let measure = FairnessMeasure::for_runs(props.outcomes.iter().map(|o| &o.summary));
    let top = props
        .outcomes
        .iter()
        .flat_map(|o| o.summary.tenants.iter().filter_map(move |t| measure.value(t)))
        .fold(1.0_f64, f64::max)
        * 1.1;
    let y = |v: f64| TOP + (H - TOP - BOTTOM) * (1.0 - v / top);
    let groups = props.outcomes.len().max(1) as f64;
    let group_w = (W - LEFT - 8.0) / groups;
    let caption = match measure {
        FairnessMeasure::Rho => "Finish-time fairness ρ per tenant and policy: its jobs' JCTs in the shared cluster over their JCTs alone on the tenant's share (above 1: sharing cost the tenant time).",
        FairnessMeasure::Slowdown => "Slowdown per tenant and policy: its jobs' JCTs over their ideal run times. ρ is missing from at least one run (no job completed in both the shared and the isolated runs), so the chart shows slowdown, which needs no isolated run.",
    };
    let mut bars = Vec::new();
    for (g, o) in props.outcomes.iter().enumerate() {
        let n = o.summary.tenants.len().max(1) as f64;
        let bar_w = (group_w - 12.0) / n;
        for (i, t) in o.summary.tenants.iter().enumerate() {
            let Some(v) = measure.value(t) else { continue };
            let x = LEFT + g as f64 * group_w + 6.0 + i as f64 * bar_w;
            bars.push(html! {
                <rect x={format!("{x:.1}")} y={format!("{:.1}", y(v))} width={format!("{:.1}", (bar_w - 2.0).max(1.0))}
                      height={format!("{:.1}", (y(0.0) - y(v)).max(0.0))} fill={tenant_colour(i)}
                      data-tenant={t.name.clone()} data-policy={o.policy.clone()} data-metric={measure.key()}
                      data-value={serde_json::to_string(&v).unwrap_or_default()}>
                    <title>{ format!("{}, {}: {} {}", o.policy, t.name, measure.key(), sig3(v)) }</title>
                </rect>
            });
        }
        bars.push(html! {
            <text class="group-label" x={format!("{:.1}", LEFT + (g as f64 + 0.5) * group_w)} y={format!("{:.1}", H - BOTTOM + 16.0)} text-anchor="middle">{ o.policy.clone() }</text>
        });
    }
    html! {
        <figure class="chart-figure" data-testid="fairness-chart" data-measure={measure.key()}>
            <figcaption>{ caption }</figcaption>
            <svg viewBox={format!("0 0 {W} {H}")} role="img" aria-label={caption}>
                <line class="axis" x1={LEFT.to_string()} x2={LEFT.to_string()} y1={TOP.to_string()} y2={format!("{:.1}", y(0.0))} />
                <line class="axis" x1={LEFT.to_string()} x2={W.to_string()} y1={format!("{:.1}", y(0.0))} y2={format!("{:.1}", y(0.0))} />
                <line class="one" x1={LEFT.to_string()} x2={W.to_string()} y1={format!("{:.1}", y(1.0))} y2={format!("{:.1}", y(1.0))} />
                <text class="tick" x={format!("{:.1}", LEFT - 4.0)} y={format!("{:.1}", y(1.0) + 4.0)} text-anchor="end">{ "1" }</text>
                <text class="tick" x={format!("{:.1}", LEFT - 4.0)} y={format!("{:.1}", y(top / 1.1) + 4.0)} text-anchor="end">{ sig3(top / 1.1) }</text>
                { for bars }
            </svg>
            <details>
                <summary>{ format!("Table: {} per tenant and policy", measure.key()) }</summary>
                <table class="data">
                    <thead><tr><th scope="col">{ "policy" }</th>
                        { for props.outcomes.first().into_iter().flat_map(|o| o.summary.tenants.iter()).map(|t| html! { <th scope="col">{ t.name.clone() }</th> }) }
                    </tr></thead>
                    <tbody>{ for props.outcomes.iter().map(|o| html! {
                        <tr><th scope="row">{ o.policy.clone() }</th>
                        { for o.summary.tenants.iter().map(|t| html! { <td>{ measure.value(t).map(sig3).unwrap_or_else(|| "–".into()) }</td> }) }</tr>
                    }) }</tbody>
                </table>
            </details>
        </figure>
    }
}
