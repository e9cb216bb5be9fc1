//! Reading a pasted curl command into the composer's draft ("Import curl…", a `curl …` pasted
//! into the URL field, `retryscope curl`).
//!
//! Pure: a `-d @file` becomes a body file path; no file is read and nothing is sent. Every
//! option the draft cannot hold is named in [`CurlImport::unsupported`], never dropped
//! silently; the values of ignored options are never repeated there (they may be secrets).

use super::curl_data::{DataPart, data_part, query_rows};
use super::curl_options::{self, DataMode, Opt};
use super::curl_words::split_words;
use super::retry_formats::durations;
use crate::model::{AuthKind, BodyKind, KeyValue, RequestDraft, standard_method_case};

/// Max redirect hops when a command gives `--max-redirs -1` (unlimited in curl).
pub const UNLIMITED_REDIRECTS: u32 = 50;

/// A curl command read into a draft.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurlImport {
    /// The request, ready for the composer.
    pub draft: RequestDraft,
    /// One line per option (or part of one) the draft does not carry, e.g.
    /// `--proxy (ignored: not supported)` or `-v (ignored: output option)`.
    pub unsupported: Vec<String>,
    /// `-o FILE` / `--output FILE`: where the command writes the response body (`None`
    /// without one; `-` is stdout). The draft has no place for it: `retryscope curl` writes
    /// the final body there (as `run -o`); other importers list [`CurlImport::output_notes`]
    /// among the unsupported options.
    pub output: Option<String>,
    /// `-s` / `--silent` as written, if the command has it. `retryscope curl` leaves out the
    /// attempt, wait and request-header lines (as `run -s`: our progress is the timeline);
    /// other importers list [`CurlImport::output_notes`] among the unsupported options.
    pub silent: Option<String>,
    /// `-i` / `--include` as written, if the command has it. `retryscope curl` prints the final
    /// response's headers (as `run -i`); other importers list it among the unsupported options.
    pub include: Option<String>,
}

impl CurlImport {
    /// Notes, among the unsupported options, that `command` (the text the words were split
    /// from) holds a variable a shell would have expanded (`$NAME` or `${NAME}`, unquoted or
    /// in double quotes): no shell runs it here, so it is sent as typed. The note does not show the variable (it may sit in a secret).
    pub fn note_variables(&mut self, command: &str) {
        if super::curl_words::expands_a_variable(command) {
            self.unsupported.push(
                "a shell variable (`$NAME` or `${NAME}`) outside single quotes: no shell expands it here, so it is sent as typed"
                    .to_owned(),
            );
        }
    }

    /// The unsupported-option lines for an importer that prints and writes nothing (the
    /// window, a batch list): `-s`, `-i` and `-o FILE` (the file name is not repeated); `-o -`
    /// is where such an importer shows the body anyway.
    pub fn output_notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self
            .silent
            .iter()
            .chain(&self.include)
            .map(|flag| format!("{flag} (ignored: output option)"))
            .collect();
        if self.output.as_deref().is_some_and(|o| o != "-") {
            notes.push("-o FILE (ignored: the response body is not written to a file here; `retryscope curl -o FILE` writes it)".to_owned());
        }
        notes
    }
}

/// Why a curl command could not be read. Positions count the command's words: `curl` is
/// word 0, its first option word 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CurlError {
    /// The first word is not `curl`.
    #[error("this is not a curl command: it should start with `curl`")]
    NotCurl,
    /// A quote is never closed.
    #[error("a quote opened at character {} of the curl command is never closed", .offset + 1)]
    Quote {
        /// 0-based character offset of the opening quote (the message counts from 1).
        offset: usize,
    },
    /// An option is the last word but needs a value.
    #[error("`{option}` (word {position}) needs a value")]
    MissingValue {
        /// The option as written.
        option: String,
        /// Word index.
        position: usize,
    },
    /// An option's value is not usable.
    #[error("`{option}` (word {position}): {reason}")]
    BadValue {
        /// The option as written.
        option: String,
        /// Word index.
        position: usize,
        /// What is wrong and what to write instead.
        reason: String,
    },
    /// The command has no URL.
    #[error("the curl command has no URL")]
    NoUrl,
    /// The URL word is empty (`curl ""`).
    #[error("the curl command's URL (word {position}) is empty")]
    EmptyUrl {
        /// Word index.
        position: usize,
    },
    /// `--next` / `-:` starts a second request.
    #[error("`{option}` (word {position}) starts a second request; import one request at a time")]
    Next {
        /// The option as written.
        option: String,
        /// Word index.
        position: usize,
    },
}

