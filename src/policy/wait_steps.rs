//! The record of how a computed wait was reached (DESIGN.md §2): one [`Step`] per operation, in
//! the order the strategy applied them, each holding the figure it produced. The strategy writes
//! the record while it computes ([`super::strategies::compute`]); the explanation text is rendered
//! from it ([`super::explain`]) and never recomputes a number.

/// One operation of a computed wait. `value` is the figure the step produced, in ms, exactly as
/// the next step (or the final wait) used it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Step {
    /// `b × 2^exponent = value`, value = ⌈b·2^exponent⌉ (exponent clamped to
    /// [`super::limits::MAX_EXPONENT`]).
    Doubling {
        /// Base delay b, ms.
        base: u64,
        /// The exponent used (n − 1, clamped).
        exponent: i64,
        /// ⌈b·2^exponent⌉, ms.
        value: f64,
    },
    /// ServiceNow multiplier (seed 001): m = U[0, 2^exponent − 1], value = ⌈b·m⌉.
    Multiplier {
        /// The exponent used (n, clamped).
        exponent: u32,
        /// 2^exponent − 1.
        high: f64,
        /// The multiplier drawn.
        m: f64,
        /// Base delay b, ms.
        base: u64,
        /// b·m before rounding, ms.
        product: f64,
        /// ⌈b·m⌉, ms.
        value: f64,
    },
    /// Decorrelated jitter (AWS Architecture Blog): value = ⌈U[b, 3·prev]⌉.
    DecorrelatedDraw {
        /// Base delay b, ms.
        base: u64,
        /// The previous wait (b before retry 1), ms.
        prev: f64,
        /// 3·prev, ms.
        high: f64,
        /// The draw rounded up to whole ms.
        value: f64,
    },
    /// `fixed b`: value = b.
    Fixed {
        /// b, ms.
        value: f64,
    },
    /// The max delay: value = min(before, cap). Without a max delay (`explicit` false) the 24 h
    /// limit stands in for it and the step only shows when it cut.
    Cap {
        /// The cap used, ms.
        cap: f64,
        /// Whether the profile set the max delay.
        explicit: bool,
        /// The figure before the cap, ms.
        before: f64,
        /// min(before, cap), ms.
        value: f64,
    },
    /// The additive window `+ jitter j (U[0, w])`: value = before + j, j = ⌈U[0, w]⌉.
    Window {
        /// w, ms.
        window: u64,
        /// j, ms.
        jitter: f64,
        /// before + j, ms.
        value: f64,
    },
    /// The VBScript seed's factor: value = ⌈before · f⌉, f = U[low, high] = U[1 − p, 1 + p].
    Factor {
        /// f drawn.
        factor: f64,
        /// 1 − p.
        low: f64,
        /// 1 + p.
        high: f64,
        /// ⌈before·f⌉, ms.
        value: f64,
    },
    /// Full jitter: value = ⌈U[0, high]⌉.
    FullDraw {
        /// The upper end, ms.
        high: f64,
        /// The draw rounded up, ms.
        value: f64,
    },
    /// Equal jitter: value = ⌈half + j⌉, j = U[0, half].
    HalfPlusJitter {
        /// t/2, ms.
        half: f64,
        /// j, ms.
        jitter: f64,
        /// ⌈half + j⌉, ms.
        value: f64,
    },
    /// `hard_cap`: the final wait clamped to the max delay, value = cap.
    HardCap {
        /// The cap, ms.
        value: f64,
    },
    /// The 24 h ceiling on the final wait.
    DayLimit {
        /// 86 400 000 ms.
        value: f64,
    },
}

impl Step {
    /// The figure this step produced, ms.
    pub(crate) fn value(&self) -> f64 {
        match *self {
            Step::Doubling { value, .. }
            | Step::Multiplier { value, .. }
            | Step::DecorrelatedDraw { value, .. }
            | Step::Fixed { value }
            | Step::Cap { value, .. }
            | Step::Window { value, .. }
            | Step::Factor { value, .. }
            | Step::FullDraw { value, .. }
            | Step::HalfPlusJitter { value, .. }
            | Step::HardCap { value }
            | Step::DayLimit { value } => value,
        }
    }

    /// Whether the step cut a larger figure down to a cap (the max delay, its 24 h stand-in, or
    /// `hard_cap`).
    pub(crate) fn cut(&self) -> bool {
        match *self {
            Step::Cap { before, cap, .. } => before > cap,
            Step::HardCap { .. } => true,
            _ => false,
        }
    }
}

/// Most steps a computed wait records (formula, cap, window or factor, final clamp).
const CAPACITY: usize = 5;

/// The steps of one computed wait, in order. A fixed-size list so computing a wait allocates
/// nothing (`simulate` computes millions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StepLog {
    steps: [Step; CAPACITY],
    len: usize,
}

impl StepLog {
    /// A log starting with `first`.
    pub(crate) fn new(first: Step) -> Self {
        Self {
            steps: [first; CAPACITY],
            len: 1,
        }
    }

    /// Appends `step`; returns its value, so a strategy reads as a chain of steps.
    pub(crate) fn push(&mut self, step: Step) -> f64 {
        // Strategies record at most CAPACITY steps; a longer chain would be a bug in this module,
        // and keeping the last slot current keeps the final figure right even then.
        let slot = self.len.min(CAPACITY - 1);
        self.steps[slot] = step;
        self.len = (slot + 1).max(self.len);
        step.value()
    }

    /// The steps, in order.
    pub(crate) fn steps(&self) -> &[Step] {
        &self.steps[..self.len]
    }

    /// The last step's value: the final figure, ms.
    pub(crate) fn last_value(&self) -> f64 {
        self.steps[self.len - 1].value()
    }
}
