//! The end of a challenge: predict, then reveal the student's mean JCT beside the policies
//! they are compared with; what-ifs on any decision, each predicted before it is shown;
//! and the comparison as an SVG figure for slides.

use super::scenario::{mean_jct, JOBS, RIVALS, TOPOLOGY};
use crate::numbers::duration;
use proxima_core::policy::replay::{AfterChoices, Choice};
use proxima_core::session as replay_run;
use proxima_core::Scenario;

/// One decision made, with what was said about it when it was made. It lives here, with
/// the end that replays the decisions, so that the game (`challenge`) depends on its end
/// and not the other way round.
#[derive(Clone, Debug, PartialEq)]
pub struct Made {
    pub choice: Choice,
    pub at_s: f64,
    pub text: String,
}

/// What the student does at the end: the game's acts that concern it.
#[derive(Clone, Debug, PartialEq)]
pub enum EndAct {
    Predict(String),
    Reveal,
    WhatIf(usize, WhatIfKind),
    Guess(Guess),
}

/// What a what-if changes about one decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhatIfKind {
    /// The decision is made 90 s later: the run waits 90 s (or to the next event) first.
    Wait90,
    /// The placement is not made: the run waits to the next event instead.
    Skip,
}

/// How long [`WhatIfKind::Wait90`] waits.
pub const WHAT_IF_WAIT_S: f64 = 90.0;

/// The student's guess of a what-if's mean JCT against theirs, before it is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guess {
    Sooner,
    Same,
    Later,
}

impl Guess {
    pub const ALL: [Guess; 3] = [Guess::Sooner, Guess::Same, Guess::Later];

    pub fn label(self) -> &'static str {
        match self {
            Guess::Sooner => "sooner",
            Guess::Same => "the same",
            Guess::Later => "later",
        }
    }

    /// The guess that was right for a what-if `delta_s` seconds from the student's mean
    /// JCT: within a second is the same.
    pub fn of(delta_s: f64) -> Guess {
        if delta_s < -1.0 {
            Guess::Sooner
        } else if delta_s > 1.0 {
            Guess::Later
        } else {
            Guess::Same
        }
    }
}

