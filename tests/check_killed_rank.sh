#!/usr/bin/env bash
# Ends one rank of a distributed gmm-train mid-fit and times how long the others take to end:
# a check by hand on a machine with the GPUs (one per rank, NCCL) or on the CPU (MPI).
#
#   tests/check_killed_rank.sh DATA_DIR [--np N] [--device gpu|cpu] [--mode kill|stop] [--bin DIR]
#
# The fit is `mpirun -np N gmm-train DATA_DIR -k 10 --tol 0 --max-iter 100000000 -v` (it would
# run for hours); once rank 0 has printed 10 EM iterations the last rank gets
#   kill: SIGKILL (a rank that dies): mpirun sees it and ends every rank;
#   stop: SIGSTOP (a rank that hangs, alive: no launcher notices): the others wait in their sum
#         (--device gpu: the NCCL all-reduce, until GMM_NCCL_WAIT_S; cpu: MPI, until
#         GMM_MPI_WAIT_S; 5 s here) and end with "waited ...", then MPI_Abort ends the job.
# Passes (exit 0) when every rank has ended within 10 s of the kill (stop: the wait + 10 s), with
# a non-zero exit and the message; prints the time and the output (iteration lines cut).
# GMM_BIN or --bin: the programs (default build/bin).
set -u
usage() { echo "usage: $0 DATA_DIR [--np N] [--device gpu|cpu] [--mode kill|stop] [--bin DIR]" >&2; exit 2; }
[ $# -ge 1 ] || usage
data=$1; shift
np=2 device=gpu mode=kill bin=${GMM_BIN:-build/bin}
while [ $# -gt 0 ]; do
  case $1 in
    --np) np=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ "$mode" = kill ] || [ "$mode" = stop ] || usage
bin=$(cd "$bin" && pwd) || exit 2
data=$(cd "$data" && pwd) || exit 2
work=$(mktemp -d)
victim_pid=
cleanup() { [ -n "$victim_pid" ] && kill -9 "$victim_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
export GMM_NCCL_WAIT_S=${GMM_NCCL_WAIT_S:-5} GMM_MPI_WAIT_S=${GMM_MPI_WAIT_S:-5}
last=$((np - 1))
cd "$work" || exit 2
( timeout 300 mpirun --oversubscribe -np "$np" sh -c \
    'echo $$ > rank$OMPI_COMM_WORLD_RANK.pid; exec "$0" "$@"' "$bin/gmm-train" "$data" -k 10 \
    --tol 0 --max-iter 100000000 --seed 3 --device "$device" --png '' -v -o killed.bin \
    > run.log 2>&1; echo $? > run.rc ) &
for _ in $(seq 1200); do
  [ -e run.rc ] && break
  [ -s "rank$last.pid" ] && grep -q '^iter   10 ' run.log && break
  sleep 0.1
done
if [ -e run.rc ] || [ ! -s "rank$last.pid" ]; then
  echo "FAIL: the fit did not start, or ended before the kill"; cat run.log; exit 1
fi
victim_pid=$(cat "rank$last.pid")
signal=KILL; [ "$mode" = stop ] && signal=STOP
t0=$(date +%s.%N)
kill -"$signal" "$victim_pid"
wait
t1=$(date +%s.%N)
rc=$(cat run.rc)
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
wait_s=$GMM_NCCL_WAIT_S; [ "$device" = cpu ] && wait_s=$GMM_MPI_WAIT_S
limit=10; [ "$mode" = stop ] && limit=$((${wait_s%.*} + 10))
grep -v '^iter ' run.log
echo "rank $last of $np (pid $victim_pid) sent SIG$signal mid-fit on $device: every rank ended" \
     "$elapsed s later, exit $rc (limit $limit s)"
ok=1
awk -v e="$elapsed" -v l="$limit" 'BEGIN { exit !(e < l) }' || { echo "FAIL: too slow"; ok=0; }
{ [ "$rc" != 0 ] && [ "$rc" != 124 ]; } || { echo "FAIL: exit $rc"; ok=0; }
if [ "$mode" = kill ]; then
  grep -q "process rank $last with PID .* exited on signal 9" run.log || { echo "FAIL: no message"; ok=0; }
else
  grep -q "waited" run.log || { echo "FAIL: no message of the wait"; ok=0; }
fi
[ $ok = 1 ] && echo PASS
[ $ok = 1 ]
