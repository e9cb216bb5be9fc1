//! The `custom` strategy: a user's Rhai script defining `fn get_delay(ctx)` (DESIGN.md §2, §4).
//!
//! The script is compiled once ([`CompiledScript::compile`]) and run in a sandbox:
//! * no modules (the crate is built with `no_module`), no I/O: `print` and `debug` go nowhere,
//!   `eval` is disabled;
//! * limits on operations, call depth, expression depth, string/array/map sizes.
//!
//! **Runaway scripts are bounded purely by operation count**, not by a clock, so the policy layer
//! stays clock-free: [`MAX_OPERATIONS`] operations take well under 1 s on this machine even in a
//! debug build (measured by the `endless_loop_is_stopped_quickly` test), so a script that loops
//! forever ends within 1 s with a clear error. Deep recursion hits [`MAX_CALL_LEVELS`]; endless
//! allocation hits the string/array/map limits.
//!
//! `ctx` is an object map: `retry` (n), `attempt` (n, the attempt that failed), `status` (int or
//! `()` on a network error), `error` (error kind id such as `"connect"`, or `()`), `headers`
//! (map, lower-cased names), `elapsed_ms`, `prev_wait_ms` (or `()`), `time_left_ms` (ms left
//! before the profile's deadline, or `()` without one), `base_delay_ms`,
//! `max_delay_ms` (or `()`), `jitter_window_ms`. Functions: `rand()` (f64 in [0, 1) drawn from
//! the run's seeded RNG, recorded in the explanation) and `retry_after(value)` (our
//! `Retry-After` parser: delta-seconds or HTTP-date → ms, or `()` when unusable).

use super::draws::draw;
use super::limits::{MAX_WAIT_MS, cap_ms, ceil_ms, num};
use super::retry_after::{parse_delay, reference_unix_ms};
use super::{PolicyError, PolicyRng, WaitContext, WaitDecision};
use crate::model::{AttemptOutcome, Backoff, Draw, HeaderUnit, Strategy, WaitExplanation};
use rand::SeedableRng;
use rhai::{AST, CallFnOptions, Dynamic, Engine, EvalAltResult, Map, NativeCallContext, Scope};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, MutexGuard};

/// Operation budget of one `get_delay` call (the pure bound on runaway scripts).
pub const MAX_OPERATIONS: u64 = 100_000;
/// Deepest function-call nesting a script may reach.
pub const MAX_CALL_LEVELS: usize = 32;
/// Longest string a script may build, bytes.
pub const MAX_STRING_SIZE: usize = 64 * 1024;
/// Largest array a script may build, items.
pub const MAX_ARRAY_SIZE: usize = 1_000;
/// Largest object map a script may build, entries.
pub const MAX_MAP_SIZE: usize = 1_000;

/// The name of the function every custom script must define.
const ENTRY: &str = "get_delay";

/// State shared with `rand()` / `retry_after()` during one call: the run's RNG (moved in for the
/// call and moved back after), the draws made, and the reference time for HTTP-dates.
struct CallState {
    rng: PolicyRng,
    draws: Vec<Draw>,
    reference_unix_ms: i64,
}

/// The per-call tag handed to native functions (each call gets its own, so one compiled script
/// can serve concurrent runs).
#[derive(Clone)]
struct CallTag(Arc<Mutex<CallState>>);

fn lock(state: &Mutex<CallState>) -> MutexGuard<'_, CallState> {
    match state.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

fn call_tag(ctx: &NativeCallContext) -> Result<CallTag, Box<EvalAltResult>> {
    ctx.tag()
        .and_then(|t| t.clone().try_cast::<CallTag>())
        .ok_or_else(|| "rand() and retry_after() only work inside get_delay".into())
}

/// A compiled custom script with its sandboxed engine.
#[derive(Debug)]
pub struct CompiledScript {
    engine: Engine,
    ast: AST,
}

impl CompiledScript {
    /// Compiles `source` in the sandbox.
    ///
    /// # Errors
    /// [`PolicyError::Script`] with the 1-based line:column of a syntax error, or line 1,
    /// column 1 when `fn get_delay(ctx)` is missing.
    pub fn compile(source: &str) -> Result<Self, PolicyError> {
        let engine = sandbox();
        let ast = engine.compile(source).map_err(|e| {
            let pos = e.position();
            PolicyError::Script {
                line: pos.line().unwrap_or(1),
                column: pos.position().unwrap_or(1),
                message: e.err_type().to_string().to_lowercase(),
            }
        })?;
        let defined = ast
            .iter_functions()
            .any(|f| f.name == ENTRY && f.params.len() == 1);
        if !defined {
            return Err(PolicyError::Script {
                line: 1,
                column: 1,
                message: "the script must define `fn get_delay(ctx)` returning ms or ()".into(),
            });
        }
        Ok(Self { engine, ast })
    }

