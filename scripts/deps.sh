#!/usr/bin/env bash
# Checks that what bench_nbc needs is there, by looking for it the way the
# build uses it (a tool on PATH, a test program compiled and linked with the
# build's compilers and flags), whatever the system. What is missing is named,
# one line each, with the command that installs it on Debian/Ubuntu,
# RHEL/Rocky, SUSE and with Spack (scripts/deps.table: the capabilities, their
# probes and packages). As root on Debian/Ubuntu it installs the missing
# packages with apt-get instead, as it always did.
#
#   scripts/deps.sh [--for build|check|fuzz] [--mpi NAME] [--blas NAME]
#                   --cc CC --mpicc MPICC --cflags FLAGS --ldflags FLAGS --blas-cflags FLAGS
#                   --blas-libs FLAGS [--blas-header cblas.h] [--cache-dir DIR]
#                   [--installed-mark FILE] [--verbose]
#
# `make deps` runs it with the build's values (make calls it before compiling
# anything); without --mpicc it asks make to do so. --for build: building and
# running; check: that plus the test suite; fuzz: build plus `make fuzz`.
# Compile probes that succeeded are remembered in --cache-dir, keyed by their
# command line and environment, and valid while every header, library and
# compiler they used is unchanged; failures are always probed again.
# --installed-mark: a file (a comment for make) written after packages were
# installed, so that make reads its files again with them.
# Exit status: 0 everything required is there (optional parts may be named),
# 1 something required is missing, 2 bad usage.
# shellcheck disable=SC2317 # probe_<kind> is called through the table's probe column
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
table=$root/scripts/deps.table
os_release=${BENCH_NBC_OS_RELEASE:-/etc/os-release}

usage() {
    sed -n '10,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

purpose=build mpi=mpich mpi_given="" blas=openblas blas_given="" blas_header=cblas.h cache_dir="" mark=""
verbose=0
declare -A build=() # the build's values: cc mpicc cflags ldflags blas_cflags blas_libs
while [ $# -gt 0 ]; do
    case $1 in
    --for | --mpi | --blas | --cc | --mpicc | --cflags | --ldflags | --blas-cflags | --blas-libs | \
        --blas-header | --cache-dir | --installed-mark)
        [ $# -ge 2 ] || {
            echo "deps.sh: $1 needs a value" >&2
            usage
        }
        case $1 in
        --for) purpose=$2 ;;
        --mpi) mpi=$2 mpi_given=$2 ;;
        --blas) blas=$2 blas_given=$2 ;;
        --blas-header) blas_header=$2 ;;
        --cache-dir) cache_dir=$2 ;;
        --installed-mark) mark=$2 ;;
        *)
            key=${1#--}
            build[${key//-/_}]=$2
            ;;
        esac
        shift 2
        ;;
    --verbose) verbose=1 && shift ;;
    -h | --help) usage ;;
    *)
        echo "deps.sh: unknown argument '$1'" >&2
        usage
        ;;
    esac
