//! The pictures of `hotspot`: bars on the terminal, and an SVG of the salt
//! buckets beside the hottest values of the hashed fields (`--svg FILE`).

use std::fmt::Write as _;

/// Eighths of a block, for bars.
const EIGHTHS: [char; 8] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];

/// The widest bar, in characters.
pub const BAR: usize = 30;

/// A bar of `count` against the largest, `most` (at most [`BAR`] wide);
/// at least a sliver for any count above 0, nothing for 0.
pub fn bar(count: usize, most: usize) -> String {
    if count == 0 || most == 0 {
        return String::new();
    }
    let eighths = (count * BAR * 8 / most).max(1);
    let mut bar = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        bar.push(EIGHTHS[eighths % 8 - 1]);
    }
    bar
}

/// An SVG of `buckets` (each bucket's sampled keys, in bucket order) and
/// `hottest` (the hottest values and their sampled keys), as shares of `n`.
pub fn svg(
    title: &str,
    buckets: &[(String, usize)],
    hottest: &[(String, usize)],
    n: usize,
    hot_title: &str,
) -> String {
    let (left, top, bar_w, row_h) = (24usize, 56usize, 360usize, 18usize);
    let panel = |rows: usize| rows * row_h + 40;
    let height = top + panel(buckets.len()) + panel(hottest.len()) + 30;
    let width = left + 200 + bar_w + 120;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="12"><rect width="{width}" height="{height}" fill="#fff"/><text x="{left}" y="24" font-size="14" fill="#111">{}</text><text x="{left}" y="42" fill="#555">{}</text>"##,
        escape(title),
        escape(&format!(
            "{n} sampled keys; bar length = share of the sample"
        ))
    );
    let mut y = top;
    for (heading, rows, even) in [
        (
            "by salt bucket (in key order)",
            buckets,
            (!buckets.is_empty()).then(|| 1.0 / buckets.len() as f64),
        ),
        (hot_title, hottest, None),
    ] {
        if rows.is_empty() {
            continue;
        }
        let _ = write!(
            svg,
            r##"<text x="{left}" y="{}" font-weight="bold" fill="#111">{}</text>"##,
            y + 12,
            escape(heading)
        );
        y += 24;
        let most = rows.iter().map(|r| r.1).max().unwrap_or(0).max(1);
        let scale = bar_w as f64 / most as f64;
        let x0 = left + 200;
        for (label, count) in rows {
            let share = *count as f64 / n.max(1) as f64;
            let w = (*count as f64 * scale).round();
            let (r, g, b) = heat(share / rows_max_share(rows, n));
            let _ = write!(
                svg,
                r##"<text x="{left}" y="{}" fill="#111">{}</text><rect x="{x0}" y="{}" width="{w}" height="{}" fill="rgb({r},{g},{b})"/><text x="{}" y="{}" fill="#333">{:.1}%</text>"##,
                y + 12,
                escape(&shorten(label, 26)),
                y + 2,
                row_h - 4,
                x0 as f64 + w + 6.0,
                y + 12,
                share * 100.0
            );
            y += row_h;
        }
        if let Some(even) = even {
            let x = x0 as f64 + even * n as f64 * scale;
            let _ = write!(
                svg,
                r##"<line x1="{x}" y1="{}" x2="{x}" y2="{y}" stroke="#06c" stroke-dasharray="4 3"/><text x="{x}" y="{}" fill="#06c">even share</text>"##,
                y - rows.len() * row_h,
                y + 14
            );
        }
        y += 32;
    }
    svg.push_str("</svg>\n");
    svg
}

fn rows_max_share(rows: &[(String, usize)], n: usize) -> f64 {
    let most = rows.iter().map(|r| r.1).max().unwrap_or(0);
    (most as f64 / n.max(1) as f64).max(f64::MIN_POSITIVE)
}

/// Pale yellow through orange to red as `t` grows from 0 to 1.
fn heat(t: f64) -> (u8, u8, u8) {
    let t = t.clamp(0.0, 1.0);
    (
        (250.0 - 40.0 * t) as u8,
        (220.0 - 180.0 * t) as u8,
        (120.0 - 100.0 * t) as u8,
    )
}

fn shorten(text: &str, most: usize) -> String {
    match text.chars().count() > most {
        true => format!("{}…", text.chars().take(most - 1).collect::<String>()),
        false => text.to_string(),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
