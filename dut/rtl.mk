# The FPGA endpoint's RTL: lint, test benches (Verilator) and a synthesis check (Yosys).
#
#   make rtl-test      lint every module, build and run every test bench at each DATA_WIDTH
#   make synth-check   Yosys synthesis of each module (UltraScale+): LUT depth against a budget, cells, LUT, FF, BRAM
#
# A module dut/rtl/NAME.v with a test bench dut/tb/tb_NAME.cpp is listed in
# RTL_MODULES. Each bench is built once per width in RTL_WIDTHS (the bench sees
# -DDATA_WIDTH=W and the RTL -GDATA_WIDTH=W) and links the C library, which is
# the reference it checks the RTL against. Verilator output is cached in
# build/rtl/NAME_wW/.

RTL_DIR := dut/rtl
RTL_SRCS := $(wildcard $(RTL_DIR)/*.v)
RTL_MODULES := sync_fifo roce_icrc_insert roce_icrc_check roce_tx_frame roce_cm eth_arp roce_rx_parse roce_req roce_endpoint
RTL_WIDTHS := 64 512
RTL_BUILD = $(BUILD)/rtl
VERILATOR ?= verilator
YOSYS ?= yosys
VERILATOR_LINT = $(VERILATOR) --lint-only -Wall -Wpedantic

.PHONY: rtl-lint rtl-test synth-check

rtl-lint: ## Verilator lint of every RTL module at each DATA_WIDTH
	@for m in $(RTL_MODULES); do \
		for w in $(RTL_WIDTHS); do \
			$(VERILATOR_LINT) --top-module $$m -GDATA_WIDTH=$$w $(RTL_SRCS) || exit 1; \
		done; \
		echo "rtl-lint: $$m clean at DATA_WIDTH $(RTL_WIDTHS)"; \
	done; \
	for w in $(DUT_SIM_ALL_WIDTHS); do \
		$(VERILATOR_LINT) --top-module roce_endpoint -GDATA_WIDTH=$$w $(RTL_SRCS) || exit 1; \
	done; \
	echo "rtl-lint: roce_endpoint, every module in it, clean at DATA_WIDTH $(DUT_SIM_ALL_WIDTHS)"

# One Verilated bench per module and width.
define RTL_TB_RULE
$(RTL_BUILD)/$(1)_w$(2)/V$(1): $(RTL_SRCS) dut/tb/tb_$(1).cpp $(wildcard dut/common/*.h) $(LIB)
	@mkdir -p $$(dir $$@)
	$(VERILATOR) --cc --exe --build -j 2 -O3 --x-assign fast --x-initial fast -Wno-fatal \
		--top-module $(1) -GDATA_WIDTH=$(2) -Mdir $(RTL_BUILD)/$(1)_w$(2) \
		-CFLAGS "-O2 -DDATA_WIDTH=$(2) -I$(CURDIR)/harness/include -I$(CURDIR)/dut/common" \
		-LDFLAGS "$(addprefix $(CURDIR)/,$(LIB)) $(DEFLATE_LIBS) $(PCAP_LIBS)" \
		$(RTL_SRCS) $(CURDIR)/dut/tb/tb_$(1).cpp >$(RTL_BUILD)/$(1)_w$(2).log 2>&1 || \
		{ tail -n 30 $(RTL_BUILD)/$(1)_w$(2).log; exit 1; }
endef
$(foreach m,$(RTL_MODULES),$(foreach w,$(RTL_WIDTHS),$(eval $(call RTL_TB_RULE,$(m),$(w)))))

RTL_TB_BINS = $(foreach m,$(RTL_MODULES),$(foreach w,$(RTL_WIDTHS),$(RTL_BUILD)/$(m)_w$(w)/V$(m)))

rtl-test: rtl-lint $(RTL_TB_BINS) ## lint, then every RTL test bench at each DATA_WIDTH
	@for b in $(RTL_TB_BINS); do echo "rtl-test: $$b"; $$b || exit 1; done

# Synthesis for a Xilinx UltraScale+ (the 100G CMAC's family; the clock is
# 322.266 MHz): LUT6, CARRY, block and distributed RAM as a real build would
# map them, so the LUT, FF and BRAM counts mean something. Each module at
# DATA_WIDTH 512, flattened, its netlist cached in build/rtl/synth/. Then
# dut/synth_depth.py counts the LUT levels of the longest path (carry chains
# and slice muxes free, see there) and holds it to the module's budget in
# dut/synth-budget.txt: synth-check fails naming every module over budget.
SYNTH_BUILD = $(RTL_BUILD)/synth
SYNTH_BUDGET := dut/synth-budget.txt
SYNTH_JSONS = $(foreach m,$(RTL_MODULES),$(SYNTH_BUILD)/$(m).json)

$(SYNTH_BUILD)/%.json: $(RTL_SRCS)
	@mkdir -p $(dir $@)
	@$(YOSYS) -q -l $(SYNTH_BUILD)/$*.log -p "read_verilog -sv $(RTL_SRCS); chparam -set DATA_WIDTH 512 $*; \
		synth_xilinx -family xcup -top $* -flatten -noiopad -noclkbuf; stat; write_json $@.tmp" >/dev/null || \
		{ tail -n 20 $(SYNTH_BUILD)/$*.log; rm -f $@.tmp; exit 1; }
	@mv $@.tmp $@

synth-check: $(SYNTH_JSONS) ## Yosys synthesis of each RTL module: LUT depth against dut/synth-budget.txt, cells, LUT, FF, BRAM
	@fail=0; for m in $(RTL_MODULES); do \
		python3 dut/synth_depth.py $(SYNTH_BUILD)/$$m.json $$m $(SYNTH_BUDGET) || fail=$$?; \
	done; \
	[ $$fail -eq 0 ] || { echo "synth-check: FAILED (LUT depth over budget or bad netlist)" >&2; exit $$fail; }
