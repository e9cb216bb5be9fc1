//! The lab's background jobs and their results (pure calls into [`crate::sim`]).

use crate::model::RetryProfile;
use crate::sim::{
    Contender, ContentionResult, ContentionSetup, Distribution, StackAnalysis, StackSetup,
    StackSimulation, SweepPoint, analyse_stack, contention, distribution, simulate_stack_with,
    sweep,
};

/// Samples of the distribution view.
pub const LAB_SAMPLES: u32 = 4000;
/// Seed of every lab simulation (the same profile gives the same plots).
pub const LAB_SEED: u64 = 1;
/// Failure rate the distribution's budget warning assumes.
pub const LAB_FAILURE_RATE: f64 = 0.5;
/// Calls the stack calculator simulates.
pub const STACK_RUNS: u32 = 2000;
/// Status every failed server attempt answers in the stack calculator (as in the CLI).
pub const STACK_FAILURE_STATUS: u16 = 503;

/// Work for the lab's worker.
#[derive(Debug, Clone)]
pub enum LabJob {
    /// The distribution view of a profile.
    Distribution(RetryProfile),
    /// Contention for N = 1…`max_clients`, the seven contenders (`profile` the seventh).
    Sweep {
        /// Setup of every point (its `clients` is replaced by each N).
        setup: ContentionSetup,
        /// The user's profile.
        profile: RetryProfile,
        /// Base and cap of the six standard strategies, ms.
        base_cap_ms: (u64, u64),
        /// Largest N.
        max_clients: u32,
    },
    /// Server load over time at `setup.clients`, the seven contenders.
    Load {
        /// The setup (with its load series kept).
        setup: ContentionSetup,
        /// The user's profile.
        profile: RetryProfile,
        /// Base and cap of the six standard strategies, ms.
        base_cap_ms: (u64, u64),
    },
    /// Layered retries, outer → inner.
    Stack {
        /// The layers.
        layers: Vec<RetryProfile>,
        /// Chance that one server attempt fails.
        failure_rate: f64,
    },
}

/// A finished job; `Err` carries the message the lab shows.
#[derive(Debug, Clone)]
pub enum LabOutput {
    /// The distribution of the profile value submitted.
    Distribution(Result<Distribution, String>),
    /// One point per N.
    Sweep(Result<Vec<SweepPoint>, String>),
    /// One result per contender, load series kept.
    Load(Result<Vec<ContentionResult>, String>),
    /// Analysis and simulation of a stack.
    Stack(Result<(StackAnalysis, StackSimulation), String>),
}

/// Runs `job`; `control(done, total)` reports progress and returns `false` to abandon it
/// (`None`).
pub fn run_job(job: LabJob, control: &mut dyn FnMut(u64, u64) -> bool) -> Option<LabOutput> {
    match job {
        LabJob::Distribution(profile) => {
            let total = u64::from(LAB_SAMPLES);
            let result = distribution(
                &profile,
                LAB_SAMPLES,
                LAB_SEED,
                LAB_FAILURE_RATE,
                &mut |d| control(u64::from(d), total),
            );
            match result {
                Ok(Some(d)) => Some(LabOutput::Distribution(Ok(d))),
                Ok(None) => None,
                Err(e) => Some(LabOutput::Distribution(Err(e.to_string()))),
            }
        }
        LabJob::Sweep {
            setup,
            profile,
            base_cap_ms: (base, cap),
            max_clients,
        } => match Contender::lab(base, cap, &profile) {
            Ok(contenders) => sweep(&setup, &contenders, 1..=max_clients, control)
                .map(|points| LabOutput::Sweep(Ok(points))),
            Err(e) => Some(LabOutput::Sweep(Err(e.to_string()))),
        },
        LabJob::Load {
            setup,
            profile,
            base_cap_ms: (base, cap),
        } => match Contender::lab(base, cap, &profile) {
            Ok(contenders) => {
                let total = contenders.len() as u64;
                let mut out = Vec::with_capacity(contenders.len());
                for (i, c) in contenders.iter().enumerate() {
                    out.push(contention(&setup, c));
                    if !control(i as u64 + 1, total) {
                        return None;
                    }
                }
                Some(LabOutput::Load(Ok(out)))
            }
            Err(e) => Some(LabOutput::Load(Err(e.to_string()))),
        },
        LabJob::Stack {
            layers,
            failure_rate,
        } => {
            let setup = StackSetup {
                failure_rate,
                failure_status: STACK_FAILURE_STATUS,
                attempt_ms: 0,
                runs: STACK_RUNS,
                seed: LAB_SEED,
            };
            let total = u64::from(STACK_RUNS);
            let result = analyse_stack(&layers, failure_rate, STACK_FAILURE_STATUS)
                .and_then(|analysis| {
                    simulate_stack_with(&layers, &setup, &mut |done, _| {
                        control(u64::from(done), total)
                    })
                    .map(|sim| (analysis, sim))
                })
                .map_err(|e| e.to_string());
            if result.as_ref().is_ok_and(|(_, sim)| sim.stopped) {
                return None;
            }
            Some(LabOutput::Stack(result))
        }
    }
}
