// Package configfs sets the RDMA connection manager's per-port defaults
// through configfs, below a root that is a parameter (DefaultRoot on a live
// host, a fixture directory in tests):
//
//	cfg := configfs.NewFS(configfs.DefaultRoot)
//	_ = cfg.SetMode(ctx, "mlx5_0", 1, configfs.ModeV2)   // rdma_cm/mlx5_0/ports/1/default_roce_mode
//	_ = cfg.SetToS(ctx, "mlx5_0", 1, 106)                // rdma_cm/mlx5_0/ports/1/default_roce_tos
//
// The kernel shows rdma_cm/<dev>/ only while someone holds the directory:
// every call makes it (mkdir), works in ports/<n>/ and removes it again
// (rmdir); the values stay in the kernel. A directory that already existed
// is used and left alone. mkdir of a device the kernel does not know fails
// with ENODEV (ErrNoDevice). When the root is DefaultRoot and configfs is not
// mounted, Ready mounts it; a missing rdma_cm (module not loaded) is ErrNoRDMACM.
//
// Devices refuse modes they lack with EINVAL (soft-RoCE takes only "RoCE v2").
//
// Tests emulate configfs's mkdir on a plain directory with NewFSWith and a
// DirMaker (hostcfgtest.ConfigFS). An FS is safe for concurrent use; two
// callers on the same device share its directory. Other processes doing the
// same (a second fabricctl: Slurm's health check during a sweep) may remove
// a directory an FS found under it; the call then tries again, up to 20 times.
package configfs
