# SPDX-License-Identifier: MIT
"""The reports of `rocetest check`: JSON, JUnit XML and HTML, checked from outside.

usage: check_report.py ROCETEST XSD OUTDIR [--render CAPTURE]... CAPTURE...

For every CAPTURE runs `rocetest check --json --junit --html` into OUTDIR,
then once over all of them (the several-files form), and checks:
  JSON   parses (python's json, strict: no NaN), has every key of the shape
         below with the right types; frames are 1-based; one rule per
         enabled rule; summary = the sum of the files' errors/warnings.
  JUnit  validates against XSD with xmllint; the suite counts match its
         cases; one case per enabled rule, of class rocetest.FILE; one
         <failure> per rule that has error violations in the JSON, and
         nothing else fails; its lines are the JSON's violations of the
         rule, in order. Again with --junit-per-flow (the layout of one case
         per rule and flow): one <failure> per (flow, rule) that has error
         violations in the JSON.
  HTML   self-contained: no http(s) URL outside text, no <script src>,
         <link>, <img>, <iframe>, <object>, <embed>, no url() but #ids,
         exactly one inline <script>; one ladder <svg> per flow the JSON
         says was drawn.
For each --render CAPTURE (also checked as above) headless Chromium renders
the page: the screenshot must be a PNG over 20 KB with many colours, and
the DOM it dumps must hold the same ladder <svg>s. The reports and
screenshots are left in OUTDIR. Prints "ok - ..." / "FAIL - ..." per check.
"""
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from html.parser import HTMLParser
from xml.etree import ElementTree

OK_EXIT = (0, 1)  # conformant, or violations found: both write the reports

NUM, STR, BOOL = "number", "string", "bool"
OPT_NUM = (NUM, None)

ENDPOINT = {"ip": STR, "qp": OPT_NUM, "udp_sport": OPT_NUM, "roce_versions": [NUM], "packets": NUM, "pmtu": OPT_NUM,
            "pmtu_inferred": BOOL, "pmtu_frame": OPT_NUM}
FLOW = {"id": NUM, "transport": STR, "ip_version": NUM, "endpoints": [ENDPOINT], "paired": BOOL,
        "packets": NUM, "first_frame": NUM, "last_frame": NUM, "naks": NUM, "rnr_naks": NUM,
        "retransmissions": NUM, "cnps": NUM, "bad_icrc": NUM, "errors": NUM, "warnings": NUM,
        "notes": [STR], "ladder_rows": OPT_NUM}
RULE = {"id": STR, "severity": STR, "group": STR, "checked": NUM, "violations": NUM,
        "not_evaluated": NUM, "status": STR}
VIOLATION = {"rule": STR, "severity": STR, "frame": NUM, "flow": OPT_NUM, "message": STR}
SUMMARY = {"errors": NUM, "warnings": NUM}
FILE = {"file": STR, "packets": NUM, "roce_packets": NUM, "not_roce": NUM, "truncated": NUM,
        "malformed": NUM, "untracked": NUM, "seconds": NUM,
        "config": {"pmtu": OPT_NUM, "timeout_us": OPT_NUM, "retry_cnt": OPT_NUM, "rnr_retry": OPT_NUM},
        "flows": [FLOW], "rules": [RULE], "violations": [VIOLATION], "violations_dropped": NUM,
        "summary": SUMMARY}
SEVERITIES = ("error", "warning")
STATUSES = ("pass", "fail", "not_evaluated")

results = []


def report(ok, name, why=""):
    results.append(ok)
    print(f"ok - {name}" if ok else f"FAIL - {name}: {why}")


def type_ok(value, want):
    if isinstance(want, tuple):
        return any(type_ok(value, w) for w in want)
    if want is None:
        return value is None
    if want == NUM:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if want == STR:
        return isinstance(value, str)
    if want == BOOL:
        return isinstance(value, bool)
    raise AssertionError(want)


def shape_problems(value, shape, path):
    """Every place where value does not have the shape (keys present, types right)."""
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{path} is not an object"]
        out = []
        for key, sub in shape.items():
            if key not in value:
                out.append(f"{path}.{key} is missing")
            else:
                out += shape_problems(value[key], sub, f"{path}.{key}")
        return out
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{path} is not an array"]
        out = []
        for i, item in enumerate(value):
            out += shape_problems(item, shape[0], f"{path}[{i}]")
        return out
    return [] if type_ok(value, shape) else [f"{path} = {value!r} is not {shape}"]


def strict_json(path):
    def no_constant(name):
        raise ValueError(f"{name} is not JSON")
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=no_constant)


