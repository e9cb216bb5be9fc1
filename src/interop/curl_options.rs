//! The curl options the importer knows: the ones it maps onto the draft, the ones it accepts
//! and ignores (output and progress flags), and the ones it cannot honour, with whether each
//! takes a value (so its value is never mistaken for the URL).

/// How `-d`-like options treat their value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataMode {
    /// `-d`, `--data`, `--data-ascii`: `@file` reads a file; the text is sent as is.
    Ascii,
    /// `--data-raw`: sent as is, `@` has no meaning.
    Raw,
    /// `--data-binary`: like `-d`, the file is sent byte for byte.
    Binary,
    /// `--data-urlencode`: `name=content`, `=content`, `content`, `@file`, `name@file`.
    UrlEncode,
    /// `--json`: like `--data-binary`, plus JSON Content-Type and Accept headers.
    Json,
}

/// A recognised option (its flags are in [`KNOWN`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    Request,
    Header,
    /// A body option.
    Data(DataMode),
    User,
    Bearer,
    Insecure,
    /// `--cacert FILE`: extra trusted root certificates.
    CaCert,
    Location,
    /// `--location-trusted`: follow, and keep secret headers on another origin.
    LocationTrusted,
    MaxRedirs,
    Url,
    UrlQuery,
    Get,
    Head,
    UserAgent,
    Referer,
    Cookie,
    /// `-o`, `--output`: where curl writes the response body.
    Output,
    /// `-s`, `--silent`: no progress meter (`retryscope curl`: no attempt or wait lines).
    Silent,
    /// `-S`, `--show-error`: show errors even with `-s`. Retryscope always shows them: accepted
    /// and nothing to do (not listed as ignored, since nothing is lost).
    ShowError,
    /// `-i`, `--include`, `--show-headers`: the response headers before the body
    /// (`retryscope curl`: as `run -i`).
    Include,
    MaxTime,
    ConnectTimeout,
    /// `--basic`: the default auth scheme, nothing to do.
    Basic,
    /// `-:`, `--next`: a second request.
    Next,
    /// `-F`, `--form` (`literal: false`) and `--form-string` (`literal: true`: no `@`/`<`
    /// meaning): one multipart part `name=value`.
    Form {
        literal: bool,
    },
    /// `-T`, `--upload-file FILE`: the file is the body of a PUT (unless `-X` says otherwise).
    Upload,
    /// Accepted and ignored; `reason` is shown.
    Ignored {
        /// Whether the option takes a value.
        value: bool,
        /// Why it is ignored, e.g. `output option`.
        reason: &'static str,
    },
}

impl Opt {
    /// Whether the option consumes a value.
    pub fn takes_value(self) -> bool {
        match self {
            Opt::Ignored { value, .. } => value,
            known => KNOWN.iter().any(|k| k.0 == known && k.1),
        }
    }
}

/// The options the importer maps, as data: (option, whether it takes a value, the
/// single-letter flags, the long names separated by spaces).
#[rustfmt::skip]
const KNOWN: &[(Opt, bool, &str, &str)] = &[
    (Opt::Request, true, "X", "request"),
    (Opt::Header, true, "H", "header"),
    (Opt::Data(DataMode::Ascii), true, "d", "data data-ascii"),
    (Opt::Data(DataMode::Raw), true, "", "data-raw"),
    (Opt::Data(DataMode::Binary), true, "", "data-binary"),
    (Opt::Data(DataMode::UrlEncode), true, "", "data-urlencode"),
    (Opt::Data(DataMode::Json), true, "", "json"),
    (Opt::User, true, "u", "user"),
    (Opt::Bearer, true, "", "oauth2-bearer"),
    (Opt::Insecure, false, "k", "insecure"),
    (Opt::CaCert, true, "", "cacert"),
    (Opt::Location, false, "L", "location"),
    (Opt::LocationTrusted, false, "", "location-trusted"),
    (Opt::MaxRedirs, true, "", "max-redirs"),
    (Opt::Url, true, "", "url"),
    (Opt::UrlQuery, true, "", "url-query"),
    (Opt::Get, false, "G", "get"),
    (Opt::Head, false, "I", "head no-body"),
    (Opt::UserAgent, true, "A", "user-agent"),
    (Opt::Referer, true, "e", "referer"),
    (Opt::Cookie, true, "b", "cookie"),
    (Opt::MaxTime, true, "m", "max-time"),
    (Opt::ConnectTimeout, true, "", "connect-timeout"),
    (Opt::Basic, false, "", "basic"),
    (Opt::Next, false, ":", "next"),
    (Opt::Silent, false, "s", "silent"),
    (Opt::ShowError, false, "S", "show-error"),
    (Opt::Include, false, "i", "include show-headers"),
    (Opt::Output, true, "o", "output"),
    (Opt::Form { literal: false }, true, "F", "form"),
    (Opt::Form { literal: true }, true, "", "form-string"),
    (Opt::Upload, true, "T", "upload-file"),
];

const OUTPUT: &str = "output option";
const UNSUPPORTED: &str = "not supported";
const RETRIES: &str = "retries come from the profile";
const COMPRESSED: &str = "Retryscope asks for uncompressed answers";
const HTTP_VERSION: &str = "the HTTP version is negotiated";
const GLOBBED: &str = "URLs are never globbed";