    /// Runs `get_delay(ctx)` for wait n, drawing `rand()` from `rng`.
    ///
    /// Returns the wait (capped at `c` when set, and at 24 h), `Stop` for `()`, or `ScriptError`
    /// quoting a returned value that is not a finite number ≥ 0, or the runtime error.
    pub(crate) fn wait(
        &self,
        backoff: &Backoff,
        ctx: &WaitContext<'_>,
        rng: &mut PolicyRng,
    ) -> WaitDecision {
        let reference = match ctx.outcome {
            AttemptOutcome::Response(r) => reference_unix_ms(r, ctx.now_unix_ms).0,
            AttemptOutcome::Error(_) => ctx.now_unix_ms,
        };
        let taken = std::mem::replace(rng, PolicyRng::seed_from_u64(0));
        let state = Arc::new(Mutex::new(CallState {
            rng: taken,
            draws: Vec::new(),
            reference_unix_ms: reference,
        }));
        let options = CallFnOptions::new().with_tag(CallTag(Arc::clone(&state)));
        let result = self.engine.call_fn_with_options::<Dynamic>(
            options,
            &mut Scope::new(),
            &self.ast,
            ENTRY,
            (Dynamic::from_map(context_map(backoff, ctx)),),
        );
        let (rng_back, draws) = {
            let mut guard = lock(&state);
            let rng_back = std::mem::replace(&mut guard.rng, PolicyRng::seed_from_u64(0));
            (rng_back, std::mem::take(&mut guard.draws))
        };
        *rng = rng_back;
        match result {
            Ok(value) => interpret(backoff, ctx.retry, &value, draws),
            Err(err) => WaitDecision::ScriptError {
                message: runtime_message(&err),
            },
        }
    }
}

/// The sandboxed engine: limits set, `print`/`debug` silenced, `rand()` and `retry_after()` added.
fn sandbox() -> Engine {
    let mut engine = Engine::new();
    engine
        .set_max_operations(MAX_OPERATIONS)
        .set_max_call_levels(MAX_CALL_LEVELS)
        .set_max_expr_depths(64, 32)
        .set_max_string_size(MAX_STRING_SIZE)
        .set_max_array_size(MAX_ARRAY_SIZE)
        .set_max_map_size(MAX_MAP_SIZE)
        .set_max_variables(1_000)
        .set_max_functions(256)
        .on_print(|_| {})
        .on_debug(|_, _, _| {})
        // `eval` would run code built at run time, outside what was compiled and checked.
        .disable_symbol("eval");
    engine.register_fn(
        "rand",
        |ctx: NativeCallContext| -> Result<f64, Box<EvalAltResult>> {
            let tag = call_tag(&ctx)?;
            let mut state = lock(&tag.0);
            let value = draw(&mut state.rng, 0.0, 1.0);
            state.draws.push(Draw {
                name: "rand".into(),
                value,
                low: 0.0,
                high: 1.0,
            });
            Ok(value)
        },
    );
    engine.register_fn(
        "retry_after",
        |ctx: NativeCallContext,
         value: rhai::ImmutableString|
         -> Result<Dynamic, Box<EvalAltResult>> {
            let tag = call_tag(&ctx)?;
            let reference = lock(&tag.0).reference_unix_ms;
            Ok(
                parse_delay(&value, HeaderUnit::Seconds, reference).map_or(Dynamic::UNIT, |d| {
                    Dynamic::from_int(i64::try_from(d.ms).unwrap_or(i64::MAX))
                }),
            )
        },
    );
    engine.register_fn("retry_after", |(): ()| Dynamic::UNIT);
    engine
}

fn int(v: u64) -> Dynamic {
    Dynamic::from_int(i64::try_from(v).unwrap_or(i64::MAX))
}

/// The `ctx` object map passed to `get_delay`.
fn context_map(backoff: &Backoff, ctx: &WaitContext<'_>) -> Map {
    let mut map = Map::new();
    let n = i64::from(ctx.retry);
    map.insert("retry".into(), Dynamic::from_int(n));
    map.insert("attempt".into(), Dynamic::from_int(n));
    let mut headers = Map::new();
    match ctx.outcome {
        AttemptOutcome::Response(r) => {
            map.insert("status".into(), Dynamic::from_int(i64::from(r.status)));
            map.insert("error".into(), Dynamic::UNIT);
            for (name, value) in &r.headers {
                let key = name.to_ascii_lowercase();
                if !headers.contains_key(key.as_str()) {
                    headers.insert(key.into(), Dynamic::from(value.clone()));
                }
            }
        }
        AttemptOutcome::Error(e) => {
            map.insert("status".into(), Dynamic::UNIT);
            map.insert("error".into(), Dynamic::from(e.kind.id().to_owned()));
        }
    }
    map.insert("headers".into(), Dynamic::from_map(headers));
    map.insert("elapsed_ms".into(), int(ctx.elapsed_ms));
    map.insert(
        "prev_wait_ms".into(),
        ctx.prev_wait_ms.map_or(Dynamic::UNIT, int),
    );
    map.insert(
        "time_left_ms".into(),
        ctx.time_left_ms.map_or(Dynamic::UNIT, int),
    );
    map.insert("base_delay_ms".into(), int(backoff.base_delay_ms));
    map.insert(
        "max_delay_ms".into(),
        backoff.max_delay_ms.map_or(Dynamic::UNIT, int),
    );
    map.insert("jitter_window_ms".into(), int(backoff.jitter_window_ms));
    map
}

