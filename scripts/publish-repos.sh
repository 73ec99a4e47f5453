#!/usr/bin/env bash
# Adds packages to Nerve's signed apt and dnf repositories and signs them again:
#
#   NERVE_SIGNING_KEY=KEY scripts/publish-repos.sh PACKAGE.deb|PACKAGE.rpm...
#
# NERVE_SIGNING_KEY is a gpg key id or fingerprint whose secret key is in GNUPGHOME (or
# ~/.gnupg). The repositories live in NERVE_REPO_DIR (default $CARGO_TARGET_DIR/release/repo/):
#
#   apt/   dists/stable/{InRelease,Release,Release.gpg}, dists/stable/main/binary-ARCH/Packages[.gz],
#          pool/main/*.deb, nerve-archive-keyring.gpg (the public key, for `signed-by=`)
#   rpm/   packages/*.rpm (each signed with rpmsign), repodata/ (createrepo_c) with repomd.xml.asc,
#          RPM-GPG-KEY-nerve (the public key), nerve.repo (for /etc/yum.repos.d/)
#
# The folder is what the maintainer publishes, as it is, at NERVE_REPO_URL (default
# https://nerve.example, the README's placeholder; nerve.repo names it). Packages already there
# stay: publishing 0.1.1 keeps 0.1.0 installable, and an upgrade finds the newer one. A package
# whose file is already published with other contents is refused: users' caches and mirrors hold
# the first one, so a rebuild needs a new version (NERVE_VERSION in scripts/package.sh).
# scripts/package.sh calls this after building; scripts/test-install.sh checks the result with apt
# and dnf.
set -euo pipefail

fail() { echo "publish-repos.sh: $*" >&2; exit 1; }

# Paths as the caller gave them, made absolute before the script moves to the checkout.
[ "$#" -gt 0 ] || fail "no packages given (usage: NERVE_SIGNING_KEY=KEY scripts/publish-repos.sh PACKAGE.deb|PACKAGE.rpm...)"
[ -n "${NERVE_SIGNING_KEY:-}" ] || fail "NERVE_SIGNING_KEY is not set: give the gpg key id or fingerprint to sign the repositories with"
debs=()
rpms=()
for f in "$@"; do
  [ -f "$f" ] || fail "$f: no such package file"
  case "$f" in
    *.deb) debs+=("$(realpath "$f")") ;;
    *.rpm) rpms+=("$(realpath "$f")") ;;
    *) fail "$f: neither a .deb nor an .rpm" ;;
  esac
done
[ -z "${NERVE_REPO_DIR:-}" ] || NERVE_REPO_DIR="$(realpath -m "$NERVE_REPO_DIR")"
cd "$(dirname "$0")/.."
. scripts/env.sh

# apt-ftparchive (apt-utils) writes the apt indexes, createrepo_c the dnf ones, rpmsign (rpm)
# signs the rpms; gpg signs the indexes.
ensure_apt_packages gnupg apt-utils createrepo-c rpm

# The signing key, by its fingerprint: a short id or a name could also match another key.
key_lines="$(gpg --batch --with-colons --list-secret-keys -- "$NERVE_SIGNING_KEY" 2>/dev/null)" ||
  fail "no secret key '$NERVE_SIGNING_KEY' in ${GNUPGHOME:-$HOME/.gnupg} (gpg --list-secret-keys shows them)"
[ "$(echo "$key_lines" | grep -c '^sec:')" -eq 1 ] ||
  fail "NERVE_SIGNING_KEY='$NERVE_SIGNING_KEY' matches several secret keys: give the fingerprint"
fpr="$(echo "$key_lines" | awk -F: '/^fpr:/ { print $10; exit }')"
sign() { gpg --batch --yes --quiet --local-user "$fpr" --digest-algo SHA512 "$@"; }

repo="${NERVE_REPO_DIR:-$CARGO_TARGET_DIR/release/repo}"
url="${NERVE_REPO_URL:-https://nerve.example}"
url="${url%/}"
mkdir -p "$repo"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# What identifies a package's contents: a deb's bytes; an rpm's header digest, which rpmsign
# leaves as it was (it adds the signature beside it).
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
rpm_identity() { rpm -qp --nosignature --qf '%{SHA256HEADER}' "$1" 2>/dev/null; }

# Copies a package into the repository unless the same package is there already.
# $1: the package, $2: where it goes, $3: the command printing what identifies its contents.
add_package() {
  local src="$1" dest="$2" identity="$3" new old
  new="$("$identity" "$src")"
  [ -n "$new" ] && [ "$new" != "(none)" ] || fail "$(basename "$src"): cannot read what identifies its contents ($identity)"
  if [ -e "$dest" ]; then
    old="$("$identity" "$dest")"
    if [ "$old" = "$new" ]; then
      echo "already published: ${dest#"$repo"/}"
      return
    fi
    fail "${dest#"$repo"/} is already published with other contents: publish this build under a new version (NERVE_VERSION=... scripts/package.sh), or remove the file from $repo if it never left this machine"
  fi
  cp "$src" "$dest.tmp"
  mv "$dest.tmp" "$dest"
  echo "added: ${dest#"$repo"/}"
}