/// A what-if's run.
#[derive(Clone, Debug, PartialEq)]
pub struct WhatIfRun {
    pub avg_jct_s: f64,
    /// The first of the student's later decisions that no longer applied (from there on
    /// `fifo`'s rule placed the rest).
    pub diverged_at: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WhatIf {
    pub index: usize,
    pub kind: WhatIfKind,
    pub label: String,
    pub guess: Option<Guess>,
    pub run: Result<WhatIfRun, String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct End {
    pub you_s: f64,
    /// Each rival's mean JCT on the same scenario ([`RIVALS`]).
    pub rivals: Vec<(String, f64)>,
    /// Who the student thinks did best: "you" or a rival's name.
    pub prediction: Option<String>,
    pub revealed: bool,
    pub what_if: Option<WhatIf>,
}

/// The entry that stands for the student in rankings and figures.
pub const YOU: &str = "you";
/// Who the student can predict as best.
pub const RIVALS_AND_YOU: [&str; 4] = [YOU, RIVALS[0].0, RIVALS[1].0, RIVALS[2].0];

impl End {
    /// The end of a run whose mean JCT was `you_s`.
    pub fn new(you_s: f64) -> End {
        let rivals = RIVALS.iter().map(|&(p, jct)| (p.to_string(), jct)).collect();
        End { you_s, rivals, prediction: None, revealed: false, what_if: None }
    }

    /// Everyone's mean JCT, best first (ties keep the order you, fifo, consolidate, dally).
    pub fn ranking(&self) -> Vec<(String, f64)> {
        let mut all = vec![(YOU.to_string(), self.you_s)];
        all.extend(self.rivals.iter().cloned());
        all.sort_by(|a, b| a.1.total_cmp(&b.1));
        all
    }

    /// Whether the prediction named one of the best (a tie counts for each).
    pub fn prediction_right(&self) -> Option<bool> {
        let p = self.prediction.as_ref()?;
        let ranking = self.ranking();
        let best = ranking.first()?.1;
        Some(ranking.iter().any(|(n, v)| n == p && (v - best).abs() < 0.5))
    }

    /// The end after `act`, on the decisions `made`; acts that do not apply now change nothing.
    pub fn apply(&mut self, act: EndAct, made: &[Made], scenario: Option<&Scenario>) {
        match act {
            EndAct::Predict(p) if !self.revealed => self.prediction = Some(p),
            EndAct::Reveal if self.prediction.is_some() => self.revealed = true,
            EndAct::WhatIf(index, kind) if self.revealed && index < made.len() => {
                self.what_if = Some(what_if(made, index, kind, scenario));
            }
            EndAct::Guess(g) => {
                if let Some(w) = &mut self.what_if {
                    w.guess.get_or_insert(g);
                }
            }
            _ => {}
        }
    }
}

/// Re-runs the challenge with decision `index` changed, from the start (the decisions
/// before it are the same, so the run is the same up to it); the later decisions are kept
/// while they apply, and `fifo`'s rule places whatever is left.
pub fn what_if(made: &[Made], index: usize, kind: WhatIfKind, scenario: Option<&Scenario>) -> WhatIf {
    let mut choices: Vec<Choice> = made.iter().map(|m| m.choice.clone()).collect();
    let what = &made[index];
    let label = match kind {
        WhatIfKind::Wait90 => format!("Had decision {} ({}) waited {WHAT_IF_WAIT_S} s", index + 1, what.text),
        WhatIfKind::Skip => format!("Had decision {} ({}) not been made", index + 1, what.text),
    };
    match kind {
        WhatIfKind::Wait90 => choices.insert(index, Choice::Wait { for_s: Some(WHAT_IF_WAIT_S) }),
        WhatIfKind::Skip => choices[index] = Choice::Wait { for_s: None },
    }
    let run = match scenario {
        None => Err("no scenario".to_string()),
        Some(s) => replay_run::replay(s.clone(), &choices, AfterChoices::FirstFit)
            .map(|r| WhatIfRun { avg_jct_s: mean_jct(&r.sim).1, diverged_at: r.diverged_at })
            .map_err(|e| e.to_string()),
    };
    WhatIf { index, kind, label, guess: None, run }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The comparison as an SVG bar chart: mean JCT of the student and each rival (and of the
/// what-if shown, if any), lower is better, with the numbers written on the bars.
pub fn figure_svg(end: &End) -> String {
    let mut bars = end.ranking();
    if let Some(WhatIf { index, run: Ok(r), guess: Some(_), .. }) = &end.what_if {
        bars.push((format!("what-if on decision {}", index + 1), r.avg_jct_s));
    }
    let max = bars.iter().map(|b| b.1).fold(1.0, f64::max);
    let (left, width, row) = (190.0, 420.0, 34.0);
    let height = 70.0 + row * bars.len() as f64;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"680\" height=\"{height}\" viewBox=\"0 0 680 {height}\" \
         font-family=\"sans-serif\" font-size=\"14\">\n<rect width=\"680\" height=\"{height}\" fill=\"#ffffff\"/>\n\
         <text x=\"20\" y=\"30\" font-size=\"17\" font-weight=\"bold\">Be the scheduler: mean JCT, lower is better</text>\n"
    );
    for (i, (name, v)) in bars.iter().enumerate() {
        let y = 50.0 + row * i as f64;
        let w = (v / max * width).max(1.0);
        let fill = if name == YOU {
            "#1f6feb"
        } else if name.starts_with("what-if") {
            "#9467bd"
        } else {
            "#8c8c8c"
        };
        svg += &format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n<rect x=\"{left}\" y=\"{y}\" width=\"{w:.1}\" height=\"24\" fill=\"{fill}\"/>\n\
             <text x=\"{:.1}\" y=\"{}\">{}</text>\n",
            left - 8.0,
            y + 17.0,
            escape(name),
            left + w + 6.0,
            y + 17.0,
            escape(&duration(*v)),
        );
    }
    svg += &format!(
        "<text x=\"20\" y=\"{}\" font-size=\"12\" fill=\"#555555\">{}</text>\n</svg>\n",
        height - 10.0,
        escape(&format!("Proxima challenge: {} jobs on {}", JOBS, TOPOLOGY)),
    );
    svg
}
