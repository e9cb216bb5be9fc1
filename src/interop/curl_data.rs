//! Body and query data of a curl command (`-d`, `--data-*`, `--json`, `-G`, `--url-query`) as
//! curl sends it.

use super::curl_options::DataMode;
use crate::model::KeyValue;

/// One piece of body data, in command order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum DataPart {
    /// Text sent as is (`-d`, `--data-raw`, `--data-binary`, `--json` without `@`).
    Text(String),
    /// `--data-urlencode name=content` (`name` is `None` for `=content` and `content`).
    Encoded { name: Option<String>, value: String },
    /// `@file` of `-d`, `--data-binary` or `--json`; `lossy` for `-d`, which strips newlines.
    File { path: String, lossy: bool },
}

impl DataPart {
    /// The bytes curl would send for this part (files excepted).
    pub(super) fn wire_text(&self) -> String {
        let enc = |s: &str| {
            percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
        };
        match self {
            DataPart::Text(t) => t.clone(),
            DataPart::Encoded {
                name: Some(n),
                value,
            } => format!("{n}={}", enc(value)),
            DataPart::Encoded { name: None, value } => enc(value),
            DataPart::File { .. } => String::new(),
        }
    }
}

/// The body piece one data option gives: `@file` reads a file (lossy for `-d`,
/// `--data-urlencode`), `name=value` of `--data-urlencode` is encoded on the wire.
pub(super) fn data_part(mode: DataMode, v: String) -> DataPart {
    match mode {
        DataMode::Raw => DataPart::Text(v),
        DataMode::Ascii | DataMode::Binary | DataMode::Json => match v.strip_prefix('@') {
            Some(path) => DataPart::File {
                path: path.to_owned(),
                lossy: mode == DataMode::Ascii,
            },
            None => DataPart::Text(v),
        },
        DataMode::UrlEncode => {
            if let Some(path) = v.strip_prefix('@') {
                return DataPart::File {
                    path: path.to_owned(),
                    lossy: true,
                };
            }
            match v.split_once('=') {
                Some(("", value)) => DataPart::Encoded {
                    name: None,
                    value: value.to_owned(),
                },
                Some((name, value)) => DataPart::Encoded {
                    name: Some(name.to_owned()),
                    value: value.to_owned(),
                },
                None => DataPart::Encoded {
                    name: None,
                    value: v,
                },
            }
        }
    }
}

/// Query rows for one piece of data (`-G` data, `--url-query`).
pub(super) fn query_rows(part: &DataPart) -> Vec<KeyValue> {
    match part {
        DataPart::Text(t) => form_urlencoded::parse(t.as_bytes())
            .map(|(n, v)| KeyValue::new(n, v))
            .collect(),
        DataPart::Encoded { name, value } => match name {
            Some(n) => vec![KeyValue::new(n.clone(), value.clone())],
            None => vec![KeyValue::new(value.clone(), "")],
        },
        DataPart::File { .. } => Vec::new(),
    }
}
