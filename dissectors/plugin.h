/* SPDX-License-Identifier: MIT */
/* The two protocols of the rocetest Wireshark plugin (plugin.c registers them). */
#ifndef ROCETEST_DISSECTOR_PLUGIN_H
#define ROCETEST_DISSECTOR_PLUGIN_H

/* The post-dissector "rocetest": ICRC, CNP, rule verdicts, flows (packet-rocetest.c). */
void proto_register_rocetest(void);
void proto_reg_handoff_rocetest(void);

/* The connection-manager frames on UDP 0x4321 and 0x8765, "rocetest_cm" (packet-rocetest-cm.c). */
void proto_register_rocetest_cm(void);
void proto_reg_handoff_rocetest_cm(void);

#endif
