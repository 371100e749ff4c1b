# SPDX-License-Identifier: MIT
"""`rocetest report`: a results file (the interop lab's results.tsv) as the reports of a conformance run.

usage: report_check.py ROCETEST UNIT_TESTS XSD OUTDIR [REPORT_DIR...]

The unit tests write a conformance run's sample reports (as for
run_report_check.py) into OUTDIR/sample; their keys are the shape both kinds
of report are held to. Then, with a crafted results file like the lab's:
  reports  `rocetest report` exits 1 (a test failed) and writes summary.json,
           junit.xml and index.html, which pass run_report_check.py's JSON and
           JUnit checks (xmllint against XSD) and the page scan of
           check_report.py; every figure of the file is where it belongs
           (tests, failures, wall times, captures, messages, bytes, failure
           text, goodput entries); without its failed line the exit is 0.
  errors   a bad line exits 2 naming the file, the line and the field, and
           writes no report; so do an empty file, a missing one and a
           missing option.
Each REPORT_DIR (e.g. reports/interop/latest) gets the structural checks too.
Prints "ok - ..." / "FAIL - ..." per check.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_report as cr  # noqa: E402  (report(), the strict JSON reader, the page scan)
import run_report_check as rrc  # noqa: E402  (a conformance run's JSON and JUnit checks)

GOOD = [
    ("rxe", "write-bw", "pass", "8.0", "captures/write-bw.pcap",
     "op=WRITE size=65536 messages=200 bytes=13107200 gbps=0.16", "ib_write_bw -s 65536 -n 200"),
    ("rxe", "diff", "pass", "0.6", "-", "-", "SAME (no semantic difference)"),
    ("board", "send", "pass", "6.4", "captures/send.pcap",
     "op=SEND size=64 messages=2000 bytes=128000 gbps=0.001 cq_errors=0", "rocetest peer --count 2000"),
]
FAILED = ("board", "write", "fail", "11.3", "captures/write.pcap",
          "op=WRITE size=65536 messages=60 bytes=3932160 cq_errors=4", "rocetest peer exit 1: 4 completion errors")


def write_results(path, lines, extra=""):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# SUITE NAME VERDICT WALL_S CAPTURE FIGURES TEXT\n")
        f.writelines("\t".join(line) + "\n" for line in lines)
        f.write(extra)


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


def adopt_sample_shape(unit, outdir):
    """The conformance sample's keys become run_report_check's: one shape for both reports."""
    sample = os.path.join(outdir, "sample")
    os.makedirs(sample, exist_ok=True)
    env = dict(os.environ, CK_RUN_SUITE="run_report", ROCETEST_RUN_REPORT_SAMPLES=sample)
    subprocess.run([unit], env=env, capture_output=True, timeout=120)
    obj = cr.strict_json(os.path.join(sample, "summary.json"))
    rrc.TOP = list(obj)
    rrc.CASE = set(obj["suites"][0]["cases"][0])
    return obj


def structure_problems(report_dir, xsd):
    obj = cr.strict_json(os.path.join(report_dir, "summary.json"))
    probs = rrc.json_problems(obj) + rrc.junit_problems(os.path.join(report_dir, "junit.xml"), xsd, obj)
    scan = cr.PageScan()
    with open(os.path.join(report_dir, "index.html"), encoding="utf-8") as f:
        scan.feed(f.read())
    probs += list(scan.probs) + ([f"{scan.scripts} <script> elements"] if scan.scripts else [])
    return obj, probs


def figures_of(figures):
    return dict(w.split("=") for w in figures.split()) if figures != "-" else {}


def figure_problems(obj, lines):
    """Every line's figures and text in the JSON's case of it."""
    cases = {(s["name"], c["name"]): c for s in obj["suites"] for c in s["cases"]}
    probs = []
    for suite, name, verdict, wall, cap, figures, text in lines:
        c = cases.get((suite, name))
        if c is None:
            probs.append(f"{suite}/{name} is missing")
            continue
        fig = figures_of(figures)
        want = {"passed": verdict == "pass", "wall_s": float(wall), "pcap": None if cap == "-" else cap,
                "completions": int(fig.get("messages", 0)), "payload_bytes": int(fig.get("bytes", 0)),
                "failure": None if verdict == "pass" else text}
        probs += [f"{suite}/{name}: {k} {c[k]!r}, expected {v!r}" for k, v in want.items() if c[k] != v]
        if not c["description"].startswith(text):
            probs.append(f"{suite}/{name}: description {c['description']!r}")
    goodput = {(g["suite"], g["test"]): g for g in obj["metrics"]["goodput"]}
    for suite, name, _, _, _, figures, _ in lines:
        fig = figures_of(figures)
        g = goodput.pop((suite, name), None)
        if "gbps" in fig and (g is None or g["gbps"] != float(fig["gbps"]) or g["opcode"] != fig["op"]
                              or g["msg_size"] != int(fig["size"])):
            probs.append(f"{suite}/{name}: goodput entry {g}, figures {figures}")
    return probs + [f"goodput entry {k} for no measured test" for k in goodput]


def check_reports(rocetest, xsd, outdir):
    results, rep = os.path.join(outdir, "results.tsv"), os.path.join(outdir, "lab")
    lines = GOOD + [FAILED]
    write_results(results, lines)
    r = run([rocetest, "report", "--results", results, "--report", rep, "--title", "crafted lab", "--wall-s", "42"])
    files = all(os.path.exists(os.path.join(rep, f)) for f in ("summary.json", "junit.xml", "index.html"))
    cr.report(r.returncode == 1 and files, "report: a failed test: exit 1, summary.json, junit.xml, index.html",
              f"exit {r.returncode}, files {files}: {r.stderr.strip()[-300:]}")
    if not files:
        return
    obj, probs = structure_problems(rep, xsd)
    cr.report(not probs, "report: passes a conformance run's JSON, JUnit (xmllint) and page checks", "; ".join(probs[:6]))
    probs = figure_problems(obj, lines)
    if (obj["dut"], obj["wall_s"], obj["tests"], obj["failures"]) != ("crafted lab", 42, 4, 1):
        probs.append(f"dut {obj['dut']!r} wall_s {obj['wall_s']} tests {obj['tests']} failures {obj['failures']}")
    cr.report(not probs, "report: every figure and text of the file in summary.json", "; ".join(probs[:6]))
    write_results(results, GOOD)
    r = run([rocetest, "report", "--results", results, "--report", rep])
    cr.report(r.returncode == 0 and cr.strict_json(os.path.join(rep, "summary.json"))["failures"] == 0,
              "report: every test passed: exit 0", f"exit {r.returncode}: {r.stderr.strip()[-300:]}")


# A bad line (as line 3 of the file: the comment, a good line, it) and what the error names.
BAD = [
    ("board\tsend\tpass\t1\t-\t-", "results.tsv:3: 6 tab-separated fields, expected 7"),
    ("board\tsend\tmaybe\t1\t-\t-\tt", "results.tsv:3: VERDICT 'maybe' is not pass or fail"),
    ("board\tsend\tpass\tsoon\t-\t-\tt", "results.tsv:3: WALL_S 'soon'"),
    ("board\tsend\tpass\t1\t-\tgbps=1\tt", "results.tsv:3: FIGURES: gbps needs op and size"),
    ("board\tsend\tpass\t1\t-\tcq_errors=1\tt", "results.tsv:3: a passed test with cq_errors=1"),
    ("rxe\twrite-bw\tpass\t1\t-\t-\tt", "results.tsv:3: rxe/write-bw is there already"),
]


def check_errors(rocetest, outdir):
    results, rep = os.path.join(outdir, "bad", "results.tsv"), os.path.join(outdir, "bad", "report")
    os.makedirs(os.path.dirname(results), exist_ok=True)
    for line, want in BAD:
        shutil.rmtree(rep, ignore_errors=True)
        write_results(results, GOOD[:1], line + "\n")
        r = run([rocetest, "report", "--results", results, "--report", rep])
        ok = r.returncode == 2 and f"{results}:3:" in r.stderr and want.split(":", 2)[2].strip() in r.stderr
        cr.report(ok and not os.path.exists(rep), f"report: {want.split(': ', 1)[1]}: exit 2 naming file and line",
                  f"exit {r.returncode}, report written {os.path.exists(rep)}: {r.stderr.strip()[-300:]}")
    write_results(results, [])
    cases = [([results], "holds no test"), ([results + ".missing"], "results.tsv.missing"), ([], "--results")]
    for args, want in cases:
        shutil.rmtree(rep, ignore_errors=True)
        r = run([rocetest, "report", "--report", rep] + (["--results", args[0]] if args else []))
        cr.report(r.returncode == 2 and want in r.stderr and not os.path.exists(rep),
                  f"report: {want}: exit 2, no report", f"exit {r.returncode}: {r.stderr.strip()[-300:]}")


def main(argv):
    if len(argv) < 5:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    rocetest, unit, xsd, outdir = argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    sample = adopt_sample_shape(unit, outdir)
    cr.report(not rrc.json_problems(sample), "report: the conformance sample passes its own checks",
              "; ".join(rrc.json_problems(sample)[:4]))
    check_reports(rocetest, xsd, outdir)
    check_errors(rocetest, outdir)
    for d in argv[5:]:
        obj, probs = structure_problems(d, xsd)
        cr.report(not probs and obj["tests"] > 0, f"report: {d} passes a conformance run's checks",
                  "; ".join(probs[:6]) or "no test")
    return 0 if all(cr.results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
