#!/usr/bin/env bash
# One network against partitioned models on data with local structure (bench/make_bumps.py):
# total training time (process wall, data reading included) and held-out RMSE, side by side in
# one run on one machine.
#   bench/partitions_bench.sh RBFNET ROWS DIMS BUMPS "K1 K2 ..." [extra train flags...]
# Example: bench/partitions_bench.sh build/release/app/rbfnet 200000 8 500 "1 4 16" --backend cpu
set -eu
rbfnet=$1 rows=$2 dims=$3 bumps=$4 parts=$5
shift 5
python=${PYTHON:-python3}
work=${WORK:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
"$python" "$here/make_bumps.py" "$rows" "$dims" "$bumps" "$work/train.csv" --seed 1 \
  --test "$work/test.csv" --test-rows $((rows / 4 > 200000 ? 200000 : rows / 4))
echo "| partitions | nodes | train s (wall) | held-out RMSE | held-out R2 |"
echo "|---|---|---|---|---|"
for k in $parts; do
  start=$(date +%s.%N)
  "$rbfnet" train --data "$work/train.csv" --target y --partitions "$k" --folds 0 --out "$work/m$k.rbfn" \
    --quiet --log-level warn "$@" > "$work/train$k.txt"
  end=$(date +%s.%N)
  nodes=$("$rbfnet" inspect "$work/m$k.rbfn" | sed -n 's/^model .*, \([0-9]*\) nodes$/\1/p')
  scores=$("$rbfnet" evaluate --model "$work/m$k.rbfn" --data "$work/test.csv" --target y | tail -1)
  rmse=$(echo "$scores" | sed -n 's/.*RMSE \([^ ]*\) .*/\1/p')
  r2=$(echo "$scores" | sed -n 's/.*R2 \([^ ]*\).*/\1/p')
  echo "| $k | $nodes | $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') | $rmse | $r2 |"
done