def file_problems(obj):
    """The shape and the facts a single capture's object must have."""
    probs = shape_problems(obj, FILE, "$")
    if probs:
        return probs
    for f in obj["flows"]:
        if not 1 <= len(f["endpoints"]) <= 2:
            probs.append(f"flow {f['id']} has {len(f['endpoints'])} endpoints")
        if f["first_frame"] < 1 or f["last_frame"] < f["first_frame"]:
            probs.append(f"flow {f['id']} frames {f['first_frame']}..{f['last_frame']}")
    ids = [f["id"] for f in obj["flows"]]
    if ids != list(range(1, len(ids) + 1)):
        probs.append(f"flow ids {ids[:5]}... are not 1..N")
    for r in obj["rules"]:
        if r["severity"] not in SEVERITIES or r["status"] not in STATUSES:
            probs.append(f"rule {r['id']}: severity {r['severity']!r}, status {r['status']!r}")
        want = "fail" if r["violations"] else "pass" if r["checked"] else "not_evaluated"
        if r["status"] != want:
            probs.append(f"rule {r['id']}: status {r['status']} with its counts means {want}")
    if len({r["id"] for r in obj["rules"]}) != len(obj["rules"]):
        probs.append("a rule is listed twice")
    frames = [v["frame"] for v in obj["violations"]]
    if frames != sorted(frames) or any(fr < 1 or fr > obj["packets"] for fr in frames):
        probs.append("violations are not in frame order within 1..packets")
    for v in obj["violations"]:
        if v["severity"] not in SEVERITIES or v["flow"] == 0:
            probs.append(f"violation {v}: bad severity or flow 0 (null is no flow)")
    errors = sum(1 for v in obj["violations"] if v["severity"] == "error")
    if obj["violations_dropped"] == 0 and errors != obj["summary"]["errors"]:
        probs.append(f"{errors} error violations listed, summary says {obj['summary']['errors']}")
    return probs


def error_pairs(obj):
    """(flow, rule) pairs with error violations, when the JSON lists them all; else None."""
    if obj["violations_dropped"]:
        return None
    return {(v["flow"] or 0, v["rule"]) for v in obj["violations"] if v["severity"] == "error"}


def rule_case_problems(case, obj):
    """A per-rule case against the JSON: its failure counts and lists the rule's error violations, in order."""
    rule = case.get("name")
    errs = [v for v in obj["violations"] if v["rule"] == rule and v["severity"] == "error"]
    fail = case.find("failure")
    if fail is None:
        return []
    want_lines = [(f"flow {v['flow']}, " if v["flow"] else "") + f"frame {v['frame']}: {v['message']}"
                  for v in errs[:100]]
    lines = (fail.text or "").splitlines()
    more = len(errs) - len(want_lines)
    probs = []
    if lines[:len(want_lines)] != want_lines:
        probs.append(f"{rule}: the failure's lines are not the JSON's violations (first: {lines[:1]})")
    if (lines[len(want_lines):] != [f"... and {more} more"]) if more else len(lines) != len(want_lines):
        probs.append(f"{rule}: {len(lines)} lines for {len(errs)} violations")
    flows = {v["flow"] for v in errs if v["flow"]}
    head = f"{len(errs)} violation{'s' if len(errs) != 1 else ''} of {rule}"
    if flows:
        head += f" in {len(flows)} flow{'s' if len(flows) != 1 else ''}"
    if not fail.get("message", "").startswith(head + ", first at frame "):
        probs.append(f"{rule}: failure message {fail.get('message', '')[:80]!r} does not start {head!r}")
    return probs


