//! The tour's player: a step's scene ([`TourScene`]) played back by the playback's
//! player. Here in the app rather than in the tour because the player's views send the
//! page's actions, and the page's state holds the tour.

use crate::playback::view::{playback_of, PlayerView};
use crate::tour::view::TourScene;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TourPlayerProps {
    pub scene: TourScene,
}

/// The step's run played back from where its story happens, the story beside it; the
/// story alone until the run is there, and with the error if its log does not read.
#[component]
pub fn TourPlayer(props: &TourPlayerProps) -> Html {
    let scene = &props.scene;
    // Read once per run: the steps that play the same run share it.
    let playback = use_memo(scene.run.clone(), {
        let topology = scene.topology.clone();
        move |run| run.as_ref().map(|o| playback_of(o, topology))
    });
    let story = scene.story.clone();
    match &*playback {
        Some(Ok(pb)) => html! {
            <PlayerView key={scene.key.clone()} playback={pb.clone()} start_s={scene.start_s} selected={scene.job}
                        speed={Some(scene.speed)} {story} />
        },
        Some(Err(e)) => html! { <>{ story }<p class="field-error">{ e.clone() }</p></> },
        None => story,
    }
}

/// The callback the tour's view renders its scenes with, made once.
#[hook]
pub fn use_tour_player() -> Callback<TourScene, Html> {
    // Not keyed: it stays from step to step (and keeps the run read); its player is keyed.
    use_callback((), |scene: TourScene, _| html! { <TourPlayer {scene} /> })
}
