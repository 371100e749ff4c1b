# Tests: `make test` runs the Check unit tests, the integration tests and the
# RTL test benches, and ends with one line "tests: N passed, N failed".
#
#   make unit          Check unit tests (harness/tests/unit/*.c, one binary)
#   make integration   harness/tests/integration/run.sh (tshark, scapy, CLI, and
#                      rocetest run against the Verilator model of dut/ and its
#                      mutants, dut/sim.mk and dut/mutants.mk)

UNIT_SRCS := $(wildcard harness/tests/unit/*.c)
UNIT_OBJS = $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_BIN = $(BUILD)/bin/unit-tests
# Deferred (=): Check may be installed by deps-test only once make is running.
CHECK_CFLAGS = $(shell pkg-config --cflags check)
CHECK_LIBS = $(shell pkg-config --libs check)

$(BUILD)/obj/harness/tests/unit/%.o: harness/tests/unit/%.c $(CONFIG) | deps-test
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CHECK_CFLAGS) -Iharness/tests/unit -MMD -MP -c $< -o $@

$(UNIT_BIN): $(UNIT_OBJS) $(REPORT_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(UNIT_OBJS) $(REPORT_LIB) $(LIB) $(CHECK_LIBS) $(LDLIBS_COMMON)

unit: deps-test $(UNIT_BIN)
	cd $(CURDIR) && $(UNIT_BIN)

# The unit test binary too: it writes the sample run whose reports the integration tests check;
# the model and its mutants: section 9 runs rocetest run against them.
integration: deps-test $(ROCETEST) $(UNIT_BIN) $(DUT_SIM_SOS) $(DUT_MUT_SOS)
	bash harness/tests/integration/run.sh $(ROCETEST)

# Runs both and totals their counts; fails if either fails.
# ... and the RTL test benches of dut/rtl.mk (Verilator; built and cached in build/rtl/).
test: deps-test deps-rtl $(ROCETEST) $(UNIT_BIN) $(DUT_SIM_SOS) $(DUT_MUT_SOS) $(RTL_TB_BINS)
	bash harness/tests/run-all.sh $(UNIT_BIN) $(ROCETEST) $(RTL_TB_BINS)
