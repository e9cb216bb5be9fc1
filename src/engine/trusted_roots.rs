//! Extra trusted root certificates of a request ([`RequestSpec::ca_cert`], curl's `--cacert`):
//! a private CA's certificate file, read once before attempt 1 and checked certificate by
//! certificate, so a bad file is refused before any connection, in words that name it.
//!
//! [`RequestSpec::ca_cert`]: crate::model::RequestSpec::ca_cert

use super::spec_error::SpecError;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

/// Largest CA certificate file read, bytes (1 MiB; a bundle of every public root is ~250 KiB).
pub const MAX_CA_FILE_BYTES: u64 = crate::store::input_file::CA_FILE.max_bytes;

/// The certificates of the file at `path`: every PEM `CERTIFICATE` block (other blocks, such
/// as a private key, are skipped), or the file as one DER certificate when it holds no PEM.
/// Each must be usable as a trust anchor.
///
/// # Errors
/// [`SpecError::CaCert`] naming the path: unreadable, not a regular file, larger than
/// [`MAX_CA_FILE_BYTES`], no certificate in it, a block that is not valid PEM, or a
/// certificate that does not parse.
pub fn read_trusted_roots(path: &str) -> Result<Vec<CertificateDer<'static>>, SpecError> {
    let fail = |reason: String| SpecError::CaCert {
        path: path.to_owned(),
        reason,
    };
    let bytes = crate::store::input_file::read_input_file(
        std::path::Path::new(path),
        crate::store::input_file::CA_FILE,
    )
    .map_err(|e| fail(e.to_string()))?;
    parse_trusted_roots(&bytes).map_err(fail)
}

/// The certificates of `bytes` (see [`read_trusted_roots`]); the error is the reason alone.
fn parse_trusted_roots(bytes: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    let mut certs = Vec::new();
    for (i, item) in CertificateDer::pem_slice_iter(bytes).enumerate() {
        let cert = item.map_err(|e| {
            format!(
                "certificate {} is not valid PEM ({})",
                i + 1,
                e.to_string().to_lowercase()
            )
        })?;
        certs.push(cert);
    }
    if certs.is_empty() {
        // DER starts with a SEQUENCE tag; anything else is neither form.
        if bytes.first() != Some(&0x30) {
            return Err(
                "it holds no certificate (expected PEM blocks starting with -----BEGIN CERTIFICATE-----)"
                    .into(),
            );
        }
        certs.push(CertificateDer::from(bytes.to_vec()));
    }
    let mut store = rustls::RootCertStore::empty();
    for (i, cert) in certs.iter().enumerate() {
        store.add(cert.clone()).map_err(|e| {
            format!(
                "certificate {} is not a usable X.509 certificate ({})",
                i + 1,
                e.to_string().to_lowercase()
            )
        })?;
    }
    Ok(certs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_without_a_certificate_is_refused_in_words() {
        let e = parse_trusted_roots(b"hello\n").expect_err("no certificate");
        assert!(e.starts_with("it holds no certificate"), "{e}");
        let key_only = b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
        let e = parse_trusted_roots(key_only).expect_err("a key is no certificate");
        assert!(e.starts_with("it holds no certificate"), "{e}");
    }

    #[test]
    fn a_block_that_is_not_a_certificate_names_its_number() {
        let bad = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        let e = parse_trusted_roots(bad).expect_err("garbage inside the block");
        assert!(e.starts_with("certificate 1 is not a usable"), "{e}");
        let cut = b"-----BEGIN CERTIFICATE-----\nAAAA\n";
        let e = parse_trusted_roots(cut).expect_err("no end line");
        assert!(e.starts_with("certificate 1 is not valid PEM"), "{e}");
    }

    #[test]
    fn a_missing_file_names_the_path() {
        let e = read_trusted_roots("/nonexistent/ca.pem").expect_err("missing");
        let text = e.to_string();
        assert!(
            text.starts_with("cannot use the CA certificate file in ca_cert: ")
                && text.ends_with(": /nonexistent/ca.pem"),
            "{text}"
        );
    }
}
