# Benchmarks: `make bench` generates a capture of RC traffic (BENCH_BYTES,
# default 1G = 1073741824 bytes, under build/bench/), runs each contender once
# on it and prints a table (also build/bench/results.json). The rows are
# listed in harness/bench/bench.sh. A second table times `rocetest gen` on
# harness/bench/gen-write-pmtu*.scn beside scapy (Debian's python3-scapy,
# harness/bench/gen_bench.py) building the same packets; the target is 1000x.
#
#   make bench                     the full 1 GB run (tshark takes a while)
#   make bench BENCH_BYTES=100M    a quick one
#   make bench BENCH_SCAPY_FRAMES=0  without the generation table
#
# build/bin/rocetest-gencap (the traffic generator, also for `make demo`)
# needs only the build dependencies; bench-zlib-crc32 needs zlib (test group).

BENCH_BYTES ?= 1G
# Frames scapy rebuilds per generation scenario (about 1000 a second).
BENCH_SCAPY_FRAMES ?= 2000
GENCAP = $(BUILD)/bin/rocetest-gencap
BENCH_ZLIB_CRC32 = $(BUILD)/bin/bench-zlib-crc32

# The generator shares the command line's helpers (number parsing, messages).
$(GENCAP): $(BUILD)/obj/harness/bench/gencap.o $(BUILD)/obj/harness/cli/cli.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS_COMMON)

$(BUILD)/obj/harness/bench/zlib_crc32.o: harness/bench/zlib_crc32.c $(call config_flags,build) $(call config_flags,test)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(ZLIB_CFLAGS) -MMD -MP -c $< -o $@

$(BENCH_ZLIB_CRC32): $(BUILD)/obj/harness/bench/zlib_crc32.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(ZLIB_LIBS) $(LDLIBS_COMMON)

# Hardware mode (harness/bench/hw_bench.sh, root): the live path's frames/s over
# a veth pair and the virtual board's frame rate against the throughput suite.
LIVEBENCH = $(BUILD)/bin/rocetest-livebench
$(LIVEBENCH): $(BUILD)/obj/harness/bench/livebench.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS_COMMON)

bench: $(ROCETEST) $(GENCAP) $(BENCH_ZLIB_CRC32) $(LIVEBENCH) $(DUT_SIM_SO) ## throughput against tshark, scapy and zlib; the live path and the virtual board (BENCH_BYTES=100M: quick)
	BENCH_BYTES='$(BENCH_BYTES)' BENCH_SCAPY_FRAMES='$(BENCH_SCAPY_FRAMES)' bash harness/bench/bench.sh $(ROCETEST) $(GENCAP) $(BENCH_ZLIB_CRC32) $(BUILD)/bench
	bash harness/bench/hw_bench.sh $(ROCETEST) $(LIVEBENCH) $(BUILD)/bench
