#!/bin/sh
# End-to-end cases that need a shell: symlinks, FIFOs, devices, signals and standard output.
#   hostile.sh RBFNET CLI_DATA_DIR SOURCE_DIR WORK_DIR CASE
# Each case runs in a fresh WORK_DIR/CASE folder and exits non-zero, saying why, on failure.
set -u
RBFNET=$1
CLI_DATA=$2
SOURCE=$3
WORK=$4/$5
CASE=$5
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
cp "$CLI_DATA/good.csv" good.csv

fail() {
  echo "FAILED $CASE: $*" >&2
  [ -f err ] && { echo "--- stderr ---" >&2; cat err >&2; }
  exit 1
}
# expect STATUS STDERR_REGEX command...: runs it, checks the exit status and stderr.
expect() {
  want=$1 pattern=$2
  shift 2
  "$@" >out 2>err
  got=$?
  [ "$got" = "$want" ] || fail "exit status $got, expected $want: $*"
  [ -z "$pattern" ] || grep -Eq -- "$pattern" err || fail "stderr does not match '$pattern': $*"
}
train_small() { "$RBFNET" train --data good.csv --target y --quiet --log-level warn "$@"; }
model() { train_small --out m.rbfn >/dev/null 2>&1 || fail "cannot train the small model"; }
same_bytes() { cmp -s "$1" "$2" || fail "$1 was changed"; }
# stop_within PID SIGNAL SECONDS: sends the signal, waits at most SECONDS for the process to
# end (killing it and failing after that) and leaves its exit status in $status.
stop_within() {
  kill -"$2" "$1"
  waited=0
  while kill -0 "$1" 2>/dev/null && [ $waited -lt "$3" ]; do sleep 1; waited=$((waited + 1)); done
  if kill -0 "$1" 2>/dev/null; then kill -9 "$1"; fail "still running $3 s after SIG$2"; fi
  wait "$1"
  status=$?
}

case $CASE in
# --- a name is data, never code --------------------------------------------------------------
file_name_in_plot_script)
  # A line break in a data file's name once started a gnuplot command ("system" runs a shell).
  name=$(printf 'a\nsystem "touch PWNED"\n#.csv')
  cp good.csv "$name"
  expect 0 "" "$RBFNET" bench --data "./$name" --target y --backends cpu --nodes 3 --quiet --out plots
  [ ! -e plots/PWNED ] && [ ! -e PWNED ] || fail "the file name ran a command"
  grep -q 'a\\x0Asystem' plots/cost_curves.gp || fail "the plot script does not show the name as text"
  [ "$(grep -c '^system' plots/cost_curves.gp)" = 0 ] || fail "the plot script has a line of the name"
  grep -q 'data: ./a\\x0Asystem' plots/summary.md || fail "summary.md does not show the name on one line" ;;
descriptor_outputs)
  # /dev/fd/N is an output only when rbfnet was started with N open for writing: checked before
  # training, so it can never mean a descriptor rbfnet opened itself (its iteration log).
  expect 2 "--out '/dev/fd/7' names descriptor 7, which is not open" train_small --out /dev/fd/7 --log-iter log.csv
  [ ! -e log.csv ] || fail "the run went on to write its log"
  expect 2 "--metrics-json '/dev/fd/8' names descriptor 8, which is not open" train_small --out m.rbfn --metrics-json /dev/fd/8
  [ ! -e m.rbfn ] || fail "the run trained before refusing the descriptor"
  expect 2 "names descriptor 7, which is open for reading only" sh -c '"$0" train --data good.csv --target y --quiet --out /dev/fd/7 7<good.csv' "$RBFNET"
  expect 0 "" sh -c '"$0" train --data good.csv --target y --quiet --log-level warn --log-iter log.csv --out /dev/fd/7 7>inherited.rbfn' "$RBFNET"
  "$RBFNET" inspect inherited.rbfn >/dev/null 2>&1 || fail "the model did not reach the inherited descriptor"
  head -1 log.csv | grep -q '^iteration,' || fail "the iteration log holds something else" ;;