/// What the words said, before it becomes a draft.
#[derive(Default)]
struct Parsed {
    method: Option<(String, usize)>,
    head: bool,
    get: bool,
    urls: Vec<(String, usize)>,
    headers: Vec<KeyValue>,
    data: Vec<DataPart>,
    /// `-F` parts as composer rows (name, `-F` value).
    form: Vec<KeyValue>,
    json: bool,
    /// `-T FILE` was given: a PUT of the file by default.
    upload: bool,
    user: Option<String>,
    bearer: Option<String>,
    insecure: bool,
    ca_cert: Option<String>,
    location: bool,
    /// `--location-trusted` was given.
    location_trusted: bool,
    max_redirs: Option<u32>,
    url_query: Vec<KeyValue>,
    max_time_ms: Option<u64>,
    connect_ms: Option<u64>,
    output: Option<String>,
    silent: Option<String>,
    include: Option<String>,
    notes: Vec<String>,
}

/// Reads `command` (one curl invocation as a shell would see it; `\` line continuations,
/// `$'…'` quoting and Windows cmd `^` copies included) into a [`RequestDraft`].
///
/// Defaults follow curl, not the composer: without `-L` redirects are not followed; without
/// a Content-Type header `-d` data is `application/x-www-form-urlencoded`.
///
/// ```
/// use retryscope::interop::parse_curl;
/// let import = parse_curl("curl -sX PUT 'http://127.0.0.1:8080/echo' -H 'Accept: text/plain' -d 'a=1' --proxy http://p:1").unwrap();
/// assert_eq!(import.draft.method, "PUT");
/// assert_eq!(import.draft.body.text, "a=1");
/// assert_eq!(import.unsupported, ["--proxy (ignored: not supported)"]);
/// assert_eq!(import.output_notes(), ["-s (ignored: output option)"]);
/// ```
///
/// # Errors
/// [`CurlError`] naming the option and its word position, an unclosed quote, or a missing URL.
pub fn parse_curl(command: &str) -> Result<CurlImport, CurlError> {
    let mut import = parse_curl_words(&split_curl_command(command)?)?;
    import.note_variables(command);
    Ok(import)
}

/// The words of a whole pasted curl command as a shell would split them (`\` continuations,
/// `$'…'` and Windows cmd `^` quoting included); a leading curl program word
/// ([`is_curl_program`], a Windows path too) becomes `curl`. [`parse_curl`] is this, then
/// [`parse_curl_words`]; `retryscope curl` takes its own options out in between.
///
/// # Errors
/// [`CurlError::Quote`] for a quote that is never closed (its character position in
/// `command`, trimmed).
pub fn split_curl_command(command: &str) -> Result<Vec<String>, CurlError> {
    let command = command.trim();
    // The program word is read as written: a Windows path (`C:\…\curl.exe`) has backslashes
    // the shell rules would take for escapes. It becomes `curl` padded to its length, so the
    // characters after it keep their positions (an unclosed quote's column).
    let program = command
        .split_once(char::is_whitespace)
        .map(|(first, _)| first)
        .filter(|first| is_curl_program(first.trim_matches(['"', '\''])));
    match program {
        Some(first) => {
            let rest = &command[first.len()..];
            let padding = " ".repeat(first.chars().count().saturating_sub(4));
            split_words(&format!("curl{padding}{rest}"))
        }
        None => split_words(command),
    }
}

