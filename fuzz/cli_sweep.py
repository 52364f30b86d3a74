#!/usr/bin/env python3
"""Mutation sweep of whole capture folders through the ksnap CLI.

Copies BUILDS/base, damages one or two of its files (truncation, byte flips,
a NUL byte, invalid UTF-8, 5,000 open brackets, a 2 MB line, shuffled or
repeated lines, stray syntax, an emptied file) and runs `ksnap diff` (terminal,
JSON, HTML, Markdown, --stat, both directions) and `ksnap show` on it. A
problem is: an exit code other than 0, 1, 2; a sanitizer report; exit 2
without a message; JSON output that does not parse. The damaged folder of a
problem is kept under /tmp/sweep/. Meant for the sanitizer build:

  python3 fuzz/cli_sweep.py build-asan/ksnap examples/corpus 150 SEED

Prints one line per problem and a total. Standard library only.
"""
import os, random, shutil, subprocess, sys, json, tempfile
B = sys.argv[1]; SRC = sys.argv[2]; N = int(sys.argv[3]); seed = int(sys.argv[4])
rng = random.Random(seed)
base = os.path.join(SRC, 'base')
files = []
for root, _, fs in os.walk(base):
    for f in fs: files.append(os.path.relpath(os.path.join(root, f), base))
def mutate(data):
    k = rng.randrange(10)
    if k == 0 and data: return data[:rng.randrange(len(data))]
    if k == 1:
        b = bytearray(data)
        for _ in range(rng.randrange(1, 8)):
            if b: b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if k == 2:
        i = rng.randrange(len(data)+1); return data[:i] + bytes([0]) + data[i:]
    if k == 3:
        i = rng.randrange(len(data)+1); return data[:i] + b'\xff\xfe\xc3' + data[i:]
    if k == 4:
        i = rng.randrange(len(data)+1); return data[:i] + b'[' * 5000 + data[i:]
    if k == 5:
        i = rng.randrange(len(data)+1); return data[:i] + b'x' * 2_000_000 + data[i:]
    if k == 6:
        lines = data.split(b'\n'); rng.shuffle(lines); return b'\n'.join(lines)
    if k == 7:
        lines = data.split(b'\n')
        if lines:
            i = rng.randrange(len(lines)); lines.insert(rng.randrange(len(lines)+1), lines[i])
        return b'\n'.join(lines)
    if k == 8:
        i = rng.randrange(len(data)+1); return data[:i] + rng.choice([b'"', b'}', b'{', b'%', b'^bb0(', b'\\', b'\x1b[31m', b'@', b'"\\u0000"', b'1e999', b'-', b'9'*40]) + data[i:]
    return b''
bad = 0
for it in range(N):
    tmp = tempfile.mkdtemp(prefix='sw-')
    head = os.path.join(tmp, 'head'); shutil.copytree(base, head)
    for _ in range(rng.randrange(1, 3)):
        f = rng.choice(files); p = os.path.join(head, f)
        data = open(p, 'rb').read(); open(p, 'wb').write(mutate(data))
    for args in (['diff', base, head, '--no-pager'], ['diff', base, head, '--format', 'json'],
                 ['diff', base, head, '--format', 'html', '-o', os.path.join(tmp, 'r.html')],
                 ['diff', base, head, '--format', 'markdown'], ['show', head], ['diff', head, base, '--stat']):
        r = subprocess.run([B] + args, capture_output=True, timeout=300)
        err = r.stderr.decode('utf-8', 'replace')
        problem = None
        if r.returncode not in (0, 1, 2): problem = f'rc {r.returncode}'
        elif 'Sanitizer' in err or 'runtime error' in err: problem = 'sanitizer'
        elif r.returncode == 2 and not err.strip(): problem = 'rc 2 without message'
        elif r.returncode == 0 and args[-1] == 'json':
            try: json.loads(r.stdout)
            except Exception as e: problem = f'bad json {e}'
        if problem:
            bad += 1
            os.makedirs('/tmp/sweep', exist_ok=True); keep = f'/tmp/sweep/bad-{seed}-{it}'
            shutil.rmtree(keep, ignore_errors=True); shutil.copytree(tmp, keep)
            print(f'[{it}] {problem}: {args[0]} {args[3:] if len(args)>3 else ""} kept {keep}\n   {err[:400]}', flush=True)
            break
    shutil.rmtree(tmp, ignore_errors=True)
print(f'done {N} iterations, {bad} problems')