def junit_problems(path, xsd, obj_list, per_flow=False):
    """The JUnit report against the JSON; per_flow: the --junit-per-flow layout."""
    probs = []
    run = subprocess.run(["xmllint", "--noout", "--schema", xsd, path], capture_output=True, text=True)
    if run.returncode != 0:
        return [f"xmllint: {run.stderr.strip()[-400:]}"]
    root = ElementTree.parse(path).getroot()
    suites = root.findall("testsuite")
    if len(suites) != len(obj_list):
        return [f"{len(suites)} test suites for {len(obj_list)} captures"]
    total = total_fail = 0
    for suite, obj in zip(suites, obj_list):
        cases = suite.findall("testcase")
        fails = [c for c in cases if c.find("failure") is not None]
        skips = [c for c in cases if c.find("skipped") is not None]
        for attr, n in (("tests", len(cases)), ("failures", len(fails)), ("skipped", len(skips))):
            if int(suite.get(attr)) != n:
                probs.append(f"{suite.get('name')}: {attr}={suite.get(attr)} but {n} such cases")
        if suite.get("name") != obj["file"]:
            probs.append(f"suite name {suite.get('name')!r} is not the file {obj['file']!r}")
        total += len(cases)
        total_fail += len(fails)
        pairs = error_pairs(obj)
        enabled = {r["id"] for r in obj["rules"]}
        named = {c.get("name") for c in cases if c.get("name") != "capture"}
        if named != enabled:
            probs.append(f"test cases name rules {sorted(named ^ enabled)} not exactly the enabled ones")
        if per_flow:
            got = {(int(c.get("classname").rsplit(".flow", 1)[1]) if ".flow" in c.get("classname") else 0,
                    c.get("name")) for c in fails}
        else:
            got = {c.get("name") for c in fails}
            pairs = None if pairs is None else {rule for _, rule in pairs}
            base = "rocetest." + (os.path.basename(obj["file"]) if obj["file"] != "-" else "stdin")
            rules = [c for c in cases if c.get("name") != "capture"]
            if len(rules) != len(enabled) or any(c.get("classname") != base for c in rules):
                probs.append(f"not one case of class {base!r} per enabled rule")
            if obj["violations_dropped"] == 0:
                for c in fails:
                    probs += rule_case_problems(c, obj)
        if pairs is not None and got != pairs:
            probs.append(f"failing cases {sorted(got)[:8]} != those with errors {sorted(pairs)[:8]}")
    if int(root.get("tests")) != total or int(root.get("failures")) != total_fail:
        probs.append(f"<testsuites> tests={root.get('tests')} failures={root.get('failures')}, "
                     f"cases {total}, failing {total_fail}")
    return probs


