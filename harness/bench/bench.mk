# Benchmarks: `make bench` generates a capture of RC traffic (BENCH_BYTES,
# default 1G = 1073741824 bytes, under build/bench/), runs each contender once
# on it and prints a table (also build/bench/results.json). The rows are
# listed in harness/bench/bench.sh.
#
#   make bench                     the full 1 GB run (tshark takes a while)
#   make bench BENCH_BYTES=100M    a quick one
#
# build/bin/rocetest-gencap (the traffic generator, also for `make demo`)
# needs only the build dependencies; bench-zlib-crc32 needs zlib (test group).

BENCH_BYTES ?= 1G
GENCAP = $(BUILD)/bin/rocetest-gencap
BENCH_ZLIB_CRC32 = $(BUILD)/bin/bench-zlib-crc32
# Deferred (=): zlib may be installed by deps-test only once make is running.
ZLIB_CFLAGS = $(shell pkg-config --cflags zlib)
ZLIB_LIBS = $(shell pkg-config --libs zlib)

# The generator shares the command line's helpers (number parsing, messages).
$(GENCAP): $(BUILD)/obj/harness/bench/gencap.o $(BUILD)/obj/harness/cli/cli.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS_COMMON)

$(BUILD)/obj/harness/bench/zlib_crc32.o: harness/bench/zlib_crc32.c $(CONFIG) | deps-test
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(ZLIB_CFLAGS) -MMD -MP -c $< -o $@

$(BENCH_ZLIB_CRC32): $(BUILD)/obj/harness/bench/zlib_crc32.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(ZLIB_LIBS) $(LDLIBS_COMMON)

bench: deps-test $(ROCETEST) $(GENCAP) $(BENCH_ZLIB_CRC32)
	BENCH_BYTES='$(BENCH_BYTES)' bash harness/bench/bench.sh $(ROCETEST) $(GENCAP) $(BENCH_ZLIB_CRC32) $(BUILD)/bench