/// The options accepted and ignored, as data: (reason, whether it takes a value, the
/// single-letter flags, the long names separated by spaces).
const IGNORED: &[(&str, bool, &str, &str)] = &[
    (COMPRESSED, false, "", "compressed"),
    (
        OUTPUT,
        false,
        "v#fNqOJRl",
        "verbose progress-bar no-progress-meter fail fail-with-body fail-early no-buffer \
        remote-name remote-header-name remote-time list-only styled-output no-styled-output \
        create-dirs remote-name-all",
    ),
    (
        OUTPUT,
        true,
        "wDc",
        "write-out dump-header cookie-jar stderr trace trace-ascii output-dir etag-save libcurl \
        trace-config",
    ),
    (RETRIES, true, "", "retry retry-delay retry-max-time"),
    (RETRIES, false, "", "retry-connrefused retry-all-errors"),
    (
        HTTP_VERSION,
        false,
        "0",
        "http1.0 http1.1 http2 http2-prior-knowledge http3 http3-only http0.9",
    ),
    (GLOBBED, false, "g", "globoff"),
    (
        UNSUPPORTED,
        false,
        "46123BjnpaMVhZ",
        "path-as-is tcp-nodelay tcp-fastopen no-keepalive no-sessionid no-alpn no-npn digest \
        ntlm ntlm-wb negotiate anyauth ipv4 ipv6 proxytunnel proxy-insecure proxy-basic \
        proxy-digest proxy-ntlm proxy-negotiate proxy-anyauth ssl ssl-reqd sslv2 sslv3 tlsv1 \
        tlsv1.0 tlsv1.1 tlsv1.2 tlsv1.3 ssl-no-revoke ssl-revoke-best-effort ssl-allow-beast \
        cert-status false-start disable disable-eprt disable-epsv netrc netrc-optional raw \
        tr-encoding post301 post302 post303 junk-session-cookies append crlf use-ascii \
        doh-insecure parallel parallel-immediate mptcp xattr ca-native proxy-ca-native \
        suppress-connect-headers haproxy-protocol socks5-gssapi socks5-basic no-clobber \
        remove-on-error ignore-content-length sasl-ir manual help version",
    ),
    (
        UNSUPPORTED,
        true,
        "CEKPQrtUxyYz",
        "proxy proxy-user proxy-header preproxy noproxy socks4 socks4a socks5 socks5-hostname \
        resolve connect-to capath cert cert-type key key-type pass ciphers tls13-ciphers \
        curves pinnedpubkey crlfile interface local-port limit-rate max-filesize speed-limit \
        speed-time range continue-at config time-cond request-target unix-socket \
        abstract-unix-socket dns-servers dns-interface dns-ipv4-addr dns-ipv6-addr doh-url \
        aws-sigv4 alt-svc hsts expect100-timeout happy-eyeballs-timeout-ms keepalive-time rate \
        parallel-max netrc-file proto proto-default proto-redir delegation engine egd-file \
        random-file etag-compare proxy-cacert proxy-capath proxy-cert proxy-cert-type \
        proxy-key proxy-key-type proxy-pass proxy-ciphers proxy-tls13-ciphers proxy-crlfile \
        proxy-pinnedpubkey proxy-service-name service-name proxy-tlsauthtype proxy-tlspassword \
        proxy-tlsuser tlsauthtype tlspassword tlsuser tls-max login-options sasl-authzid \
        mail-auth mail-from mail-rcpt ftp-account ftp-method ftp-port quote telnet-option \
        tftp-blksize krb pubkey hostpubmd5 hostpubsha256 create-file-mode ip-tos vlan-priority \
        variable expand-url ech ipfs-gateway haproxy-clientip socks5-gssapi-service \
        ftp-alternative-to-user ftp-ssl-ccc-mode",
    ),
];

/// The option for single-letter flag `c` or long name `name`: a mapped one ([`KNOWN`]), else
/// an ignored one ([`IGNORED`]).
fn find(c: Option<char>, name: &str) -> Option<Opt> {
    let named = |short: &str, long: &str| match c {
        Some(c) => short.contains(c),
        None => long.split_whitespace().any(|n| n == name),
    };
    KNOWN
        .iter()
        .find(|k| named(k.2, k.3))
        .map(|k| k.0)
        .or_else(|| {
            IGNORED
                .iter()
                .find(|i| named(i.2, i.3))
                .map(|&(reason, value, ..)| Opt::Ignored { value, reason })
        })
}

/// The option for a single-letter flag (`X` of `-X`).
pub fn short(c: char) -> Option<Opt> {
    find(Some(c), "")
}

/// The option for a long name (without the leading `--`).
pub fn long(name: &str) -> Option<Opt> {
    find(None, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_options_are_read_from_the_table_with_their_value_and_reason() {
        let ignored = |value, reason| Some(Opt::Ignored { value, reason });
        assert_eq!(short('v'), ignored(false, OUTPUT));
        assert_eq!(short('w'), ignored(true, OUTPUT));
        assert_eq!(short('x'), ignored(true, UNSUPPORTED));
        assert_eq!(short('Z'), ignored(false, UNSUPPORTED));
        assert_eq!(short('o'), Some(Opt::Output));
        assert_eq!(long("retry"), ignored(true, RETRIES));
        assert_eq!(long("retry-all-errors"), ignored(false, RETRIES));
        assert_eq!(long("http2"), ignored(false, HTTP_VERSION));
        assert_eq!(long("globoff"), ignored(false, GLOBBED));
        assert_eq!(long("ftp-ssl-ccc-mode"), ignored(true, UNSUPPORTED));
        assert_eq!(long("version"), ignored(false, UNSUPPORTED));
        assert_eq!(long("proxy"), ignored(true, UNSUPPORTED));
        // A part of a name is not the name.
        assert_eq!(long("prox"), None);
        assert_eq!(short('W'), None);
    }
}
