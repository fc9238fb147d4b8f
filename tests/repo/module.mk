# Repository-wide checks (lint, formatting).
E2E_TESTS += tests/repo/lint.sh
