#!/usr/bin/env bash
# As root, `make deps` installs what is missing with apt-get on Debian/Ubuntu
# only, then looks again. A stand-in apt-get records its calls; its "install"
# fails until "update" was called (a fresh machine without package lists),
# then puts a BLAS library of the test's own where the build looks for it.
# - BLAS_LIBS=-lno_such_blas: apt-get is asked for the table's Debian
#   packages (install, update, install), the library is still missing: named.
# - the test's BLAS library, not yet "installed": after apt-get it is found,
#   make deps succeeds.
# - /etc/os-release says Rocky: neither apt-get nor dnf is called, and the
#   RHEL/Rocky command is marked as this system's.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/install/lib_install.sh
source "$BENCH_NBC_ROOT/tests/install/lib_install.sh"
[ "$(id -u)" -eq 0 ] || skip "installing is for root (deps_missing.sh covers other users)"
make_scratch
fake_blas "$SCRATCH/staged" 1
mkdir -p "$SCRATCH/fake" "$SCRATCH/lib"
cat >"$SCRATCH/fake/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$SCRATCH/calls"
case "\$*" in
*update*) touch "$SCRATCH/updated" ;;
*install*) [ -e "$SCRATCH/updated" ] || exit 100; cp "$SCRATCH/staged/libfakeblas.so" "$SCRATCH/lib/" ;;
esac
EOF
printf '#!/bin/sh\necho "dnf $*" >>%s/calls\n' "$SCRATCH" >"$SCRATCH/fake/dnf"
chmod 755 "$SCRATCH/fake/apt-get" "$SCRATCH/fake/dnf"
PATH=$SCRATCH/fake:$PATH
printf 'ID=debian\n' >"$SCRATCH/debian-release"
printf 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\n' >"$SCRATCH/rocky-release"
apt_install="apt-get install -y -q --no-install-recommends libopenblas-pthread-dev libopenblas0-pthread"

status=0
BENCH_NBC_OS_RELEASE=$SCRATCH/debian-release deps_make BLAS_LIBS=-lno_such_blas || status=$?
[ $status -ne 0 ] || fail "make deps succeeded although the BLAS library is still missing"
expected=$(printf '%s\n' "$apt_install" "apt-get update -q" "$apt_install")
[ "$(cat "$SCRATCH/calls")" = "$expected" ] || fail "apt-get calls: $(cat "$SCRATCH/calls"), expected: $expected"
grep -q '^bench_nbc: installing libopenblas-pthread-dev libopenblas0-pthread$' "$SCRATCH/err" ||
    fail "the installation is not announced: $(cat "$SCRATCH/err")"
grep -q '^bench_nbc: missing blas: .*no_such_blas' "$SCRATCH/err" ||
    fail "what is still missing after the installation is not named: $(cat "$SCRATCH/err")"

rm -f "$SCRATCH/calls" "$SCRATCH/lib/libfakeblas.so"
BENCH_NBC_OS_RELEASE=$SCRATCH/debian-release deps_make DEPS_FLAGS="--cache-dir $SCRATCH/cache" BLAS_CFLAGS="-I$SCRATCH/staged" \
    BLAS_LIBS="-L$SCRATCH/lib -lfakeblas -Wl,-rpath,$SCRATCH/lib" ||
    fail "make deps failed although apt-get provided the library: $(cat "$SCRATCH/err")"
[ "$(cat "$SCRATCH/calls")" = "$apt_install" ] || fail "apt-get calls: $(cat "$SCRATCH/calls")"
! grep -q missing "$SCRATCH/err" || fail "something is named missing after the installation: $(cat "$SCRATCH/err")"

rm -f "$SCRATCH/calls"
status=0
BENCH_NBC_OS_RELEASE=$SCRATCH/rocky-release deps_make BLAS_LIBS=-lno_such_blas || status=$?
[ $status -ne 0 ] || fail "make deps succeeded on 'Rocky' although the BLAS library is missing"
[ ! -e "$SCRATCH/calls" ] || fail "tried to install on Rocky: $(cat "$SCRATCH/calls")"
grep -q '^ *RHEL/Rocky: *sudo dnf install -y openblas-devel .*<- this system$' "$SCRATCH/err" ||
    fail "the RHEL/Rocky command is not marked as this system's: $(cat "$SCRATCH/err")"
figure "root: apt-get install, update, install on Debian, then the build goes on; no install on Rocky"
