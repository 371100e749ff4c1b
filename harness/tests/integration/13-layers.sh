#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The library's layers depend only downwards: check-layers.sh on this tree and on
# broken copies.
# tier: check
# takes: 20
. harness/tests/integration/lib.sh
LAYERS_CHECK=harness/scripts/check-layers.sh
LIBDIR=$(dirname "$(dirname "$ROCETEST")")/lib
run bash "$LAYERS_CHECK" --archives "$LIBDIR" .
want_rc 0; out_has "every dependency points down"
check "layers: this tree, its includes and its archives"
# layered_copy DIR: the sources the check reads, in DIR.
layered_copy() {
	rm -rf "$1" && mkdir -p "$1/dut" && cp -r harness "$1/" && cp -r dut/sim "$1/dut/"
}
layered_copy "$TMP/layers-up"
sed -i '0,/^#include "rocetest\/packet.h"/s//#include "rocetest\/packet.h"\n#include "rocetest\/run.h"/' "$TMP/layers-up/harness/lib/packet/parse.c"
run bash "$LAYERS_CHECK" "$TMP/layers-up"
want_rc 1; out_has "harness/lib/packet/parse.c:"; out_has "includes rocetest/run.h of layer run from layer packet"
check "layers: a packet file including a run header fails, naming the file, line and layers"
layered_copy "$TMP/layers-header"
sed -i '0,/^#include "rocetest\/opcode.h"/s//#include "rocetest\/opcode.h"\n#include "rocetest\/run.h"/' "$TMP/layers-header/harness/include/rocetest/packet.h"
run bash "$LAYERS_CHECK" "$TMP/layers-header"
want_rc 1; out_has "harness/include/rocetest/packet.h:"; out_has "includes rocetest/run.h of layer run from layer packet"
check "layers: a public header of the packet layer including a run header fails (a header is judged by its Layer: line)"
layered_copy "$TMP/layers-private"
printf '#include "../check/flow.h"\n' >>"$TMP/layers-private/harness/lib/model/sim.c"
run bash "$LAYERS_CHECK" "$TMP/layers-private"
want_rc 1; out_has "harness/lib/model/sim.c:"; out_has "a private header of check"
check "layers: a model file including the checker's private header fails"
layered_copy "$TMP/layers-dut"
printf '#include "roce_dut_sim.h"\n' >>"$TMP/layers-dut/harness/cli/cmd_run.c"
run bash "$LAYERS_CHECK" "$TMP/layers-dut"
want_rc 1; out_has "harness/cli/cmd_run.c:"; out_has "which is dut/'s"
check "layers: the CLI including a header of dut/ fails"
# An archive of a lower layer that calls into a higher one: the symbol check.
mkdir -p "$TMP/layers-ar" && cp "$LIBDIR"/librocetest-*.a "$TMP/layers-ar/"
printf 'int rt_run_test(void);\nint rt_layer_up(void) { return rt_run_test(); }\n' >"$TMP/layers-ar/up.c"
if cc -c -o "$TMP/layers-ar/up.o" "$TMP/layers-ar/up.c" 2>"$ERR" && ar r "$TMP/layers-ar/librocetest-check.a" "$TMP/layers-ar/up.o" 2>>"$ERR"; then
	run bash "$LAYERS_CHECK" --archives "$TMP/layers-ar" .
	want_rc 1; out_has "librocetest-check.a: uses rt_run_test"
else
	probs+=("could not build the broken archive: $(snippet "$ERR")")
fi
check "layers: a check archive using a run symbol fails"

summary