bench_auto_on_the_cpu)
  # auto on the cpu throughout is the cpu run again: named so, and no speed-up claimed.
  expect 0 "" "$RBFNET" bench --synthetic 1000,5 --backends cpu,auto --nodes 8 --quiet --out plots
  grep -q "title 'auto (on cpu throughout)'" plots/cost_curves.gp || fail "the legend does not say where auto ran"
  grep -Eq '^\| auto \| cpu \|.*\| [0-9.]+x \(same device\) \|' plots/summary.md ||
    fail "summary.md gives auto's ratio as a speed-up" ;;
# --- an output never overwrites an input or another output ---------------------------------
out_is_data)
  cp good.csv orig.csv
  expect 2 "--out 'good.csv' is the same file as --data 'good.csv'" train_small --out good.csv
  same_bytes good.csv orig.csv ;;
checkpoint_is_data)
  cp good.csv orig.csv
  expect 2 "--checkpoint '\\./good.csv' is the same file as --data" train_small --checkpoint ./good.csv
  same_bytes good.csv orig.csv ;;
log_is_data_through_link)
  cp good.csv orig.csv && ln -s good.csv alias.csv
  expect 2 "--log-iter 'alias.csv' is the same file as --data 'good.csv'" train_small --log-iter alias.csv
  same_bytes good.csv orig.csv ;;
log_is_out)
  expect 2 "--log-iter 'm.rbfn' is the same file as --out 'm.rbfn'" train_small --out m.rbfn --log-iter m.rbfn ;;
predict_out_is_model)
  model && cp m.rbfn orig.rbfn
  expect 2 "--out 'm.rbfn' is the same file as --model" "$RBFNET" predict --model m.rbfn --data good.csv --out m.rbfn
  same_bytes m.rbfn orig.rbfn ;;
predict_out_is_data)
  model && cp good.csv orig.csv && ln good.csv hardlink.csv
  expect 2 "is the same file as --data" "$RBFNET" predict --model m.rbfn --data good.csv --out hardlink.csv
  same_bytes good.csv orig.csv ;;
# --- every output is checked before any work starts (malformed.csv would fail the read) -----
missing_out_folder_first)
  expect 2 "--out 'nodir/m.rbfn'.*directory 'nodir' does not exist" \
    "$RBFNET" train --data "$CLI_DATA/malformed.csv" --target y --out nodir/m.rbfn ;;
missing_checkpoint_folder_first)
  expect 2 "--checkpoint 'nodir/c.ckpt'.*does not exist" \
    "$RBFNET" train --data "$CLI_DATA/malformed.csv" --target y --checkpoint nodir/c.ckpt ;;
name_too_long_with_suffix)
  long=$(printf '%0250d' 0)
  expect 2 "too long once the temporary suffix" \
    "$RBFNET" train --data "$CLI_DATA/malformed.csv" --target y --out "$long.rbfn" ;;
# --- replacing an output: links kept, devices and streams written in place, modes kept ------
symlink_kept)
  model && ln -s real.csv link.csv
  expect 0 "" "$RBFNET" predict --model m.rbfn --data good.csv --out link.csv
  [ -L link.csv ] || fail "the symlink was replaced by a file"
  grep -q '^y$' real.csv || fail "the symlink's target was not written" ;;
fifo_out_written_in_place)
  model && mkfifo pipe.csv
  cat pipe.csv >got.csv &
  expect 0 "" "$RBFNET" predict --model m.rbfn --data good.csv --out pipe.csv
  wait
  [ -p pipe.csv ] || fail "the FIFO was replaced by a file"
  grep -q '^y$' got.csv || fail "the predictions did not go through the FIFO" ;;
stream_out_written_in_place)
  model
  expect 0 "" "$RBFNET" predict --model m.rbfn --data good.csv --out /proc/self/fd/1
  grep -q '^y$' out || fail "the predictions did not reach standard output" ;;
mode_kept)
  model && : >p.csv && chmod 600 p.csv
  expect 0 "" "$RBFNET" predict --model m.rbfn --data good.csv --out p.csv
  [ "$(ls -l p.csv | cut -c1-10)" = "-rw-------" ] || fail "mode became $(ls -l p.csv | cut -c1-10)" ;;
