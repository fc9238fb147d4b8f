# Set-up: the dependency check (scripts/deps.sh) without Debian's tools, as a
# user who cannot install and as root; make install into a prefix and a study
# run from there; the Spack recipe and the module files of packaging/; the
# harnesses (Lmod, JUBE, ReFrame's and Ramble's expressions) on one real run;
# make run's install and build step, quiet on the terminal.
E2E_TESTS += tests/install/deps_found.sh tests/install/deps_missing.sh \
             tests/install/deps_root_install.sh tests/install/install_prefix.sh \
             tests/install/packaging.sh tests/install/harnesses.sh tests/install/run_quiet.sh
# Pure (tests/README.md): the package recipes, read with make -n.
PURE_TESTS += tests/install/packaging.sh
