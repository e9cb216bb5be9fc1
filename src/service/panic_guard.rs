//! A task's work with its panics turned into a value, so that one bad input ends as an error
//! of its own (a batch item `error`) instead of a lost task.

use std::future::Future;
use std::panic::AssertUnwindSafe;

/// What `work` returns or, should it panic, `on_panic(message)`: the panic's `&str` or
/// `String` payload (`"no message"` for any other payload).
pub(crate) async fn unless_panicked<T>(
    work: impl Future<Output = T>,
    on_panic: impl FnOnce(String) -> T,
) -> T {
    use futures_util::FutureExt as _;
    match AssertUnwindSafe(work).catch_unwind().await {
        Ok(value) => value,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            on_panic(message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unless_panicked;

    #[tokio::test]
    async fn a_panic_becomes_the_fallback_with_its_message() {
        let ok = unless_panicked(async { 1 }, |_| 0).await;
        assert_eq!(ok, 1);
        let formatted = unless_panicked(
            async {
                let n = 7;
                assert!(n == 0, "size overflows MAX_SIZE ({n})");
                String::new()
            },
            |m| m,
        )
        .await;
        assert_eq!(formatted, "size overflows MAX_SIZE (7)");
        let literal = unless_panicked(async { panic!("plain") }, |m: String| m).await;
        assert_eq!(literal, "plain");
    }
}