stale_temporary_removed)
  model
  sh -c 'exit 0' & dead=$!
  wait $dead
  : >"p.csv.tmp-$dead" && : >p.csv.tmp-1  # pid 1 always runs: its file is not stale
  expect 0 "" "$RBFNET" predict --model m.rbfn --data good.csv --out p.csv
  [ ! -e "p.csv.tmp-$dead" ] || fail "the stale temporary of pid $dead is still there"
  [ -e p.csv.tmp-1 ] || fail "the temporary of a running process was removed" ;;
log_through_output_policy)
  # The iteration log follows the policy of every output: a symlink is written through, the
  # mode of the file it replaces is kept, a standard stream is written in place.
  : >real.csv && chmod 600 real.csv && ln -s real.csv link.csv
  expect 0 "" train_small --out m.rbfn --log-iter link.csv
  [ -L link.csv ] || fail "the symlink was replaced by a file"
  grep -q '^iteration,nodes,' real.csv || fail "the log did not reach the symlink's target"
  [ "$(ls -l real.csv | cut -c1-10)" = "-rw-------" ] || fail "mode became $(ls -l real.csv | cut -c1-10)"
  expect 0 "" train_small --out m.rbfn --log-iter /proc/self/fd/1
  grep -q '^iteration,nodes,' out || fail "the log did not reach standard output" ;;
# --- non-regular inputs: read once, never without bound -------------------------------------
fifo_data_read_once)
  mkfifo data.csv
  cat good.csv >data.csv &
  expect 0 "" timeout 30 "$RBFNET" train --data data.csv --target y --quiet --log-level warn --out f.rbfn
  wait ;;
dev_zero_data)
  expect 2 "data file '/dev/zero' is a pipe or device that gave more than the 1 GiB allowed" \
    "$RBFNET" train --data /dev/zero --target y ;;
dev_zero_config)
  expect 2 "config file '/dev/zero' is a pipe or device that gave more than the 1 MiB allowed" \
    "$RBFNET" train --config /dev/zero --data good.csv --target y ;;
# --- a failed write to standard output is an error ------------------------------------------
stdout_full)
  [ -w /dev/full ] || { echo "no /dev/full: nothing to check"; exit 0; }
  model
  "$RBFNET" evaluate --model m.rbfn --data good.csv --target y >/dev/full 2>err
  [ $? = 1 ] || fail "evaluate into a full device did not exit 1"
  grep -q "cannot write to standard output" err || fail "no message about standard output"
  "$RBFNET" train --print-config >/dev/full 2>err
  [ $? = 1 ] || fail "--print-config into a full device did not exit 1" ;;
# --- SIGINT and SIGTERM stop a long refinement, which leaves a checkpoint ----------------------
sigint_during_refinement|sigterm_during_refinement|sighup_during_refinement)
  signal=INT && [ "$CASE" = sigterm_during_refinement ] && signal=TERM
  if [ "$CASE" = sighup_during_refinement ]; then
    signal=HUP
    # Under nohup SIGHUP is ignored from the start, and rbfnet keeps it so, as it should.
    ignored=$(awk '/^SigIgn/ {print $2}' /proc/$$/status 2>/dev/null)
    if [ -n "$ignored" ] && [ $((0x$ignored & 1)) = 1 ]; then echo "skipped: SIGHUP is ignored here"; exit 0; fi
  fi
  "$RBFNET" train --data "$SOURCE/data/iris.csv" --target species --nodes 6 --refine-at-end \
    --refine-method adam --refine-epochs 100000000 --refine-patience 0 --out r.rbfn --quiet --log-level warn \
    >out 2>err &
  pid=$!
  sleep 2
  stop_within $pid $signal 30
  want=130 && [ $signal = TERM ] && want=143
  [ $signal = HUP ] && want=129
  [ $status = $want ] || fail "exit status $status after SIG$signal, expected $want"
  grep -q "interrupted after .* continue with: rbfnet train --resume r.rbfn.ckpt" err || fail "no resume hint"
  [ -f r.rbfn.ckpt ] || fail "no checkpoint written"
  [ ! -e r.rbfn ] || fail "an interrupted run wrote the final model" ;;
