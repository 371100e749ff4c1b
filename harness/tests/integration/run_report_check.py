# SPDX-License-Identifier: MIT
"""The reports of `rocetest run` (harness/report/run_*.c), checked from outside on a sample run.

usage: run_report_check.py UNIT_TESTS XSD OUTDIR

The unit test binary writes the sample run of harness/tests/unit/test_run_report.c
(three suites, two failed tests, WRITE and SEND goodput at seven sizes) into
OUTDIR as summary.json, junit.xml and index.html; this checks them with other
tools than the unit tests use:
  JSON   python's json, strict (no NaN); exactly the documented top-level
         keys; tests/failures/untimed agree with the suites and their cases.
  JUnit  xmllint against XSD; per suite tests/failures agree with its
         cases and with the JSON; one <failure> per failed test, one
         <skipped> per untimed one.
  HTML   self-contained (check_report.py's scan, no script at all); then
         headless Chromium renders it: a PNG over 20 KB with many colours,
         and a DOM with the goodput plot's <svg>.
The files and the screenshot (index.png) stay in OUTDIR.
Prints "ok - ..." / "FAIL - ..." per check.
"""
import os
import pathlib
import subprocess
import sys
from xml.etree import ElementTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_report as cr  # noqa: E402  (the strict JSON reader, the page scan and Chromium)

TOP = ["dut", "build_id", "seed", "started", "wall_s", "tests", "failures", "untimed", "suites", "metrics"]
CASE = {"name", "description", "passed", "untimed", "failure", "seed", "cycles", "timer_ns", "reaction_ns", "sim_us", "wall_s", "wrs", "completions",
        "frames_to_peer", "frames_to_dut", "retransmissions", "timeouts", "naks", "rnr_naks", "link",
        "checker", "payload_bytes", "bench", "underrun_cycles", "underrun_frames", "pcap", "html", "scenario",
        "twin_gaps"}


def json_problems(obj):
    probs = []
    if list(obj) != TOP:
        probs.append(f"top-level keys {list(obj)}, expected {TOP}")
        return probs
    cases = [c for s in obj["suites"] for c in s["cases"]]
    if obj["tests"] != len(cases) or obj["tests"] != sum(s["tests"] for s in obj["suites"]):
        probs.append(f"tests={obj['tests']}, {len(cases)} cases")
    failed = [c for c in cases if not c["passed"] and not c["untimed"]]
    if obj["failures"] != len(failed) or obj["failures"] != sum(s["failures"] for s in obj["suites"]):
        probs.append(f"failures={obj['failures']}, {len(failed)} failed cases")
    untimed = [c for c in cases if c["untimed"]]
    if obj["untimed"] != len(untimed) or obj["untimed"] != sum(s["untimed"] for s in obj["suites"]):
        probs.append(f"untimed={obj['untimed']}, {len(untimed)} untimed cases")
    for c in cases:
        if set(c) != CASE:
            probs.append(f"case {c.get('name')}: keys {sorted(set(c) ^ CASE)} differ")
        if (c["failure"] is None) != c["passed"]:
            probs.append(f"case {c['name']}: failure {c['failure']!r} with passed={c['passed']}")
        # Untimed: every check passed, but the harness answered slower than a tenth of the shortest timer.
        if c["untimed"] and (c["passed"] or c["reaction_ns"] * 10 <= c["timer_ns"]):
            probs.append(f"case {c['name']}: untimed with passed={c['passed']}, reaction {c['reaction_ns']} ns, "
                         f"timer {c['timer_ns']} ns")
    m = obj["metrics"]
    for e in m["goodput"]:
        if set(e) < {"opcode", "msg_size", "gbps", "limit_gbps"}:
            probs.append(f"goodput entry {e} lacks keys")
    if not isinstance(m["goodput_write_64k_gbps"], (int, float)):
        probs.append(f"goodput_write_64k_gbps is {m['goodput_write_64k_gbps']!r}")
    return probs


