//! The app core both faces use (DESIGN.md §6): what runs things — the background runtime and the
//! embedded demo server ([`AppServices`]), the engine service ([`EngineService`], commands in,
//! events out). The window keeps handles to these and never owns a runtime itself; later
//! issues add the history store's writer, the batch runner and budgets here.

pub mod app_services;

pub use crate::engine::EngineService;
pub use app_services::AppServices;
