# fabricctl's NCCL all-reduce sanity test, run by torchrun (python -m
# torch.distributed.run) on every host of `fabricctl check --suite nccl`.
#
# Each rank fills a float32 tensor with rank+1, all-reduces it and checks that
# every element holds 1+2+…+world = world*(world+1)/2, at every size from
# --min-bytes to --max-bytes (doubling); then it times --iters all-reduces of
# a second buffer per size. It prints one JSON object per line, prefixed
# "FABRICCTL-NCCL ", for fabricctl to read: "init" and "done" per rank, "size"
# per size from rank 0 (the slowest rank's time, the wrong elements of all
# ranks), "error" when something raised. NCCL's own INFO log goes where
# NCCL_DEBUG_FILE says.
import argparse
import json
import os
import socket
import sys
import traceback

PREFIX = "FABRICCTL-NCCL "


def emit(**kw):
    print(PREFIX + json.dumps(kw, sort_keys=True), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--min-bytes", type=int, default=8)
    p.add_argument("--max-bytes", type=int, default=1 << 30)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    a = p.parse_args()

    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", "0"))
    host = socket.gethostname()
    try:
        import torch
        import torch.distributed as dist
    except Exception as e:  # no PyTorch for this interpreter
        emit(event="error", rank=rank, stage="import", message="%s: %s" % (type(e).__name__, e))
        return 3

    try:
        torch.cuda.set_device(local)
        dev = torch.device("cuda", local)
        try:
            dist.init_process_group("nccl", device_id=dev)
        except TypeError:  # PyTorch before 2.3 has no device_id
            dist.init_process_group("nccl")
        v = torch.cuda.nccl.version() if hasattr(torch.cuda, "nccl") else ""
        nccl = ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)
        emit(event="init", rank=rank, world=world, local_rank=local, host=host,
             device=torch.cuda.get_device_name(local), torch=torch.__version__, nccl=nccl)

        expected = world * (world + 1) / 2
        size = max(4, a.min_bytes)
        while size <= max(a.max_bytes, 4):
            n = max(1, size // 4)
            x = torch.full((n,), float(rank + 1), dtype=torch.float32, device=dev)
            dist.all_reduce(x)
            torch.cuda.synchronize()
            wrong = int((x != expected).sum().item())
            got = float(x[0].item())
            del x

            y = torch.zeros(n, dtype=torch.float32, device=dev)
            for _ in range(a.warmup):
                dist.all_reduce(y)
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(a.iters):
                dist.all_reduce(y)
            end.record()
            torch.cuda.synchronize()
            us = start.elapsed_time(end) * 1000.0 / max(a.iters, 1)
            del y

            # The slowest rank's time and every rank's wrong elements.
            t = torch.tensor([us], dtype=torch.float64, device=dev)
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            w = torch.tensor([wrong], dtype=torch.int64, device=dev)
            dist.all_reduce(w)
            if rank == 0:
                nbytes = n * 4
                algbw = nbytes / (t.item() * 1e3) if t.item() > 0 else 0.0
                busbw = algbw * 2 * (world - 1) / world
                emit(event="size", bytes=nbytes, count=n, time_us=round(t.item(), 3),
                     algbw=round(algbw, 3), busbw=round(busbw, 3), wrong=int(w.item()),
                     expected=expected, got=got)
            size *= 2
        dist.destroy_process_group()
        emit(event="done", rank=rank)
        return 0
    except Exception as e:
        emit(event="error", rank=rank, stage="run", message="%s: %s" % (type(e).__name__, str(e)[:2000]))
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
