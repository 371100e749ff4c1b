# The FPGA endpoint's RTL: lint, test benches (Verilator) and a synthesis check (Yosys).
#
#   make rtl-test      lint every module, build and run every test bench at each DATA_WIDTH
#   make synth-check   Yosys generic synthesis of each module; prints the cell counts
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
	done

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

# stat lists each module of the hierarchy, then (if there are submodules) the
# "design hierarchy" total: the last "Number of cells" is the whole design's.
synth-check: ## Yosys synthesis of each RTL module, with its cell count
	@mkdir -p $(RTL_BUILD)
	@for m in $(RTL_MODULES); do \
		$(YOSYS) -q -l $(RTL_BUILD)/synth-$$m.log -p "read_verilog -sv $(RTL_SRCS); chparam -set DATA_WIDTH 512 $$m; synth -top $$m; stat" \
			>/dev/null || { tail -n 20 $(RTL_BUILD)/synth-$$m.log; exit 1; }; \
		echo "synth-check: $$m (DATA_WIDTH 512): $$(grep 'Number of cells' $(RTL_BUILD)/synth-$$m.log | tail -n 1 | tr -s ' ')"; \
	done
