//! Where `dally`'s gain over `consolidate` comes from, under the summary table: the mean
//! JCT of `dally` without waiting and without preemption (the worker's ablation runs after
//! a run of both), and what that says about the two mechanisms.

use super::Results;
use crate::numbers::duration;
use crate::protocol::GainSource;
use crate::Shared;
use yew::prelude::*;

/// The share of the gain a mechanism carries above which "neither alone" is said: removing
/// either loses nearly all of it.
const BOTH_NEEDED: f64 = 0.8;

/// The share of `dally`'s gain over `consolidate` lost without a mechanism: 1 when
/// removing it brings `dally` back to `consolidate`, above 1 when it is then worse.
fn lost_share(g: &GainSource, without_s: f64) -> f64 {
    (without_s - g.dally_s) / (g.consolidate_s - g.dally_s)
}

fn percent_vs_consolidate(g: &GainSource, jct_s: f64) -> String {
    let change = (jct_s / g.consolidate_s - 1.0) * 100.0;
    if change.abs() < 0.05 {
        "as consolidate".into()
    } else if change < 0.0 {
        format!("{:.1}% below consolidate", -change)
    } else {
        format!("{change:.1}% above consolidate")
    }
}

/// The gain's source in words: the figures, then which mechanism carries the gain.
pub fn gain_source_text(g: &GainSource) -> String {
    let figures = format!(
        "dally's mean JCT {} is {}; without waiting (dally:delay=off) {}, {}; without preemption (dally:preempt=off) {}, {}.",
        duration(g.dally_s),
        percent_vs_consolidate(g, g.dally_s),
        duration(g.without_waiting_s),
        percent_vs_consolidate(g, g.without_waiting_s),
        duration(g.without_preemption_s),
        percent_vs_consolidate(g, g.without_preemption_s),
    );
    if g.dally_s >= g.consolidate_s {
        return format!("{figures} dally gains nothing over consolidate here, so there is no gain to split.");
    }
    let (waiting, preemption) = (lost_share(g, g.without_waiting_s), lost_share(g, g.without_preemption_s));
    let shares = format!(
        "Without waiting it loses {:.0}% of its gain, without preemption {:.0}%",
        waiting * 100.0,
        preemption * 100.0
    );
    let verdict = if waiting >= BOTH_NEEDED && preemption >= BOTH_NEEDED {
        "neither mechanism alone keeps the gain: it comes from waiting and preemption together (waiting keeps sensitive jobs queued for one server, preemption makes that room)"
    } else if waiting >= preemption {
        "most of the gain comes from waiting"
    } else {
        "most of the gain comes from preemption"
    };
    format!("{figures} {shares}: {verdict}.")
}

#[derive(Properties, PartialEq)]
pub struct GainSourceLineProps {
    pub results: Shared<Results>,
}

/// The gain's source, once the worker's ablation runs answered (or why they could not).
#[component]
pub fn GainSourceLine(props: &GainSourceLineProps) -> Html {
    let r = &props.results;
    let has = |p: &str| r.policies.iter().any(|q| q == p);
    if !r.finished || !has("dally") || !has("consolidate") {
        return html! {};
    }
    match &r.gain_source {
        None => html! {
            <p class="hint gain-source" data-testid="gain-source" data-state="pending" role="status">
                { "Where dally's gain comes from: running dally without waiting and without preemption…" }
            </p>
        },
        Some(Ok(g)) => html! {
            <p class="hint gain-source" data-testid="gain-source" data-state="done" role="status"
               data-waiting-lost={format!("{:.4}", lost_share(g, g.without_waiting_s))}
               data-preemption-lost={format!("{:.4}", lost_share(g, g.without_preemption_s))}
               data-elapsed-ms={format!("{:.0}", g.elapsed_ms)}>
                <strong>{ "Where the gain comes from: " }</strong>{ gain_source_text(g) }
            </p>
        },
        Some(Err(e)) => html! {
            <p class="hint gain-source" data-testid="gain-source" data-state="failed">
                { format!("Where dally's gain comes from: {e}") }
            </p>
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(dally_s: f64, without_waiting_s: f64, without_preemption_s: f64) -> GainSource {
        GainSource { dally_s, consolidate_s: 100.0, without_waiting_s, without_preemption_s, elapsed_ms: 0.0 }
    }

    #[test]
    fn the_gain_is_split_between_the_mechanisms_by_what_each_removal_loses() {
        // The first run's figures (seed 1): neither alone keeps the gain.
        let g = GainSource {
            dally_s: 17_577.7,
            consolidate_s: 31_594.2,
            without_waiting_s: 33_238.0,
            without_preemption_s: 31_607.0,
            elapsed_ms: 0.0,
        };
        let text = gain_source_text(&g);
        assert!(text.contains("44.4% below consolidate"), "{text}");
        assert!(text.contains("5.2% above consolidate"), "{text}");
        assert!(text.contains("loses 112% of its gain, without preemption 100%"), "{text}");
        assert!(text.contains("together"), "{text}");
        assert!(gain_source_text(&source(50.0, 90.0, 60.0)).ends_with("most of the gain comes from waiting."));
        assert!(gain_source_text(&source(50.0, 60.0, 90.0)).ends_with("most of the gain comes from preemption."));
        assert!(gain_source_text(&source(100.0, 100.0, 100.0)).contains("no gain to split"));
    }
}
