//! "Copy as curl" for one attempt: the request the run sent, as a curl command, with the URL
//! and method that attempt used (a retry after redirects goes to the last hop).

use crate::interop::spec_to_curl;
use crate::model::AttemptRow;
use crate::model::{Body, RequestSpec, mask_secret_values};
use std::sync::Arc;

/// What a run sent, kept with its run so any attempt can be copied as curl. Memory only.
#[derive(Debug, Clone, PartialEq)]
pub struct SentRequest {
    /// The resolved request of attempt 1.
    pub spec: RequestSpec,
    /// Values of the secret variables and auth fields used, masked unless secrets are included.
    pub secrets: Vec<String>,
}

/// The curl command of `attempt` of a run that sent `sent` and whose first URL (as the
/// timeline shows it) is `first_url`. When the attempt went elsewhere (a retry of a redirect's
/// last hop), its URL and method are used, query rows dropped (the URL holds them), and a
/// body dropped when the method became GET or HEAD (303).
pub fn attempt_curl(
    sent: &SentRequest,
    attempt: &AttemptRow,
    first_url: &str,
    include_secrets: bool,
) -> String {
    let mut spec = sent.spec.clone();
    if attempt.url != first_url {
        spec.url.clone_from(&attempt.url);
        spec.query.clear();
    }
    if attempt.method != spec.method {
        spec.method.clone_from(&attempt.method);
        if matches!(spec.method.as_str(), "GET" | "HEAD") {
            spec.body = Body::None;
        }
    }
    let command = spec_to_curl(&spec, include_secrets);
    if include_secrets {
        command
    } else {
        mask_secret_values(&command, &sent.secrets)
    }
}

/// The "Copy as curl" button and its "with secrets" checkbox (off by default, remembered per
/// window session) for `attempt`; disabled when the run's request is not known.
pub fn copy_as_curl_ui(
    ui: &mut egui::Ui,
    sent: Option<&Arc<SentRequest>>,
    attempt: &AttemptRow,
    first_url: &str,
) {
    let id = egui::Id::unique("attempt_curl.include_secrets");
    let mut include = ui.ctx().data(|d| d.get_temp::<bool>(id)).unwrap_or(false);
    ui.horizontal(|ui| {
        let button = ui
            .add_enabled(sent.is_some(), egui::Button::new("Copy as curl"))
            .on_hover_text("copy the request of this attempt as a curl command")
            .on_disabled_hover_text("this run's request is not known here");
        if button.clicked()
            && let Some(sent) = sent
        {
            crate::ui::copied_toast::copy(
                ui.ctx(),
                attempt_curl(sent, attempt, first_url, include),
                &format!("attempt {} as curl", attempt.number),
                crate::ui::copied_toast::Secrets::included_if(include),
            );
        }
        if ui
            .checkbox(&mut include, "with secrets")
            .on_hover_text("write tokens, passwords and cookies as they are instead of ***")
            .changed()
        {
            ui.ctx().data_mut(|d| d.insert_temp(id, include));
        }
    });
}