/// Whether `word` names the curl program, as the first word of a pasted command: `curl` or
/// `curl.exe` (Windows' "Copy as cURL" for cmd and PowerShell writes `curl.exe`) in any case,
/// alone or at the end of a path (`/usr/bin/curl`, `./curl`, `C:\Windows\System32\curl.exe`).
/// A URL ending in `/curl` (`http://h/curl`, `example.com/curl`) is not the program.
///
/// ```
/// use retryscope::interop::is_curl_program;
/// assert!(is_curl_program("curl") && is_curl_program("CURL.EXE") && is_curl_program("/usr/bin/curl"));
/// assert!(!is_curl_program("http://127.0.0.1:8080/curl") && !is_curl_program("curly"));
/// ```
pub fn is_curl_program(word: &str) -> bool {
    let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
    if !name.eq_ignore_ascii_case("curl") && !name.eq_ignore_ascii_case("curl.exe") {
        return false;
    }
    let folder = &word[..word.len() - name.len()];
    let bytes = folder.as_bytes();
    let drive = bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    folder.is_empty()
        || !folder.contains("://")
            && (folder.starts_with(['/', '.', '~']) || folder.contains('\\') || drive)
}

/// Whether `text` starts with the curl program ([`is_curl_program`], quotes around it
/// allowed) followed by more words: a whole pasted command, not a URL. The window's URL field
/// and `retryscope curl`'s one-argument form use it to decide to import.
///
/// ```
/// use retryscope::interop::starts_with_curl_program;
/// assert!(starts_with_curl_program("curl.exe 'http://127.0.0.1:8080/echo' -H 'X: 1'"));
/// assert!(!starts_with_curl_program("http://127.0.0.1:8080/echo"));
/// ```
pub fn starts_with_curl_program(text: &str) -> bool {
    text.trim_start()
        .split_once(char::is_whitespace)
        .is_some_and(|(first, _)| is_curl_program(first.trim_matches(['"', '\''])))
}

/// Like [`parse_curl`], for a command already split into words by a shell (`words[0]` is
/// `curl`, `curl.exe` or a path to either: [`is_curl_program`]), as `retryscope curl` receives it.
///
/// # Errors
/// As [`parse_curl`], except quoting errors (the shell has removed the quotes).
pub fn parse_curl_words(words: &[String]) -> Result<CurlImport, CurlError> {
    let Some(first) = words.first() else {
        return Err(CurlError::NotCurl);
    };
    if !is_curl_program(first) {
        return Err(CurlError::NotCurl);
    }
    let mut parsed = Parsed::default();
    let mut i = 1;
    let mut options_done = false;
    while i < words.len() {
        let word = &words[i];
        if options_done || !word.starts_with('-') || word == "-" {
            // A lone escaped blank is a `\` continuation whose newline became a space (a
            // paste into a one-line field), not a URL.
            if word == "\\" {
                // `curl URL '\'` or a continuation whose line break was lost on the way.
                parsed.notes.push(format!(
                    "a lone `\\` (word {i}) ignored: a line continuation without its line break"
                ));
            } else if word.is_empty() || !word.trim().is_empty() {
                parsed.urls.push((word.clone(), i));
            }
            i += 1;
            continue;
        }
        if word == "--" {
            options_done = true;
            i += 1;
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) if curl_options::long(n).is_some_and(Opt::takes_value) => {
                    (n, Some(v.to_owned()))
                }
                _ => (long, None),
            };
            let shown = format!("--{name}");
            let position = i;
            match curl_options::long(name) {
                Some(opt) => {
                    let value = if opt.takes_value() && inline.is_none() {
                        i += 1;
                        Some(words.get(i).cloned().ok_or(CurlError::MissingValue {
                            option: shown.clone(),
                            position,
                        })?)
                    } else {
                        inline
                    };
                    apply(&mut parsed, opt, &shown, value, position)?;
                }
                None => parsed
                    .notes
                    .push(format!("{shown} (ignored: unknown option)")),
            }
            i += 1;
            continue;
        }
        // Short options, possibly combined (`-sSL`, `-XPOST`, `-sX POST`).
        let letters: Vec<char> = word.chars().skip(1).collect();
        let position = i;
        let mut k = 0;
        while k < letters.len() {
            let c = letters[k];
            let shown = format!("-{c}");
            let Some(opt) = curl_options::short(c) else {
                parsed
                    .notes
                    .push(format!("{shown} (ignored: unknown option)"));
                k += 1;
                continue;
            };
            if opt.takes_value() {
                let rest: String = letters[k + 1..].iter().collect();
                let value = if rest.is_empty() {
                    i += 1;
                    words.get(i).cloned().ok_or(CurlError::MissingValue {
                        option: shown.clone(),
                        position,
                    })?
                } else {
                    rest
                };
                apply(&mut parsed, opt, &shown, Some(value), position)?;
                break;
            }
            apply(&mut parsed, opt, &shown, None, position)?;
            k += 1;
        }
        i += 1;
    }
    build(parsed)
}

