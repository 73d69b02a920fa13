//! The drawing of the cluster in the editor's `<svg>`: links, switch and server boxes
//! (a rail group's rails as bars), and GPUs, from a [`Drawing`] laid out by
//! [`super::layout`]. Each element carries the `data-` attributes by which the editor's one
//! pointer handler knows what was hit.

use super::layout::{BoxKind, Drawing, NodeBox, GPU_SIZE};
use crate::Shared;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub(super) struct DrawingProps {
    pub(super) drawing: Shared<Drawing>,
}

/// The drawing itself, a component of its own so that panning (a new transform on the
/// group around it) does not re-render thousands of elements.
#[component]
pub(super) fn DrawingLayer(props: &DrawingProps) -> Html {
    let d = &props.drawing;
    html! {
        <>
            { for d.links.iter().map(|l| {
                let class = classes!("link", format!("bw-{}", l.width_step), l.problem.is_some().then_some("invalid"), l.selected.then_some("selected"), l.off_tree.then_some("off-tree"), l.oversub.is_some().then_some("thin"));
                // Labels sit near the lower end, where neighbouring links are furthest apart.
                let (mx, my) = (l.x2 + (l.x1 - l.x2) * 0.7, l.y2 + (l.y1 - l.y2) * 0.7);
                html! {
                    <g class={class} data-link={l.index.to_string()} aria-invalid={l.problem.is_some().then_some("true")}
                       data-oversub={l.oversub.map(|r| format!("{r}"))}>
                        <title>{ match &l.problem { Some(p) => format!("{} — {p}", l.title), None => l.title.clone() } }</title>
                        <line class="hit" x1={f(l.x1)} y1={f(l.y1)} x2={f(l.x2)} y2={f(l.y2)} />
                        <line class="wire" x1={f(l.x1)} y1={f(l.y1)} x2={f(l.x2)} y2={f(l.y2)} />
                        <text class="link-label" x={f(mx + 3.0)} y={f(my)}>{ l.label.clone() }</text>
                    </g>
                }
            }) }
            { for d.nodes.iter().map(|b| {
                let kind = match b.kind {
                    BoxKind::Switch => "switch",
                    BoxKind::Server => "server",
                    BoxKind::CollapsedSwitch => "collapsed",
                    BoxKind::CollapsedServer => "server collapsed-server",
                };
                let class = classes!(kind, b.problem.is_some().then_some("invalid"), b.selected.then_some("selected"));
                html! {
                    <g class={class} data-node={b.id.clone()} aria-invalid={b.problem.is_some().then_some("true")}>
                        <title>{ match &b.problem { Some(p) => format!("{} — {p}", b.title), None => b.title.clone() } }</title>
                        <rect x={f(b.x)} y={f(b.y)} width={f(b.w)} height={f(b.h)} rx="4" />
                        <text x={f(b.x + b.w / 2.0)} y={f(b.y + 14.0)} text-anchor="middle">{ clip(&b.label, 16) }</text>
                        { rail_bars(b) }
                        if b.problem.is_some() {
                            <text class="flag" x={f(b.x + b.w - 2.0)} y={f(b.y + 2.0)} text-anchor="middle">{ "!" }</text>
                        }
                        if matches!(b.kind, BoxKind::CollapsedSwitch | BoxKind::CollapsedServer) {
                            <text class="fold" x={f(b.x + b.w / 2.0)} y={f(b.y + b.h - 5.0)} text-anchor="middle">{ "▸ folded" }</text>
                        }
                    </g>
                }
            }) }
            { for d.gpus.iter().map(|g| html! {
                <rect class={classes!("gpu", g.selected.then_some("selected"))} data-gpu={g.id.to_string()} data-server={g.server.clone()} data-index={g.index.to_string()}
                      x={f(g.x)} y={f(g.y)} width={f(GPU_SIZE)} height={f(GPU_SIZE)}>
                    <title>{ format!("GPU {} (server {}, GPU {})", g.id, g.server, g.index) }</title>
                </rect>
            }) }
        </>
    }
}

/// A rail group's rails: one small bar each, side by side along the bottom of its box and
/// in GPU order (GPU i of every server below is on rail i), so that the group reads as
/// rails rather than one leaf switch.
fn rail_bars(b: &NodeBox) -> Html {
    if b.rails == 0 {
        return html! {};
    }
    let (left, top) = (b.x + 4.0, b.y + 18.0);
    let step = (b.w - 8.0) / b.rails as f64;
    html! {
        <g class="rails" data-rails={b.rails.to_string()}>
            <title>{ format!("{} rails: GPU i of every server below is on rail i", b.rails) }</title>
            { for (0..b.rails).map(|i| html! {
                <rect class="rail" x={f(left + i as f64 * step)} y={f(top)} width={f((step - 1.5).max(0.5))} height={f((b.h - 21.0).max(2.0))} />
            }) }
        </g>
    }
}

/// A coordinate as the SVG attributes take it.
pub(super) fn f(x: f64) -> String {
    format!("{x:.1}")
}

/// A label cut to `n` characters, the last of them an ellipsis when it is cut.
fn clip(text: &str, n: usize) -> String {
    let mut out: String = text.chars().take(n).collect();
    if out.chars().count() < text.chars().count() {
        out.pop();
        out.push('…');
    }
    out
}
