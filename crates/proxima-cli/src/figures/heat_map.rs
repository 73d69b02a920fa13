//! The placement map as an SVG heat map: one row per model as trained, one column per
//! network (NICs per server × rack oversubscription), each cell coloured by the slowdown
//! of the job's worst placement against its best and labelled with it; below, the mean
//! JCT of each policy on the LLM-era workload, relative to `consolidate`.

use super::{fail, FONT};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use proxima_lab::experiment::placement_map::PlacementMap;

const LABEL_W: i32 = 330;
const CELL_W: i32 = 62;
const CELL_H: i32 = 22;
const TOP: i32 = 78;

/// The cell's colour: white at 1.00 (placement is free), through orange to dark red at
/// 3 and beyond, on a log scale, so that 1.1 is visible and 3.5 does not drown the rest.
fn shade(slowdown: f64) -> RGBColor {
    let t = (slowdown.max(1.0).ln() / 3f64.ln()).min(1.0);
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(mix(255.0, 150.0), mix(255.0, 20.0), mix(255.0, 20.0))
}

pub fn draw(map: &PlacementMap) -> Result<String, String> {
    let rows = map.models.len() as i32;
    let cols = map.networks.len() as i32;
    let jct_top = TOP + rows * CELL_H + 60;
    let width = (LABEL_W + cols * CELL_W + 20) as u32;
    let height = (jct_top + (map.policies.len() as i32 + 1) * CELL_H + 40) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let text = |size: u32, pos: Pos| TextStyle::from((FONT, size).into_font()).pos(pos);
        let left = Pos::new(HPos::Left, VPos::Center);
        let centre = Pos::new(HPos::Center, VPos::Center);
        let title = format!(
            "When placement matters: worst ÷ best placement of a {}-GPU job, {} servers of {} GPUs",
            map.spec.job_gpus, map.spec.gpu, map.spec.gpus_per_server
        );
        root.draw(&Text::new(title, (10, 16), text(16, left))).map_err(fail)?;
        let sub = format!(
            "alone on an idle cluster; {} Gbit/s NICs; columns: NICs per server × rack oversubscription",
            map.spec.nic_gbps
        );
        root.draw(&Text::new(sub, (10, 38), text(13, left))).map_err(fail)?;
        for (c, n) in map.networks.iter().enumerate() {
            let x = LABEL_W + c as i32 * CELL_W + CELL_W / 2;
            root.draw(&Text::new(format!("{}×{}:1", n.nics, n.oversub), (x, TOP - 12), text(12, centre)))
                .map_err(fail)?;
        }
        for (r, m) in map.models.iter().enumerate() {
            let y = TOP + r as i32 * CELL_H;
            root.draw(&Text::new(m.label(), (10, y + CELL_H / 2), text(12, left))).map_err(fail)?;
            for (c, &s) in m.slowdown.iter().enumerate() {
                let x = LABEL_W + c as i32 * CELL_W;
                root.draw(&Rectangle::new([(x, y), (x + CELL_W - 1, y + CELL_H - 1)], shade(s).filled()))
                    .map_err(fail)?;
                let ink = if s > 2.0 { WHITE } else { BLACK };
                let label =
                    Text::new(format!("{s:.2}"), (x + CELL_W / 2, y + CELL_H / 2), text(12, centre).color(&ink));
                root.draw(&label).map_err(fail)?;
            }
        }
        let head = format!("Mean JCT ÷ consolidate's on {} ({} seeds)", map.workload, map.spec.seeds.len());
        root.draw(&Text::new(head, (10, jct_top - 20), text(14, left))).map_err(fail)?;
        let base = map.policies.iter().find(|p| p.policy == "consolidate").map(|p| p.mean_jct_s.clone());
        for (r, p) in map.policies.iter().enumerate() {
            let y = jct_top + r as i32 * CELL_H;
            root.draw(&Text::new(p.policy.clone(), (10, y + CELL_H / 2), text(12, left))).map_err(fail)?;
            for (c, &jct) in p.mean_jct_s.iter().enumerate() {
                let ratio = base.as_ref().map_or(1.0, |b| jct / b[c]);
                let x = LABEL_W + c as i32 * CELL_W;
                root.draw(&Rectangle::new([(x, y), (x + CELL_W - 1, y + CELL_H - 1)], shade(ratio).filled()))
                    .map_err(fail)?;
                let label = Text::new(format!("{ratio:.2}"), (x + CELL_W / 2, y + CELL_H / 2), text(12, centre));
                root.draw(&label).map_err(fail)?;
            }
        }
        root.present().map_err(fail)?;
    }
    Ok(svg)
}