/// Applies one option with its value to `p`.
fn apply(
    p: &mut Parsed,
    opt: Opt,
    shown: &str,
    value: Option<String>,
    position: usize,
) -> Result<(), CurlError> {
    let bad = |reason: &str| CurlError::BadValue {
        option: shown.to_owned(),
        position,
        reason: reason.to_owned(),
    };
    let v = value.unwrap_or_default();
    match opt {
        Opt::Request => {
            if !crate::model::is_http_token(&v) {
                return Err(bad("a method is one token such as GET or POST"));
            }
            p.method = Some((v, position));
        }
        Opt::Header => {
            if let Some(row) = header_row(&v, shown, position, &mut p.notes)? {
                p.headers.push(row);
            }
        }
        Opt::Data(_) | Opt::Upload => {
            let (part, file) = match opt {
                Opt::Data(mode) => (data_part(mode, v), "@FILE"),
                // `-T FILE` sends the file as `--data-binary @FILE` does.
                _ => (data_part(DataMode::Binary, format!("@{v}")), "FILE"),
            };
            // curl reads stdin for `@-` (`-T -`).
            if matches!(&part, DataPart::File { path, .. } if path == "-") {
                return Err(bad(&format!(
                    "stdin is not read by `retryscope curl` or an import; save the body to a file and give `{shown} {file}`"
                )));
            }
            p.json |= opt == Opt::Data(DataMode::Json);
            p.upload |= opt == Opt::Upload;
            p.data.push(part);
        }
        Opt::Form { literal } => {
            let Some((name, value)) = v.split_once('=') else {
                return Err(bad("a form part is name=value or name=@file"));
            };
            if !literal && value.starts_with('<') {
                p.notes.push(format!(
                    "{shown} {name}=<FILE (ignored: a text part read from a file is not supported; use {name}=@FILE)"
                ));
            } else {
                if literal && value.starts_with('@') {
                    p.notes.push(format!(
                        "{shown} {name}=@… is literal text in curl; the composer reads a value starting with @ as a file"
                    ));
                }
                p.form.push(KeyValue::new(name, value));
            }
        }
        Opt::User => p.user = Some(v),
        Opt::Bearer => p.bearer = Some(v),
        Opt::Insecure => p.insecure = true,
        Opt::CaCert => p.ca_cert = Some(v),
        Opt::Location => p.location = true,
        Opt::LocationTrusted => {
            p.location = true;
            p.location_trusted = true;
        }
        Opt::MaxRedirs => {
            let n: i64 = v
                .trim()
                .parse()
                .map_err(|_| bad("give a number of redirects, e.g. 10"))?;
            p.max_redirs = Some(if n < 0 {
                p.notes.push(format!(
                    "{shown} {n} (unlimited redirects are capped at {UNLIMITED_REDIRECTS})"
                ));
                UNLIMITED_REDIRECTS
            } else {
                u32::try_from(n).unwrap_or(u32::MAX)
            });
        }
        Opt::Url => p.urls.push((v, position)),
        Opt::UrlQuery => p
            .url_query
            .extend(query_rows(&data_part(DataMode::UrlEncode, v))),
        Opt::Get => p.get = true,
        Opt::Head => p.head = true,
        Opt::UserAgent => p.headers.push(KeyValue::new("User-Agent", v)),
        Opt::Referer => p.headers.push(KeyValue::new("Referer", v)),
        Opt::Cookie => {
            if v.contains('=') {
                p.headers.push(KeyValue::new("Cookie", v));
            } else {
                p.notes
                    .push(format!("{shown} FILE (ignored: cookie files are not read)"));
            }
        }
        Opt::Output => p.output = Some(v),
        Opt::Silent => p.silent = Some(shown.to_owned()),
        Opt::Include => p.include = Some(shown.to_owned()),
        Opt::MaxTime => p.max_time_ms = Some(seconds_to_ms(&v).ok_or_else(|| bad(SECONDS))?),
        Opt::ConnectTimeout => {
            p.connect_ms = Some(seconds_to_ms(&v).ok_or_else(|| bad(SECONDS))?);
        }
        // `--basic` is the default scheme; `-S`: errors are always shown.
        Opt::Basic | Opt::ShowError => {}
        Opt::Next => {
            return Err(CurlError::Next {
                option: shown.to_owned(),
                position,
            });
        }
        Opt::Ignored { reason, .. } => p.notes.push(format!("{shown} (ignored: {reason})")),
    }
    Ok(())
}

