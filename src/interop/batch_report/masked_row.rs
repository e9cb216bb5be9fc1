//! A report row with its secrets masked by the one rule (DESIGN.md §9), before any writer
//! sees it.

use crate::model::secrets::{mask_spec, mask_text, secret_values};
use crate::model::{BatchReportRow, RequestSpec, mask_secret_values};

/// `row` fit for a report: URL masked (user info, secret query values), secret header values
/// `***`, and every secret value the request sends (plus `extra`, e.g. secret variables)
/// masked in the label, the reason, the assertion and the attempts' reasons.
pub(super) fn masked_row(row: &BatchReportRow, extra: &[String]) -> BatchReportRow {
    let mut spec = RequestSpec::get(row.url.clone());
    spec.method.clone_from(&row.method);
    spec.headers.clone_from(&row.headers);
    let mut secrets = secret_values(&spec);
    for value in extra {
        if !value.is_empty() && !secrets.contains(value) {
            secrets.push(value.clone());
        }
    }
    let masked = mask_spec(&spec, &secrets).into_inner();
    let text = |t: &str| mask_secret_values(&mask_text(t), &secrets);
    let mut out = row.clone();
    // The default label is `METHOD URL`: mask it as the URL it is (a URL with a space would
    // be cut short as free text).
    out.label = if row.label == format!("{} {}", row.method, row.url) {
        format!("{} {}", row.method, masked.url)
    } else {
        text(&row.label)
    };
    out.url = masked.url;
    out.headers = masked.headers;
    out.reason = text(&row.reason);
    out.assertion = row.assertion.as_deref().map(text);
    for attempt in &mut out.attempts_detail {
        attempt.reason = text(&attempt.reason);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BatchItemState, BatchRequest, KeyValue};

    #[test]
    fn url_headers_label_and_texts_are_masked() {
        let mut spec = RequestSpec::get("http://bob:hunter22@127.0.0.1:9/x?token=tok123456&page=2");
        spec.headers
            .push(KeyValue::new("Authorization", "Bearer abcdef123456"));
        spec.headers.push(KeyValue::new("Accept", "text/plain"));
        let item = BatchRequest {
            name: None,
            request: spec,
            profile: None,
            source_line: None,
        };
        let mut row = BatchReportRow::new(&item, 1, BatchItemState::Error);
        row.reason = "gave up: echoed abcdef123456 from http://bob:hunter22@127.0.0.1:9/x".into();
        row.assertion = Some("body contains tok123456".into());
        let m = masked_row(&row, &["myvariable-secret".into()]);
        assert_eq!(m.url, "http://***:***@127.0.0.1:9/x?token=***&page=2");
        assert_eq!(m.label, format!("GET {}", m.url));
        assert_eq!(m.headers[0].value, "***");
        assert_eq!(m.headers[1].value, "text/plain");
        assert_eq!(
            m.reason,
            "gave up: echoed *** from http://***:***@127.0.0.1:9/x"
        );
        assert_eq!(m.assertion.as_deref(), Some("body contains ***"));
        row.label = "mine myvariable-secret".into();
        assert_eq!(
            masked_row(&row, &["myvariable-secret".into()]).label,
            "mine ***"
        );
    }
}
