#!/usr/bin/env python3
# Seeded, time-bounded fuzzing of rbfnet's command line: random commands, flags and malformed values.
"""Runs rbfnet with random combinations of its commands, the flags its --help lists and
malformed values (empty, huge, negative, NaN, unicode, directories, devices, missing files,
repeated flags, flags without values, "--") against small data files, and checks that

  * the exit status is 0, 1 or 2 (130 or 143 only after the fuzzer sent SIGINT or SIGTERM),
  * no run ends on a signal, none hangs (a run still going after --case-seconds must stop
    within 10 s of SIGINT, with status 130),
  * a failure prints exactly one "rbfnet: error: ..." line, last, that names something the
    command line gave (a flag, a value or the command), and never "internal error" or a C++
    library's message; every other line on stderr is a log line,
  * no input is changed, no output is left half-written: files the run only reads keep their
    bytes, a failed run leaves its outputs as they were, and no temporary file stays behind.

Case K of seed S is always the same command line; a failure prints it and the way to replay it:
  argv_fuzz.py RBFNET DATA_DIR WORK_DIR --seed S --case K
"""
import argparse
import hashlib
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

COMMANDS = ["train", "predict", "evaluate", "inspect", "bench", "calibrate", "info"]
# Flags whose value names a file the command writes; every other file argument is read only.
OUTPUT_FLAGS = {"--out", "--checkpoint", "--log-iter", "--metrics-json"}
LOG_LINE = re.compile(r"^\[\d\d:\d\d:\d\d\.\d{3}\] [a-z]+: ")
# Texts that only a C++ library or a crash would print.
LEAKS = re.compile(r"internal error|terminate called|what\(\)|basic_string|_M_|std::|stoi|stoul|stod|"
                   r"vector::|bad_alloc|Segmentation|Aborted|core dumped|CLI::|Could not convert|"
                   r"required but received|required \S+ missing|not expected|(?-i:At (Most|Least) )", re.I)


def flags_of(rbfnet, command, env):
    """{flag: takes_value} from `rbfnet COMMAND --help`."""
    text = subprocess.run([rbfnet, command, "--help"], capture_output=True, text=True, env=env, timeout=30).stdout
    flags = {}
    for line in text.splitlines():
        if not line.startswith("  -"):
            continue
        head = re.split(r"\s{2,}", line.strip())[0]
        words = head.split()
        for name in words[0].split(","):
            if name.startswith("--") and name != "--help":
                flags[name] = len(words) > 1
    return flags


def make_fixtures(rbfnet, data_dir, work, env):
    """Small inputs in WORK/fixtures: data files, a config, a model, a checkpoint."""
    fix = os.path.join(work, "fixtures")
    os.makedirs(fix)
    for name in ["good.csv", "two_classes.csv", "malformed.csv", "small.yaml", "semicolon.csv", "int_labels.csv",
                 "degenerate.csv", "double_limits.csv", "comma_name.csv", "nonnumeric.csv", "bad_enum.yaml"]:
        shutil.copy(os.path.join(data_dir, name), fix)
    os.makedirs(os.path.join(fix, "folder"))
    os.symlink("good.csv", os.path.join(fix, "link.csv"))
    with open(os.path.join(fix, "unicode-ü😀.csv"), "w", encoding="utf-8") as f:
        f.write("ä,b,ÿ\n1,2,3\n2,3,5\n3,1,4\n4,4,8\n")
    run = lambda *args: subprocess.run([rbfnet, *args], cwd=fix, env=env, capture_output=True, timeout=120)
    for args in (["train", "--data", "good.csv", "--target", "y", "--nodes", "2", "--out", "trained.rbfn",
                  "--checkpoint-every", "1", "--checkpoint", "run.ckpt", "--quiet"],
                 ["train", "--data", "two_classes.csv", "--target", "label", "--nodes", "2", "--out",
                  "classes.rbfn", "--quiet"]):
        if run(*args).returncode != 0:
            sys.exit("argv_fuzz: cannot make the fixtures: rbfnet " + " ".join(args))
    return fix


