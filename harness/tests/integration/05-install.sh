#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make install and make uninstall into temporary DESTDIRs: the files, pkg-config,
# a program linked against the installed library, the man pages.
# tier: check
# takes: 3
. harness/tests/integration/lib.sh
# make install and uninstall (harness/install.mk) into temporary DESTDIRs: the
# files, pkg-config, a program linked against the installed library, the man pages.
if needs "install" doc; then
	run_tap "install" bash "$HERE/install_check.sh" .
fi

summary
