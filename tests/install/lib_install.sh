# shellcheck shell=bash
# Helpers for the set-up tests (sourced after tests/lib.sh; they need SCRATCH).

# path_without_debian_tools: a folder of links to every program on PATH but
# dpkg*, apt* and sudo (a system that is not Debian, or a user who cannot
# install); prints it.
path_without_debian_tools() {
    local bin=$SCRATCH/path dir tool
    mkdir -p "$bin"
    local -a dirs
    IFS=: read -ra dirs <<<"$PATH"
    for dir in "${dirs[@]}"; do
        [ -d "$dir" ] || continue
        for tool in "$dir"/*; do
            [ -x "$tool" ] && [ ! -e "$bin/${tool##*/}" ] && ln -s "$tool" "$bin/${tool##*/}"
        done
    done
    rm -f "$bin"/dpkg* "$bin"/apt* "$bin/sudo"
    echo "$bin"
}

# as_user CMD...: CMD (a program or an exported function) as an unprivileged
# user (nobody) when root, else as is, in the same environment; a root-only
# test folder is opened to it first.
as_user() {
    if [ "$(id -u)" -ne 0 ]; then
        "$@"
        return
    fi
    chmod 755 "$SCRATCH"
    # shellcheck disable=SC2016 # "$@" is the inner shell's
    setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
        env HOME=/nonexistent TMPDIR="$SCRATCH/tmp-nobody" bash -c '"$@"' as_user "$@"
}

# make_here ARGS...: make in the repository with the build's variables (those
# of the make running the tests come in MAKEFLAGS, minus its jobserver, whose
# pipes this make does not have).
make_here() {
    local makeflags
    makeflags=$(sed -E 's/ ?--jobserver-(auth|fds)=[^ ]*//g' <<<"${MAKEFLAGS:-}")
    env -u MFLAGS -u MAKELEVEL MAKEFLAGS="$makeflags" make -s --no-print-directory \
        -C "${MAKE_ROOT:-$BENCH_NBC_ROOT}" "$@"
}
export -f make_here
export BENCH_NBC_ROOT

# user_copy: as root, a copy of the sources that nobody owns (the checkout may
# be where nobody cannot read, e.g. under /root), used by make_here after it.
user_copy() {
    [ "$(id -u)" -eq 0 ] || return 0
    mkdir -p "$SCRATCH/sources"
    tar -C "$BENCH_NBC_ROOT" --exclude=./build --exclude=./results --exclude=./.git -cf - . |
        tar -C "$SCRATCH/sources" -xf - || fail "cannot copy the sources"
    chown -R nobody:nogroup "$SCRATCH/sources"
    export MAKE_ROOT=$SCRATCH/sources
}

# deps_make ARGS...: `make deps` of this build, run by "${deps_as[@]}" (e.g.
# as_user); its standard error goes to $SCRATCH/err.
deps_as=()
deps_make() {
    mkdir -p "$SCRATCH/tmp-nobody" && chmod 777 "$SCRATCH/tmp-nobody"
    "${deps_as[@]}" make_here deps "$@" 2>"$SCRATCH/err"
}

# fake_blas DIR VERSION: a BLAS of the test's own, DIR/cblas.h and
# DIR/libfakeblas.so, whose dgemm handles 1 x 1 matrices; VERSION changes the
# library (the header is written once).
fake_blas() {
    mkdir -p "$1"
    local dgemm='void cblas_dgemm(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m,
                 int n, int k, double alpha, const double *a, int lda, const double *b, int ldb,
                 double beta, double *c, int ldc)'
    [ -e "$1/cblas.h" ] || printf '%s\n' 'enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };' \
        'enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112 };' "$dgemm;" >"$1/cblas.h"
    printf '%s\n' '#include "cblas.h"' "int fake_blas_version = $2;" "$dgemm" '{' \
        '    (void)o, (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)lda, (void)ldb, (void)ldc;' \
        '    c[0] = alpha * a[0] * b[0] + beta * c[0];' '}' >"$1/fake.c"
    gcc -shared -fPIC -o "$1/libfakeblas.so" "$1/fake.c" || fail "cannot build the fake BLAS in $1"
}

# module_env KIND FILE: what the module file sets ("depends_on MODULE", "prepend_path VAR VALUE",
# "setenv VAR VALUE" lines), read by Lua (KIND lua) or Tcl (KIND tcl) with
# stand-ins for the module system's commands; fails on a syntax error.
module_env() {
    case $1 in
    lua)
        local lua
        lua=$(command -v lua5.4 || command -v lua5.3 || command -v lua) || return 2
        "$lua" - "$2" <<'EOF'
function pathJoin(...) return table.concat({...}, "/") end
function whatis() end
function help(text) assert(#text > 0) end
function depends_on(name) print("depends_on " .. name) end
function prepend_path(name, value) print("prepend_path " .. name .. " " .. value) end
function setenv(name, value) print("setenv " .. name .. " " .. value) end
dofile(arg[1])
EOF
        ;;
    tcl)
        command -v tclsh >/dev/null || return 2
        tclsh /dev/stdin "$2" <<'EOF' 2>/dev/null
proc module-whatis {text} {}
proc prereq {args} { puts "depends_on [join $args]" }
proc prepend-path {name value} { puts "prepend_path $name $value" }
proc setenv {name value} { puts "setenv $name $value" }
source [lindex $argv 0]
ModulesHelp
EOF
        ;;
    esac
}
