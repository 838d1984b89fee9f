#!/usr/bin/env bash
# Times two rbfnet binaries' CPU growth on an idle machine and with every core busy, alternating.
#
# Usage: bench/cpu_threads_ab.sh OLD_RBFNET NEW_RBFNET OUTDIR
#
# For each load (idle, then one `while :; do :; done` loop per core) and each size (2,000 and
# 20,000 rows of `rbfnet bench --synthetic N,20 --backends cpu --nodes 200`), runs OLD and NEW
# RUNS times each (default 3), one after the other, and writes OUTDIR/cpu_threads_ab.csv (one
# row per run: growth and total seconds as rbfnet reports them, /proc/loadavg when the run
# started) and OUTDIR/cpu_threads_ab.md (median and min-max per binary, NEW's median over
# OLD's). Needs bash and coreutils only. Each run is limited to RUN_LIMIT seconds (default 20)
# and the whole script to TOTAL_LIMIT seconds (default 220): runs past it are recorded as
# skipped. CONFIG=FILE passes --config FILE to both binaries (default: their built-in defaults).
# SPIN=COUNT adds a third column, NEW run with GOMP_SPINCOUNT=COUNT (OpenMP's idle threads spin
# that many times before they sleep, instead of sleeping at once). Environment such as
# LD_LIBRARY_PATH is passed through unchanged.
set -u

