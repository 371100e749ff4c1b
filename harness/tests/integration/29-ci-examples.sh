#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CI examples a user copies (harness/ci-examples/: GitHub Actions, GitLab
# CI): each parses, its shard jobs cover every shard of one split, its gate job
# joins and gates them; its rocetest commands run as written and the joined
# shards gate as the baseline run.
# tier: full
# takes: 50
. harness/tests/integration/lib.sh

if needs "ci examples" model python; then
	if ! "$PY" -c 'import yaml' 2>/dev/null; then
		fail "ci examples" "cannot run: $PY cannot import yaml (install python3-yaml)"
	else
		RUN_TAP_TIMEOUT=900 run_tap "ci examples" "$PY" "$HERE/ci_examples_check.py" "$ROCETEST" "$PWD" "$TMP/ci" \
			harness/ci-examples/github-actions.yml harness/ci-examples/gitlab-ci.yml
	fi
fi

summary