class Generator:
    """Command lines for one case, drawn from its own random.Random."""

    def __init__(self, flags, fixtures):
        self.flags = flags
        self.files = sorted(f for f in os.listdir(fixtures))

    def value(self, rng, flag):
        kind = rng.random()
        if kind < 0.3:  # something plausible for the flag
            plausible = {
                "--data": ["good.csv", "two_classes.csv", "-", "int_labels.csv", "degenerate.csv", "link.csv",
                           "double_limits.csv", "comma_name.csv"],
                "--validation-data": ["good.csv", "int_labels.csv", "degenerate.csv"],
                "--model": ["trained.rbfn", "classes.rbfn"], "--resume": ["run.ckpt"], "--config": ["small.yaml"],
                "--target": ["y", "label", "0", "-1", "x1,y", "y,y", "price\\,usd", "huge", "x2,y"],
                "--features": ["x1", "x2", "0,1", "tiny,constant", "-2", "label"],
                "--keep": ["x1", "0"], "--id": ["x2"], "--task": ["regression", "classification", "auto"],
                "--backend": ["cpu", "auto", "gpu"], "--backends": ["cpu", "cpu,auto", "gpu"],
                "--precision": ["float32", "float64"], "--strategy": ["ols", "max_residual"],
                "--refine-method": ["adam", "lm"], "--log-level": ["warn", "off", "trace"],
                "--delimiter": [",", ";", "tab", "auto"], "--synthetic": ["20,2", "3,1", "0,0"],
                "--widths": ["0.5,1", "1"], "--out": ["out.rbfn", "out.csv", "trained.rbfn", "good.csv"],
            }.get(flag)
            if plausible:
                return rng.choice(plausible)
            return rng.choice(["0", "1", "2", "3", "5", "10", "0.5", "1e-6", "1e-320", "1e308", "1000", "1024",
                               "0.1,0.2", "1e308,1e-308", "30"])
        if kind < 0.55:  # numbers at and past their limits
            return rng.choice(["0", "-1", "-0", "1e999", "-1e999", "nan", "NaN", "inf", "-inf", "1e-320",
                               "0x10", "1.5", "2.5e3", "18446744073709551616", "9223372036854775807",
                               "-9223372036854775808", "4294967296", "1e308", "0.9", "0.95", "1,2", " 3", "3 ",
                               "+4", "1_000", "٣"])
        if kind < 0.8:  # paths
            return rng.choice(self.files + ["folder", "folder/", "missing.csv", "nodir/x.csv", "/", ".", "..",
                                            "/dev/null", "/dev/full", "/proc/self/fd/1", "", "-", "--",
                                            "out.rbfn", "out.csv", "new-dir"])
        return rng.choice(["", " ", "--", "-", "x" * rng.choice([300, 5000, 100000]), "ünï😀", "\t",
                           "a\nb", "'\"", "%s%n", "*", "..", "--help", "--nodes", "=", ",", ",,", "-h"])

    def argv(self, rng):
        args = []
        roll = rng.random()
        if roll < 0.03:
            args.append(rng.choice(["", "-", "--", "trian", "help", "--version", "-x", "x" * 1000]))
        command = rng.choice(COMMANDS[:5] * 4 + COMMANDS[5:]) if roll >= 0.03 or rng.random() < 0.5 else None
        if command:
            args.append(command)
            flags = sorted(self.flags[command])
            # A base that usually gets past the required flags, so deeper checks are reached.
            if rng.random() < 0.7:
                base = {"train": ["--data", "good.csv", "--target", "y", "--nodes", "2", "--quiet"],
                        "predict": ["--model", "trained.rbfn", "--data", "good.csv"],
                        "evaluate": ["--model", "trained.rbfn", "--data", "good.csv", "--target", "y"],
                        "inspect": ["trained.rbfn"],
                        "bench": ["--synthetic", "30,5", "--nodes", "2", "--backends", "cpu", "--quiet",
                                  "--out", "bench-out"]}.get(command, [])
                args += base
            for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 6])):
                shape = rng.random()
                if shape < 0.06:
                    args.append(rng.choice(["--", "-", "--unknown-flag", "-z", "positional"]))
                    continue
                if shape < 0.1 and command == "inspect":
                    args.append(self.value(rng, "model"))
                    continue
                if not flags:
                    args.append(rng.choice(["--json", "--quiet", "--nodes", "x"]))
                    continue
                flag = rng.choice(flags)
                takes_value = self.flags[command][flag]
                if takes_value and rng.random() < 0.08:
                    args.append(flag)  # no value, maybe last
                elif takes_value and rng.random() < 0.3:
                    args.append(flag + "=" + self.value(rng, flag))
                elif takes_value:
                    args += [flag, self.value(rng, flag)]
                elif rng.random() < 0.15:
                    args.append(flag + "=" + rng.choice(["true", "false", "1", "x", ""]))
                else:
                    args.append(flag)
        return args