# --- ... and the set-up of a run with thousands of classes, fresh or resumed ------------------
sigint_during_setup)
  # 2,000 classes on one thread: the first pass over the candidates alone takes half a minute.
  # One growth (--folds 0): the width choice of larger data would save nothing to resume.
  awk 'BEGIN { srand(5); print "a,b,c,d,y"; for (i = 0; i < 4000; i++) { c = i % 2000;
    print rand() "," rand() "," rand() "," c / 2000 ",c" c } }' >classes.csv
  set -- train --data classes.csv --target y --pool 100000 --threads 1 --backend cpu --nodes 5 --folds 0 --out c.rbfn \
    --quiet --log-level warn
  echo "the previous run's log" >log.csv && cp log.csv log-before.csv
  "$RBFNET" "$@" --log-iter log.csv >out 2>err &
  pid=$!
  sleep 3
  stop_within $pid INT 10
  same_bytes log.csv log-before.csv  # no iteration ran: the previous log stays
  [ $status = 130 ] || fail "exit status $status after SIGINT during set-up, expected 130"
  grep -q "interrupted after 0 iterations" err || fail "not stopped during set-up"
  [ -f c.rbfn.ckpt ] || fail "no checkpoint written"
  cp c.rbfn.ckpt before.ckpt
  "$RBFNET" "$@" --resume c.rbfn.ckpt >out 2>err &
  pid=$!
  sleep 3
  stop_within $pid TERM 10
  [ $status = 143 ] || fail "exit status $status after SIGTERM during a resumed set-up, expected 143"
  grep -q "interrupted while setting up; c.rbfn.ckpt is unchanged; continue with: rbfnet train --resume c.rbfn.ckpt" \
    err || fail "no message that the checkpoint is unchanged"
  same_bytes c.rbfn.ckpt before.ckpt ;;
sigint_during_cross_validation)
  # 5,000 rows on one thread: small enough for auto's 5 folds, each of which grows for seconds.
  awk 'BEGIN { srand(7); print "a,b,c,d,e,y"; for (i = 0; i < 5000; i++) { a = rand(); b = rand();
    print a "," b "," rand() "," rand() "," rand() "," sin(6 * a) + b * b } }' >cv.csv
  echo "the previous run's log" >log.csv && cp log.csv log-before.csv
  "$RBFNET" train --data cv.csv --target y --threads 1 --backend cpu --out cv.rbfn --log-iter log.csv --quiet \
    >out 2>err &
  pid=$!
  sleep 3
  stop_within $pid INT 10
  [ $status = 130 ] || fail "exit status $status after SIGINT during cross-validation, expected 130"
  grep -q "interrupted during cross-validation, before the model on every row was grown; nothing was written" err ||
    fail "no message that nothing was written"
  [ ! -e cv.rbfn ] && [ ! -e cv.rbfn.ckpt ] || fail "a model or checkpoint was written: $(ls)"
  same_bytes log.csv log-before.csv ;;
# --- results are exact and matched by name -------------------------------------------------
predictions_exact)
  printf 'x,y\n1,1000000123\n2,1000000123\n3,1000000123\n4,1000000123\n' >big.csv
  "$RBFNET" train --data big.csv --target y --validation 0 --out big.rbfn --quiet --log-level warn >/dev/null 2>&1 ||
    fail "cannot train"
  expect 0 "" "$RBFNET" predict --model big.rbfn --data big.csv
  [ "$(sed -n 2p out)" = 1000000123 ] || fail "prediction printed as $(sed -n 2p out)" ;;
