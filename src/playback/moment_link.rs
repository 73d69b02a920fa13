//! "Link to this moment": a link that opens the same run, runs it and opens its playback
//! on the same policy, at the same time, with the same job selected (a `#s=` or
//! `#lesson=` link with `policy`, `t` and `job`, [`crate::state::link`]); in the tour, a
//! link to the tour's step (`#tour=N`).
//!
//! The player knows the moment (its time, its selected job, the policy it shows); what it
//! plays back comes from the page, which provides the link to the run on screen as a
//! context ([`MomentBase`]): a player without one (none is provided) shows no button.

use crate::link::{format_fragment, Link, LinkMoment};
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The link to the run a player plays back, without a moment: provided by the page around
/// the playback of its results (their scenario's or lesson's link) and around the tour
/// (its step's).
#[derive(Clone, Debug, PartialEq)]
pub struct MomentBase(pub Link);

/// Where the page provides a [`MomentBase`] to the players inside (`None`: no button).
pub type MomentScope = ContextProvider<Option<MomentBase>>;

/// The link to this moment of the run `base` links to.
pub fn moment_fragment(base: &Link, policy: Option<&str>, time_s: f64, job: Option<u32>) -> String {
    let moment = LinkMoment { policy: policy.map(str::to_string), t: Some(time_s), job };
    format_fragment(&match base.clone() {
        Link::Share { code, trace, .. } => Link::Share { code, trace, moment },
        Link::Lesson { id, .. } => Link::Lesson { id, autoplay: true, moment },
        tour @ Link::Tour { .. } => tour,
    })
}

#[derive(Properties, PartialEq)]
pub struct MomentLinkProps {
    /// The policy the player shows (`None` in the tour, whose step names its run).
    pub policy: Option<String>,
    pub time_s: f64,
    pub job: Option<u32>,
}

/// The button, and the link it made (copied to the clipboard if the browser allows).
#[component]
pub fn MomentLink(props: &MomentLinkProps) -> Html {
    let base = use_context::<Option<MomentBase>>().flatten();
    let made = use_state(|| None::<String>);
    let Some(MomentBase(base)) = base else { return html! {} };
    let tour = matches!(base, Link::Tour { .. });
    let onclick = {
        let (made, policy, time_s, job) = (made.clone(), props.policy.clone(), props.time_s, props.job);
        Callback::from(move |_: MouseEvent| {
            let fragment = moment_fragment(&base, policy.as_deref(), time_s, job);
            let href = gloo::utils::window().location().href().unwrap_or_default();
            let url = format!("{}{fragment}", href.split('#').next().unwrap_or_default());
            // The clipboard may be refused (permissions, no focus): the link is shown anyway.
            let _ = gloo::utils::window().navigator().clipboard().write_text(&url);
            made.set(Some(url));
        })
    };
    let select_all = Callback::from(|e: FocusEvent| {
        if let Some(i) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) {
            i.select();
        }
    });
    html! {
        <div class="moment-link" data-testid="moment-link-row">
            <button type="button" data-testid="moment-link-button" {onclick}
                    title={if tour { "A link that opens the tour at this step" } else { "A link that runs this scenario and opens this playback here: same policy, time and selected job" }}>
                { if tour { "Link to this step" } else { "Link to this moment" } }
            </button>
            if let Some(url) = &*made {
                <label class="share-link">{ "Link (copied if the browser allowed it): " }
                    <input type="text" readonly=true value={url.clone()} data-testid="moment-link" onfocus={select_all} />
                </label>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::{parse_fragment, TraceRef};

    #[test]
    fn a_moment_link_reads_back_as_the_same_run_policy_time_and_job() {
        let share = Link::Share {
            code: "1.abc".into(),
            trace: Some(TraceRef { name: "a b.csv".into(), hash: "0a1b2c3d".into() }),
            moment: LinkMoment::default(),
        };
        let text = moment_fragment(&share, Some("dally:timers=120/60"), 1234.56789, Some(7));
        assert_eq!(text, "#s=1.abc&trace=a%20b.csv&hash=0a1b2c3d&policy=dally%3Atimers%3D120%2F60&t=1234.568&job=7");
        let Ok(Some(Link::Share { moment, .. })) = parse_fragment(&text) else { panic!("{text}") };
        assert_eq!(moment, LinkMoment { policy: Some("dally:timers=120/60".into()), t: Some(1234.568), job: Some(7) });
        // A lesson's run: its lesson link, run at once.
        let lesson = Link::Lesson { id: "light-load".into(), autoplay: false, moment: LinkMoment::default() };
        assert_eq!(
            moment_fragment(&lesson, Some("fifo"), 600.0, None),
            "#lesson=light-load&autoplay&policy=fifo&t=600"
        );
        // The tour: its step.
        assert_eq!(moment_fragment(&Link::Tour { step: 2 }, None, 55.0, Some(4)), "#tour=3");
    }
}
