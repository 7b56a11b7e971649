# Two NCCL ranks on one GPU that NCCL takes for two hosts (NCCL_HOSTID differs),
# so the collective runs over the NET transport (sockets: there is no RDMA NIC).
# MODE=ok: two all_reduces. MODE=timeout: rank 1 skips the second one, so rank
# 0's ProcessGroupNCCL watchdog times out.
import datetime, os, sys, time
rank = int(os.environ["RANK"])
os.environ["NCCL_HOSTID"] = "fabricctl-capture-host%d" % rank
import torch, torch.distributed as d
mode = os.environ.get("MODE", "ok")
d.init_process_group("nccl", rank=rank, world_size=int(os.environ["WORLD_SIZE"]),
                     timeout=datetime.timedelta(seconds=10 if mode == "timeout" else 120),
                     device_id=torch.device("cuda:0"))
x = torch.ones(1 << 20, device="cuda:0")
d.all_reduce(x); torch.cuda.synchronize()
print("rank", rank, "first all_reduce sum", x[0].item(), flush=True)
if mode == "timeout" and rank == 1:
    time.sleep(22)
    sys.exit(0)
d.all_reduce(x); torch.cuda.synchronize()
print("rank", rank, "second all_reduce sum", x[0].item(), flush=True)
d.destroy_process_group()