evaluate_targets_by_name)
  awk 'BEGIN { srand(3); print "x1,x2,A,B,C"; for (i = 0; i < 60; i++) { a = rand(); b = rand();
    print a "," b "," 3 * a + 1 "," 100 * b - 7 "," a * b } }' >ab.csv
  "$RBFNET" train --data ab.csv --target A,B --features x1,x2 --nodes 10 --out ab.rbfn --quiet --log-level warn \
    >/dev/null 2>&1 || fail "cannot train"
  expect 0 "" "$RBFNET" evaluate --model ab.rbfn --data ab.csv --target A,B
  # A is linear in x1: the linear terms fit it to rounding (R2 1).
  grep -E '^  A .*R2 (0\.99|1)' out >/dev/null || fail "A is not scored as A"
  expect 0 "" "$RBFNET" evaluate --model ab.rbfn --data ab.csv --target B,A
  grep -E '^  A .*R2 (0\.99|1)' out >/dev/null || fail "--target B,A scores A against B"
  grep -E '^  B .*R2 (0\.99|1)' out >/dev/null || fail "--target B,A scores B against A"
  expect 2 "--target column 'C' is not a target of the model, which predicts 'A', 'B'" \
    "$RBFNET" evaluate --model ab.rbfn --data ab.csv --target C ;;
evaluate_many_classes)
  # 150 classes: beyond 100 the text lists the largest confusions and the JSON the non-zero
  # cells, instead of a classes x classes matrix (400 million cells for 20,000 classes).
  awk 'BEGIN { srand(9); print "a,b,y"; for (i = 0; i < 300; i++) print rand() "," rand() ",c" (i % 150) }' >many.csv
  "$RBFNET" train --data many.csv --target y --nodes 1 --pool 5 --validation 0 --out many.rbfn --quiet \
    --log-level warn >/dev/null 2>&1 || fail "cannot train"
  expect 0 "" "$RBFNET" evaluate --model many.rbfn --data many.csv --target y
  grep -q "confusion matrix: 150 classes, too many to print" out || fail "no summary of the confusions"
  [ "$(wc -l <out)" -le 24 ] || fail "the text report has $(wc -l <out) lines"
  expect 0 "" "$RBFNET" evaluate --model many.rbfn --data many.csv --target y --json
  grep -q '"confusion":null,"confusion_cells":\[\[0,' out || fail "no non-zero cells in the JSON" ;;
na_in_numeric_target)
  { echo x,y; i=1; while [ $i -le 40 ]; do echo "$i,$((i * 2))"; i=$((i + 1)); done; echo 41,NA; } >na.csv
  expect 2 "na.csv:42:2: 'NA' in target column 2 \('y'\) is not a number, but 40 of its 41 values are" \
    "$RBFNET" train --data na.csv --target y ;;
# --- a resumed run must solve the checkpoint's problem ---------------------------------------
resume_other_problem)
  cp "$SOURCE/data/iris.csv" iris.csv
  "$RBFNET" train --data iris.csv --target species --nodes 3 --checkpoint-every 1 --out i.rbfn --quiet \
    --log-level warn >/dev/null 2>&1 || fail "cannot train the checkpointed model"
  expect 2 "--target \(data.target\) differs from the checkpoint 'i.rbfn.ckpt': it was \[\"species\"\] there and is \[\"sepal_length\"\] now" \
    "$RBFNET" train --resume i.rbfn.ckpt --target sepal_length
  expect 2 "--features \(data.features\) differs" "$RBFNET" train --resume i.rbfn.ckpt --features sepal_length
  expect 2 "--seed \(data.seed\) differs.*it was 42 there and is 7 now" "$RBFNET" train --resume i.rbfn.ckpt --seed 7
  expect 2 "--validation \(data.validation\) differs" "$RBFNET" train --resume i.rbfn.ckpt --validation 0.3
  expect 2 "--linear-terms \(trainer.linear_terms\) differs.*it was auto there and is off now" \
    "$RBFNET" train --resume i.rbfn.ckpt --linear-terms off
  expect 2 "--sigma \(candidates.sigma0\) differs.*it was 0 there and is 2 now" "$RBFNET" train --resume i.rbfn.ckpt --sigma 2
  expect 2 "--widths \(candidates.width_factors\) differs" "$RBFNET" train --resume i.rbfn.ckpt --widths 0.25
  expect 2 "--categorical \(data.categorical\) differs" "$RBFNET" train --resume i.rbfn.ckpt --categorical off
  expect 2 "--weight \(data.weight\) differs" "$RBFNET" train --resume i.rbfn.ckpt --weight petal_width
  sed '5s/^[0-9]\.[0-9]/9.9/' iris.csv >changed.csv
  expect 2 "data file 'changed.csv' differs from 'iris.csv', the data the checkpoint 'i.rbfn.ckpt' was trained on" \
    "$RBFNET" train --resume i.rbfn.ckpt --data changed.csv
  expect 0 "" "$RBFNET" train --resume i.rbfn.ckpt --nodes 5 --quiet --log-level warn ;;
