//! The headline and the summary table: metrics as rows, policies as columns, each cell
//! written for people (three significant figures, a unit, its ratio to the chosen
//! baseline, coloured better or worse) and carrying its raw number for tests and copying
//! (`data-metric`, the `summary.json` key; `data-policy`, the spec as written;
//! `data-value`, the number as `summary.json` writes it).

use super::charts::human;
use super::summary::notes::{moved, partial, span_of};
use super::summary::{default_baseline, headline, ratio, Verdict, METRICS};
use crate::protocol::PolicyResult;
use crate::Shared;
use proxima_core::metrics::Summary;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SummaryProps {
    pub outcomes: Vec<Shared<PolicyResult>>,
    /// The run's cluster's most oversubscribed uplink (`r` in `r:1`), for the headline's
    /// advice; `None` for full bisection.
    #[prop_or_default]
    pub oversub: Option<f64>,
}

/// The headline, the baseline select and the table.
#[component]
pub fn SummarySection(props: &SummaryProps) -> Html {
    let outcomes = &props.outcomes;
    let chosen = use_state(|| None::<String>);
    let names = outcomes.iter().map(|o| o.policy.as_str());
    let baseline = chosen
        .as_deref()
        .filter(|c| outcomes.iter().any(|o| o.policy == *c))
        .or_else(|| default_baseline(names))
        .unwrap_or_default()
        .to_string();
    let runs: Vec<(&str, &Summary)> = outcomes.iter().map(|o| (o.policy.as_str(), &o.summary)).collect();
    let head = headline(&runs, &baseline, props.oversub);
    let on_baseline = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| chosen.set(Some(e.target_unchecked_into::<HtmlSelectElement>().value())))
    };
    html! {
        <>
            if let Some(h) = &head {
                <div class={classes!("headline", h.all_equal.then_some("equal"))} data-testid="headline"
                     data-baseline={h.baseline.clone()} data-subject={h.subject.clone()} data-equal={h.all_equal.to_string()}>
                    <p class="sentence">{ h.text.clone() }</p>
                    if let Some(caveat) = &h.caveat {
                        <p class="caveat" data-testid="headline-caveat">{ caveat.clone() }</p>
                    }
                    if !h.wins.is_empty() {
                        <p class="wins">{ format!("Each metric's best: {}.", h.wins.join("; ")) }</p>
                    }
                </div>
            }
            if outcomes.len() > 1 {
                <label class="baseline">{ "Compare with " }
                    <select data-testid="baseline-select" onchange={on_baseline}>
                        { for outcomes.iter().map(|o| html! {
                            <option value={o.policy.clone()} selected={o.policy == baseline}>{ o.policy.clone() }</option>
                        }) }
                    </select>
                </label>
            }
            <Table outcomes={outcomes.clone()} baseline={baseline} />
        </>
    }
}

#[derive(Properties, PartialEq)]
struct TableProps {
    outcomes: Vec<Shared<PolicyResult>>,
    baseline: String,
}

#[component]
fn Table(props: &TableProps) -> Html {
    let outcomes = &props.outcomes;
    let base = outcomes.iter().find(|o| o.policy == props.baseline).map(|o| &o.summary);
    let caption = outcomes.first().map(|o| {
        let s = &o.summary;
        format!("Cluster {} ({} GPUs), trace {}, seed {}, {} jobs.", s.topology, s.gpus, s.trace, s.seed, s.jobs_total)
    });
    let cell = |o: &PolicyResult, m: &super::summary::Metric| {
        let v = m.value(&o.summary);
        let (verdict, against) = match base {
            Some(b) if o.policy != props.baseline => {
                let c = m.compare(v, m.value(b));
                // The arrow shows which way the value moved; the colour, better or worse.
                let text = match c.ratio {
                    Some(r) => format!("{}{}", moved(v, m.value(b)), ratio(r)),
                    None if c.verdict == Verdict::Same => "same".to_string(),
                    None if m.value(b) == 0.0 => "vs 0".to_string(),
                    None => "vs ≈0".to_string(),
                };
                // Marked when either side left jobs unfinished that the figure leaves out.
                let mark = if partial(m.key, &o.summary, b) { " *" } else { "" };
                (c.verdict, Some(format!("{text}{mark}")))
            }
            _ => (Verdict::Same, None),
        };
        let span = span_of(m.key, &o.summary);
        let shown = match &span {
            Some(span) => format!("{} {span}", m.format(v)),
            None => m.format(v),
        };
        let title = match &against {
            Some(r) => format!("{}: {shown} ({r} {}; {})", o.policy, props.baseline, m.direction()),
            None => format!("{}: {shown} (the baseline)", o.policy),
        };
        html! {
            <td data-metric={m.key} data-policy={o.policy.clone()} data-value={m.raw(&o.summary)}
                data-verdict={verdict.class()} class={verdict.class()} title={title}>
                <span class="value">{ m.format(v) }</span>
                if let Some(span) = span {
                    <span class="span">{ span }</span>
                }
                <span class="ratio">{ against.unwrap_or_else(|| "baseline".into()) }</span>
            </td>
        }
    };
    html! {
        <div class="table-scroll">
        <table class="summary" data-testid="summary-table" data-baseline={props.baseline.clone()}>
            <caption>
                { format!("One column per policy; under each value, its ratio to {}: ", props.baseline) }
                <span class="better">{ "better" }</span>{ ", " }<span class="worse">{ "worse" }</span>
                { format!(" (differences under 2% count as the same). {}", caption.unwrap_or_default()) }
            </caption>
            <thead><tr>
                <th scope="col">{ "metric" }</th>
                { for outcomes.iter().map(|o| html! {
                    <th scope="col" data-policy={o.policy.clone()}><code>{ policy_name(&o.policy) }</code></th>
                }) }
            </tr></thead>
            <tbody>
                { for METRICS.iter().map(|m| html! {
                    <tr data-metric={m.key}>
                        <th scope="row">{ m.label }<span class="direction">{ m.direction() }</span></th>
                        { for outcomes.iter().map(|o| cell(o, m)) }
                    </tr>
                }) }
                <tr class="meta">
                    <th scope="row">{ "run time in the worker" }</th>
                    { for outcomes.iter().map(|o| html! {
                        <td data-policy={o.policy.clone()} data-elapsed-ms={format!("{:.1}", o.elapsed_ms)}>{ format!("{} ms", human(o.elapsed_ms)) }</td>
                    }) }
                </tr>
                <tr class="meta">
                    <th scope="row"><abbr title="FNV-1a over every event of the run, as `proxima run --events FILE` prints it: equal hashes, equal runs">{ "event-log hash" }</abbr></th>
                    { for outcomes.iter().map(|o| html! {
                        <td class="hash" data-policy={o.policy.clone()} data-event-hash={o.event_hash.clone()} title={format!("{} events", o.event_count)}>
                            <code>{ o.event_hash.clone() }</code>
                        </td>
                    }) }
                </tr>
            </tbody>
        </table>
        </div>
    }
}

/// A policy's name in a column head: it may break only after its `:` and `,` (a
/// `<wbr>` there), never inside a word, so `tiresias:place=tightest` stays readable in a
/// table of many columns, which scrolls sideways instead.
fn policy_name(name: &str) -> Html {
    let mut parts = Vec::new();
    let mut rest = name;
    while let Some(i) = rest.find([':', ',']) {
        parts.push(html! { <>{ rest[..=i].to_string() }<wbr /></> });
        rest = &rest[i + 1..];
    }
    parts.push(html! { { rest.to_string() } });
    parts.into_iter().collect::<Html>()
}
