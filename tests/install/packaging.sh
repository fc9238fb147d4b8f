#!/usr/bin/env bash
# packaging/: the Spack recipe sits in a package repository of Spack's
# current layout (spack_repo/NAMESPACE/repo.yaml with api v2.0 and the
# namespace of its folder, packages/bench_nbc/package.py for bench-nbc),
# compiles (python3 -m py_compile) and, run against stand-ins for Spack's
# directives and spec, has a homepage, git, a licence and versions, declares
# its dependencies and hands the Makefile MPICC from spec['mpi'].mpicc, the
# BLAS flags from spec['blas'] and PREFIX=prefix; `make -n` accepts those
# targets; README.md and docs/harnesses.md show `spack repo add` of this
# repository and `spack install --add`, and the packaging/ paths they name
# exist. The module file examples (Lmod, Tcl) parse, load their MPI
# library's module first and set PATH, BENCH_NBC_CONFIGS and the version. A part whose interpreter is missing
# is skipped with the reason; all missing: the test is skipped.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/install/lib_install.sh
source "$BENCH_NBC_ROOT/tests/install/lib_install.sh"
make_scratch
checked=() skipped=()

# ---- Spack recipe ------------------------------------------------------------------
repo=packaging/spack/spack_repo/bench_nbc
recipe=$repo/packages/bench_nbc/package.py
[ -f "$recipe" ] || fail "no recipe at $recipe (Spack's layout: spack_repo/NAMESPACE/packages/NAME/package.py)"
grep -qx '  namespace: bench_nbc' "$repo/repo.yaml" || fail "$repo/repo.yaml: namespace is not its folder's: $(cat "$repo/repo.yaml")"
grep -qx '  api: v2.0' "$repo/repo.yaml" || fail "$repo/repo.yaml: not package API v2.0: $(cat "$repo/repo.yaml")"
# the docs a user follows name this repository, and every packaging/ path
# they give exists
for doc in README.md docs/harnesses.md; do
    grep -q "^ *spack repo add .*$repo\$" "$doc" || fail "$doc does not show 'spack repo add .../$repo'"
    grep -q '^ *spack install --add bench-nbc' "$doc" || fail "$doc does not show 'spack install --add bench-nbc'"
    while read -r path; do
        [ -e "$path" ] || fail "$doc names $path, which does not exist"
    done < <(grep -o 'packaging/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$doc")
done
if command -v python3 >/dev/null; then
    # (compiled into the scratch folder, not next to the recipe)
    PYTHONPYCACHEPREFIX=$SCRATCH/pycache python3 -m py_compile "$recipe" || fail "$recipe does not compile"
    cat >"$SCRATCH/stand_ins.py" <<'EOF'
import sys, types

path = sys.argv[1]
directives = {}
package = types.ModuleType("spack.package")
for name in ("version", "variant", "depends_on", "conflicts", "requires", "provides", "license", "maintainers"):
    setattr(package, name, lambda *args, _name=name, **kwargs: directives.setdefault(_name, []).append((args, kwargs)))
makefile = types.ModuleType("spack_repo.builtin.build_systems.makefile")
makefile.MakefilePackage = type("MakefilePackage", (), {})
package.spack_cc = "/spack/env/cc"
package.make = lambda *args: None
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = package
for name in ("spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems"):
    sys.modules[name] = types.ModuleType(name)
sys.modules[makefile.__name__] = makefile
scope = {}
exec(compile(open(path).read(), path, "exec"), scope)

cls = scope["BenchNbc"]
assert cls.homepage.startswith("https://") and cls.git.endswith(".git"), "no homepage or git"
assert directives.get("license"), "no license()"
versions = {args[0]: kwargs for args, kwargs in directives["version"]}
assert "main" in versions and versions["main"].get("branch") == "main", versions
assert any("tag" in kwargs for kwargs in versions.values()), f"no released version: {versions}"
depends = {args[0]: kwargs for args, kwargs in directives["depends_on"]}
for needed in ("mpi", "blas", "json-c", "libinih", "hwloc"):
    assert needed in depends, f"no depends_on({needed!r})"
assert depends["hwloc"].get("when") == "+hwloc", "hwloc is not optional (+hwloc)"
assert any(args[0] == "hwloc" for args, _ in directives["variant"]), "no hwloc variant"


class Dependency:
    def __init__(self, name):
        self.name = name
        self.mpicc = "/spack/mpich/bin/mpicc"
        self.headers = types.SimpleNamespace(include_flags="-I/spack/openblas/include")
        self.libs = types.SimpleNamespace(ld_flags="-L/spack/openblas/lib -lopenblas")


class Spec:
    def __init__(self, variants):
        self.variants = variants

    def __getitem__(self, name):
        return Dependency({"mpi": "mpich", "blas": "openblas"}[name])

    def satisfies(self, constraint):
        return constraint in self.variants


recipe = scope["BenchNbc"].__new__(scope["BenchNbc"])
recipe.prefix = "/spack/opt/bench-nbc"
for variants in (["+hwloc"], ["~hwloc"]):
    recipe.spec = Spec(variants)
    build, install = recipe.build_targets, recipe.install_targets
    for expected in ("CC=/spack/env/cc", "MPICC=/spack/mpich/bin/mpicc", "BLAS=openblas",
                     "BLAS_CFLAGS=-I/spack/openblas/include", "BLAS_LIBS=-L/spack/openblas/lib -lopenblas"):
        assert expected in build and expected in install, f"{expected} missing: {build} {install}"
    assert build[-1] == "programs" and install[-1] == "install", (build, install)
    assert "PREFIX=/spack/opt/bench-nbc" in install, install
    assert ("HWLOC=0" if variants == ["~hwloc"] else "HWLOC=1") in build, (variants, build)
print("\n".join(install))
EOF
    targets=$(python3 -B "$SCRATCH/stand_ins.py" "$recipe" 2>&1) || fail "$recipe against Spack stand-ins: $targets"
    mapfile -t install_args <<<"$targets"
    dry=$(make_here -n "${install_args[@]}" 2>&1) ||
        fail "make -n ${install_args[*]}: $dry"
    grep -q 'install -m 755 .*bench_nbc.* /spack/opt/bench-nbc/bin/' <<<"$dry" ||
        fail "make -n install from the recipe installs no programs into PREFIX/bin: $dry"
    checked+=("Spack recipe")
else
    skipped+=("Spack recipe: python3 is not installed")
fi

# ---- module files --------------------------------------------------------------------
for kind in lua tcl; do
    file=packaging/modules/bench_nbc.$kind
    status=0
    env_lines=$(module_env $kind "$file") || status=$?
    if [ $status -eq 2 ]; then
        skipped+=("$file: no $kind interpreter (Debian: lua5.4, tcl)")
        continue
    fi
    [ $status -eq 0 ] || fail "$file does not parse: $env_lines"
    grep -qx "prepend_path PATH /opt/bench_nbc/bin" <<<"$env_lines" || fail "$file: PATH: $env_lines"
    grep -qx "setenv BENCH_NBC_CONFIGS /opt/bench_nbc/share/bench_nbc/configs" <<<"$env_lines" ||
        fail "$file: BENCH_NBC_CONFIGS: $env_lines"
    grep -qx "depends_on mpich" <<<"$env_lines" || fail "$file: does not load its MPI library's module: $env_lines"
    grep -qx "setenv BENCH_NBC_VERSION $(cat VERSION)" <<<"$env_lines" || fail "$file: not this version's: $env_lines"
    checked+=("$file")
done
for s in "${skipped[@]}"; do echo "note: skipped $s"; done
[ ${#checked[@]} -gt 0 ] || skip "${skipped[*]}"
figure "packaging checked: ${checked[*]}"
