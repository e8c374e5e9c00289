#!/bin/bash
# Seeded releases through the front door (`rap-studio synth`), for checking that a refactoring
# changes no release bit for bit: table and query mode, 1 and 2 kernel threads (typed and
# threaded sessions), 2-of-3, 4-of-4 and 1-of-3 workloads, plus query mode with adaptive
# selection and the softmax relaxation. Prints the SHA-256 of each released CSV; run it on two
# checkouts and diff the outputs. Seeded runs are insecure and not releases (throwaway ledgers).
#
# usage: scripts/seeded-release-hashes.sh OUT_DIR [ROWS]   (ROWS: first rows of ADULT, default 3000)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?usage: scripts/seeded-release-hashes.sh OUT_DIR [ROWS]}
ROWS=${2:-3000}
DATA="$ROOT/../shared/datasets/adult"
[ -f "$DATA/adult.csv" ] || { echo "no ADULT at $DATA (the shared datasets folder)" >&2; exit 1; }
[ -e "$OUT" ] && { echo "$OUT exists: give a new folder" >&2; exit 1; }
mkdir -p "$OUT" && cd "$OUT"
head -n $((ROWS + 1)) "$DATA/adult.csv" > data.csv
cp "$DATA/adult-domain.json" domain.json
R="node $ROOT/bin/rap-studio.mjs"
$R workload random --domain domain.json --k 3 --r 2 --size 40 --seed 7 --out w3.json >/dev/null 2>&1
$R workload random --domain domain.json --k 4 --r 4 --size 30 --seed 8 --out w4.json >/dev/null 2>&1
$R workload random --domain domain.json --k 3 --r 1 --size 30 --seed 9 --out w1.json >/dev/null 2>&1
synth() { # name, extra flags…
  local name=$1
  shift
  $R synth --data data.csv --domain domain.json --epsilon 1 --delta 1e-6 --rows 200 --oversample 4 \
    --max-steps 40 --insecure-seed --budget-epsilon 100 --confirm-cap --out "o-$name.csv" \
    --report "r-$name.json" --ledger "l-$name.sqlite" "$@" >/dev/null 2>"err-$name.txt" ||
    { echo "FAILED $name:" >&2; cat "err-$name.txt" >&2; }
}
for mode in table query; do
  for threads in 1 2; do
    for w in w3 w4 w1; do synth "$mode-$threads-$w" --mode "$mode" --threads "$threads" --workload "$w.json" --seed 11; done
  done
done
synth qa-soft --mode query --selection adaptive --relaxation softmax --threads 2 --workload w3.json --seed 12
sha256sum o-*.csv