const SECONDS: &str = "give seconds greater than 0, e.g. 2.5";

/// `-H` value → a row: `Name: value`, `Name;` (empty value). `Name:` alone removes a header in
/// curl, which the draft cannot express (noted, `None`).
fn header_row(
    raw: &str,
    shown: &str,
    position: usize,
    notes: &mut Vec<String>,
) -> Result<Option<KeyValue>, CurlError> {
    if raw.starts_with('@') {
        notes.push(format!(
            "{shown} @FILE (ignored: header files are not read)"
        ));
        return Ok(None);
    }
    let bad_name = |name: &str| CurlError::BadValue {
        option: shown.to_owned(),
        position,
        reason: format!("`{name}` is not a header name; write 'Name: value'"),
    };
    if let Some((name, value)) = raw.split_once(':') {
        let name = name.trim();
        if !crate::model::is_http_token(name) {
            return Err(bad_name(name));
        }
        let value = value.trim();
        if value.is_empty() {
            notes.push(format!(
                "{shown} '{name}:' (ignored: removing a header curl adds has no equivalent)"
            ));
            return Ok(None);
        }
        return Ok(Some(KeyValue::new(name, value)));
    }
    if let Some(name) = raw.trim().strip_suffix(';')
        && crate::model::is_http_token(name)
    {
        return Ok(Some(KeyValue::new(name, "")));
    }
    Err(CurlError::BadValue {
        option: shown.to_owned(),
        position,
        reason: "a header needs a colon: 'Name: value'".into(),
    })
}

/// curl's `--max-time 2.5` / `--connect-timeout`: decimal seconds → ms, rounded up to whole ms
/// (the one decimal-seconds rule of [`durations::seconds_to_ms`]); `None` for zero, negative or
/// garbage.
pub(crate) fn seconds_to_ms(text: &str) -> Option<u64> {
    durations::seconds_to_ms(text.trim()).filter(|ms| *ms > 0)
}

const FORM_TYPE: &str = "application/x-www-form-urlencoded";
const JSON_TYPE: &str = "application/json";
const TEXT_TYPE: &str = "text/plain; charset=utf-8";
const FILE_TYPE: &str = "application/octet-stream";

