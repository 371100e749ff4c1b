# The Wireshark/tshark plugin (dissectors/, README there), included by the
# Makefile. It links the library's packet and check archives, so the ICRC
# and every rule come from the same code as `rocetest check`.
#
#   make dissector            $(BUILD)/dissector/rocetest.so, and the same in a
#                             plugin folder: WIRESHARK_PLUGIN_DIR=$(BUILD)/dissector/plugins
#   make install-dissector    into your personal plugin folder (`tshark -G folders`);
#                             with PREFIX (or DESTDIR) given: into
#                             $(DESTDIR)$(PREFIX)/lib/<multiarch>/wireshark/plugins/4.0/epan
#   make uninstall-dissector  the same, removed
#   make dissector-screenshot dissectors/screenshot.png: the GUI under Xvfb (the gui group)
#   make sanitize             also the plugin under ASan/UBSan on the fuzz inputs
#
# `make test` (harness/tests/integration/24-dissector.sh) runs dissectors/tests/run.sh.
# Wireshark loads neither WIRESHARK_PLUGIN_DIR nor personal plugins when run
# as root: run it as yourself (the tests switch to nobody when run as root).

DISSECTOR_SRCS := $(wildcard dissectors/*.c)
DISSECTOR_OBJS = $(DISSECTOR_SRCS:%.c=$(BUILD)/obj/%.o)
DISSECTOR_DIR = $(BUILD)/dissector
DISSECTOR_SO = $(DISSECTOR_DIR)/rocetest.so
# A plugin folder as Wireshark lays it out (VERSION/epan/), for WIRESHARK_PLUGIN_DIR.
DISSECTOR_PLUGIN_DIR = $(DISSECTOR_DIR)/plugins
# "4.0": the last part of libwireshark's plugin folder.
DISSECTOR_ABI = $(notdir $(call configured,WIRESHARK_PLUGINDIR,dissector))
DISSECTOR_LIBS = $(call layer_archive,check) $(call layer_archive,packet)
# The test captures' generator (a CM exchange built with the library's cm.c), and the
# tests of capture_state.c.
DISSECTOR_MKCM = $(DISSECTOR_DIR)/mkcm
DISSECTOR_TEST_STATE = $(DISSECTOR_DIR)/test-capture-state

.PHONY: dissector install-dissector uninstall-dissector dissector-screenshot dissector-sanitize

# The library's archives go into a shared object too. Their objects are PIE
# (Debian's default; said explicitly for other compilers), which a shared
# object takes when the archive's symbols stay inside it (--exclude-libs
# below): no -fPIC, which would cost `rocetest icrc` 5.5 % more instructions
# (callgrind: 114.9 M against 108.8 M on a 100 MB capture). The sanitized
# plugin of make sanitize needs -fPIC: ASan's code refers to its runtime.
LIB_PIC_FLAG ?= -fPIE
$(LIB_SRCS:%.c=$(BUILD)/obj/%.o): CFLAGS_COMMON += $(LIB_PIC_FLAG)

$(BUILD)/obj/dissectors/%.o: dissectors/%.c $(call config_flags,build) $(call config_flags,dissector)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -fPIC -fvisibility=hidden $(call configured,WIRESHARK_CFLAGS,dissector) \
		-MMD -MP -c $< -o $@

# --exclude-libs: the library's symbols stay inside the plugin (and bind locally, as PIE code
# assumes); -z defs: nothing left unresolved.
$(DISSECTOR_SO): $(DISSECTOR_OBJS) $(DISSECTOR_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(DISSECTOR_OBJS) -Wl,--exclude-libs,ALL -Wl,-z,defs $(DISSECTOR_LIBS) \
		$(WIRESHARK_LIBS) $(LDLIBS_COMMON)
	@mkdir -p $(DISSECTOR_PLUGIN_DIR)/$(DISSECTOR_ABI)/epan
	cp $@ $(DISSECTOR_PLUGIN_DIR)/$(DISSECTOR_ABI)/epan/rocetest.so

# The tests' programs: no Wireshark in them.
$(BUILD)/obj/dissectors/tests/%.o: dissectors/tests/%.c $(call config_flags,build)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $< -o $@

$(DISSECTOR_MKCM): $(BUILD)/obj/dissectors/tests/mkcm.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LIB) $(LDLIBS_COMMON)

$(DISSECTOR_TEST_STATE): $(BUILD)/obj/dissectors/tests/test_capture_state.o $(BUILD)/obj/dissectors/capture_state.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(filter %.o,$^) $(LIB) $(LDLIBS_COMMON)

dissector: $(DISSECTOR_SO) ## the Wireshark/tshark plugin: build/dissector/rocetest.so (dissectors/README.md)

# The tests (harness/tests/integration/24-dissector.sh) need the plugin, the test programs and the fuzz seeds'
# generator; the bench row needs the plugin.
test integration: $(DISSECTOR_SO) $(DISSECTOR_MKCM) $(DISSECTOR_TEST_STATE) $(FUZZ_MKCORPUS)
bench: $(DISSECTOR_SO)
bench: export BENCH_DISSECTOR_PLUGIN_DIR = $(DISSECTOR_PLUGIN_DIR)

# make sanitize: the plugin built with ASan and UBSan (with its packet and check layers, in
# $(BUILD)/san-dissector), preloaded into tshark for the fuzz part of its tests.
DISSECTOR_SAN = $(BUILD)/san-dissector
sanitize: dissector-sanitize
dissector-sanitize: $(ROCETEST) $(FUZZ_MKCORPUS)
	$(MAKE) BUILD=$(DISSECTOR_SAN) OPT=-O1 SAN_FLAGS="$(SAN_SANITIZE)" LIB_PIC_FLAG=-fPIC \
		$(DISSECTOR_SAN)/dissector/rocetest.so
	DISSECTOR_PLUGIN=$(DISSECTOR_SAN)/dissector/rocetest.so DISSECTOR_SANITIZE=1 \
		bash dissectors/tests/run.sh fuzz $(ROCETEST)

# PREFIX or DESTDIR on the command line (or in the environment): the system
# install under them; otherwise the personal plugin folder tshark names.
DISSECTOR_SYSTEM = $(filter command line environment,$(origin PREFIX) $(origin DESTDIR))
# libwireshark's plugin folder under PREFIX instead of Wireshark's own prefix.
DISSECTOR_SYSTEM_DIR = $(DESTDIR)$(PREFIX)$(patsubst $(WIRESHARK_PREFIX)%,%,$(WIRESHARK_PLUGINDIR))/epan
# The shell commands that print the folder to install into (tshark names the personal one).
DISSECTOR_INSTALL_DIR = $(if $(DISSECTOR_SYSTEM),echo "$(DISSECTOR_SYSTEM_DIR)",\
	d=$$(tshark -G folders 2>/dev/null | sed -n 's/^Personal Plugins:[[:space:]]*//p'); \
	[ -n "$$d" ] || { echo "tshark -G folders names no personal plugin folder" >&2; exit 1; }; echo "$$d/epan")

install-dissector: $(DISSECTOR_SO) ## the plugin into your personal plugin folder (or PREFIX/DESTDIR's)
	@set -e; dir=$$($(DISSECTOR_INSTALL_DIR)); \
	$(INSTALL) -d "$$dir"; \
	$(INSTALL) -m 644 $(DISSECTOR_SO) "$$dir/rocetest.so"; \
	echo "install-dissector: $$dir/rocetest.so"

uninstall-dissector: ## remove what install-dissector installed (same PREFIX, DESTDIR)
	@set -e; dir=$$($(DISSECTOR_INSTALL_DIR)); \
	echo rm -f "$$dir/rocetest.so"; rm -f "$$dir/rocetest.so"

# The GUI with the plugin under Xvfb, a bad-ICRC capture open: dissectors/screenshot.png.
dissector-screenshot: $(DISSECTOR_SO) $(ROCETEST) ## dissectors/screenshot.png: Wireshark's GUI with the plugin, under Xvfb
	bash dissectors/screenshot.sh $(ROCETEST) $(DISSECTOR_PLUGIN_DIR) dissectors/screenshot.png
