#!/usr/bin/env python3
"""LUT depth and resource counts of a module mapped by Yosys synth_xilinx.

Usage: synth_depth.py NETLIST.json MODULE BUDGET_FILE

Reads the flattened netlist Yosys wrote (write_json after synth_xilinx
-family xcup -flatten), prints one line

  synth-check: MODULE: depth D LUT levels (budget B), cells C, LUT L, FF F, BRAM R (36 Kb), LUTRAM M

and exits 1 when D exceeds the module's budget in BUDGET_FILE (lines
"MODULE LEVELS REASON", # comments; modules not listed get the "*" line),
2 on a bad input.

Depth: the longest path from a register, RAM or port output to a register,
RAM or port input, counting the LUTs on it. Carry chains (CARRY8), the slice
multiplexers (MUXF7/8/9) and constant drivers count 0: a CARRY8 adds about
0.1 ns per 8 bits and a MUXF about as much, where a LUT with its routing
costs 0.4-0.5 ns at UltraScale+ speeds, so at 322 MHz (3.1 ns) the LUT count
is what decides timing. (Yosys' own `ltp` counts every cell: it would charge
a 32-bit compare 4 levels for its carry chain.)
"""
import json
import sys

# cells that end a combinational path: their outputs start a new one
SEQ_PREFIXES = ("FD", "RAMB", "SRL", "DSP")
# distributed RAM: written on the clock, read combinationally (address to
# data: one LUT level); its other inputs end a path
LUTRAM_PREFIXES = ("RAM32", "RAM64", "RAM128", "RAM256", "RAM512")


def lutram_addr_port(port):
    return port.startswith(("ADDR", "DPRA")) or (port[0] == "A" and port[1:].isdigit())
FREE_CELLS = ("CARRY4", "CARRY8", "MUXF7", "MUXF8", "MUXF9", "GND", "VCC", "INV", "BUFG")


def is_seq(ctype):
    return ctype.startswith(SEQ_PREFIXES)


def cost(ctype):
    if ctype.startswith("LUT") or ctype.startswith(LUTRAM_PREFIXES):
        return 1
    if ctype in FREE_CELLS:
        return 0
    raise ValueError("unexpected combinational cell type %s" % ctype)


def load_budget(path, module):
    default = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split(None, 2)
            if len(fields) < 3 or not fields[1].isdigit():
                raise ValueError("%s:%d: expected MODULE LEVELS REASON" % (path, n))
            if fields[0] == module:
                return int(fields[1])
            if fields[0] == "*":
                default = int(fields[1])
    if default is None:
        raise ValueError("%s: no budget for %s and no '*' line" % (path, module))
    return default


def depth_of(mod):
    """Longest LUT path: a memoised depth-first walk from each cell back to its drivers."""
    cells = mod["cells"]
    driver = {}     # net bit -> the combinational cell driving it
    inputs = {}     # cell -> the net bits that reach its outputs combinationally
    ends = {}       # cell -> the net bits it takes in on the clock
    for name, c in cells.items():
        dirs = c.get("port_directions", {})
        ins = [(port, b) for port, bits in c["connections"].items() if dirs.get(port) == "input"
               for b in bits if isinstance(b, int)]
        if c["type"].startswith(LUTRAM_PREFIXES):
            inputs[name] = [b for port, b in ins if lutram_addr_port(port)]
            ends[name] = [b for port, b in ins if not lutram_addr_port(port)]
        elif is_seq(c["type"]):
            inputs[name] = []
            ends[name] = [b for port, b in ins]
        else:
            inputs[name] = [b for port, b in ins]
            ends[name] = []
        if not is_seq(c["type"]):
            for port, bits in c["connections"].items():
                if dirs.get(port) == "output":
                    for b in bits:
                        driver[b] = name
    level = {}      # combinational cell -> LUTs on the longest path ending at its output
    via = {}        # ... and the net bit that path comes in on
    active = set()

    def arrival(name, which):
        """LUT levels of the longest path into the cell's inputs, and the bit it comes in on."""
        best, best_bit = 0, None
        for b in which[name]:
            d = driver.get(b)
            if d is not None and out_level(d) >= best:
                best, best_bit = out_level(d), b
        return best, best_bit

    def out_level(name):
        if name not in level:
            if name in active:
                raise ValueError("combinational loop through cell %s" % name)
            active.add(name)
            best, via[name] = arrival(name, inputs)
            level[name] = best + cost(cells[name]["type"])
            active.discard(name)
        return level[name]

    worst, end_bit = 0, None
    for name, c in cells.items():
        best, bit = arrival(name, ends)
        if not is_seq(c["type"]) and out_level(name) > best:
            best, bit = out_level(name), c["connections"][next(
                p for p, d in c.get("port_directions", {}).items() if d == "output")][0]
        if best > worst:
            worst, end_bit = best, bit
    path = []       # the net bits of the worst path, its end first
    while end_bit is not None:
        path.append(end_bit)
        end_bit = via.get(driver.get(end_bit))
    return worst, path


def bit_names(mod):
    """A readable name for each net bit: the shortest public net name holding it."""
    names = {}
    for net, info in mod.get("netnames", {}).items():
        if info.get("hide_name"):
            continue
        for i, b in enumerate(info["bits"]):
            label = "%s[%d]" % (net, i) if len(info["bits"]) > 1 else net
            if isinstance(b, int) and (b not in names or len(label) < len(names[b])):
                names[b] = label
    return names


def counts(mod):
    n = {"cells": 0, "lut": 0, "ff": 0, "bram": 0.0, "lutram": 0}
    for c in mod["cells"].values():
        t = c["type"]
        n["cells"] += 1
        if t.startswith("LUT"):
            n["lut"] += 1
        elif t.startswith("FD"):
            n["ff"] += 1
        elif t.startswith("RAMB36"):
            n["bram"] += 1
        elif t.startswith("RAMB18"):
            n["bram"] += 0.5
        elif t.startswith(("RAM32", "RAM64", "RAM128", "RAM256", "RAM512")):
            n["lutram"] += 1
    return n


def main(argv):
    sys.setrecursionlimit(1000000)
    if len(argv) != 4:
        sys.stderr.write("usage: synth_depth.py NETLIST.json MODULE BUDGET_FILE\n")
        return 2
    path, module, budget_path = argv[1:]
    try:
        budget = load_budget(budget_path, module)
        with open(path, encoding="utf-8") as f:
            mods = json.load(f).get("modules", {})
        if module not in mods:
            raise ValueError("%s: no module %s in the netlist" % (path, module))
        mod = mods[module]
        depth, path = depth_of(mod)
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write("synth_depth.py: %s\n" % e)
        return 2
    n = counts(mod)
    print("synth-check: %s: depth %d LUT levels (budget %d), cells %d, LUT %d, FF %d, BRAM %g (36 Kb), LUTRAM %d"
          % (module, depth, budget, n["cells"], n["lut"], n["ff"], n["bram"], n["lutram"]))
    sys.stdout.flush()
    if depth > budget:
        names = bit_names(mod)
        sys.stderr.write("synth-check: %s: its longest path, start to end (named nets on it): %s\n"
                         % (module, " -> ".join(names[b] for b in reversed(path) if b in names)))
        sys.stderr.write("synth-check: %s: %d LUT levels exceed its budget of %d (%s)\n"
                         % (module, depth, budget, budget_path))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
