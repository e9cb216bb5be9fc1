//! The network between clients and server: each message is delayed by |N(mean, sd)| ms, the
//! model of the AWS Architecture Blog post's simulator ("a mean of 10ms and variance of 4ms").

use crate::policy::PolicyRng;
use rand::Rng;

/// One-way message delay, drawn per message: the absolute value of a normal draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetworkDelay {
    /// Mean, ms.
    pub mean_ms: f64,
    /// Standard deviation, ms (the post's "variance of 4ms" is s.d. 2 ms).
    pub sd_ms: f64,
}

impl Default for NetworkDelay {
    /// The post's network: mean 10 ms, s.d. 2 ms.
    fn default() -> Self {
        Self {
            mean_ms: 10.0,
            sd_ms: 2.0,
        }
    }
}

impl NetworkDelay {
    /// One delay, ms (≥ 0): |mean + sd·z| with z standard normal (Box–Muller from two uniform
    /// draws of `rng`, so a seed gives the same delays everywhere).
    ///
    /// ```
    /// use retryscope::sim::NetworkDelay;
    /// let net = NetworkDelay::default();
    /// let mut rng = retryscope::policy::rng_from_seed(3);
    /// let mean = (0..10_000).map(|_| net.sample(&mut rng)).sum::<f64>() / 10_000.0;
    /// assert!((mean - 10.0).abs() < 0.1);
    /// ```
    pub fn sample(&self, rng: &mut PolicyRng) -> f64 {
        // u1 in (0, 1] keeps the logarithm finite.
        let u1: f64 = 1.0 - rng.random::<f64>();
        let u2: f64 = rng.random();
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        (self.mean_ms + self.sd_ms * z).abs()
    }
}
