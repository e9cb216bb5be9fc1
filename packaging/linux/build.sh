#!/usr/bin/env bash
# Builds Retryscope's Linux packages from a checkout:
#   target/debian/retryscope_VERSION-1_ARCH.deb     (cargo-deb)
#   target/packaging/retryscope-VERSION-ARCH-linux.tar.gz
# Needs cargo-deb (`cargo install cargo-deb --version 3.8.0 --locked`). The man pages and the
# shell completions come from the clap definition through `examples/packaging_files.rs`, which
# a previous `cargo test` has already built (CI); otherwise cargo builds it now (debug).
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}

version=$(cargo metadata --no-deps --format-version 1 \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["packages"][0]["version"])')
arch=$(uname -m)

echo "-- man pages and completions (target/packaging)"
rm -rf target/packaging/man target/packaging/completions
cargo run --quiet --example packaging_files -- target/packaging >/dev/null

echo "-- .deb (cargo deb: release build with the profile in Cargo.toml)"
cargo deb --locked

echo "-- tarball"
stage="target/packaging/retryscope-${version}-${arch}-linux"
rm -rf "$stage"
install -Dm755 target/release/retryscope "$stage/bin/retryscope"
install -Dm644 packaging/linux/retryscope.desktop "$stage/share/applications/retryscope.desktop"
install -Dm644 assets/icons/retryscope.svg "$stage/share/icons/hicolor/scalable/apps/retryscope.svg"
for size in 48 128 256; do
  install -Dm644 "assets/icons/retryscope-${size}.png" \
    "$stage/share/icons/hicolor/${size}x${size}/apps/retryscope.png"
done
install -d "$stage/share/man/man1" "$stage/share/retryscope/profiles"
for page in target/packaging/man/*.1; do
  gzip -9n -c "$page" >"$stage/share/man/man1/$(basename "$page").gz"
done
install -m644 assets/profiles/*.json "$stage/share/retryscope/profiles/"
install -m644 assets/retry-profile.schema.json "$stage/share/retryscope/"
install -Dm644 target/packaging/completions/retryscope.bash \
  "$stage/share/bash-completion/completions/retryscope"
install -Dm644 target/packaging/completions/_retryscope "$stage/share/zsh/site-functions/_retryscope"
install -Dm644 target/packaging/completions/retryscope.fish \
  "$stage/share/fish/vendor_completions.d/retryscope.fish"
install -Dm644 README.md "$stage/share/doc/retryscope/README.md"
install -m644 LICENSE-MIT LICENSE-APACHE "$stage/share/doc/retryscope/"
install -m644 packaging/README.md "$stage/INSTALL.md"
tar -C target/packaging -czf "${stage}.tar.gz" "$(basename "$stage")"
ls -l target/debian/*.deb "${stage}.tar.gz"
