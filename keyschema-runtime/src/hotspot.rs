//! Hotspot reports: how a workload's keys fall on a table's regions.
//!
//! Given split points and a stream of keys (a sampled workload), the report
//! counts the keys per region. The hottest region's share is the number to
//! watch: with 8 regions, an even spread is 12.5%, and a timestamp-first key
//! under new writes is 100% (every write lands after the last split).

use std::fmt::Write as _;

/// The load on each region of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotspotReport {
    /// Region `i` holds keys in `[splits[i-1], splits[i])`.
    splits: Vec<Vec<u8>>,
    hits: Vec<u64>,
}

impl HotspotReport {
    /// Counts `keys` per region of the table cut at `splits` (sorted).
    ///
    /// ```
    /// use keyschema::hotspot::HotspotReport;
    ///
    /// let splits = vec![b"m".to_vec()];
    /// let report = HotspotReport::new(&splits, [&b"a"[..], b"b", b"x"]);
    /// assert_eq!(report.hits(), &[2, 1]);
    /// assert!((report.hottest_share() - 2.0 / 3.0).abs() < 1e-9);
    /// ```
    pub fn new<K: AsRef<[u8]>>(splits: &[Vec<u8>], keys: impl IntoIterator<Item = K>) -> Self {
        let mut hits = vec![0u64; splits.len() + 1];
        for key in keys {
            let region = splits.partition_point(|s| s.as_slice() <= key.as_ref());
            hits[region] += 1;
        }
        HotspotReport {
            splits: splits.to_vec(),
            hits,
        }
    }

    /// Keys per region.
    pub fn hits(&self) -> &[u64] {
        &self.hits
    }

    /// The number of regions.
    pub fn regions(&self) -> usize {
        self.hits.len()
    }

    /// The total number of keys.
    pub fn total(&self) -> u64 {
        self.hits.iter().sum()
    }

    /// Each region's share of the keys (0 to 1).
    pub fn shares(&self) -> Vec<f64> {
        let total = self.total().max(1) as f64;
        self.hits.iter().map(|&h| h as f64 / total).collect()
    }

    /// The hottest region's share of the keys.
    pub fn hottest_share(&self) -> f64 {
        self.shares().into_iter().fold(0.0, f64::max)
    }

    /// The hottest region: its index and its first key (empty for the first region).
    pub fn hottest_region(&self) -> (usize, &[u8]) {
        let i = self
            .hits
            .iter()
            .enumerate()
            .max_by_key(|(_, h)| **h)
            .map_or(0, |(i, _)| i);
        let start = if i == 0 {
            &[][..]
        } else {
            self.splits[i - 1].as_slice()
        };
        (i, start)
    }
}

/// A Key Visualizer-style heatmap: one column per time window, one row per
/// region (key space top to bottom), brighter where a region takes a larger
/// share of that window's keys. Returns an SVG document.
pub fn heatmap_svg(title: &str, windows: &[HotspotReport]) -> String {
    let regions = windows
        .iter()
        .map(HotspotReport::regions)
        .max()
        .unwrap_or(0)
        .max(1);
    let (cell_w, cell_h, left, top) = (12usize, 10usize, 70usize, 40usize);
    let width = left + windows.len().max(1) * cell_w + 20;
    let height = top + regions * cell_h + 40;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="11">"#
    );
    let _ = write!(
        svg,
        r##"<rect width="{width}" height="{height}" fill="#111"/>"##
    );
    let _ = write!(
        svg,
        r##"<text x="8" y="18" fill="#eee">{}</text>"##,
        escape(title)
    );
    let _ = write!(
        svg,
        r##"<text x="8" y="{}" fill="#aaa">key space ↓  time →  (brightness = share of the window's keys)</text>"##,
        height - 12
    );
    for (x, window) in windows.iter().enumerate() {
        for (y, share) in window.shares().iter().enumerate() {
            let (r, g, b) = heat(*share);
            let _ = write!(
                svg,
                r##"<rect x="{}" y="{}" width="{cell_w}" height="{cell_h}" fill="rgb({r},{g},{b})"/>"##,
                left + x * cell_w,
                top + y * cell_h
            );
        }
    }
    let _ = write!(
        svg,
        r##"<text x="8" y="{}" fill="#aaa">first</text>"##,
        top + 8
    );
    let _ = write!(
        svg,
        r##"<text x="8" y="{}" fill="#aaa">last</text>"##,
        top + regions * cell_h
    );
    svg.push_str("</svg>\n");
    svg
}

/// Black through red and orange to white as the share grows.
fn heat(share: f64) -> (u8, u8, u8) {
    let t = share.clamp(0.0, 1.0).sqrt();
    let r = (t * 3.0).min(1.0);
    let g = (t * 3.0 - 1.0).clamp(0.0, 1.0);
    let b = (t * 3.0 - 2.0).clamp(0.0, 1.0);
    ((r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