# --- apt ---------------------------------------------------------------------------------------
build_apt() {
  local dir="$repo/apt" archs=() arch deb
  mkdir -p "$dir/pool/main"
  for deb in "${debs[@]}"; do
    add_package "$deb" "$dir/pool/main/$(basename "$deb")" sha256_of
  done
  mapfile -t archs < <(for deb in "$dir"/pool/main/*.deb; do dpkg-deb --field "$deb" Architecture; done | grep -vx all | sort -u)
  [ "${#archs[@]}" -gt 0 ] || archs=("$(dpkg --print-architecture)")
  # The old indexes and signatures go first: `apt-ftparchive release` lists every file it finds.
  rm -rf "$dir/dists"
  for arch in "${archs[@]}"; do
    mkdir -p "$dir/dists/stable/main/binary-$arch"
    (cd "$dir" && apt-ftparchive --arch "$arch" packages pool/main) >"$dir/dists/stable/main/binary-$arch/Packages"
    gzip -9nk "$dir/dists/stable/main/binary-$arch/Packages"
  done
  apt-ftparchive \
    -o APT::FTPArchive::Release::Origin=Nerve \
    -o APT::FTPArchive::Release::Label=Nerve \
    -o APT::FTPArchive::Release::Suite=stable \
    -o APT::FTPArchive::Release::Codename=stable \
    -o "APT::FTPArchive::Release::Architectures=${archs[*]}" \
    -o APT::FTPArchive::Release::Components=main \
    -o "APT::FTPArchive::Release::Description=Nerve, a coding agent for the desktop" \
    release "$dir/dists/stable" >"$dir/Release.tmp"
  mv "$dir/Release.tmp" "$dir/dists/stable/Release"
  # InRelease for today's apt, Release.gpg for older clients.
  sign --clearsign --output "$dir/dists/stable/InRelease" "$dir/dists/stable/Release"
  sign --armor --detach-sign --output "$dir/dists/stable/Release.gpg" "$dir/dists/stable/Release"
  # A binary keyring: what `signed-by=` in a sources entry reads.
  gpg --batch --yes --export --output "$dir/nerve-archive-keyring.gpg" "$fpr"
  echo "apt repository: $dir (stable main, ${archs[*]}; $(ls "$dir"/pool/main/*.deb | wc -l) packages)"
}

# --- dnf ---------------------------------------------------------------------------------------
build_rpm() {
  local dir="$repo/rpm" rpm signed
  mkdir -p "$dir/packages"
  for rpm in "${rpms[@]}"; do
    # Signed in a copy: the built package stays as it was built.
    signed="$work/$(basename "$rpm")"
    cp "$rpm" "$signed"
    # __gpg: Debian's rpm looks for /usr/bin/gpg2, which Debian no longer has.
    rpmsign --define "__gpg $(command -v gpg)" --define "_gpg_name $fpr" --define "_gpg_digest_algo sha512" \
      --addsign "$signed" >"$work/rpmsign.log" 2>&1 ||
      { cat "$work/rpmsign.log" >&2; fail "rpmsign could not sign $(basename "$rpm") with $fpr"; }
    add_package "$signed" "$dir/packages/$(basename "$rpm")" rpm_identity
  done
  # createrepo_c --update reads the previous metadata and only looks again at new packages.
  createrepo_c --quiet --update "$dir" >/dev/null
  sign --armor --detach-sign --output "$dir/repodata/repomd.xml.asc" "$dir/repodata/repomd.xml"
  gpg --batch --yes --armor --export --output "$dir/RPM-GPG-KEY-nerve" "$fpr"
  # gpgcheck: each package's signature; repo_gpgcheck: the metadata's (repomd.xml.asc).
  cat >"$dir/nerve.repo" <<EOF
[nerve]
name=Nerve
baseurl=$url/rpm
enabled=1
gpgcheck=1
repo_gpgcheck=1
gpgkey=$url/rpm/RPM-GPG-KEY-nerve
EOF
  echo "dnf repository: $dir ($(ls "$dir"/packages/*.rpm | wc -l) packages; nerve.repo points at $url/rpm)"
}

if [ "${#debs[@]}" -gt 0 ]; then build_apt; fi
if [ "${#rpms[@]}" -gt 0 ]; then build_rpm; fi
echo "signed with $fpr; publish $repo at $url"
