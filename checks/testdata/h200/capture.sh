#!/bin/bash
# Captures a GPU host's view for fabricctl fixtures (issue 15). Every command's
# stdout goes to NAME, stderr to NAME.stderr, exit status to NAME.rc.
set +e
S=$(cd "$(dirname "$0")" && pwd)
B=$(mktemp -d); D=$B/h200; mkdir -p $D; cd $D
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
c() { n=$1; shift; printf '%s\t%s\n' "$n" "$*" >> MANIFEST; timeout 120 "$@" > "$n" 2> "$n.stderr"; echo $? > "$n.rc"; }
sh_() { n=$1; shift; printf '%s\tsh -c %q\n' "$n" "$*" >> MANIFEST; timeout 120 sh -c "$*" > "$n" 2> "$n.stderr"; echo $? > "$n.rc"; }
date -u +%Y-%m-%dT%H:%M:%SZ > DATE
c uname.txt uname -a
c os-release.txt cat /etc/os-release
c hostname.txt hostname
c nvidia-smi.txt nvidia-smi
c nvidia-smi-q.txt nvidia-smi -q
c nvidia-smi-query.csv nvidia-smi --query-gpu=name,driver_version,vbios_version,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv
c topo-m.txt nvidia-smi topo -m
sh_ topo-m-term-dumb.txt 'TERM=dumb nvidia-smi topo -m'
sh_ topo-m-no-term.txt 'env -u TERM nvidia-smi topo -m'
c topo-mp.txt nvidia-smi topo -mp
c nvlink-s.txt nvidia-smi nvlink -s
c nvlink-e.txt nvidia-smi nvlink -e
c nvlink-status.txt nvidia-smi nvlink --status
c lspci-vvv.txt lspci -vvv
c lspci-tv.txt lspci -tv
c lspci-nn.txt lspci -nn
c ibv_devinfo.txt ibv_devinfo
c ibv_devinfo-v.txt ibv_devinfo -v
c ibstat.txt ibstat
c ibdev2netdev.txt ibdev2netdev
c show_gids.txt show_gids
c rdma-link.txt rdma link
sh_ sys-class-infiniband.txt 'ls -la /sys/class/infiniband /sys/class/infiniband_verbs /dev/infiniband'
sh_ which-tools.txt 'for t in ib_write_bw ibv_devinfo ibstat show_gids lspci setpci nvidia-smi python3 mpirun torchrun; do printf "%s " $t; command -v $t || echo MISSING; done'
sh_ ldconfig-nccl.txt 'ldconfig -p | grep -i nccl'
sh_ find-libnccl.txt 'timeout 20 find /usr /opt /root /lib -name "libnccl*" 2>/dev/null'
sh_ torch-nccl.txt 'python3 -c "import torch,sys; print(torch.__version__, torch.version.cuda, torch.__file__); print(torch.cuda.nccl.version()); print(torch.cuda.get_device_name(0))"'
sh_ torch-maps.txt 'python3 -c "
import torch
torch.cuda.init(); torch.cuda.nccl.version()
import torch.cuda.nccl as n
x=torch.ones(4,device=\"cuda\"); n.all_reduce([x])
print(open(\"/proc/self/maps\").read())"'
sh_ pip-nccl.txt 'python3 -m pip show nvidia-nccl-cu13 nvidia-nccl-cu12 torch 2>&1; python3 -c "import nvidia.nccl,os;print(list(nvidia.nccl.__path__))"'
sh_ nccl-1rank.log 'NCCL_DEBUG=INFO python3 -c "
import torch, torch.distributed as d
d.init_process_group(\"nccl\", init_method=\"tcp://127.0.0.1:29511\", rank=0, world_size=1)
x=torch.ones(1024,device=\"cuda\"); d.all_reduce(x); torch.cuda.synchronize(); print(\"sum\", x[0].item()); d.destroy_process_group()" 2>&1'
sh_ nccl-2host-socket-torchrun.log "cd $S && NCCL_DEBUG=INFO MODE=ok timeout 100 torchrun --nproc-per-node 2 --tee 3 --master-port 29521 twohost.py 2>&1"
sh_ nccl-2host-watchdog-timeout.log "cd $S && NCCL_DEBUG=INFO MODE=timeout timeout 100 torchrun --nproc-per-node 2 --tee 3 --master-port 29522 twohost.py 2>&1"
sh_ cuda-attrs.txt 'python3 -c "
import ctypes
c=ctypes.CDLL(\"libcuda.so.1\"); print(\"cuInit\", c.cuInit(0))
v=ctypes.c_int(); c.cuDriverGetVersion(ctypes.byref(v)); print(\"driver_version\", v.value)
for name,a in [(\"GPU_DIRECT_RDMA_SUPPORTED\",116),(\"GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS\",117),(\"GPU_DIRECT_RDMA_WRITES_ORDERING\",118),(\"DMA_BUF_SUPPORTED\",124),(\"GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED\",104)]:
  r=c.cuDeviceGetAttribute(ctypes.byref(v),a,0); print(name,a,r,v.value)"'
sh_ proc-driver-nvidia.txt 'for f in $(find /proc/driver/nvidia -type f 2>/dev/null); do echo "==> $f <=="; timeout 5 cat $f; done'
c proc-modules.txt cat /proc/modules
sh_ sys-module.txt 'ls /sys/module | grep -E "nvidia|peer|ib_|mlx|rdma|dma"; for m in nvidia nvidia_peermem nv_peer_mem; do echo "== $m"; ls /sys/module/$m 2>&1; cat /sys/module/$m/version 2>&1; done'
sh_ modinfo.txt 'modinfo nvidia nvidia_peermem 2>&1 | head -80'
sh_ kernel-config.txt 'ls -la /boot /proc/config.gz 2>&1; (zcat /proc/config.gz 2>/dev/null || cat /boot/config-$(uname -r) 2>/dev/null) | grep -E "DMA_SHARED_BUFFER|DMABUF|P2PDMA|INFINIBAND|IOMMU|PCIEAER|PCIE_DPC|PCI_ATS|PCI_PRI|PCI_PASID"'
c proc-cmdline.txt cat /proc/cmdline
sh_ iommu.txt 'ls -la /sys/class/iommu 2>&1; ls /sys/kernel/iommu_groups 2>&1 | head; for d in /sys/bus/pci/devices/*; do echo "$(basename $d) group=$(basename $(readlink $d/iommu_group 2>/dev/null) 2>/dev/null)"; done; cat /sys/kernel/iommu_groups/*/type 2>&1 | sort | uniq -c'
sh_ dmesg.txt 'dmesg 2>&1 | grep -i -E "iommu|dmar|amd-vi|aer|nvidia|nvrm|pcie|acs|dma" | head -300'
sh_ pci-sysfs.txt 'for d in /sys/bus/pci/devices/*; do echo "== $(basename $d) -> $(readlink -f $d)"; for f in class vendor device subsystem_vendor subsystem_device current_link_speed current_link_width max_link_speed max_link_width numa_node aer_dev_correctable aer_dev_fatal aer_dev_nonfatal aer_rootport_total_err_cor driver_override; do [ -r $d/$f ] && printf "%s: %s\n" $f "$(timeout 2 cat $d/$f 2>&1 | tr "\n" "|")"; done; echo "driver=$(basename $(readlink $d/driver 2>/dev/null) 2>/dev/null)"; done'
sh_ sysfs-tree.txt 'for d in /sys/bus/pci/devices/*; do p=$(readlink -f $d); echo "$p"; ls $p; done'
# A fixture tree of the PCI functions' plain attribute files.
mkdir -p sysfs
for d in /sys/bus/pci/devices/*; do p=$(readlink -f $d); t=sysfs${p#/sys}; mkdir -p $t
 for f in class vendor device subsystem_vendor subsystem_device revision current_link_speed current_link_width max_link_speed max_link_width numa_node aer_dev_correctable aer_dev_fatal aer_dev_nonfatal local_cpulist enable; do [ -r $p/$f ] && timeout 2 cat $p/$f > $t/$f 2>/dev/null; done
 [ -L $p/driver ] && basename $(readlink $p/driver) > $t/driver.name
 [ -L $p/iommu_group ] && basename $(readlink $p/iommu_group) > $t/iommu_group.name
 mkdir -p sysfs/bus/pci/devices; ln -sf ../../..${p#/sys} sysfs/bus/pci/devices/$(basename $d)
done
# fabricctl itself on this host, and on the captures above.
F=$S/fabricctl
sh_ fabricctl-check-local.json "$F check --local -o json"
sh_ fabricctl-check-local.txt "$F check --local"
ls | grep -v -E '\.(stderr|rc)$|^(MANIFEST|DATE|ANALYZED|sysfs|fabricctl-.*)$' > ANALYZED
sh_ fabricctl-analyze.json "$F analyze -o json \$(cat ANALYZED)"
sh_ fabricctl-analyze.txt "$F analyze \$(cat ANALYZED)"
cd $B && tar czf $OUT/h200-capture.tgz h200 && ls -la $OUT