def digest(path):
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def snapshot(folder):
    """{name: sha256} of every regular file directly in `folder`."""
    return {name: digest(os.path.join(folder, name)) for name in os.listdir(folder)}


def named_files(argv, folder):
    """(read, written): the names in `folder` the command line reads and writes. A repeated flag
    counts with its last value only: that one replaces the others."""
    names = set(os.listdir(folder))
    last = {}
    positional = []
    for i, word in enumerate(argv):
        if word.startswith("--") and "=" in word:
            flag, value = word.split("=", 1)
            last[flag] = value
        elif i > 0 and argv[i - 1].startswith("--") and "=" not in argv[i - 1]:
            last[argv[i - 1]] = word
        else:
            positional.append(word)
    read, written = set(), set()
    for flag, value in list(last.items()) + [(None, word) for word in positional]:
        value = os.path.normpath(value) if value else value
        if value in names:
            (written if flag in OUTPUT_FLAGS else read).add(value)
        if flag == "--resume" and value in names:  # a resumed run goes on writing its checkpoint and model
            written.update([value, "trained.rbfn"])
    return read, written


def check_stderr(status, err, argv):
    problems = []
    lines = [line for line in err.split("\n") if line != ""]
    errors = [line for line in lines if line.startswith("rbfnet: error: ")]
    others = [line for line in lines if not line.startswith("rbfnet: error: ") and not LOG_LINE.match(line)]
    if LEAKS.search(err):
        problems.append("stderr shows an internal error or a library's message")
    if others and status != 0:  # a success may say what it wrote
        problems.append("stderr has lines that are neither log lines nor the error: %r" % others[:2])
    if status in (1, 2):
        if len(errors) != 1 or lines[-1] != errors[0]:
            problems.append("a failure must end stderr with exactly one 'rbfnet: error:' line")
        elif not names_culprit(errors[0], argv):
            problems.append("the error names nothing the command line gave")
    elif errors:
        problems.append("exit status %d with an error line" % status)
    return problems


def names_culprit(line, argv):
    """The error names a flag, a config key, the command, or a word of the command line."""
    message = line[len("rbfnet: error: "):]
    if re.search(r"--[a-z]|'rbfnet|[a-z_]+\.[a-z_]+ ", message):
        return True
    if argv and re.search(r"\b%s\b" % re.escape(argv[0]), message):
        return True
    words = set(argv)
    for word in argv:
        if "=" in word:
            words.update(word.split("=", 1))
    words = {w.replace("\n", " ").replace("\r", " ") for w in words}  # the error is kept on one line
    return any("'%s'" % w in message or message.startswith(w + ":") or (len(w) >= 3 and w in message)
               for w in words)