/// Turns the returned value into a decision (DESIGN.md §4: never clamp a bad value to 0).
fn interpret(backoff: &Backoff, retry: u32, value: &Dynamic, draws: Vec<Draw>) -> WaitDecision {
    let ms = if value.is_unit() {
        return WaitDecision::Stop {
            reason: format!("custom script returned () for retry {retry}: not retrying"),
        };
    } else if let Ok(i) = value.as_int() {
        i as f64
    } else if let Ok(f) = value.as_float() {
        f
    } else {
        return WaitDecision::ScriptError {
            message: format!(
                "get_delay returned {}; it must return a finite number ≥ 0 (ms) or ()",
                quote(value)
            ),
        };
    };
    if !ms.is_finite() || ms < 0.0 {
        return WaitDecision::ScriptError {
            message: format!(
                "get_delay returned {}; it must return a finite number ≥ 0 (ms) or ()",
                quote(value)
            ),
        };
    }
    let c = cap_ms(backoff.max_delay_ms);
    let mut text = format!("retry {retry}: custom get_delay(ctx) = {}", num(ms));
    let capped = ms.ceil() > c;
    let value = ms.ceil().min(c);
    if capped {
        if backoff.max_delay_ms.is_some() {
            let _ = write!(text, " → cap {} = {} ms", num(c), num(c));
        } else {
            let _ = write!(text, " → limit 24 h = {MAX_WAIT_MS} ms");
        }
    } else if ms.fract() != 0.0 {
        let _ = write!(text, " → {} ms", num(value));
    } else {
        text.push_str(" ms");
    }
    // The script's draws go last, so the text's last figure in ms is the wait.
    for d in &draws {
        let _ = write!(text, " (rand() = {:.3})", d.value);
    }
    WaitDecision::Wait(WaitExplanation {
        retry,
        strategy: Strategy::Custom,
        unjittered_ms: value,
        draws,
        capped,
        wait_ms: ceil_ms(value),
        text,
    })
}

/// `the string "soon"`, `NaN`, `-5`, `a map #{"a": 1}`.
fn quote(value: &Dynamic) -> String {
    if value.is_string() {
        format!("the string {:?}", value.to_string())
    } else if value.is_map() {
        format!("a map {value}")
    } else if value.is_array() {
        format!("an array {value}")
    } else if let Ok(f) = value.as_float() {
        if f.is_nan() {
            "NaN".into()
        } else if f.is_infinite() {
            if f > 0.0 {
                "+infinity".into()
            } else {
                "-infinity".into()
            }
        } else {
            format!("{f}")
        }
    } else if let Ok(i) = value.as_int() {
        format!("{i}")
    } else {
        format!("{} `{value}`", value.type_name())
    }
}

/// A runtime error as one lowercase line with a hint for the limits.
fn runtime_message(err: &EvalAltResult) -> String {
    let inner = err.unwrap_inner();
    let hint = match inner {
        EvalAltResult::ErrorTooManyOperations(_) => format!(
            "script stopped after {MAX_OPERATIONS} operations (endless loop?): make get_delay finish sooner"
        ),
        EvalAltResult::ErrorStackOverflow(_) => format!(
            "script stopped: calls nested deeper than {MAX_CALL_LEVELS} (endless recursion?)"
        ),
        EvalAltResult::ErrorDataTooLarge(what, _) => format!(
            "script stopped: {} too large (limits: strings {MAX_STRING_SIZE} bytes, arrays {MAX_ARRAY_SIZE} items, maps {MAX_MAP_SIZE} entries)",
            what.to_lowercase()
        ),
        _ => {
            // Rhai writes `(line 2, position 12)`; say it as compile errors do.
            let text = err
                .to_string()
                .to_lowercase()
                .replace(", position ", ", column ");
            return format!("script error: {}", text.replace("(line ", "(script line "));
        }
    };
    let pos = err.position();
    match (pos.line(), pos.position()) {
        (Some(l), Some(c)) => format!("{hint} (script line {l}, column {c})"),
        _ => hint,
    }
}

/// Whether `strategy` needs a compiled script.
pub(crate) fn needs_script(backoff: &Backoff) -> bool {
    backoff.strategy == Strategy::Custom
}

/// Compiles the backoff's script when its strategy is `custom`.
///
/// # Errors
/// [`PolicyError::Invalid`] when the script is missing, [`PolicyError::Script`] when it does not
/// compile.
pub(crate) fn compile_for(backoff: &Backoff) -> Result<Option<Arc<CompiledScript>>, PolicyError> {
    if !needs_script(backoff) {
        return Ok(None);
    }
    let source = backoff.script.as_deref().ok_or_else(|| {
        PolicyError::Invalid(
            "backoff.script is missing: the custom strategy needs a Rhai script defining fn get_delay(ctx)".into(),
        )
    })?;
    CompiledScript::compile(source).map(|s| Some(Arc::new(s)))
}
