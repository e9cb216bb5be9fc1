//! Where uniform draws `U[a, z]` come from: the run's seeded RNG (recorded or not), or the range
//! ends, which turns the same formula code into its exact lower and upper bounds.

use super::PolicyRng;
use crate::model::Draw;
use rand::Rng;

/// A source of uniform draws. Every strategy is monotone in each draw, so evaluating it with all
/// draws at their lower (upper) ends gives its exact minimum (maximum).
pub(crate) trait Draws {
    /// A real number in the range between `low` and `high` (in either order): `low + u·(high − low)`
    /// with `u` in [0, 1).
    fn uniform(&mut self, name: &'static str, low: f64, high: f64) -> f64;
}

/// One draw from `rng`: `low + u·(high − low)`, `u` uniform in [0, 1) (53 random bits).
pub(crate) fn draw(rng: &mut PolicyRng, low: f64, high: f64) -> f64 {
    let u: f64 = rng.random();
    low + u * (high - low)
}

/// Draws from the run's RNG and records each draw for the explanation.
pub(crate) struct Recording<'a> {
    rng: &'a mut PolicyRng,
    /// Draws so far, in order.
    pub(crate) draws: Vec<Draw>,
}

impl<'a> Recording<'a> {
    /// Records draws taken from `rng`.
    pub(crate) fn new(rng: &'a mut PolicyRng) -> Self {
        Self {
            rng,
            draws: Vec::new(),
        }
    }
}

impl Draws for Recording<'_> {
    fn uniform(&mut self, name: &'static str, low: f64, high: f64) -> f64 {
        let value = draw(self.rng, low, high);
        self.draws.push(Draw {
            name: name.to_owned(),
            value,
            low,
            high,
        });
        value
    }
}

/// Draws from the run's RNG without recording (the fast path used by `simulate`).
pub(crate) struct Sampling<'a>(pub(crate) &'a mut PolicyRng);

impl Draws for Sampling<'_> {
    fn uniform(&mut self, _name: &'static str, low: f64, high: f64) -> f64 {
        draw(self.0, low, high)
    }
}

/// Always the lower or upper end of the range (used for exact bounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Extreme {
    /// The smaller end.
    Low,
    /// The larger end.
    High,
}

impl Draws for Extreme {
    fn uniform(&mut self, _name: &'static str, low: f64, high: f64) -> f64 {
        match self {
            Extreme::Low => low.min(high),
            Extreme::High => low.max(high),
        }
    }
}
