#!/usr/bin/env bash
# Growth on the GPU side by side with the reference peers, in one run on one machine:
# rbfnet (and, when given, an older rbfnet binary) against the one-pass PyTorch peer and the
# common OLS peer on the same --synthetic data (docs/BENCHMARKS.md, "Matrix-free scoring").
# Usage: bench/growth_vs_peers.sh RBFNET PEERS_DIR OUT_DIR ROWS[,DIMS] POOL NODES [OLD_RBFNET]
# (DIMS 20 unless given).
set -u
rbfnet=$1 peers=$2 out=$3 rows=$4 pool=$5 nodes=$6 old=${7:-}
dims=20
case "$rows" in *,*) dims=${rows#*,} rows=${rows%%,*} ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
# The peers' one width, sigma = sqrt(d) / 2, for this d.
config="$out/peer_one_width_d$dims.yaml"
sed "s/^  sigma0: .*/  sigma0: $(python3 -c "print($dims ** 0.5 / 2)")/" "$root/bench/configs/peer_one_width.yaml" > "$config"
tag="${rows}x${dims}_p${pool}_m${nodes}"
run_rbfnet() {  # binary, label
  "$1" bench --synthetic "$rows,$dims" --backends gpu --config "$config" --pool "$pool" --nodes "$nodes" \
    --quiet --out "$out/$2_$tag" > "$out/$2_$tag.log" 2>&1
  echo "$2: $(grep -E '^\| *gpu' "$out/$2_$tag/summary.md" | head -1)"
}
run_rbfnet "$rbfnet" rbfnet
[ -n "$old" ] && run_rbfnet "$old" rbfnet_before
(cd "$peers" && python3 ols_onepass_torch.py --synthetic "$rows,$dims" --nodes "$nodes" --pool "$pool" --device cuda) 2>&1 | tail -1
(cd "$peers" && python3 ols_rbf.py --lib torch --device cuda --synthetic "$rows,$dims" --nodes "$nodes" --pool "$pool") 2>&1 | tail -1
