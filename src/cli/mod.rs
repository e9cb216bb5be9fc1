//! Headless command-line front end (being built).
