# Mutants of the FPGA endpoint: the Verilator model built from dut/rtl/ with
# one small edit each that models a firmware bug (dut/mutants/mutants.txt
# lists them and describes the format). The integration test
# harness/tests/integration/21-run-mutants.sh runs a suite against each and require it
# to fail with the table's text: the suites catch a broken endpoint.
#
#   make dut-mutants   build/dut/mutants/NAME/libroce_dut_sim.so for each NAME
#
# Per mutant: dut/mutants/mutate.py copies dut/rtl/*.v to
# build/dut/mutants/NAME/rtl/ and applies the edit, failing the build when
# the original text is not found exactly once (an RTL edit must not silently
# disable a mutant); then dut/sim.mk's DUT_SIM_RULE builds the model from
# there at DATA_WIDTH 512 (about 15 s each, one at a time under its lock).
# mutate.py rewrites only files whose content changes, so editing one entry
# of the table rebuilds only that mutant (rm -rf build/dut/mutants/NAME to
# start one afresh).

DUT_MUT_TABLE := dut/mutants/mutants.txt
DUT_MUT_SCRIPT := dut/mutants/mutate.py
DUT_MUT_BUILD = $(DUT_SIM_BUILD)/mutants
DUT_MUT_NAMES := $(shell sed -n 's/^mutant[[:space:]][[:space:]]*\([^[:space:]]*\).*/\1/p' $(DUT_MUT_TABLE))
DUT_MUT_SOS = $(foreach m,$(DUT_MUT_NAMES),$(DUT_MUT_BUILD)/$(m)/libroce_dut_sim.so)

.PHONY: dut-mutants

dut-mutants: $(DUT_MUT_SOS) ## the RTL mutants of dut/mutants/mutants.txt, each as a model

# $(1): the mutant. Its RTL: mutate.py writes all the files, then the stamp;
# the files hang off the stamp by an empty recipe, so make looks at their
# times again and rebuilds the model only if one changed (make -n, which
# cannot look, lists the model's rules after a table edit all the same).
define DUT_MUT_RULE
$(DUT_MUT_BUILD)/$(1)/rtl/.mutated: $(RTL_SRCS) $(DUT_MUT_TABLE) $(DUT_MUT_SCRIPT)
	@python3 $(DUT_MUT_SCRIPT) $(DUT_MUT_TABLE) $(1) $(RTL_DIR) $(DUT_MUT_BUILD)/$(1)/rtl || \
		{ echo "dut-mutants: FAILED to make the RTL of mutant $(1) ($(DUT_MUT_TABLE))"; exit 1; }
	@touch $$@

$(addprefix $(DUT_MUT_BUILD)/$(1)/rtl/,$(notdir $(RTL_SRCS))): $(DUT_MUT_BUILD)/$(1)/rtl/.mutated ;

$(call DUT_SIM_RULE,512,$(DUT_MUT_BUILD)/$(1),$(addprefix $(DUT_MUT_BUILD)/$(1)/rtl/,$(notdir $(RTL_SRCS))))
endef
$(foreach m,$(DUT_MUT_NAMES),$(eval $(call DUT_MUT_RULE,$(m))))
