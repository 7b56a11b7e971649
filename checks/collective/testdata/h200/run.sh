#!/bin/bash
# fabricctl issue 18 on a real H200: check --local --suite nccl (PyTorch and
# nccl-tests), p2pBandwidthLatencyTest, analyze. NCCL_NVLS_ENABLE=0 everywhere.
set +e
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PATH=/opt/torch/.venv/bin:$PATH
S=$(cd "$(dirname "$0")" && pwd); F=$S/../fabricctl
B=$(mktemp -d); D=$B/h200nccl; mkdir -p $D/logs-auto $D/logs-torch $D/logs-tests
log() { echo "[$(date -u +%T)] $*" | tee -a $D/steps.txt; }
date -u +%Y-%m-%dT%H:%M:%SZ > $D/DATE
# Whatever happens, what was captured comes back before the call's limit.
# (As run, this line lacked the redirection: its sleep held the call's output
# open and the call took 430 s instead of about a minute.)
( sleep 430; cd $B && tar czf $OUT/h200nccl-partial.tgz h200nccl ) >/dev/null 2>&1 & WATCH=$!
{ hostname; uname -r; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c 'import torch;print("torch",torch.__version__,torch.cuda.nccl.version())'; command -v nvcc || ls /usr/local/cuda/bin/nvcc; } > $D/host.txt 2>&1
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); CUDA_HOME=$(dirname $(dirname $NVCC))
# Build nccl-tests' all_reduce_perf (sm_90 only) and the CUDA sample in the background.
mkdir -p $B/src && tar xzf $S/nccl-tests.tgz -C $B/src && mkdir -p $B/cs && tar xzf $S/cuda-samples-p2p.tgz -C $B/cs
( cd $B/src && timeout 300 make -j16 -C src ../build/all_reduce_perf CUDA_HOME=$CUDA_HOME NVCC=$NVCC NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" > $D/build-nccl-tests.txt 2>&1; echo "exit $?" >> $D/build-nccl-tests.txt ) &
BUILD=$!
( cd $B/cs && timeout 200 $NVCC -O2 -I Common -gencode=arch=compute_90,code=sm_90 -o p2pBandwidthLatencyTest Samples/5_Domain_Specific/p2pBandwidthLatencyTest/p2pBandwidthLatencyTest.cu > $D/build-p2p.txt 2>&1; echo "exit $?" >> $D/build-p2p.txt ) &
P2P=$!
log "auto (no fabric), json"
timeout 150 $F check --local --suite nccl -o json --nccl-logs $D/logs-auto > $D/check-local-nccl-auto.json 2> $D/check-local-nccl-auto.stderr; echo $? > $D/check-local-nccl-auto.rc
log "torch via fabric, table"
timeout 150 $F check --local --suite nccl -f $S/torch.yaml --host h200 --nccl-logs $D/logs-torch > $D/check-local-nccl-torch.txt 2> $D/check-local-nccl-torch.stderr; echo $? > $D/check-local-nccl-torch.rc
wait $P2P; log "p2p built: $(tail -1 $D/build-p2p.txt)"
[ -x $B/cs/p2pBandwidthLatencyTest ] && timeout 60 $B/cs/p2pBandwidthLatencyTest > $D/p2pBandwidthLatencyTest.txt 2>&1; echo $? > $D/p2pBandwidthLatencyTest.rc
nvidia-smi topo -m > $D/topo-m.txt 2>&1
wait $BUILD; log "nccl-tests built: $(tail -1 $D/build-nccl-tests.txt)"
if [ -x $B/src/build/all_reduce_perf ]; then
  export PATH=$B/src/build:$PATH
  log "nccl-tests via fabric, json"
  timeout 120 $F check --local --suite nccl -f $S/nccltests.yaml --host h200 -o json --nccl-logs $D/logs-tests > $D/check-local-nccl-tests.json 2> $D/check-local-nccl-tests.stderr; echo $? > $D/check-local-nccl-tests.rc
  timeout 120 env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV all_reduce_perf -b 8 -e 128M -f 2 -g 1 > $D/all_reduce_perf-direct.txt 2>&1; echo $? > $D/all_reduce_perf-direct.rc
fi
log "analyze"
(cd $D && timeout 60 $F analyze $(find logs-* -type f | sort) p2pBandwidthLatencyTest.txt topo-m.txt all_reduce_perf-direct.txt > analyze.txt 2>&1; echo $? > analyze.rc)
log done
pkill -P $WATCH 2>/dev/null; kill $WATCH 2>/dev/null
cd $B && tar czf $OUT/h200nccl.tgz h200nccl && ls -la $OUT
