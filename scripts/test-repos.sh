#!/usr/bin/env bash
# Checks scripts/publish-repos.sh in seconds, without building Nerve: it makes a tiny .deb and .rpm
# (nerve-repo-test 1.0, then 1.1, each a script printing its version), publishes them with a
# throwaway key, and then, as scripts/test-install.sh does with the real packages: apt refuses the
# repository under another key, installs 1.0 from it, upgrades to 1.1 once 1.1 is published (1.0
# stays in the repository); the rpms' and the dnf metadata's signatures verify with the published
# key, and dnf lists both versions through nerve.repo. A republished identical package is let be,
# a different one under a published name is refused. Needs root (apt); removes what it installed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
. scripts/repo-test-lib.sh
if [ "$(id -u)" -ne 0 ]; then
  echo "test-repos.sh installs a package and changes apt's sources: it needs root" >&2
  exit 1
fi
ensure_apt_packages rpm
name=nerve-repo-test
arch="$(dpkg --print-architecture)"

cleanup() {
  dpkg -r "$name" >/dev/null 2>&1 || true
  repo_test_cleanup
}
trap cleanup EXIT
repo_test_start
pkgs="$REPO_TEST_DIR/packages"
mkdir -p "$pkgs"

# A .deb and an .rpm of version $1 (the rpm's release is 1) into $pkgs.
make_packages() {
  local version="$1" root="$pkgs/deb-$1" top="$pkgs/rpmbuild-$1"
  mkdir -p "$root/DEBIAN" "$root/usr/bin"
  printf '#!/bin/sh\necho "%s %s"\n' "$name" "$version" >"$root/usr/bin/$name"
  chmod 755 "$root/usr/bin/$name"
  cat >"$root/DEBIAN/control" <<EOF
Package: $name
Version: $version
Architecture: $arch
Maintainer: The Nerve developers <test@nerve.invalid>
Description: a package for the test of Nerve's repositories
EOF
  dpkg-deb --root-owner-group --build "$root" "$pkgs/${name}_${version}_$arch.deb" >/dev/null
  mkdir -p "$top/SPECS"
  cat >"$top/SPECS/$name.spec" <<EOF
Name: $name
Version: $version
Release: 1
Summary: A package for the test of Nerve's repositories
License: MIT
BuildArch: noarch
%description
A package for the test of Nerve's repositories.
%install
mkdir -p %{buildroot}/usr/bin
printf '#!/bin/sh\necho "%s %s"\n' "$name" "$version" >%{buildroot}/usr/bin/$name
chmod 755 %{buildroot}/usr/bin/$name
%files
/usr/bin/$name
EOF
  rpmbuild --quiet --define "_topdir $top" -bb "$top/SPECS/$name.spec" 2>"$top/rpmbuild.log" ||
    { cat "$top/rpmbuild.log" >&2; repo_test_fail "rpmbuild failed"; }
  cp "$top/RPMS/noarch/$name-$version-1.noarch.rpm" "$pkgs/"
}

# What `apt-get install` and `dpkg-query` say of the installed package, against version $1.
check_installed() {
  local got
  got="$(dpkg-query -W -f '${Version}' "$name")"
  [ "$got" = "$1" ] || repo_test_fail "installed $name is $got, expected $1"
  got="$("$name")"
  [ "$got" = "$name $1" ] || repo_test_fail "$name says '$got', expected '$name $1'"
  echo "installed: $got"
}

echo "== 1.0 published, apt refuses it under another key, then installs it"
make_packages 1.0
scripts/publish-repos.sh "$pkgs/${name}_1.0_$arch.deb" "$pkgs/$name-1.0-1.noarch.rpm"
repo_test_check_apt_refuses_other_key
repo_test_add_apt_source
repo_test_apt_update "$REPO_TEST_SOURCE"
DEBIAN_FRONTEND=noninteractive apt-get install -y "$name"
check_installed 1.0

echo "== the same packages again: let be; another build under a published name: refused"
scripts/publish-repos.sh "$pkgs/${name}_1.0_$arch.deb" "$pkgs/$name-1.0-1.noarch.rpm"
cp "$pkgs/${name}_1.0_$arch.deb" "$REPO_TEST_DIR/changed.deb"
echo "other contents" >>"$REPO_TEST_DIR/changed.deb"
mkdir -p "$REPO_TEST_DIR/changed"
cp "$REPO_TEST_DIR/changed.deb" "$REPO_TEST_DIR/changed/${name}_1.0_$arch.deb"
if scripts/publish-repos.sh "$REPO_TEST_DIR/changed/${name}_1.0_$arch.deb" 2>"$REPO_TEST_DIR/refused.log"; then
  repo_test_fail "publish-repos.sh replaced a published package"
fi
echo "refused: $(cat "$REPO_TEST_DIR/refused.log")"

echo "== 1.1 published beside 1.0, apt upgrades to it"
make_packages 1.1
scripts/publish-repos.sh "$pkgs/${name}_1.1_$arch.deb" "$pkgs/$name-1.1-1.noarch.rpm"
repo_test_apt_update "$REPO_TEST_SOURCE"
versions="$(repo_test_apt_versions "$name" | sort -V | tr '\n' ' ')"
[ "$versions" = "1.0 1.1 " ] || repo_test_fail "the apt repository offers $name [$versions], expected [1.0 1.1]"
echo "the apt repository offers $name $versions"
DEBIAN_FRONTEND=noninteractive apt-get install --only-upgrade -y "$name"
check_installed 1.1

echo "== the dnf repository"
repo_test_check_rpm_repo "$name" 1.0-1 1.1-1

echo "== removing $name"
dpkg -r "$name"
[ ! -e "/usr/bin/$name" ] || repo_test_fail "/usr/bin/$name is still there"
echo "repository test passed"