/// Turns what the words said into the draft.
fn build(mut p: Parsed) -> Result<CurlImport, CurlError> {
    let mut urls = std::mem::take(&mut p.urls).into_iter();
    let (mut url, url_position) = urls.next().ok_or(CurlError::NoUrl)?;
    if url.trim().is_empty() {
        return Err(CurlError::EmptyUrl {
            position: url_position,
        });
    }
    for (_, position) in urls {
        p.notes.push(format!(
            "another URL (word {position}) (ignored: one request per import)"
        ));
    }
    let lower = url.to_ascii_lowercase();
    if let Some(scheme) = ["http:", "https:"]
        .into_iter()
        .find(|s| lower.starts_with(s) && !lower.starts_with(&format!("{s}//")))
    {
        // `http:/host` or `http:host`: curl reads it as `http://host`.
        let rest = url[scheme.len()..].trim_start_matches('/').to_owned();
        p.notes.push(format!(
            "the URL had `{}` without `//`: read as {scheme}//, as curl does",
            &url[..scheme.len()]
        ));
        url = format!("{}//{rest}", &url[..scheme.len()]);
    } else if !url.contains("://") {
        url = format!("http://{url}");
        p.notes
            .push("the URL had no scheme: http:// assumed, as curl does".into());
    }
    // curl -T completes a URL that names no file (no path, or one ending in `/`) with the
    // local file's name, before any query.
    if let Some(DataPart::File { path, .. }) = p.data.last().filter(|_| p.upload) {
        let after_scheme = url.find("://").map_or(0, |at| at + 3);
        let path_end = url[after_scheme..]
            .find(['?', '#'])
            .map_or(url.len(), |at| after_scheme + at);
        let no_path = !url[after_scheme..path_end].contains('/');
        if no_path || url[..path_end].ends_with('/') {
            let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
            let slash = if no_path { "/" } else { "" };
            url.insert_str(path_end, &format!("{slash}{name}"));
        }
    }
    let mut draft = RequestDraft {
        url,
        ..RequestDraft::default()
    };
    let has_data = !p.data.is_empty() || !p.form.is_empty();
    draft.method = match &p.method {
        Some((m, _)) => standard_method_case(m),
        None if p.head => "HEAD".into(),
        None if p.upload => "PUT".into(),
        None if p.get || !has_data => "GET".into(),
        None => "POST".into(),
    };
    draft.query = std::mem::take(&mut p.url_query);
    if p.get {
        if !p.form.is_empty() {
            p.notes.push(
                "-G with -F (ignored: curl refuses to mix them; the form parts are not sent)"
                    .into(),
            );
        }
        for part in &p.data {
            if matches!(part, DataPart::File { .. }) {
                p.notes
                    .push("-G with @FILE data (ignored: files are not read into the query)".into());
            }
            draft.query.extend(query_rows(part));
        }
    } else if !p.form.is_empty() {
        if !p.data.is_empty() {
            p.notes.push(
                "-d data together with -F (ignored: curl refuses to mix them; the multipart form is sent)"
                    .into(),
            );
        }
        draft.body.kind = BodyKind::Multipart;
        draft.body.multipart = std::mem::take(&mut p.form);
        // The engine writes multipart/form-data with its own boundary.
        p.headers.retain(|h| {
            !(h.name.eq_ignore_ascii_case("content-type")
                && h.value
                    .trim_start()
                    .to_ascii_lowercase()
                    .starts_with("multipart/form-data"))
        });
    } else if has_data {
        body_of(&mut p, &mut draft);
    }
    // One Idempotency-Key row becomes the composer's toggle (the same key on every attempt).
    let keys: Vec<usize> = p
        .headers
        .iter()
        .enumerate()
        .filter(|(_, h)| h.name.eq_ignore_ascii_case("idempotency-key") && !h.value.is_empty())
        .map(|(i, _)| i)
        .collect();
    if let [only] = keys[..] {
        let row = p.headers.remove(only);
        draft.idempotency_enabled = true;
        draft.idempotency_key = row.value;
    }
    if p.headers
        .iter()
        .any(|h| h.name.eq_ignore_ascii_case("accept-encoding"))
    {
        p.notes.push(
            "Accept-Encoding kept: compressed answers are shown as received, not decompressed"
                .into(),
        );
    }
    draft.headers = p.headers;
    // curl sends a custom `-H 'Authorization: …'` instead of the header -u or --oauth2-bearer
    // would make: the same here, said in a note.
    let authorization_given = draft
        .headers
        .iter()
        .any(|h| h.enabled && h.name.eq_ignore_ascii_case("authorization"));
    if authorization_given {
        for (flag, given) in [
            ("-u", p.user.take().is_some()),
            ("--oauth2-bearer", p.bearer.take().is_some()),
        ] {
            if given {
                p.notes.push(format!(
                    "{flag} and -H 'Authorization: …' both given: the -H header is sent, as curl does ({flag} is ignored)"
                ));
            }
        }
    }
    if let Some(token) = p.bearer {
        draft.auth.kind = AuthKind::Bearer;
        draft.auth.bearer_token = token;
    }
    if let Some(user) = p.user {
        if draft.auth.kind == AuthKind::Bearer {
            p.notes
                .push("--oauth2-bearer and -u both given: Basic auth from -u is used".into());
        }
        let (name, password) = if let Some((n, pw)) = user.split_once(':') {
            (n.to_owned(), pw.to_owned())
        } else {
            p.notes
                .push("-u without a password (curl would prompt): the password is empty".into());
            (user, String::new())
        };
        draft.auth.kind = AuthKind::Basic;
        draft.auth.basic_user = name;
        draft.auth.basic_password = password;
    }
    draft.verify_tls = !p.insecure;
    if let Some(path) = p.ca_cert {
        // curl trusts only this file; Retryscope trusts it besides the system's roots.
        draft.ca_cert = path;
    }
    draft.follow_redirects = p.location;
    draft.location_trusted = p.location_trusted;
    if let Some(n) = p.max_redirs {
        draft.max_redirects = n;
    }
    draft.timeouts.total_ms = p.max_time_ms;
    draft.timeouts.connect_ms = p.connect_ms;
    // (`-u user:***` is found in the Basic credentials it becomes.)
    for place in crate::model::secrets::masked_places(&draft.spec_as_written()) {
        p.notes.push(format!(
            "{place} is `***`: the secret was masked when this command was copied; type the real value before sending"
        ));
    }
    Ok(CurlImport {
        draft,
        unsupported: p.notes,
        output: p.output,
        silent: p.silent,
        include: p.include,
    })
}