# --- an address-space limit (ulimit -v) smaller than a default OpenMP team's stacks ------------
threads_within_ulimit_v)
  # 64 threads of 8 MiB stacks need 512 MiB; libgomp, failing to create one, ends the process.
  (ulimit -s 8192 && ulimit -v 300000 && OMP_NUM_THREADS=64 exec "$RBFNET" train --data "$SOURCE/data/diabetes.csv" \
    --target progression --folds 0 --out u.rbfn --quiet --log-level warn) >out 2>err
  status=$?
  [ $status = 0 ] || fail "exit status $status under ulimit -v with 64 OpenMP threads"
  [ -s u.rbfn ] || fail "no model written under ulimit -v" ;;
log_on_a_full_disk)
  # The log's device is full from its first row: the run warns and saves its model.
  expect 0 "cannot write the iteration log '/dev/full' at iteration 1 .*training goes on without it" \
    train_small --out m.rbfn --log-iter /dev/full --log-level warn
  "$RBFNET" inspect m.rbfn >/dev/null 2>&1 || fail "no model was saved" ;;
resume_cuts_the_log_back)
  # A run whose last checkpoint (iteration 10) is older than its log (12 rows), as after a kill:
  # the resumed run grows 11 and 12 again, and the log holds each iteration once.
  cp "$SOURCE/data/iris.csv" iris.csv
  "$RBFNET" train --data iris.csv --target species --nodes 12 --patience 0 --folds 0 --checkpoint-every 5 \
    --log-iter log.csv --out i.rbfn --quiet --log-level warn >/dev/null 2>&1 || fail "cannot train the checkpointed model"
  [ "$(tail -n +2 log.csv | wc -l)" = 12 ] || fail "the first run did not log 12 iterations"
  expect 0 "" "$RBFNET" train --resume i.rbfn.ckpt --log-iter log.csv --out i.rbfn --quiet --log-level warn
  [ "$(tail -n +2 log.csv | cut -d, -f1 | sort -n | uniq -d | wc -l)" = 0 ] || fail "the log repeats iterations"
  [ "$(tail -n +2 log.csv | wc -l)" = 12 ] || fail "the log does not hold the 12 iterations once each"
  [ "$(grep -c '^iteration,' log.csv)" = 1 ] || fail "the log repeats its header" ;;
resume_changed_validation_data)
  head -121 "$SOURCE/data/iris.csv" >train.csv
  { head -1 "$SOURCE/data/iris.csv"; tail -29 "$SOURCE/data/iris.csv"; } >val.csv
  "$RBFNET" train --data train.csv --validation-data val.csv --target species --nodes 3 --checkpoint-every 1 \
    --out v.rbfn --quiet --log-level warn >/dev/null 2>&1 || fail "cannot train with --validation-data"
  expect 0 "" "$RBFNET" train --resume v.rbfn.ckpt --nodes 4 --quiet --log-level warn
  "$RBFNET" train --data train.csv --validation-data val.csv --target species --nodes 3 --checkpoint-every 1 \
    --out v.rbfn --quiet --log-level warn >/dev/null 2>&1 || fail "cannot train with --validation-data"
  sed '3s/^[0-9]\.[0-9]/9.9/' val.csv >val2.csv && mv val2.csv val.csv
  expect 2 "differs from 'train.csv', the data the checkpoint 'v.rbfn.ckpt' was trained on" \
    "$RBFNET" train --resume v.rbfn.ckpt ;;
*)
  fail "unknown case" ;;
esac
exit 0