def junit_problems(path, xsd, obj):
    run = subprocess.run(["xmllint", "--noout", "--schema", xsd, path], capture_output=True, text=True)
    if run.returncode != 0:
        return [f"xmllint: {run.stderr.strip()[-400:]}"]
    probs = []
    root = ElementTree.parse(path).getroot()
    suites = root.findall("testsuite")
    if [s.get("name") for s in suites] != [f"rocetest.run.{s['name']}" for s in obj["suites"]]:
        probs.append(f"suites {[s.get('name') for s in suites]} differ from the JSON's")
    for suite, js in zip(suites, obj["suites"]):
        cases = suite.findall("testcase")
        fails = [c for c in cases if c.find("failure") is not None]
        skips = [c for c in cases if c.find("skipped") is not None]
        if int(suite.get("tests")) != len(cases) or len(cases) != js["tests"]:
            probs.append(f"{suite.get('name')}: tests={suite.get('tests')}, {len(cases)} cases")
        if int(suite.get("failures")) != len(fails) or len(fails) != js["failures"]:
            probs.append(f"{suite.get('name')}: failures={suite.get('failures')}, {len(fails)} failing")
        if int(suite.get("skipped")) != len(skips) or len(skips) != js["untimed"]:
            probs.append(f"{suite.get('name')}: skipped={suite.get('skipped')}, {len(skips)} skipped, "
                         f"{js['untimed']} untimed")
        if [c.get("name") for c in cases] != [c["name"] for c in js["cases"]]:
            probs.append(f"{suite.get('name')}: cases not in the JSON's order")
    if int(root.get("tests")) != obj["tests"] or int(root.get("failures")) != obj["failures"]:
        probs.append(f"<testsuites> tests={root.get('tests')} failures={root.get('failures')}")
    return probs


def main(argv):
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    unit, xsd, outdir = argv[1:]
    os.makedirs(outdir, exist_ok=True)
    env = dict(os.environ, CK_RUN_SUITE="run_report", ROCETEST_RUN_REPORT_SAMPLES=outdir)
    run = subprocess.run([unit], env=env, capture_output=True, text=True, timeout=120)
    paths = {k: os.path.join(outdir, k) for k in ("summary.json", "junit.xml", "index.html")}
    missing = [k for k, p in paths.items() if not os.path.exists(p)]
    cr.report(run.returncode == 0 and not missing, "run reports: the unit tests write the sample run's reports",
              f"exit {run.returncode}, missing {missing}: {run.stdout.strip()[-300:]}")
    if missing:
        return 1
    try:
        obj = cr.strict_json(paths["summary.json"])
        probs = json_problems(obj)
    except ValueError as e:
        obj, probs = None, [str(e)]
    cr.report(not probs, "run reports: summary.json is strict JSON with the documented shape", "; ".join(probs[:6]))
    if obj is not None:
        probs = junit_problems(paths["junit.xml"], xsd, obj)
        cr.report(not probs, "run reports: junit.xml validates against junit.xsd and agrees with the JSON",
                  "; ".join(probs[:6]))
    with open(paths["index.html"], encoding="utf-8") as f:
        text = f.read()
    scan = cr.PageScan()
    scan.feed(text)
    probs = list(scan.probs) + ([f"{scan.scripts} <script> elements"] if scan.scripts else [])
    cr.report(not probs, "run reports: index.html is self-contained, without script", "; ".join(probs[:6]))
    browser = cr.chromium()
    png = os.path.join(outdir, "index.png")
    probs = []
    if not browser:
        probs.append("chromium is not installed")
    else:
        if os.path.exists(png):
            os.unlink(png)
        url = pathlib.Path(paths["index.html"]).resolve().as_uri()
        r = cr.run_chromium(browser, [f"--screenshot={png}", url])
        if not os.path.exists(png):
            probs.append(f"no screenshot (exit {r.returncode}: {r.stderr.strip()[-300:]})")
        elif os.path.getsize(png) <= 20 * 1024 or cr.png_colours(png) < 8:
            probs.append(f"screenshot blank? {os.path.getsize(png)} bytes")
        dom = cr.run_chromium(browser, ["--dump-dom", url]).stdout
        if dom.count('<svg class="plot"') != 1 or dom.count('<polyline class="limit"') < 2:
            probs.append("the rendered DOM lacks the goodput plot or its limit curves")
    cr.report(not probs, "run reports: index.html renders in headless Chromium with the goodput plot (index.png)",
              "; ".join(probs))
    return 0 if all(cr.results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
