//! Retryscope: compose an HTTP request, pick a retry strategy, and watch every attempt.
//!
//! Layers (one way only): [`model`] plain data → [`policy`] pure maths and triage →
//! [`engine`] tokio/reqwest attempt loop → front ends [`ui`] (egui) and [`cli`] (clap).
//! [`profile`] loads/saves JSON profiles; [`interop`] reads and writes curl commands (pure text ↔
//! model); [`sim`] is the strategy lab (pure, seeded simulations); [`store`] keeps saved requests, environments and
//! secrets; [`demo`] is the embedded flaky server on loopback. [`build_info`] names the version
//! and commit of this build.

// Unit tests compare exact golden values (whole ms held in f64, seeded draws); code outside
// tests keeps `float_cmp`.
#![cfg_attr(test, allow(clippy::float_cmp))]

/// The process's memory allocator, for every binary built on this crate (the app, its tests and
/// benchmarks): mimalloc instead of the C library's malloc. The engine, reqwest/hyper and the
/// history writer allocate and free many small blocks per attempt; BENCHMARKS.md "Batch
/// runner" has the per-item cost with each allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod build_info;
pub mod cli;
pub mod demo;
pub mod engine;
pub mod interop;
pub mod model;
pub mod policy;
pub mod profile;
pub mod report;
pub mod service;
pub mod sim;
pub mod store;
pub mod testkit;
pub mod ui;
