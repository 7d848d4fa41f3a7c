//! The ordered merge's tournament: a loser tree over the sources' current
//! rows. Taking the next row and replacing it with its source's next costs
//! one comparison per level (3 for 8 buckets), against two per level for a
//! binary heap; a source that ran out loses every match.

/// A loser tree over `k` sources, compared by a function the caller passes
/// (it owns the rows). `nodes[0]` is the winner; `nodes[1..k]` hold the
/// loser of each internal match.
#[derive(Debug, Default)]
pub(super) struct LoserTree {
    nodes: Vec<usize>,
}

/// A node no source has reached yet while the tree is built.
const EMPTY: usize = usize::MAX;

impl LoserTree {
    /// Plays every source; `less(a, b)`: source `a`'s row comes before
    /// `b`'s (a source without a row never does).
    pub(super) fn build(k: usize, less: impl Fn(usize, usize) -> bool) -> Self {
        let mut tree = LoserTree {
            nodes: vec![EMPTY; k.max(1)],
        };
        for leaf in 0..k {
            let mut winner = leaf;
            let mut node = (leaf + k) / 2;
            let mut parked = false;
            while node > 0 {
                let other = tree.nodes[node];
                if other == EMPTY {
                    tree.nodes[node] = winner;
                    parked = true;
                    break;
                }
                if less(other, winner) {
                    tree.nodes[node] = winner;
                    winner = other;
                }
                node /= 2;
            }
            if !parked {
                tree.nodes[0] = winner;
            }
        }
        tree
    }

    /// The source whose row comes first (`None` for no sources).
    #[inline]
    pub(super) fn winner(&self) -> Option<usize> {
        self.nodes.first().copied().filter(|&w| w != EMPTY)
    }

    /// Plays source `leaf` again after its row changed (it must be the
    /// winner's).
    pub(super) fn replay(&mut self, leaf: usize, less: impl Fn(usize, usize) -> bool) {
        let k = self.nodes.len();
        let mut winner = leaf;
        let mut node = (leaf + k) / 2;
        while node > 0 {
            let other = self.nodes[node];
            // Without a branch: which row wins a match is as likely one
            // way as the other, so a branch would be mispredicted half
            // the time.
            let mask = usize::from(less(other, winner)).wrapping_neg();
            let next = (other & mask) | (winner & !mask);
            self.nodes[node] = other ^ winner ^ next;
            winner = next;
            node /= 2;
        }
        self.nodes[0] = winner;
    }

    /// The smallest `rank` of the losers on the winner's path to the root:
    /// the sources it beat directly, among which is the next row after its
    /// own. While the winner's next row ranks strictly below this bar, it
    /// wins again: a replay would leave every node as it is.
    pub(super) fn bar(&self, rank: impl Fn(usize) -> u128) -> u128 {
        let k = self.nodes.len();
        let Some(w) = self.winner() else {
            return 0;
        };
        let mut bar = u128::MAX;
        let mut node = (w + k) / 2;
        while node > 0 {
            bar = bar.min(rank(self.nodes[node]));
            node /= 2;
        }
        bar
    }
}

#[cfg(test)]
mod tests {
    use super::LoserTree;

    /// Merging sorted runs through the tree gives the sorted whole, for
    /// every number of sources from 1 to 9 (powers of two and not).
    #[test]
    fn merges_sorted_runs() {
        for k in 1..10usize {
            let mut runs: Vec<Vec<u32>> = (0..k)
                .map(|s| {
                    (0..(s * 7 % 5 + 1))
                        .map(|i| (i * k + s) as u32 * 3 % 17)
                        .collect()
                })
                .collect();
            for run in &mut runs {
                run.sort_unstable();
                run.reverse(); // pop from the end
            }
            let mut expected: Vec<u32> = runs.iter().flatten().copied().collect();
            expected.sort_unstable();
            let head = |runs: &Vec<Vec<u32>>, s: usize| runs[s].last().copied();
            let less =
                |runs: &Vec<Vec<u32>>, a: usize, b: usize| match (head(runs, a), head(runs, b)) {
                    (Some(x), Some(y)) => (x, a) < (y, b),
                    (Some(_), None) => true,
                    _ => false,
                };
            let mut tree = LoserTree::build(k, |a, b| less(&runs, a, b));
            let mut merged = Vec::new();
            while let Some(w) = tree.winner() {
                let Some(v) = runs[w].pop() else { break };
                merged.push(v);
                tree.replay(w, |a, b| less(&runs, a, b));
            }
            assert_eq!(merged, expected, "{k} sources");
        }
    }

    /// Skipping the replay while the winner's next value is below the
    /// bar merges as replaying every time does, ties (equal values in
    /// several runs) included.
    #[test]
    fn the_bar_skips_only_replays_that_change_nothing() {
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            (state >> 33) as u32
        };
        for k in 1..10usize {
            for spread in [3u32, 50, 1_000] {
                let mut runs: Vec<Vec<u32>> = (0..k)
                    .map(|_| (0..next() % 40).map(|_| next() % spread).collect())
                    .collect();
                for run in &mut runs {
                    run.sort_unstable();
                    run.reverse();
                }
                let mut expected: Vec<(u32, usize)> = runs
                    .iter()
                    .enumerate()
                    .flat_map(|(s, run)| run.iter().map(move |&v| (v, s)))
                    .collect();
                expected.sort_unstable();
                let rank = |runs: &Vec<Vec<u32>>, s: usize| {
                    runs.get(s)
                        .and_then(|r| r.last())
                        .map_or(u128::MAX, |&v| u128::from(v))
                };
                let less = |runs: &Vec<Vec<u32>>, a: usize, b: usize| {
                    (rank(runs, a), a) < (rank(runs, b), b)
                };
                let mut tree = LoserTree::build(k, |a, b| less(&runs, a, b));
                let mut bar = tree.bar(|s| rank(&runs, s));
                let mut merged = Vec::new();
                let mut replays = 0;
                while let Some(w) = tree.winner() {
                    let Some(v) = runs[w].pop() else { break };
                    merged.push((v, w));
                    if rank(&runs, w) >= bar {
                        tree.replay(w, |a, b| less(&runs, a, b));
                        bar = tree.bar(|s| rank(&runs, s));
                        replays += 1;
                    }
                }
                assert_eq!(merged, expected, "{k} sources, values below {spread}");
                if k == 1 {
                    // One source beats nobody: only its end is replayed.
                    assert!(replays <= 1, "{replays} replays of one source");
                }
            }
        }
    }
}
