//! Fitting a rendering into its budget: how much of each part to show, and in which order parts
//! give way when the whole does not fit.

use super::char_len;

/// How much of each part of an envelope a renderer shows. Counts are items, lengths are chars of
/// the raw value (before escaping); `usize::MAX` means all of it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Chars of the echoed arguments' JSON; 0 drops the section.
    pub sent: usize,
    /// How many details.
    pub details: usize,
    /// Chars of each detail's value.
    pub detail_value: usize,
    /// How many causes.
    pub causes: usize,
    /// How many per-field issues.
    pub issues: usize,
    /// Chars of each value quoted in an issue (what was sent, each option).
    pub issue_value: usize,
    /// How many options an issue lists.
    pub options: usize,
    /// Chars of an issue's expected text.
    pub expected: usize,
    /// How many available actions; 0 drops the section.
    pub actions: usize,
    /// Chars of the message.
    pub message: usize,
    /// How many recovery steps.
    pub steps: usize,
    /// Chars of each recovery step.
    pub step: usize,
    /// Chars of names: the code, the tool, field paths, detail keys.
    pub name: usize,
    /// Leave out what only restates something else (the class, the expected flag).
    pub lean: bool,
}

const ALL: usize = usize::MAX;

const FULL: Limits = Limits {
    sent: ALL,
    details: ALL,
    detail_value: ALL,
    causes: ALL,
    issues: ALL,
    issue_value: ALL,
    options: ALL,
    expected: ALL,
    actions: ALL,
    message: ALL,
    steps: ALL,
    step: ALL,
    name: ALL,
    lean: false,
};

/// Successive tightenings, applied one after the other until the rendering fits. The order is
/// the order in which parts stop being worth their chars: the model already has its arguments,
/// details and causes explain, but the recovery steps are what it acts on — they are the most
/// valuable part, so they (with the code and the message) are cut last.
const SHRINKS: &[fn(&mut Limits)] = &[
    |l| l.sent = 400,
    |l| l.sent = 160,
    |l| l.sent = 60,
    |l| l.detail_value = 60,
    |l| l.details = 3,
    |l| l.details = 0,
    |l| l.causes = 2,
    |l| l.causes = 1,
    |l| l.causes = 0,
    |l| {
        l.issue_value = 40;
        l.expected = 80;
        l.options = 6;
    },
    |l| {
        l.issue_value = 16;
        l.expected = 40;
        l.options = 3;
    },
    |l| l.actions = 6,
    |l| l.actions = 3,
    |l| l.actions = 0,
    |l| l.sent = 0,
    |l| {
        l.name = 60;
        l.message = 400;
        l.step = 240;
    },
    |l| l.issues = 4,
    |l| {
        l.message = 200;
        l.step = 160;
        l.steps = 4;
        l.lean = true;
    },
    |l| {
        l.issues = 2;
        l.steps = 3;
        l.message = 160;
        l.step = 120;
    },
    |l| {
        l.issues = 1;
        l.steps = 2;
    },
    |l| l.steps = 1,
];

/// The shortest cut worth making in a squeeze: below it texts stop saying anything, and the
/// format's one-line last resort is better.
const SQUEEZE_MIN: usize = 16;

/// The longest cut worth trying in a squeeze: the last shrink already caps texts near it.
const SQUEEZE_MAX: usize = 160;

/// The bare minimum, in three shapes tried in turn: the message and the first step (and the first
/// issue); then the first step alone, since it is what the model acts on; then the message alone.
/// Texts are cut at `k` chars, the step at twice that.
const SQUEEZES: [(bool, usize); 3] = [(true, 1), (false, 1), (true, 0)];

fn squeezed(k: usize, message: bool, steps: usize) -> Limits {
    Limits {
        sent: 0,
        details: 0,
        detail_value: 0,
        causes: 0,
        issues: 1,
        issue_value: k.min(SQUEEZE_MIN),
        options: 0,
        expected: k.min(40),
        actions: 0,
        message: if message { k } else { 0 },
        steps,
        step: k.saturating_mul(2),
        name: k.min(40),
        lean: true,
    }
}

/// Renders with the most generous limits that fit `budget` chars: each shrink in turn, then each
/// squeeze with its texts cut as little as possible, then `tiny`, the format's last resort.
pub(super) fn fit(
    budget: usize,
    render: impl Fn(&Limits) -> String,
    tiny: impl FnOnce(usize) -> String,
) -> String {
    let mut limits = FULL;
    let out = render(&limits);
    if char_len(&out) <= budget {
        return out;
    }
    for shrink in SHRINKS {
        shrink(&mut limits);
        let out = render(&limits);
        if char_len(&out) <= budget {
            return out;
        }
    }
    for (message, steps) in SQUEEZES {
        let squeeze = |k: usize| render(&squeezed(SQUEEZE_MIN + k, message, steps));
        if let Some(out) = largest_fitting(budget, SQUEEZE_MAX - SQUEEZE_MIN, squeeze) {
            return out;
        }
    }
    tiny(budget)
}

/// The output of `f(k)` for the largest `k` in `0..=max` whose output fits `budget`, if even
/// `f(0)` does. Assumes the length grows with `k` (it does: `k` only lengthens truncated texts);
/// whatever it returns fits, so a non-monotone `f` costs quality, never the budget.
pub(super) fn largest_fitting(budget: usize, max: usize, f: impl Fn(usize) -> String) -> Option<String> {
    let mut best = f(0);
    if char_len(&best) > budget {
        return None;
    }
    let (mut lo, mut hi) = (0, max);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        let out = f(mid);
        if char_len(&out) <= budget {
            lo = mid;
            best = out;
        } else {
            hi = mid - 1;
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_fitting_finds_the_longest_output_within_budget() {
        let f = |k: usize| "x".repeat(k * 2);
        assert_eq!(largest_fitting(9, 100, f).map(|s| s.len()), Some(8));
        assert_eq!(largest_fitting(0, 100, f), Some(String::new()));
        assert_eq!(largest_fitting(3, 100, |k| "y".repeat(k + 4)), None);
    }

    #[test]
    fn every_shrink_tightens_something() {
        let mut limits = FULL;
        for shrink in SHRINKS {
            let before = format!("{limits:?}");
            shrink(&mut limits);
            assert_ne!(before, format!("{limits:?}"));
        }
    }
}
