/* SPDX-License-Identifier: MIT */
/*
 * The entry points Wireshark looks for in an epan plugin (4.0): its version,
 * the Wireshark version it was built for, and plugin_register(), which hands
 * Wireshark the registration routines of both protocols.
 */
#define WS_BUILD_DLL
#include <epan/packet.h>
#include <epan/proto.h>
#include <ws_symbol_export.h>
#include <ws_version.h>

#include "plugin.h"

/* rocetest's version, as `rocetest --version` says it. */
#ifndef ROCETEST_VERSION
#define ROCETEST_VERSION "dev"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = ROCETEST_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

static void register_protocols(void)
{
	proto_register_rocetest();
	proto_register_rocetest_cm();
}

static void register_handoffs(void)
{
	proto_reg_handoff_rocetest();
	proto_reg_handoff_rocetest_cm();
}

void plugin_register(void)
{
	static proto_plugin plugin = { .register_protoinfo = register_protocols, .register_handoff = register_handoffs };
	proto_register_plugin(&plugin);
}