def run_case(rbfnet, fixtures, work, argv, case_seconds, env):
    """Runs one command line in a fresh copy of the fixtures; returns a list of problems."""
    folder = os.path.join(work, "case")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(fixtures, folder, symlinks=True)
    before = snapshot(folder)
    read, written = named_files(argv, folder)
    stdin_data = open(os.path.join(folder, "good.csv"), "rb").read()
    proc = subprocess.Popen([rbfnet] + argv, cwd=folder, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    signalled = False
    try:
        out, err = proc.communicate(stdin_data, timeout=case_seconds)
    except subprocess.TimeoutExpired:
        signalled = True
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return ["hang: still running %g s after SIGINT, which came after %g s" % (10, case_seconds)]
    status = proc.returncode
    err = err.decode("utf-8", "replace")
    problems = []
    if status < 0 and not (signalled and status == -signal.SIGINT):
        problems.append("ended by signal %d" % -status)
    elif signalled and status not in (130, -signal.SIGINT):
        problems.append("exit status %d after SIGINT, expected 130" % status)
    elif not signalled and status not in (0, 1, 2):
        problems.append("exit status %d, expected 0, 1 or 2" % status)
    if status >= 0:
        problems += check_stderr(status, err, argv)
    after = snapshot(folder)
    # A symlink and its target are one file: reading or writing either reads or writes both.
    real = {name: os.path.basename(os.path.realpath(os.path.join(folder, name))) for name in before}
    read_files = {real.get(name, name) for name in read}
    written_files = {real.get(name, name) for name in written}
    for name, sha in before.items():
        changed = after.get(name) != sha
        if changed and real[name] in read_files and name not in written:
            problems.append("the input '%s' was changed" % name)
        elif changed and (status != 0 or real[name] not in written_files) and not signalled:
            problems.append("'%s' was changed by a run that %s" %
                            (name, "failed" if status != 0 else "did not name it as an output"))
    for name in after:
        if ".tmp-" in name:
            problems.append("a temporary file was left behind: " + name)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rbfnet")
    parser.add_argument("data_dir", help="tests/cli/data")
    parser.add_argument("work_dir")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=45, help="stop starting new cases after this long")
    parser.add_argument("--cases", type=int, default=100000, help="at most this many cases")
    parser.add_argument("--case", type=int, help="run only this case")
    parser.add_argument("--case-seconds", type=float, default=10)
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # findings show up as they come, under ctest too

    rbfnet = os.path.abspath(args.rbfnet)
    work = os.path.abspath(args.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"), HOME=work, LC_ALL="C.UTF-8", TERM="dumb")
    env.pop("CUDA_VISIBLE_DEVICES", None)
    fixtures = make_fixtures(rbfnet, os.path.abspath(args.data_dir), work, env)
    generator = Generator({c: flags_of(rbfnet, c, env) for c in COMMANDS}, fixtures)

    cases = [args.case] if args.case is not None else range(args.cases)
    start = time.monotonic()
    failures = ran = 0
    for case in cases:
        if args.case is None and time.monotonic() - start > args.seconds:
            break
        argv = generator.argv(random.Random("%d-%d" % (args.seed, case)))
        problems = run_case(rbfnet, fixtures, work, argv, args.case_seconds, env)
        ran += 1
        if problems:
            failures += 1
            shown = " ".join(shlex.quote(a if len(a) < 200 else a[:20] + "...(%d chars)" % len(a)) for a in argv)
            print("FAILED case %d: rbfnet %s" % (case, shown))
            for problem in problems:
                print("  " + problem)
            print("  replay: %s %s %s %s --seed %d --case %d" % (sys.argv[0], args.rbfnet, args.data_dir, args.work_dir,
                                                                 args.seed, case))
    print("argv_fuzz: seed %d, %d cases in %.1f s, %d failed" % (args.seed, ran, time.monotonic() - start, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
