# rocetest: RoCEv2 conformance and interop test harness.
#
#   make            the library and build/bin/rocetest
#   make conformance  the main job: every conformance suite against the FPGA endpoint of dut/
#                   (Verilator model), reports in reports/runs/<time>/ and reports/runs/latest
#   make demo       the checker demo: generate, show, verify and check a capture, then check ../shared
#   make test       unit tests (Check) and integration tests (tshark, scapy, CLI)
#   make fuzz       libFuzzer + ASan/UBSan on the parser and the capture reader
#   make sanitize   the unit tests built with ASan/UBSan
#   make bench      throughput against tshark and zlib on a generated 1 GB capture
#   make vectors    regenerate vectors/ (golden pcaps + expected verdicts) from vectors/scenarios/
#
# Missing Debian packages are installed on first use (as root), see
# harness/scripts/deps.sh. Output goes to build/.

BUILD ?= build
CONFIG := build/config.mk
DEPS := harness/scripts/deps.sh

CC ?= cc
OPT ?= -O2
SAN_FLAGS ?=
CFLAGS_COMMON = -std=c11 -D_GNU_SOURCE $(OPT) -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Iharness/include -Ireports -Idut/sim $(PCAP_CFLAGS) $(DEFLATE_CFLAGS) $(SAN_FLAGS)
LDLIBS_COMMON = $(PCAP_LIBS) $(DEFLATE_LIBS) -lm $(SAN_FLAGS)

LIB_SRCS := $(wildcard harness/lib/*.c)
CLI_SRCS := $(wildcard harness/cli/*.c)
# The report writers (JSON, JUnit, HTML) read what the library's checker collected.
REPORT_SRCS := $(wildcard reports/*.c)
LIB_OBJS = $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS = $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
REPORT_OBJS = $(REPORT_SRCS:%.c=$(BUILD)/obj/%.o)
LIB = $(BUILD)/lib/librocetest.a
REPORT_LIB = $(BUILD)/lib/librocetest-report.a
ROCETEST = $(BUILD)/bin/rocetest
GENCAP = $(BUILD)/bin/rocetest-gencap

.PHONY: all clean conformance demo test unit integration fuzz sanitize bench deps-test help vectors
.DEFAULT_GOAL := all

# The configuration (and the Debian packages behind it) comes first: make
# rebuilds the included file when it is missing and then restarts itself.
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
include $(CONFIG)
endif
$(CONFIG): $(DEPS)
	bash $(DEPS) --config $@ build

all: $(ROCETEST)

$(BUILD)/obj/%.o: %.c $(CONFIG)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(REPORT_LIB): $(REPORT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(ROCETEST): $(CLI_OBJS) $(REPORT_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(CLI_OBJS) $(REPORT_LIB) $(LIB) $(LDLIBS_COMMON)

# Test and benchmark dependencies are installed only when those are run.
deps-test:
	@bash $(DEPS) build test

# rtl.mk first: tests.mk's `test` needs its list of RTL test benches.
-include dut/rtl.mk
-include dut/sim.mk
-include dut/mutants.mk
-include harness/tests/tests.mk
-include harness/fuzz/fuzz.mk
-include harness/bench/bench.mk

# The main job: every suite of `rocetest run` against the Verilator model of
# the FPGA endpoint; JUnit, summary.json, the HTML report (goodput plot, per
# test its capture and check report with ladder diagrams) in
# reports/runs/<UTC time>/, reports/runs/latest pointing at it. Fails when a
# test fails. SEED=N changes the seed (default 1).
SEED ?= 1
RUNS_DIR = reports/runs
conformance: $(ROCETEST) dut-sim
	@stamp=$$(date -u +%Y%m%dT%H%M%SZ); mkdir -p $(RUNS_DIR); \
	$(ROCETEST) run --dut sim --seed $(SEED) --report $(RUNS_DIR)/$$stamp; rc=$$?; \
	if [ -f $(RUNS_DIR)/$$stamp/summary.json ]; then ln -sfn $$stamp $(RUNS_DIR)/latest; fi; \
	echo "conformance: report in $(RUNS_DIR)/$$stamp/index.html (also $(RUNS_DIR)/latest/)"; exit $$rc

# A demo of the checker: generate a small RC capture with valid ICRCs, show it, check
# it against the rule catalogue with all three reports; run a scenario (a lost
# packet, NAK, go-back-N) through the reference model and check it; then check
# every real capture in ../shared when it is there (each must be conformant).
DEMO_DIR = $(BUILD)/demo
demo: $(ROCETEST) $(GENCAP)
	@mkdir -p $(DEMO_DIR)
	$(GENCAP) --bytes 64K --seed 1 -o $(DEMO_DIR)/rc-write.pcap
	$(ROCETEST) show $(DEMO_DIR)/rc-write.pcap | head -n 12
	$(ROCETEST) icrc $(DEMO_DIR)/rc-write.pcap
	$(ROCETEST) check --pmtu 1024 --json $(DEMO_DIR)/rc-write.json --junit $(DEMO_DIR)/rc-write.xml \
		--html $(DEMO_DIR)/rc-write.html $(DEMO_DIR)/rc-write.pcap
	$(ROCETEST) gen vectors/scenarios/nak-go-back-n.scn -o $(DEMO_DIR)/nak-go-back-n.pcap \
		--expect $(DEMO_DIR)/nak-go-back-n.json
	$(ROCETEST) check --pmtu 1024 --timeout-us 67108.864 --retry-cnt 7 --rnr-retry 7 \
		--html $(DEMO_DIR)/nak-go-back-n.html $(DEMO_DIR)/nak-go-back-n.pcap
	@if [ -d ../shared/captures ]; then \
		$(ROCETEST) check --max-report 5 --json $(DEMO_DIR)/shared.json --junit $(DEMO_DIR)/shared.xml \
			--html $(DEMO_DIR)/shared.html ../shared/captures/*/*.pcap || exit $$?; \
	fi
	@echo "demo: reports in $(DEMO_DIR)/ (rc-write.{json,xml,html}, nak-go-back-n.html, shared.{json,xml,html})"

# The golden vectors are committed; a test asserts that this reproduces them byte for byte.
vectors: $(ROCETEST)
	bash harness/scripts/make-vectors.sh $(ROCETEST) vectors

help:
	@sed -n '3,15p' Makefile

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