done
declare -A needs_of=([build]="build build-opt" [check]="build build-opt check check-opt" [fuzz]="build build-opt fuzz")
[ -n "${needs_of[$purpose]+set}" ] || {
    echo "deps.sh: --for '$purpose' is not known (allowed: build, check, fuzz)" >&2
    exit 2
}
for name in "$mpi" "$blas"; do
    [[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || {
        echo "deps.sh: '$name' is not a library name (letters, digits, . _ -)" >&2
        exit 2
    }
done
# Called by hand: the build's compilers and flags are the Makefile's.
if [ -z "${build[mpicc]+set}" ]; then
    exec make -s --no-print-directory -C "$root" deps DEPS_FOR="$purpose" ${mpi_given:+MPI="$mpi_given"} \
        ${blas_given:+BLAS="$blas_given"} DEPS_FLAGS="$([ $verbose = 0 ] || echo --verbose)"
fi
for key in cc mpicc cflags ldflags blas_cflags blas_libs; do : "${build[$key]:=}"; done
cd "$root" || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/bench_nbc_deps.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# No cache where this user cannot write (a build folder of another user).
mkdir -p "$cache_dir" 2>/dev/null && [ -w "$cache_dir" ] || cache_dir=""

# ---- the build's flags as words -----------------------------------------
# Dependency files are the probes' own business (-MD below).
words() { # words VAR STRING: VAR=(the words of STRING, minus -MMD/-MP)
    local -n out=$1
    local w all
    read -ra all <<<"$2"
    out=()
    for w in "${all[@]}"; do [[ $w == -MMD || $w == -MP ]] || out+=("$w"); done
}
words cflags "${build[cflags]}"
words ldflags "${build[ldflags]}"
words blas_cflags "${build[blas_cflags]}"
words blas_libs "${build[blas_libs]}"
expand() { # the table's {cc}, {mpicc}, {multiarch} replaced
    local s=$1
    s=${s//\{cc\}/${build[cc]}}
    s=${s//\{mpicc\}/${build[mpicc]}}
    if [[ $s == *"{multiarch}"* ]]; then
        s=${s//\{multiarch\}/$("${build[cc]}" -print-multiarch 2>/dev/null)}
    fi
    echo "$s"
}

# ---- remembered successes --------------------------------------------------
# A probe's record lists the files it used (compiler, headers, shared
# libraries) with size and time; it holds while they are all unchanged.
fingerprint() { stat -L -c '%Y %s %n' -- "$@" 2>&1; }
cache_holds() { # cache_holds FILE
    [ -s "$1" ] || return 1
    local -a files
    mapfile -t files < <(cut -d' ' -f3- "$1")
    [ "$(fingerprint "${files[@]}")" = "$(cat "$1")" ]
}
cache_store() { # cache_store FILE PROGRAM DEPFILE COMPILER
    local -a files
    mapfile -t files < <({
        command -v "$4"
        sed -e 's/\\$//' -e 's/^[^:]*://' "$3" | tr ' ' '\n'
        ldd "$2" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p'
    } | grep '^/' | grep -v "^$work/" | sort -u)
    [ ${#files[@]} -gt 0 ] && fingerprint "${files[@]}" >"$1.tmp" && mv "$1.tmp" "$1"
}

# try_link NAME SOURCE COMPILER ARGS...: compiles and links SOURCE (in place of
# the word @SRC@ among ARGS); on failure sets reason to the first error line.
reason="" cached=0
try_link() {
    local name=$1 source=$2 compiler=$3 record="" arg
    shift 3
    cached=0
    if [ -n "$cache_dir" ]; then
        record=$cache_dir/$name-$(printf '%s\n' "$source" "$compiler" "$@" "$PATH" "${CPATH-}" \
            "${C_INCLUDE_PATH-}" "${LIBRARY_PATH-}" "${LD_LIBRARY_PATH-}" | md5sum | cut -c1-16)
        cache_holds "$record" && cached=1 && return 0
    fi
    command -v "$compiler" >/dev/null 2>&1 || {
        reason="no compiler '$compiler' on PATH"
        return 1
    }
    printf '%s\n' "$source" >"$work/$name.c"
    local -a args=()
    for arg in "$@"; do [ "$arg" = @SRC@ ] && args+=("$work/$name.c") || args+=("$arg"); done
    if ! "$compiler" -MD -MF "$work/$name.d" "${args[@]}" -o "$work/$name" >"$work/$name.log" 2>&1; then
        reason=$(grep -m 1 -E 'error|cannot find|undefined reference|not found' "$work/$name.log" ||
            head -n 1 "$work/$name.log")
        reason="$compiler: ${reason#"$work/"}"
        return 1
    fi
    [ -z "$record" ] || cache_store "$record" "$work/$name" "$work/$name.d" "$compiler"
    return 0
}

# ---- probes (the table's probe column: probe_<kind> ARGS...) ----------------
cc_works=1
probe_tool() {
    local tool alt found
    for tool in "$@"; do
        found=0
        for alt in ${tool//,/ }; do command -v "$alt" >/dev/null 2>&1 && found=1 && break; done
        [ "$found" = 1 ] || {
            reason="'${tool//,/' or '}' is not on PATH"
            return 1
        }
    done
}
probe_file() {
    [ -e "$1" ] || {
        reason="no $1"
        return 1
    }
}
probe_cc() {
    try_link cc $'#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }' \
        "${build[cc]}" "${cflags[@]}" @SRC@ "${ldflags[@]}" || cc_works=0
    [ "$cc_works" = 1 ]
}
probe_mpi() {
    try_link mpi $'#include <mpi.h>\nint main(void)\n{\n    char text[MPI_MAX_LIBRARY_VERSION_STRING];\n    int length;\n    return MPI_Get_library_version(text, &length) != MPI_SUCCESS;\n}' \
        "${build[mpicc]}" "${cflags[@]}" @SRC@ "${ldflags[@]}"
}
# Every C-library probe needs a working C compiler first: without one they
# would all fail, and name the wrong culprits.
not_checked="not checked"
needs_cc() {
    [ "$cc_works" = 1 ] || reason=$not_checked
    [ "$cc_works" = 1 ]
}
probe_blas() {
    needs_cc || return 1
    try_link "blas-$blas" $'#include <'"$blas_header"$'>\nint main(void)\n{\n    double a = 1, b = 1, c = 0;\n    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);\n    return c != 1.0;\n}' \
        "${build[cc]}" "${cflags[@]}" "${blas_cflags[@]}" @SRC@ "${ldflags[@]}" "${blas_libs[@]}"
}
probe_lib() { # probe_lib PKG-CONFIG-NAME HEADER SYMBOL FALLBACK-LIBS...
    local module=$1 header=$2 symbol=$3 pc_cflags pc_libs
    shift 3
    needs_cc || return 1
    local -a extra_cflags=() libs=("$@")
    if pc_cflags=$(pkg-config --cflags "$module" 2>/dev/null) && pc_libs=$(pkg-config --libs "$module" 2>/dev/null); then
        read -ra extra_cflags <<<"$pc_cflags"
        read -ra libs <<<"$pc_libs"
    fi
    try_link "lib-$module" "#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <$header>
int main(void)
{
    void (*volatile symbol)(void) = (void (*)(void))$symbol;
    return symbol == 0;
}" "${build[cc]}" "${cflags[@]}" "${extra_cflags[@]}" @SRC@ "${ldflags[@]}" "${libs[@]}"
}
probe_fuzzer() {
    try_link fuzzer $'#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { (void)data; (void)size; return 0; }' \
        clang -fsanitize=fuzzer,address,undefined @SRC@
}

# ---- the table -------------------------------------------------------------
distros=(debian rhel suse spack)
declare -A distro_label=([debian]="Debian/Ubuntu" [rhel]="RHEL/Rocky" [suse]="SUSE" [spack]="Spack")
rows=() # "name|need|probe|debian|rhel|suse|spack|what", trimmed, for this purpose
mapfile -t all_rows < <(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' \
    -e 's/[[:space:]]*|[[:space:]]*/|/g' -e 's/[[:space:]]*$//' "$table")
variant_rows() { printf '%s\n' "${all_rows[@]}" | cut -d'|' -f1 | grep "^$1@"; }
declare -A variant_of=([mpi]=$mpi [blas]=$blas) # the build's choice per capability
for row in "${all_rows[@]}"; do
    IFS='|' read -r name need _ <<<"$row"
    [[ " ${needs_of[$purpose]} " == *" $need "* ]] || continue
    if [[ $name == *@* ]]; then
        capability=${name%@*}
        chosen=$capability@${variant_of[$capability]:-}
        # A build of a known one (openblas-pthread) takes its row; an unknown
        # variant (a site's MPI) the capability's first row.
        variant_rows "$capability" | grep -qx "$chosen" || chosen=${chosen%%-*}
        variant_rows "$capability" | grep -qx "$chosen" || chosen=$(variant_rows "$capability" | head -n 1)
        [ "$name" = "$chosen" ] || continue
    fi
    rows+=("$row")
done

# probe_row ROW: runs the row's probe; reason says why it failed.
probe_row() {
    local name need probe kind
    local -a args
    IFS='|' read -r name need probe _ <<<"$1"
    read -ra args <<<"$(expand "$probe")"
    kind=${args[0]}
    declare -F "probe_$kind" >/dev/null || {
        echo "deps.sh: $table: row $name: unknown probe '$kind'" >&2
        exit 2
    }
    reason=""
    "probe_$kind" "${args[@]:1}"
}

missing=()   # rows, each with the reason appended
unchecked=() # capabilities not probed: the C compiler does not work
check_all() {
    local row name
    missing=() unchecked=()
    cc_works=1
    for row in "$@"; do
        name=${row%%|*}
        if probe_row "$row"; then
            [ $verbose = 0 ] || echo "deps.sh: ok ${name%@*}$([ $cached = 1 ] && echo ' (cached)')"
            cached=0
        elif [ "$reason" = "$not_checked" ]; then
            unchecked+=("${name%@*}")
        else
            missing+=("$row|${reason//|//}")
        fi
    done
}
check_all "${rows[@]}"
[ ${#missing[@]} -eq 0 ] && exit 0 # (nothing is unchecked when the compiler works)

# ---- the system --------------------------------------------------------------
os_ids=""
[ -r "$os_release" ] && os_ids=$(sed -n 's/^ID\(_LIKE\)\{0,1\}=//p' "$os_release" | tr -d '"' | tr '\n' ' ')
this_distro=""
declare -A distro_of_id=([debian]=debian [ubuntu]=debian [rhel]=rhel [centos]=rhel [rocky]=rhel [almalinux]=rhel
    [fedora]=rhel [sles]=suse [suse]=suse [opensuse]=suse [opensuse-leap]=suse [opensuse-tumbleweed]=suse)
for id in $os_ids; do
    [ -n "$this_distro" ] || this_distro=${distro_of_id[$id]:-}
done

# packages COLUMN ROWS...: the packages of a distribution column, in order, once.
packages() {
    local column=$1 row cells cell
    shift
    declare -A seen=()
    local -a fields out=()
    for row in "$@"; do
        IFS='|' read -ra fields <<<"$row"
        cells=${fields[$((3 + column))]}
        for cell in $cells; do
            [ "$cell" = - ] || [ -n "${seen[$cell]+set}" ] || {
                seen[$cell]=1
                out+=("$cell")
            }
        done
    done
    echo "${out[*]}"
}

# As root on Debian/Ubuntu: install, then look again (twice at most: a
# piece that could not be checked before, without a compiler, may be missing).
if [ "$(id -u)" -eq 0 ] && [ "$this_distro" = debian ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    tried=" "
    for _ in 1 2; do
        wanted=()
        for package in $(packages 0 "${missing[@]}"); do
            [[ $tried == *" $package "* ]] || wanted+=("$package")
        done
        [ ${#wanted[@]} -gt 0 ] || break
        tried+="${wanted[*]} "
        echo "bench_nbc: installing ${wanted[*]}" >&2
        apt_install() { apt-get install -y -q --no-install-recommends "${wanted[@]}" >&2; }
        # A fresh machine may have no package lists yet: update once, then retry.
        if apt_install || { apt-get update -q >&2 && apt_install; }; then
            [ -z "$mark" ] || { mkdir -p "$(dirname "$mark")" &&
                echo "# scripts/deps.sh installed ${wanted[*]}: make reads its files again" >"$mark"; }
        else
            echo "bench_nbc: apt-get could not install ${wanted[*]}" >&2
        fi
        check_all "${rows[@]}"
        [ ${#missing[@]} -eq 0 ] && exit 0
    done
fi

# ---- what is missing, and how to get it --------------------------------------
status=0
for row in "${missing[@]}"; do
    IFS='|' read -r name need _ _ _ _ _ what why <<<"$row"
    what=$(expand "$what")
    if [[ $need == *-opt ]]; then
        echo "bench_nbc: note: optional ${name%@*} not found: $what; $why" >&2
    else
        status=1
        echo "bench_nbc: missing ${name%@*}: $what; $why" >&2
    fi
done
[ ${#unchecked[@]} -eq 0 ] ||
    echo "bench_nbc: not checked until the C compiler works: ${unchecked[*]}" >&2
declare -A install_cmd=([debian]="sudo apt-get install -y --no-install-recommends {}"
    [rhel]="sudo dnf install -y {}" [suse]="sudo zypper install -y {}" [spack]="spack install {} && spack load {}")
declare -A repo_hint=([crb]="CRB: sudo dnf config-manager --set-enabled crb, powertools on EL8"
    [epel]="EPEL: sudo dnf install -y epel-release")
if [ $status = 1 ]; then echo "bench_nbc: install what is missing with one of:" >&2; else
    echo "bench_nbc: to add the optional parts, one of:" >&2
fi
for i in "${!distros[@]}"; do
    distro=${distros[$i]}
    list=$(packages "$i" "${missing[@]}")
    note=""
    if [ -z "$list" ]; then
        printf '    %-15s (no package: load a module or build it yourself)\n' "${distro_label[$distro]}:" >&2
        continue
    fi
    # pkg@repo: the repository to enable first.
    for repo in "${!repo_hint[@]}"; do
        in_repo=$(tr ' ' '\n' <<<"$list" | sed -n "s/@$repo\$//p" | tr '\n' ' ')
        [ -z "$in_repo" ] || note+="; ${in_repo% } from ${repo_hint[$repo]}"
    done
    for repo in "${!repo_hint[@]}"; do list=${list//@$repo/}; done
    command_line=${install_cmd[$distro]//\{\}/$list}
    mark=""
    [ "$distro" = "$this_distro" ] && mark="   <- this system"
    printf '    %-15s %s%s%s\n' "${distro_label[$distro]}:" "$command_line" "${note:+   (${note#; })}" "$mark" >&2
done
[ $status = 0 ] || echo "bench_nbc: or point the build at what your site provides: make MPICC=... BLAS_CFLAGS=... BLAS_LIBS=... (README.md, Set-up)" >&2
exit $status
