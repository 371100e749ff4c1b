# The interop lab (README "Interop lab"): Debian's kernel with soft-RoCE
# (rdma_rxe) under QEMU, the virtual board and perftest against it. deps.sh
# (group interop) installs QEMU and the tools and extracts the kernel
# (INTEROP_KERNEL_ROOT, INTEROP_KVER, INTEROP_VMLINUZ in build/config.mk).
# The initramfs is rebuilt only when one of its inputs changes.
# The full-size runs (the issue's bar: 105 MB of WRITEs and 100,000 SENDs
# from the board) are the default: about 11 minutes under TCG on the 2-core
# machine (README "Interop lab"). INTEROP_FULL=ci (what CI runs): the rxe
# runs at full size, the board's volume runs at a quarter (26 MB of WRITEs
# with the generator restarted, 25,000 SENDs), about 5. INTEROP_FULL=0:
# small sizes, about 2.

INTEROP_BUILD = $(BUILD)/interop
INTEROP_INITRD = $(INTEROP_BUILD)/initrd.cpio.gz
INTEROP_REPORTS = reports/interop
INTEROP_MODEL = $(BUILD)/dut/w512/libroce_dut_sim.so
INTEROP_FULL ?= 1
ifeq ($(filter 0 1 ci,$(INTEROP_FULL)),)
$(error INTEROP_FULL must be 1 (full sizes), ci or 0 (small), not '$(INTEROP_FULL)')
endif
INTEROP_ARGS = $(if $(filter-out 0,$(INTEROP_FULL)),rocetest.full=$(INTEROP_FULL)) $(if $(INTEROP_MUTANT),rocetest.mutant=$(INTEROP_MUTANT))

$(INTEROP_INITRD): harness/interop/initramfs.sh harness/interop/init.sh harness/interop/plan.sh $(ROCETEST) \
		$(INTEROP_MODEL) $(call config_flags,interop)
	@mkdir -p $(dir $@)
	bash harness/interop/initramfs.sh $@ $(call configured,INTEROP_KERNEL_ROOT,interop) $(INTEROP_KVER) \
		harness/interop $(ROCETEST) $(INTEROP_MODEL)

interop: $(INTEROP_INITRD) $(ROCETEST) ## the interop lab: soft-RoCE in a QEMU VM against perftest and the virtual board (INTEROP_FULL=ci or 0: smaller)
	bash harness/scripts/interop.sh $(INTEROP_VMLINUZ) $(INTEROP_INITRD) $(INTEROP_REPORTS) $(ROCETEST) $(INTEROP_ARGS)
.PHONY: interop