/// The body from the data parts (not `-G`), taking the Content-Type header into the body where
/// the draft has a place for it.
fn body_of(p: &mut Parsed, draft: &mut RequestDraft) {
    let content_type = p
        .headers
        .iter()
        .rev()
        .find(|h| h.name.eq_ignore_ascii_case("content-type"))
        .map(|h| h.value.clone());
    let ct_is = |want: &str| {
        content_type
            .as_deref()
            .is_some_and(|c| c.trim().eq_ignore_ascii_case(want))
    };
    let mut take_content_type = true;
    let files: Vec<(String, bool)> = p
        .data
        .iter()
        .filter_map(|d| match d {
            DataPart::File { path, lossy } => Some((path.clone(), *lossy)),
            _ => None,
        })
        .collect();
    if p.json
        && !p
            .headers
            .iter()
            .any(|h| h.name.eq_ignore_ascii_case("accept"))
    {
        p.headers.push(KeyValue::new("Accept", JSON_TYPE));
    }
    let default_type = match (p.json, p.upload) {
        (true, _) => JSON_TYPE,
        (false, true) => FILE_TYPE,
        (false, false) => FORM_TYPE,
    };
    let body = &mut draft.body;
    if let ([(path, lossy)], 1) = (&files[..], p.data.len()) {
        if *lossy {
            p.notes.push(
                "-d @FILE sends the file as is (curl strips its newlines; --data-binary matches)"
                    .into(),
            );
        }
        body.kind = BodyKind::File;
        body.file_path.clone_from(path);
        let ct = content_type.unwrap_or_else(|| default_type.to_owned());
        body.content_type = if ct.trim().eq_ignore_ascii_case(FILE_TYPE) {
            String::new()
        } else {
            ct
        };
    } else {
        if !files.is_empty() {
            p.notes.push(
                "@FILE data combined with other data (ignored: only the text parts are sent)"
                    .into(),
            );
        }
        let parts: Vec<&DataPart> = p
            .data
            .iter()
            .filter(|d| !matches!(d, DataPart::File { .. }))
            .collect();
        let all_named = parts
            .iter()
            .all(|d| matches!(d, DataPart::Encoded { name: Some(_), .. }));
        let separator = if p.json { "" } else { "&" };
        let text: Vec<String> = parts.iter().map(|d| d.wire_text()).collect();
        let text = text.join(separator);
        let json_like = content_type
            .as_deref()
            .map(str::to_ascii_lowercase)
            .is_some_and(|c| c.contains("json"));
        if all_named && !p.json && (content_type.is_none() || ct_is(FORM_TYPE)) {
            body.kind = BodyKind::Form;
            body.form = parts.iter().flat_map(|d| query_rows(d)).collect();
        } else if (p.json && (content_type.is_none() || ct_is(JSON_TYPE))) || json_like {
            body.kind = BodyKind::Json;
            body.json = text;
            // Json sends application/json itself; any other JSON type stays a header row.
            take_content_type = content_type.is_none() || ct_is(JSON_TYPE);
        } else {
            body.kind = BodyKind::Text;
            body.text = text;
            let ct = content_type.unwrap_or_else(|| default_type.to_owned());
            body.content_type = if ct.trim().eq_ignore_ascii_case(TEXT_TYPE) {
                String::new()
            } else {
                ct
            };
        }
    }
    if take_content_type {
        p.headers
            .retain(|h| !h.name.eq_ignore_ascii_case("content-type"));
    }
}

#[cfg(test)]
#[path = "curl_tests.rs"]
mod tests;
