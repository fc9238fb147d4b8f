# Repository-wide checks (lint, formatting, every collective documented and
# data-checked).
E2E_TESTS += tests/repo/lint.sh tests/repo/collectives_documented.sh tests/repo/cli_conventions.sh
