# What the tests of the package repositories share (sourced after scripts/env.sh, as root):
# scripts/test-install.sh runs them on the real packages, scripts/test-repos.sh on small packages it
# makes on the spot. A throwaway signing key, the repositories served over HTTP on localhost as a
# maintainer would publish them, apt pointed at them as a user would point it (the key in
# /usr/share/keyrings, `signed-by=`, never `trusted=yes`), and the checks of the dnf repository.
#
# repo_test_start exports NERVE_SIGNING_KEY, GNUPGHOME, NERVE_REPO_DIR and NERVE_REPO_URL for
# scripts/publish-repos.sh (and scripts/package.sh, which passes them on); repo_test_cleanup
# undoes everything, and belongs in the caller's EXIT trap.

REPO_TEST_DIR=""
REPO_TEST_SERVER_PID=""
REPO_TEST_PORT=""
REPO_TEST_KEYRING=/usr/share/keyrings/nerve-test-archive-keyring.gpg
REPO_TEST_SOURCE=/etc/apt/sources.list.d/nerve-test.list
REPO_TEST_OTHER_KEYRING=/usr/share/keyrings/nerve-test-other-keyring.gpg
REPO_TEST_OTHER_SOURCE=/etc/apt/sources.list.d/nerve-test-other.list

repo_test_fail() { echo "repository test: $*" >&2; exit 1; }

# A new key pair in a new GNUPGHOME ($1), without a passphrase; prints its fingerprint.
repo_test_new_key() {
  mkdir -p "$1"
  chmod 700 "$1"
  GNUPGHOME="$1" gpg --batch --quiet --passphrase '' \
    --quick-gen-key "Nerve test archive <test@nerve.invalid>" rsa3072 sign never 2>/dev/null ||
    repo_test_fail "gpg could not make a test key in $1"
  GNUPGHOME="$1" gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '/^fpr:/ { print $10; exit }'
}

# A second key, which signed nothing: apt and dnf must refuse the repositories under it.
REPO_TEST_OTHER_FPR=""
repo_test_other_key() {
  if [ -z "$REPO_TEST_OTHER_FPR" ]; then
    REPO_TEST_OTHER_FPR="$(repo_test_new_key "$REPO_TEST_DIR/other-gnupg")"
  fi
}

# The key, an empty repository folder and the HTTP server in front of it.
repo_test_start() {
  ensure_apt_packages gnupg python3 apt-utils createrepo-c rpm dnf
  REPO_TEST_DIR="$(mktemp -d)"
  export GNUPGHOME="$REPO_TEST_DIR/gnupg"
  NERVE_SIGNING_KEY="$(repo_test_new_key "$GNUPGHOME")"
  export NERVE_SIGNING_KEY
  export NERVE_REPO_DIR="$REPO_TEST_DIR/repo"
  mkdir -p "$NERVE_REPO_DIR"
  REPO_TEST_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  python3 -m http.server --bind 127.0.0.1 --directory "$NERVE_REPO_DIR" "$REPO_TEST_PORT" \
    >"$REPO_TEST_DIR/http.log" 2>&1 &
  REPO_TEST_SERVER_PID=$!
  export NERVE_REPO_URL="http://127.0.0.1:$REPO_TEST_PORT"
  local i
  for i in $(seq 50); do
    python3 -c "import urllib.request; urllib.request.urlopen('$NERVE_REPO_URL/')" 2>/dev/null && break
    kill -0 "$REPO_TEST_SERVER_PID" 2>/dev/null || repo_test_fail "the HTTP server stopped: $(cat "$REPO_TEST_DIR/http.log")"
    [ "$i" -lt 50 ] || repo_test_fail "the HTTP server on port $REPO_TEST_PORT did not answer within 10 s"
    sleep 0.2
  done
  echo "test key $NERVE_SIGNING_KEY; repositories in $NERVE_REPO_DIR, served at $NERVE_REPO_URL"
}

# apt's lists for our server: gone with the source, so no later `apt-get update` trips on them.
repo_test_forget_lists() {
  [ -n "$REPO_TEST_PORT" ] || return 0
  rm -f /var/lib/apt/lists/127.0.0.1:"${REPO_TEST_PORT}"_* /var/lib/apt/lists/partial/127.0.0.1:"${REPO_TEST_PORT}"_*
}

