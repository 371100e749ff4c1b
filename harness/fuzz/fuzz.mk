# Fuzzing and sanitizer runs (included by the Makefile).
#
#   make fuzz [FUZZ_SECONDS=60]
#       libFuzzer + ASan + UBSan on the frame parser (fuzz_parse), the
#       capture reader (fuzz_capture) and the checker with its flow analysis
#       (fuzz_check: captures, and scripts of built packets) and the
#       scenario file parser (fuzz_scenario), all at once, FUZZ_SECONDS each.
#       Seeds come from ../shared/captures, rt_build() (harness/fuzz/mkcorpus.c)
#       and the scenario files in harness/fuzz/corpus-scenario;
#       what the fuzzers find is kept in $(BUILD)/fuzz/grown-*. Fails on any
#       crash, leak, timeout or sanitizer report and prints the reproducer;
#       rerun one with  $(BUILD)/fuzz/bin/fuzz_parse FILE.
#   make sanitize
#       the unit tests and rocetest rebuilt with ASan + UBSan in
#       $(BUILD)/san, then the unit tests, and rocetest show / show --json /
#       icrc on every shared capture (exit 0) and on malformed files (exit 2),
#       every scenario through gen and check, and rocetest run (every suite)
#       against the Verilator model, with no sanitizer report allowed.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR = $(BUILD)/fuzz
FUZZ_SANITIZE = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer $(WARN_FLAGS) -Iharness/include $(PCAP_CFLAGS) $(DEFLATE_CFLAGS) $(FUZZ_SANITIZE)
FUZZ_LIB_OBJS = $(LIB_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_LIB = $(FUZZ_DIR)/lib/librocetest-fuzz.a
FUZZ_TARGETS = $(FUZZ_DIR)/bin/fuzz_parse $(FUZZ_DIR)/bin/fuzz_capture $(FUZZ_DIR)/bin/fuzz_check \
	$(FUZZ_DIR)/bin/fuzz_scenario
FUZZ_MKCORPUS = $(FUZZ_DIR)/bin/mkcorpus
# The real captures, when they are beside the checkout (as in CI).
FUZZ_CAPTURES ?= $(sort $(wildcard ../shared/captures/*/*.pcap ../shared/captures/*/*.pcapng))

SAN_BUILD ?= $(BUILD)/san
SAN_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

.PHONY: fuzz-build fuzz-corpus

# The library again, instrumented for the fuzzers: its own objects, never the normal ones.
# clang and its fuzzer and sanitizer runtimes come with the test group.
$(FUZZ_DIR)/obj/%.o: %.c $(call config_flags,build)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(FUZZ_TARGETS): $(FUZZ_DIR)/bin/%: $(FUZZ_DIR)/obj/harness/fuzz/%.o $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_SANITIZE) -o $@ $< $(FUZZ_LIB) $(PCAP_LIBS) $(DEFLATE_LIBS)

# The corpus builder is an ordinary program on the ordinary library.
$(FUZZ_MKCORPUS): harness/fuzz/mkcorpus.c $(LIB) $(call config_flags,build)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -o $@ $< $(LIB) $(LDLIBS_COMMON)

fuzz-build: $(FUZZ_TARGETS) $(FUZZ_MKCORPUS)

# Seeds are rebuilt from scratch each time; the grown corpora are kept.
fuzz-corpus: $(FUZZ_MKCORPUS)
	rm -rf $(FUZZ_DIR)/corpus-parse $(FUZZ_DIR)/corpus-capture $(FUZZ_DIR)/corpus-check $(FUZZ_DIR)/corpus-scenario
	mkdir -p $(FUZZ_DIR)/corpus-parse $(FUZZ_DIR)/corpus-capture $(FUZZ_DIR)/corpus-check $(FUZZ_DIR)/corpus-scenario
	cp harness/fuzz/corpus-scenario/*.scn $(FUZZ_DIR)/corpus-scenario/
	printf 'x\000\014\000\000\100\037\001\001\001\021\000\000\000\000\001\001' > $(FUZZ_DIR)/corpus-check/script-send-ack
	$(FUZZ_MKCORPUS) $(FUZZ_DIR)/corpus-parse $(FUZZ_DIR)/corpus-capture $(FUZZ_CAPTURES)

fuzz: fuzz-build fuzz-corpus ## libFuzzer with ASan/UBSan on the parser, capture reader, checker, scenarios
	bash harness/fuzz/run-fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

sanitize: $(DUT_SIM_SO) ## unit tests, the CLI and every run suite under ASan/UBSan
	$(MAKE) BUILD=$(SAN_BUILD) OPT=-O1 SAN_FLAGS="$(SAN_SANITIZE)" $(SAN_BUILD)/bin/rocetest \
		$(SAN_BUILD)/bin/unit-tests
	DUT_SIM_SO=$(DUT_SIM_SO) bash harness/fuzz/run-sanitize.sh $(SAN_BUILD) $(SAN_BUILD)/bin/unit-tests $(FUZZ_CAPTURES)

-include $(shell find $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null)