if [ $# -ne 3 ]; then
  echo "usage: $0 OLD_RBFNET NEW_RBFNET OUTDIR" >&2
  exit 2
fi
old=$1 new=$2 out=$3
for bin in "$old" "$new"; do
  if [ ! -x "$bin" ]; then
    echo "$0: $bin is not an executable file" >&2
    exit 2
  fi
done
runs=${RUNS:-3}
run_limit=${RUN_LIMIT:-20}
total_limit=${TOTAL_LIMIT:-220}
config_args=()
if [ -n "${CONFIG:-}" ]; then config_args=(--config "$CONFIG"); fi
mkdir -p "$out" || exit 1
csv=$out/cpu_threads_ab.csv
md=$out/cpu_threads_ab.md
work=$(mktemp -d "${TMPDIR:-/tmp}/cpu_threads_ab.XXXXXX") || exit 1
cores=$(nproc)
start=$SECONDS

busy_pids=()
stop_busy() {
  local pid
  for pid in "${busy_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${busy_pids[@]}"; do wait "$pid" 2>/dev/null; done
  busy_pids=()
}
cleanup() {
  stop_busy
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Decimal seconds ("0.185", "12.3") to integer microseconds, in bash alone.
to_us() {
  local s=$1 int frac
  int=${s%%.*}
  if [ "$int" = "$s" ]; then frac=""; else frac=${s#*.}; fi
  frac=${frac}000000
  frac=${frac:0:6}
  echo $((10#${int:-0} * 1000000 + 10#$frac))
}
from_us() {
  printf '%d.%03d' $(($1 / 1000000)) $((($1 % 1000000) / 1000))
}

echo "load,rows,binary,run,growth_s,total_s,loadavg,status" >"$csv"

# One training; appends its row to the CSV.
one_run() {
  local load=$1 rows=$2 name=$3 bin=$4 run=$5 loadavg log status growth="" total="" spin=()
  if [ "$name" = new-spin ]; then spin=(env "GOMP_SPINCOUNT=$SPIN"); fi
  loadavg=$(cut -d' ' -f1-4 /proc/loadavg 2>/dev/null)
  log=$work/$name-$load-$rows-$run.log
  if [ $((SECONDS - start)) -ge "$total_limit" ]; then
    status=skipped
  else
    timeout -k 2 "$run_limit" "${spin[@]}" "$bin" bench --synthetic "$rows",20 --backends cpu --nodes 200 --quiet \
      "${config_args[@]}" --out "$work/out-$name" >"$log" 2>&1
    status=$?
    # "  cpu  200 nodes, 0.264 s (setup 0.079 s + growth 0.185 s)"
    local line="" l
    while IFS= read -r l; do
      if [[ $l =~ ^\ +cpu\ +[0-9]+\ nodes,\  ]]; then line=$l; break; fi
    done <"$log"
    if [ "$status" -eq 0 ] && [ -n "$line" ]; then
      total=${line#*nodes, }
      total=${total%% s*}
      growth=${line#*growth }
      growth=${growth%% s*}
      status=ok
    elif [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
      status=timeout
    else
      status=failed-$status
    fi
  fi
  echo "$load,$rows,$name,$run,$growth,$total,$loadavg,$status" >>"$csv"
  echo "$load $rows rows $name run $run: growth ${growth:-?} s, total ${total:-?} s ($status; loadavg $loadavg)"
}

phase() {
  local load=$1 rows run
  for rows in 2000 20000; do
    for run in $(seq 1 "$runs"); do
      # Alternate which binary goes first, so a drift in the machine's state hits both.
      if [ $((run % 2)) -eq 1 ]; then
        one_run "$load" "$rows" old "$old" "$run"
        one_run "$load" "$rows" new "$new" "$run"
        if [ -n "${SPIN:-}" ]; then one_run "$load" "$rows" new-spin "$new" "$run"; fi
      else
        if [ -n "${SPIN:-}" ]; then one_run "$load" "$rows" new-spin "$new" "$run"; fi
        one_run "$load" "$rows" new "$new" "$run"
        one_run "$load" "$rows" old "$old" "$run"
      fi
    done
  done
}

phase idle
for _ in $(seq 1 "$cores"); do
  bash -c 'while :; do :; done' &
  busy_pids+=($!)
done
sleep 1
phase busy
stop_busy

# Median and min-max of one cell's growth seconds, as "median (min-max)", or "-".
summary() {
  local load=$1 rows=$2 name=$3 l r b rest growth values=()
  while IFS=, read -r l r b _ growth rest; do
    if [ "$l" = "$load" ] && [ "$r" = "$rows" ] && [ "$b" = "$name" ] && [ -n "$growth" ]; then values+=("$growth"); fi
  done <"$csv"
  if [ ${#values[@]} -eq 0 ]; then
    echo "-"
    return
  fi
  mapfile -t values < <(printf '%s\n' "${values[@]}" | sort -g)
  local n=${#values[@]}
  echo "${values[$(((n - 1) / 2))]} (${values[0]}-${values[$((n - 1))]})"
}

# NEW's median over OLD's, from two summary cells, or "-".
ratio() {
  local o=$1 n=$2 ou nu
  if [ "$o" = "-" ] || [ "$n" = "-" ]; then
    echo "-"
    return
  fi
  ou=$(to_us "${o%% *}")
  nu=$(to_us "${n%% *}")
  if [ "$ou" -gt 0 ]; then echo "$(from_us $((nu * 1000000 / ou)))x"; else echo "-"; fi
}

{
  echo "# CPU threading A/B: growth seconds, median (min-max) of $runs runs"
  echo
  model=unknown
  while IFS= read -r l; do
    if [[ $l =~ ^model\ name[[:space:]]*:\ *(.*)$ ]]; then model=${BASH_REMATCH[1]}; break; fi
  done </proc/cpuinfo 2>/dev/null
  echo "- machine: $model, nproc = $cores"
  echo "- old: \`$old\`; new: \`$new\`"
  echo "- command: \`rbfnet bench --synthetic N,20 --backends cpu --nodes 200${CONFIG:+ --config $CONFIG}\`;" \
    "busy = $cores loops of \`while :; do :; done\`"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); all runs: $csv"
  echo
  if [ -n "${SPIN:-}" ]; then
    echo "| load | rows | old | new | new / old (medians) | new, GOMP_SPINCOUNT=$SPIN | its / old |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
  else
    echo "| load | rows | old | new | new / old (medians) |"
    echo "|---|---:|---:|---:|---:|"
  fi
  for load in idle busy; do
    for rows in 2000 20000; do
      o=$(summary "$load" "$rows" old)
      n=$(summary "$load" "$rows" new)
      row="| $load | $rows | $o | $n | $(ratio "$o" "$n") |"
      if [ -n "${SPIN:-}" ]; then
        s=$(summary "$load" "$rows" new-spin)
        row="$row $s | $(ratio "$o" "$s") |"
      fi
      echo "$row"
    done
  done
  skipped=0
  while IFS= read -r l; do
    case $l in load,* | *,ok) ;; *) skipped=$((skipped + 1)) ;; esac
  done <"$csv"
  if [ "$skipped" -gt 0 ]; then
    echo
    echo "$skipped run(s) did not finish (timeout, failure or over the time limit): see the CSV's status column."
  fi
} >"$md"
cat "$md"