# `apt-get update` of one sources file alone: quick, and no other repository's trouble (a mirror
# down) fails the test; the other lists stay as they are.
repo_test_apt_update() {
  apt-get update -o Dir::Etc::sourcelist="$1" -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0
}

# apt must refuse the repository under another key: it checks the signature, it does not just
# fetch. Run before the real source's first update, so no list of ours is cached.
repo_test_check_apt_refuses_other_key() {
  local log="$REPO_TEST_DIR/apt-other-key.log"
  repo_test_other_key
  GNUPGHOME="$REPO_TEST_DIR/other-gnupg" gpg --batch --yes --export --output "$REPO_TEST_OTHER_KEYRING" "$REPO_TEST_OTHER_FPR"
  chmod 644 "$REPO_TEST_OTHER_KEYRING"
  echo "deb [signed-by=$REPO_TEST_OTHER_KEYRING] $NERVE_REPO_URL/apt stable main" >"$REPO_TEST_OTHER_SOURCE"
  repo_test_forget_lists
  if repo_test_apt_update "$REPO_TEST_OTHER_SOURCE" >"$log" 2>&1; then
    cat "$log" >&2
    repo_test_fail "apt accepted the repository with another key in signed-by="
  fi
  grep -q "NO_PUBKEY\|not signed" "$log" ||
    { cat "$log" >&2; repo_test_fail "apt refused the repository with another key, but not for its signature"; }
  echo "apt refuses the repository under another key: $(grep -m 1 -o 'NO_PUBKEY [0-9A-F]*\|is not signed' "$log")"
  rm -f "$REPO_TEST_OTHER_SOURCE" "$REPO_TEST_OTHER_KEYRING"
  repo_test_forget_lists
}

# The apt source as the README tells users to write it, with the key apt checks it against.
repo_test_add_apt_source() {
  install -m 644 "$NERVE_REPO_DIR/apt/nerve-archive-keyring.gpg" "$REPO_TEST_KEYRING"
  echo "deb [signed-by=$REPO_TEST_KEYRING] $NERVE_REPO_URL/apt stable main" >"$REPO_TEST_SOURCE"
  echo "apt source: $(cat "$REPO_TEST_SOURCE")"
}

# The versions of package $1 the apt repository offers, one a line.
repo_test_apt_versions() { apt-cache madison "$1" | awk -F'|' -v url="$NERVE_REPO_URL" 'index($3, url) { gsub(/ /, "", $2); print $2 }'; }

