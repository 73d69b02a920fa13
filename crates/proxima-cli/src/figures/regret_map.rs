//! The robustness report's figure as an SVG heat map: one row per family and load, one
//! column per network, each cell coloured by the recommended policy's mean-JCT regret and
//! labelled with it; cells above the set's target are framed.

use super::{fail, FONT};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use proxima_lab::experiment::robust::figure::RegretMap;

const LABEL_W: i32 = 190;
const CELL_W: i32 = 104;
const CELL_H: i32 = 24;
const TOP: i32 = 84;

/// White at 1 (as good as the best fair baseline); towards red above it, reaching dark red
/// at 1.5 and beyond on a log scale (so that 1.03 shows); towards blue below it, full at
/// 0.67.
fn shade(regret: f64) -> RGBColor {
    let t = (regret.ln().abs() / 1.5f64.ln()).min(1.0);
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    if regret >= 1.0 {
        RGBColor(mix(255.0, 170.0), mix(255.0, 30.0), mix(255.0, 30.0))
    } else {
        RGBColor(mix(255.0, 40.0), mix(255.0, 110.0), mix(255.0, 200.0))
    }
}

pub fn draw(map: &RegretMap) -> Result<String, String> {
    let (rows, cols) = (map.rows.len() as i32, map.columns.len() as i32);
    let width = (LABEL_W + cols * CELL_W + 20).max(760) as u32;
    let height = (TOP + rows * CELL_H + 50) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let text = |size: u32, pos: Pos| TextStyle::from((FONT, size).into_font()).pos(pos);
        let left = Pos::new(HPos::Left, VPos::Center);
        let centre = Pos::new(HPos::Center, VPos::Center);
        root.draw(&Text::new(map.title.clone(), (10, 16), text(15, left))).map_err(fail)?;
        let sub = format!(
            "white: 1 (the best fair baseline); red above, blue below; framed: above the target {}",
            map.target
        );
        root.draw(&Text::new(sub, (10, 38), text(12, left))).map_err(fail)?;
        for (c, n) in map.columns.iter().enumerate() {
            let x = LABEL_W + c as i32 * CELL_W + CELL_W / 2;
            root.draw(&Text::new(n.clone(), (x, TOP - 12), text(12, centre))).map_err(fail)?;
        }
        for (r, (label, values)) in map.rows.iter().zip(&map.values).enumerate() {
            let y = TOP + r as i32 * CELL_H;
            root.draw(&Text::new(label.clone(), (10, y + CELL_H / 2), text(12, left))).map_err(fail)?;
            for (c, value) in values.iter().enumerate() {
                let x = LABEL_W + c as i32 * CELL_W;
                let corners = [(x, y), (x + CELL_W - 1, y + CELL_H - 1)];
                let Some(v) = value else {
                    root.draw(&Rectangle::new(corners, RGBColor(0xF2, 0xF2, 0xF2).filled())).map_err(fail)?;
                    continue;
                };
                root.draw(&Rectangle::new(corners, shade(*v).filled())).map_err(fail)?;
                if *v > map.target {
                    root.draw(&Rectangle::new(corners, BLACK.stroke_width(2))).map_err(fail)?;
                }
                let strong = (v.ln().abs() / 1.5f64.ln()) > 0.6;
                let ink = if strong { WHITE } else { BLACK };
                let label =
                    Text::new(format!("{v:.3}"), (x + CELL_W / 2, y + CELL_H / 2), text(12, centre).color(&ink));
                root.draw(&label).map_err(fail)?;
            }
        }
        root.present().map_err(fail)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_white_and_the_scale_saturates() {
        assert_eq!(shade(1.0), RGBColor(255, 255, 255));
        assert_eq!(shade(1.5), shade(3.0));
        assert_eq!(shade(1.0 / 1.5), shade(0.2));
        let map = RegretMap {
            file: "regret.svg".into(),
            title: "t".into(),
            rows: vec!["cnn, load 0.9".into()],
            columns: vec!["fat".into(), "thin".into()],
            values: vec![vec![Some(1.04), None]],
            target: 1.03,
        };
        let svg = draw(&map).unwrap();
        assert!(svg.contains("1.040") && svg.contains("cnn, load 0.9"));
        assert_eq!(svg, draw(&map).unwrap(), "deterministic");
    }
}