class PageScan(HTMLParser):
    """What in a page could make a browser fetch something."""
    FETCHING = {"link", "img", "iframe", "object", "embed", "source", "video", "audio", "base"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.probs = []
        self.scripts = 0
        self.ladders = 0
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        if tag in self.FETCHING:
            self.probs.append(f"<{tag}> element")
        if tag == "script":
            self.scripts += 1
            if any(k == "src" for k, _ in attrs):
                self.probs.append("<script src>")
        if tag == "svg" and ("class", "ladder") in attrs:
            self.ladders += 1
        self.in_style = tag == "style"
        for k, v in attrs:
            low = (v or "").lower().strip()
            if "http:" in low or "https:" in low or low.startswith("//") or low.startswith("javascript:"):
                if not (tag == "meta" and k == "content"):
                    self.probs.append(f"<{tag} {k}={v!r}>")
            if "url(" in low and "url(#" not in low:
                self.probs.append(f"<{tag} {k}> loads url()")

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.in_style and ("@import" in data or ("url(" in data and "url(#" not in data)):
            self.probs.append("the stylesheet loads something")


def html_problems(path, obj_list):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    scan = PageScan()
    scan.feed(text)
    probs = list(scan.probs)
    if scan.scripts != 1:
        probs.append(f"{scan.scripts} <script> elements, expected the one inline script")
    want = sum(1 for obj in obj_list for fl in obj["flows"] if fl["ladder_rows"] is not None)
    if scan.ladders != want:
        probs.append(f"{scan.ladders} ladder <svg>s for {want} flows with a ladder")
    if not text.rstrip().endswith("</html>"):
        probs.append("the page does not end with </html>")
    return probs, want


def png_colours(path):
    """Distinct RGB colours of an 8-bit RGB/RGBA PNG (up to 64 counted)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT":
            idat += body
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"PNG depth {depth} colour type {ctype} interlace {interlace} not handled")
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, colours, i = bytearray(stride), set(), 0
    # Every 7th row is enough to tell a page from a blank, but each row needs its predecessor unfiltered.
    for y in range(h):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if ftype == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif ftype == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif ftype == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif ftype == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = prev[x], prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 7 == 0:
            for x in range(0, stride, bpp * 3):
                colours.add(bytes(line[x:x + 3]))
            if len(colours) >= 64:
                break
        prev = line
    return len(colours)


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return name
    return None


def run_chromium(browser, args):
    """Chromium headless with a profile of its own: a second instance on the default
    profile hands its work to the first one and exits 0 having done nothing."""
    with tempfile.TemporaryDirectory(prefix="rocetest-chromium-") as profile:
        return subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                               "--disable-background-networking", "--hide-scrollbars", "--window-size=1400,2000",
                               f"--user-data-dir={profile}"] + args, capture_output=True, text=True, timeout=120)


def render_problems(html, png, ladders):
    browser = chromium()
    if not browser:
        return ["chromium is not installed"]
    url = pathlib.Path(html).resolve().as_uri()
    probs = []
    if os.path.exists(png):
        os.unlink(png)
    run = run_chromium(browser, [f"--screenshot={png}", url])
    if not os.path.exists(png):
        return [f"no screenshot (exit {run.returncode}: {run.stderr.strip()[-300:]})"]
    size = os.path.getsize(png)
    if size <= 20 * 1024:
        probs.append(f"screenshot is only {size} bytes")
    try:
        colours = png_colours(png)
        if colours < 8:
            probs.append(f"screenshot has {colours} colours: blank?")
    except (ValueError, zlib.error, struct.error) as e:
        probs.append(f"screenshot unreadable: {e}")
    dom = run_chromium(browser, ["--dump-dom", url]).stdout
    got = dom.count('<svg class="ladder"')
    if got != ladders:
        probs.append(f"the rendered DOM holds {got} ladder <svg>s, the page {ladders}")
    return probs


def check_reports(rocetest, xsd, outdir, label, captures, render):
    stem = os.path.join(outdir, label.replace("/", "-").replace(" ", "_"))
    paths = {k: f"{stem}.{k}" for k in ("json", "xml", "html", "flows.xml")}
    run = subprocess.run([rocetest, "check", "-q", "--json", paths["json"], "--junit", paths["xml"],
                          "--html", paths["html"]] + captures, capture_output=True, text=True, timeout=300)
    if run.returncode not in OK_EXIT:
        report(False, f"report: {label}", f"rocetest check exited {run.returncode}: {run.stderr.strip()[-300:]}")
        return
    try:
        doc = strict_json(paths["json"])
    except (ValueError, OSError) as e:
        report(False, f"report: {label}: JSON parses", str(e))
        return
    if len(captures) == 1:
        objs, probs = [doc], file_problems(doc)
        if not probs and doc["file"] != captures[0]:
            probs.append(f"file is {doc['file']!r}, not the path given, {captures[0]!r}")
    else:
        probs = shape_problems(doc, {"files": [{}], "summary": SUMMARY}, "$") if isinstance(doc, dict) else \
            ["not an object"]
        objs = doc.get("files", []) if isinstance(doc, dict) else []
        for i, obj in enumerate(objs):
            probs += [f"files[{i}]: {p}" for p in file_problems(obj)]
        if not probs:
            for key in ("errors", "warnings"):
                if doc["summary"][key] != sum(o["summary"][key] for o in objs):
                    probs.append(f"summary.{key} is not the sum over the files")
        if len(objs) != len(captures):
            probs.append(f"{len(objs)} file objects for {len(captures)} captures")
    report(not probs, f"report: {label}: JSON has the documented shape", "; ".join(probs[:6]))
    if probs:
        return
    probs = junit_problems(paths["xml"], xsd, objs)
    fails = sum(len({r for _, r in error_pairs(o) or ()}) for o in objs)
    report(not probs, f"report: {label}: JUnit validates against junit.xsd, one case per rule, {fails} failing "
           "= rules with errors, listing them", "; ".join(probs[:6]))
    run = subprocess.run([rocetest, "check", "-q", "--junit-per-flow", "--junit", paths["flows.xml"]] + captures,
                         capture_output=True, text=True, timeout=300)
    probs = [f"rocetest check exited {run.returncode}"] if run.returncode not in OK_EXIT else \
        junit_problems(paths["flows.xml"], xsd, objs, per_flow=True)
    fails = sum(len(error_pairs(o) or ()) for o in objs)
    report(not probs, f"report: {label}: --junit-per-flow validates against junit.xsd, {fails} failing case(s) = "
           "(flow, rule) pairs with errors", "; ".join(probs[:6]))
    probs, ladders = html_problems(paths["html"], objs)
    report(not probs, f"report: {label}: HTML self-contained with {ladders} ladder(s)", "; ".join(probs[:6]))
    if render:
        probs = render_problems(paths["html"], f"{stem}.png", ladders)
        report(not probs, f"report: {label}: HTML renders in headless Chromium ({os.path.basename(stem)}.png)",
               "; ".join(probs))


def main(argv):
    args, render = [], []
    it = iter(argv[1:])
    for a in it:
        if a == "--render":
            render.append(next(it))
        else:
            args.append(a)
    if len(args) < 3 or (len(args) == 3 and not render):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    rocetest, xsd, outdir, captures = args[0], args[1], args[2], args[3:] + [r for r in render if r not in args]
    os.makedirs(outdir, exist_ok=True)
    # Work in a directory of this run's own, then move the files into OUTDIR: two test runs in one
    # tree must not overwrite each other's reports while they are being checked.
    work = tempfile.mkdtemp(prefix=".run-", dir=outdir)
    try:
        for cap in captures:
            label = os.path.join(os.path.basename(os.path.dirname(cap)), os.path.basename(cap))
            check_reports(rocetest, xsd, work, label, [cap], cap in render)
        if len(captures) > 1:
            check_reports(rocetest, xsd, work, f"{len(captures)} captures in one run", captures, False)
        for name in os.listdir(work):
            os.replace(os.path.join(work, name), os.path.join(outdir, name))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(results) and results else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