# The versions (VERSION-RELEASE) of package $1 that dnf finds in the repositories of folder $2,
# run in an empty install root in folder $3: dnf imports the key there (-y answers its question),
# never into this machine's rpm database. A repository it cannot read is an error, not skipped.
repo_test_dnf_versions() {
  local rc=0 home
  mkdir -p "$3/cache" "$3/log" "$3/persist"
  dnf -y --installroot "$3/root" --releasever 1 --setopt=reposdir="$2" \
    --setopt=skip_if_unavailable=False --setopt=cachedir="$3/cache" \
    --setopt=logdir="$3/log" --setopt=persistdir="$3/persist" \
    repoquery --queryformat '%{version}-%{release}' "$1" || rc=$?
  # dnf checks repomd.xml.asc with a gpg of its own, whose agent would outlive it.
  for home in "$3"/cache/*/pubring; do
    [ -d "$home" ] && GNUPGHOME="$home" gpgconf --kill gpg-agent 2>/dev/null || true
  done
  return "$rc"
}

# The dnf repository, checked with the published key alone: the metadata's signature (gpgv), each
# package's signature (rpmkeys, with an rpm database that holds only that key; and refused by one
# without it), and dnf reading the repository through nerve.repo with gpgcheck and repo_gpgcheck
# on. $1: the package name; the rest: the versions (VERSION-RELEASE) dnf must list.
repo_test_check_rpm_repo() {
  local name="$1" dir="$NERVE_REPO_DIR/rpm" t rpm out expected listed
  shift
  t="$(mktemp -d -p "$REPO_TEST_DIR")"
  gpg --batch --yes --dearmor --output "$t/key.gpg" "$dir/RPM-GPG-KEY-nerve"
  gpgv --keyring "$t/key.gpg" "$dir/repodata/repomd.xml.asc" "$dir/repodata/repomd.xml" 2>"$t/gpgv.log" ||
    { cat "$t/gpgv.log" >&2; repo_test_fail "repomd.xml.asc does not verify with RPM-GPG-KEY-nerve"; }
  echo "repomd.xml: $(grep -m 1 'Good signature' "$t/gpgv.log")"
  mkdir "$t/rpmdb" "$t/emptydb"
  rpmkeys --dbpath "$t/rpmdb" --import "$dir/RPM-GPG-KEY-nerve"
  for rpm in "$dir"/packages/*.rpm; do
    out="$(rpmkeys --dbpath "$t/rpmdb" --checksig "$rpm")" ||
      repo_test_fail "rpmkeys --checksig failed: $out"
    echo "$out" | grep -q ": digests signatures OK$" || repo_test_fail "not signed as expected: $out"
    echo "$out"
    if out="$(rpmkeys --dbpath "$t/emptydb" --checksig "$rpm" 2>&1)"; then
      repo_test_fail "rpmkeys accepted $(basename "$rpm") without the key: $out"
    fi
    echo "  and without the key: ${out##*: }"
  done
  grep -qx 'gpgcheck=1' "$dir/nerve.repo" && grep -qx 'repo_gpgcheck=1' "$dir/nerve.repo" ||
    repo_test_fail "nerve.repo does not ask dnf to check both signatures"
  mkdir "$t/repos.d" "$t/other-repos.d"
  cp "$dir/nerve.repo" "$t/repos.d/"
  listed="$(repo_test_dnf_versions "$name" "$t/repos.d" "$t/dnf" 2>"$t/dnf.log" | sort -V)" ||
    { cat "$t/dnf.log" >&2; repo_test_fail "dnf could not read the repository through nerve.repo"; }
  expected="$(printf '%s\n' "$@" | sort -V)"
  [ "$listed" = "$expected" ] ||
    { cat "$t/dnf.log" >&2; repo_test_fail "dnf lists $name as [$(paste -sd" " <<<"$listed")], expected [$(paste -sd" " <<<"$expected")]"; }
  echo "dnf (gpgcheck=1, repo_gpgcheck=1) lists $name: $(paste -sd" " <<<"$listed")"
  # And refuses the metadata under another key.
  repo_test_other_key
  GNUPGHOME="$REPO_TEST_DIR/other-gnupg" gpg --batch --yes --armor --export --output "$t/other-key.asc" "$REPO_TEST_OTHER_FPR"
  sed "s|^gpgkey=.*|gpgkey=file://$t/other-key.asc|" "$dir/nerve.repo" >"$t/other-repos.d/nerve.repo"
  if repo_test_dnf_versions "$name" "$t/other-repos.d" "$t/dnf-other" >"$t/dnf-other.log" 2>&1; then
    cat "$t/dnf-other.log" >&2
    repo_test_fail "dnf read the repository with another key"
  fi
  grep -q "GPG signature verification error" "$t/dnf-other.log" ||
    { cat "$t/dnf-other.log" >&2; repo_test_fail "dnf refused the repository with another key, but not for its signature"; }
  echo "dnf refuses it under another key: $(grep -m 1 -o 'repomd.xml GPG signature verification error.*' "$t/dnf-other.log")"
}

# Everything repo_test_start and the checks set up, also after a failure.
repo_test_cleanup() {
  rm -f "$REPO_TEST_SOURCE" "$REPO_TEST_KEYRING" "$REPO_TEST_OTHER_SOURCE" "$REPO_TEST_OTHER_KEYRING"
  repo_test_forget_lists
  if [ -n "$REPO_TEST_SERVER_PID" ]; then
    kill "$REPO_TEST_SERVER_PID" 2>/dev/null || true
    wait "$REPO_TEST_SERVER_PID" 2>/dev/null || true
  fi
  if [ -n "$REPO_TEST_DIR" ]; then
    local home
    for home in "$REPO_TEST_DIR/gnupg" "$REPO_TEST_DIR/other-gnupg"; do
      [ -d "$home" ] && GNUPGHOME="$home" gpgconf --kill gpg-agent 2>/dev/null || true
    done
    rm -rf "$REPO_TEST_DIR"
  fi
}
