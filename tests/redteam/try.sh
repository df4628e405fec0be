#!/bin/sh
# Scores one red-team file with the current build and prints what the README's "today" column
# records: the outcome with its rule ids, the REDTEAM lines of the call logs (counted), the largest
# log, and whether ratchet's own output holds a raw ESC or BEL byte.
#
#   tests/redteam/try.sh tests/redteam/FILE [EVIDENCE-PARENT]      (run from the repository root)
#
# The evidence goes to EVIDENCE-PARENT/NAME-<time> (default /tmp/rt), ratchet's output beside it
# as NAME-<time>.out. Never give it fork_bomb*, thread_bomb, memory_hog*, disk_fill_folder,
# include_dev_zero or macro_bomb on a machine without the limits they test (see README.md).
set -u
file=$1
parent=${2:-/tmp/rt}
name=$(basename "$file")
name=${name%.*}
case "$file" in */named/*) name="named-$name" ;; esac
out="$parent/$name-$(date -u +%Y%m%dT%H%M%S)"
mkdir -p "$parent"
start=$(date +%s)
build/ratchet score "$file" --band 2000 --runs 1 --out "$out" >"$out.out" 2>&1
rc=$?
end=$(date +%s)
echo "== $name: exit $rc after $((end - start)) s; binary $(sha256sum build/ratchet | cut -c1-12); evidence $out"
if [ -f "$out/report.json" ]; then
  python3 - "$out/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for record in report["records"].values():
    outcome = record["outcome"]
    problems = [f'{p["rule"]}: {p["message"][:300]}' for run in record.get("runs", [])
                for p in run.get("problems", [])]
    print(f'   outcome {outcome["status"]} {",".join(outcome["broken"])}')
    for problem in problems[:3]:
        print("   ", problem.replace("\n", "\\n"))
PY
else
  tail -5 "$out.out" | sed 's/^/   /'
fi
grep -ah "REDTEAM" "$out"/records/*/run-*/logs/*.log 2>/dev/null | cut -c1-600 |
  sed "s/ratchet-worker-[A-Za-z0-9]*/ratchet-worker-XXXXXX/g" | sort | uniq -c | sed 's/^/   /'
largest=$(ls -S "$out"/records/*/run-*/logs/*.log 2>/dev/null | head -1)
[ -n "$largest" ] && echo "   largest log: $(wc -c <"$largest") bytes"
if grep -aq "$(printf '\033')" "$out.out" || grep -aq "$(printf '\007')" "$out.out"; then
  echo "   ratchet's own output holds raw ESC/BEL bytes"
fi
if grep -aqE "^(qualified: MNIST 99\.99%|evidence: /tmp/forged)" "$out.out"; then
  echo "   ratchet's own output holds a line forged by the method (starts a line as ratchet's do)"
fi
exit 0
