# Tests: `make test` runs the Check unit tests, the integration tests and the
# RTL test benches, and ends with one line "tests: N passed, N failed".
#
#   make unit          Check unit tests (harness/tests/unit/*.c, one binary;
#                      CK_RUN_SUITE=NAME / CK_RUN_CASE=NAME run one suite / case)
#   make integration   harness/tests/integration/run.sh: the files NN-NAME.sh there
#                      (tshark, scapy, CLI, and rocetest run against the Verilator
#                      model of dut/ and its mutants, dut/sim.mk and dut/mutants.mk)
#   make test-list     the integration test files, what each tests, how long it takes
#   T=PATTERN          make test, make check and make integration run only the
#                      integration files whose names contain PATTERN (a,b: either)
#   TEST_JOBS=N        integration files run N at a time (default: the CPUs)

T ?=
TEST_JOBS ?=
INTEGRATION_ARGS = $(if $(T),--filter '$(T)') $(if $(TEST_JOBS),--jobs $(TEST_JOBS))

UNIT_SRCS := $(wildcard harness/tests/unit/*.c)
UNIT_OBJS = $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_BIN = $(BUILD)/bin/unit-tests
$(BUILD)/obj/harness/tests/unit/%.o: harness/tests/unit/%.c $(call config_flags,build) $(call config_flags,check)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CHECK_CFLAGS) -Iharness/tests/unit -Iharness/report -MMD -MP -c $< -o $@

$(UNIT_BIN): $(UNIT_OBJS) $(REPORT_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(UNIT_OBJS) $(REPORT_LIB) $(LIB) $(CHECK_LIBS) $(LDLIBS_COMMON)

unit: $(UNIT_BIN) ## the Check unit tests alone
	cd $(CURDIR) && $(UNIT_BIN)

# The unit test binary too: it writes the sample run whose reports the integration tests check;
# the model and its mutants: 20-run-model.sh and 21-run-mutants.sh run rocetest run against them.
integration: $(ROCETEST) $(UNIT_BIN) $(DUT_SIM_SOS) $(DUT_MUT_SOS) ## the integration tests alone
	bash harness/tests/integration/run.sh $(INTEGRATION_ARGS) $(ROCETEST)

test-list: ## the integration test files (make test T=PATTERN runs those whose names contain PATTERN)
	@bash harness/tests/integration/run.sh --list $(if $(T),--filter '$(T)')

# The quick tier, for iterating: the unit tests, the command line's own tests
# and the golden vectors' regeneration and verdicts; nothing that needs
# Verilator, tshark, scapy or Chromium (those tests are make test's).
# The library's layers depend only downwards (README "Layout"): includes and archives.
check-layers: $(LIB) ## the layer rule: no include or symbol points up, nothing includes from dut/
	@bash harness/scripts/check-layers.sh --archives $(BUILD)/lib .

check: check-layers $(ROCETEST) $(UNIT_BIN) ## quick tests (< 1 min): unit, CLI, vectors; no Verilator, tshark, Chromium
	bash harness/tests/run-all.sh --tier check $(INTEGRATION_ARGS) $(UNIT_BIN) $(ROCETEST)

# Runs both and totals their counts; fails if either fails.
# ... and the RTL test benches of dut/rtl.mk (Verilator; built and cached in build/rtl/).
test: check-layers $(ROCETEST) $(UNIT_BIN) $(DUT_SIM_SOS) $(DUT_MUT_SOS) $(RTL_TB_BINS) ## every test: unit, integration (tshark, scapy, the model, mutants), RTL benches
	bash harness/tests/run-all.sh $(INTEGRATION_ARGS) $(UNIT_BIN) $(ROCETEST) $(RTL_TB_BINS)
