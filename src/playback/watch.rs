//! Which of a run's policies the playback shows: the one watched (a focus's, else the
//! first `dally` run) and the one beside it, each chosen in a list. A choice is kept with
//! its run's id, so that a new run opens on its own default rather than on an index that
//! meant another policy.

use crate::protocol::PolicyResult;
use crate::Shared;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The policy watched first: the one asked for (a focus names it), else the first `dally`
/// run (Dally's runs are the interesting ones to watch), else the first.
pub fn default_policy(policies: &[&str], asked: Option<&str>) -> usize {
    asked
        .and_then(|p| policies.iter().position(|o| *o == p))
        .or_else(|| policies.iter().position(|o| o.starts_with("dally")))
        .unwrap_or(0)
}

/// The policy watched among `len`: the one chosen for this run, else `default`.
pub fn watched_index(chosen: Option<(u32, usize)>, run_id: u32, default: usize, len: usize) -> usize {
    match chosen {
        Some((run, i)) if run == run_id => i,
        _ => default,
    }
    .min(len.saturating_sub(1))
}

/// The policy shown beside the watched one, if one was chosen for this run.
pub fn beside_index(beside: Option<(u32, usize)>, run_id: u32, len: usize) -> Option<usize> {
    match beside {
        Some((run, i)) if run == run_id && i < len => Some(i),
        _ => None,
    }
}

#[derive(Properties, PartialEq)]
pub struct WatchChoiceProps {
    /// Every policy's result, in the run's order.
    pub outcomes: Vec<Shared<PolicyResult>>,
    pub index: usize,
    pub other_index: Option<usize>,
    /// A policy chosen to watch, or to show beside it (`None`: nothing).
    pub on_watch: Callback<Option<usize>>,
    pub on_beside: Callback<Option<usize>>,
}

/// The lists that choose the policy to watch and the one beside it, and the watched
/// run's event count and hash.
#[component]
pub fn WatchChoice(props: &WatchChoiceProps) -> Html {
    let (outcomes, index, other_index) = (&props.outcomes, props.index, props.other_index);
    let pick = |to: &Callback<Option<usize>>| {
        to.reform(|e: Event| e.target_unchecked_into::<HtmlSelectElement>().value().parse().ok())
    };
    let outcome = &outcomes[index];
    html! {
        <div class="form-row">
            <label>{ "Watch " }
                <select onchange={pick(&props.on_watch)} data-testid="playback-policy">
                    { for outcomes.iter().enumerate().map(|(i, o)| html! {
                        <option value={i.to_string()} selected={i == index}>{ o.policy.clone() }</option>
                    }) }
                </select>
            </label>
            if outcomes.len() > 1 {
                <label>{ "beside it " }
                    <select onchange={pick(&props.on_beside)} data-testid="playback-compare">
                        <option value="none" selected={other_index.is_none()}>{ "nothing" }</option>
                        { for outcomes.iter().enumerate().map(|(i, o)| html! {
                            <option value={i.to_string()} selected={Some(i) == other_index}>{ o.policy.clone() }</option>
                        }) }
                    </select>
                </label>
            }
            <span class="hint" data-testid="event-hash" data-event-hash={outcome.event_hash.clone()}
                  data-playback-bytes={outcome.playback.len().to_string()}>
                { format!("{} events; event-log hash {} (FNV-1a, as `proxima run --events FILE` prints it)", outcome.event_count, outcome.event_hash) }
            </span>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_policy_watched_is_the_asked_one_else_dally() {
        let policies = ["fifo", "dally:order=las", "dally"];
        assert_eq!(default_policy(&policies, None), 1, "the first dally run");
        assert_eq!(default_policy(&policies, Some("dally")), 2);
        assert_eq!(default_policy(&policies, Some("tiresias")), 1, "a policy not in the run is not asked");
        assert_eq!(default_policy(&["fifo", "las"], None), 0);
        assert_eq!(default_policy(&[], None), 0);
    }

    #[test]
    fn a_choice_holds_for_its_run_only() {
        assert_eq!(watched_index(Some((7, 2)), 7, 1, 3), 2);
        assert_eq!(watched_index(Some((6, 2)), 7, 1, 3), 1, "chosen in another run");
        assert_eq!(watched_index(Some((7, 5)), 7, 1, 3), 2, "past the results that have arrived");
        assert_eq!(watched_index(None, 7, 0, 0), 0);
        assert_eq!(beside_index(Some((7, 2)), 7, 3), Some(2));
        assert_eq!(beside_index(Some((7, 3)), 7, 3), None, "not arrived yet");
        assert_eq!(beside_index(Some((6, 0)), 7, 3), None);
        assert_eq!(beside_index(None, 7, 3), None);
    }
}
